"""The decisions a stratified table supports (docs/report.md, "Decisions: route, fuse or keep
both"): route by query shape, fuse, or keep one system, and how far the traffic may move before
the answer changes.

- ``routing``: which system serves each stratum (a rule per stratum, a default, or the best per
  stratum) and the routed run's per-query scores; the oracle's per-query scores;
- ``router_error``: the router's precision per stratum (from a spot-check's confusion or given)
  and what its misfiled queries cost: per route and overall, with intervals;
- ``block``: every option side by side (each system, fused, routed, routed with the router's
  errors, the oracle), per stratum and overall, in points and in queries;
- ``sensitivity``: how far one stratum's traffic share must move to reverse a comparison, and the
  comparison under another log's shares;
- ``text``: the block as short plain lines for the terminal and the report screen.

Pure functions over the report's per-query score frame (``system, query_id, value``), the strata
(``query_id, stratum``) and the traffic shares (``stratum, share``); no Textual, no argparse.
"""
