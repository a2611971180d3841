"""A small store with three labellers who disagree, for trying the agreement and adjudication
screens (and for the tests): 3 queries in 2 strata, 12 pairs, every disagreement size from 1 to 3.

    from goldset_tui.agreement.example import build_example_store
    store = build_example_store("/tmp/agreement-demo")
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from goldset_tui.io.pools import load_pool
from goldset_tui.judging import blind_order
from goldset_tui.model import Judgment
from goldset_tui.store.files import atomic_write
from goldset_tui.store.project import Project

QUERIES = {
    "q1": ("how do i rotate an api key", "howto"),
    "q2": ("reset password [b]link[/b]", "howto"),
    "q3": ("ERR_CONN_RESET", "error"),
}
DOCS = {
    "q1": [
        "api-keys/rotation",
        "security/credential-rotation-policy",
        "sdk/auth#refreshing-keys",
        "billing/invoices",
    ],
    "q2": ["account/password-reset", "account/sso", "sdk/auth#login", "status/incidents"],
    "q3": ["errors/conn-reset", "network/proxies", "sdk/retries", "changelog/2024"],
}
# Grades per labeller, in the order of DOCS: ann, bob, cy (cy skipped two pairs: missing data).
GRADES: dict[str, dict[str, list[int | None]]] = {
    "ann": {"q1": [3, 2, 2, 0], "q2": [3, 1, 0, 0], "q3": [3, 1, 2, 0]},
    "bob": {"q1": [3, 1, 0, 0], "q2": [2, 1, 0, 1], "q3": [0, 1, 2, 0]},
    "cy": {"q1": [3, 2, 1, None], "q2": [3, 0, None, 0], "q3": [1, 1, 2, 0]},
}
# With ``runs=True``: two systems' ranks in the pool (``goldset review --store`` and the jumps to
# the top k view rebuild the runs from them). bm25's top k of q3 holds the most disputed pair
# beside nothing relevant, so deciding that pair decides whether bm25 fails q3; dense has
# sdk/retries (relevant to everyone) above it and passes either way.
RANKS: dict[tuple[str, str], dict[str, int]] = {
    ("q1", "sdk/auth#refreshing-keys"): {"bm25": 1, "dense": 2},
    ("q1", "billing/invoices"): {"bm25": 2},
    ("q1", "api-keys/rotation"): {"dense": 1},
    ("q2", "account/password-reset"): {"bm25": 1},
    ("q2", "account/sso"): {"dense": 1},
    ("q3", "errors/conn-reset"): {"bm25": 1, "dense": 2},
    ("q3", "changelog/2024"): {"bm25": 2},
    ("q3", "sdk/retries"): {"dense": 1},
}
NOTES = {
    ("bob", "q3", "errors/conn-reset"): "page is about the \x1b[31mproxy\x1b[0m error, not this one"
}


def example_pool_frame(*, runs: bool = False) -> pl.DataFrame:
    rows = []
    for qid, docs in DOCS.items():
        query, stratum = QUERIES[qid]
        for doc in docs:
            text = f"{doc}: how the product handles {query}. [@click=app.quit]not a link[/]"
            rows.append((qid, query, doc, text, doc.split("/")[-1], stratum))
    frame = pl.DataFrame(
        rows, schema=["query_id", "query", "doc_id", "text", "title", "stratum"], orient="row"
    )
    if runs:  # CSV holds a list as "a;b"
        ranked = [RANKS.get((q, d), {}) for q, d in frame.select("query_id", "doc_id").rows()]
        frame = frame.with_columns(
            systems=pl.Series([";".join(r) or None for r in ranked], dtype=pl.Utf8),
            ranks=pl.Series([";".join(map(str, r.values())) or None for r in ranked]),
        )
    return frame


def build_example_store(folder: str | Path, *, runs: bool = False) -> Path:
    """Write ``folder/pool.csv`` and a store at ``folder/store``; returns the store path.
    ``runs``: the pool records two systems' ranks (``RANKS``)."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    pool_path = root / "pool.csv"
    atomic_write(pool_path, lambda tmp: example_pool_frame(runs=runs).write_csv(tmp))
    pool = load_pool(pool_path)
    project = Project.create(root / "store", pool_path=pool_path, pool_sha256=pool.sha256)
    for labeller, per_query in GRADES.items():
        with project.writer(labeller) as writer:
            minute = 0
            for qid, grades in per_query.items():
                # In the order the judging screen shows this labeller, as a real store records it.
                for position, i in enumerate(blind_order(labeller, qid, DOCS[qid])):
                    if grades[i] is None:
                        continue
                    writer.record(
                        Judgment(
                            labeller=labeller,
                            query_id=qid,
                            doc_id=DOCS[qid][i],
                            grade=grades[i],
                            time=f"2026-01-05T09:{minute:02d}:00Z",
                            seconds=5.0 + minute,
                            position=position,
                            note=NOTES.get((labeller, qid, DOCS[qid][i])),
                        )
                    )
                    minute += 1
    return project.path
