"""goldset_tui: build and judge golden sets for retrieval evaluation.

The core (``io``, ``store``, ``eval``, ``agreement``, ``sampling``) never imports Textual,
so it can be used from a notebook; ``goldset_tui.ui`` holds the thin screens over it.

From a notebook, where to start (docs/notebook.md, and "From Python" in docs/report.md and
docs/agreement.md); each takes paths, Polars or pandas frames and gives the command's numbers:

- ``goldset_tui.eval.evaluate``, ``goldset_tui.eval.mean_scores``: `goldset eval`;
- ``goldset_tui.eval.compare``: `goldset compare` (a ``PairedResult``);
- ``goldset_tui.eval.rrf``, ``goldset_tui.eval.fuse``: `goldset fuse`;
- ``goldset_tui.report.pipeline.compute_report``: `goldset report` (a ``Report``: the table with
  intervals, the headlines and what each estimates, the failing queries, fusion, paired tests);
- ``goldset_tui.agreement.sources.from_qrels``, ``goldset_tui.agreement.sources.from_store`` and
  ``goldset_tui.agreement.report.agreement_report``: `goldset agreement`.
"""

__version__ = "0.1.0"
