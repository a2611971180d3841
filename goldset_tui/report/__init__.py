"""The engineer's report: the stratified table, its closure, holes, and how it is written.

From Python: ``report.pipeline.compute_report(qrels, runs, strata, metric=...)`` gives
`goldset report`'s ``Report``; ``pipeline.to_markdown`` and ``to_json`` write it (docs/report.md)."""
