"""Traffic that moves and the queries nobody types (docs/drift.md): the quarterly re-check of
stratum shares (``shares``), the headline reweighted under the new shares and the decisions that
flip (``headline``), the plan re-run under them (``replan``), the strata definition recorded with
a release (``definition``), and zero-click queries per stratum with candidate new strata
(``zero_click``, ``clusters``). Pure Python and Polars; no Textual."""
