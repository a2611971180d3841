"""A small planted set for the review's holes: six queries, two runs (lex, vec), top 3.

- g1: lex finds the relevant d04 at rank 1, vec misses it (one system gets it, the other not);
- g2: both find it; lex scores d01 and d02 alike (a tie, broken by doc_id descending);
- g3: d06 is relevant and in both top 3s;
- g4: both miss, and no run retrieved the relevant d20;
- g5: judged by alice only (bob never looked at it);
- g6: a disagreement: alice grades d40 relevant, bob not.

``qrels_with_holes`` removes the grades of g1/d04 and g3/d06: both queries then have no relevant
document left, while each has an unjudged document in a top 3 (the holes a review must show).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

K = 3
METRIC = f"Success@{K}"
QUERIES = ["g1", "g2", "g3", "g4", "g5", "g6"]
STRATA = {"g1": "ident", "g2": "ident", "g3": "ident", "g4": "para", "g5": "para", "g6": "para"}
# Ranked lists (scores fall by rank, except lex's tie on g2).
RUNS = {
    "lex": {
        "g1": ["d04", "d05", "d07"],
        "g2": ["d02", "d01", "d03"],
        "g3": ["d11", "d12", "d06"],
        "g4": ["d21", "d22", "d23"],
        "g5": ["d30", "d31", "d32"],
        "g6": ["d40", "d41", "d42"],
    },
    "vec": {
        "g1": ["d05", "d07", "d08"],
        "g2": ["d02", "d01", "d09"],
        "g3": ["d13", "d06", "d11"],
        "g4": ["d22", "d24", "d21"],
        "g5": ["d31", "d30", "d33"],
        "g6": ["d41", "d42", "d40"],
    },
}
ALICE = {
    ("g1", "d04"): 1,
    ("g1", "d05"): 0,
    ("g1", "d07"): 0,
    ("g1", "d08"): 0,
    ("g2", "d01"): 2,
    ("g2", "d02"): 1,
    ("g2", "d03"): 0,
    ("g2", "d09"): 0,
    ("g3", "d06"): 1,
    ("g3", "d11"): 0,
    ("g3", "d12"): 0,
    ("g3", "d13"): 0,
    ("g4", "d20"): 1,
    ("g4", "d21"): 0,
    ("g4", "d22"): 0,
    ("g4", "d23"): 0,
    ("g4", "d24"): 0,
    ("g5", "d30"): 1,
    ("g5", "d31"): 0,
    ("g5", "d32"): 0,
    ("g5", "d33"): 0,
    ("g6", "d40"): 1,
    ("g6", "d41"): 0,
    ("g6", "d42"): 0,
}
HOLES = [("g1", "d04"), ("g3", "d06")]
# Bob judged everything alice did but g5, and disagrees on g6/d40.
BOB = {p: (0 if p == ("g6", "d40") else g) for p, g in ALICE.items() if p[0] != "g5"}


def qrels_frame(grades: dict[tuple[str, str], int]) -> pl.DataFrame:
    return pl.DataFrame(
        [(q, d, g) for (q, d), g in grades.items()],
        schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "grade": pl.Int64},
        orient="row",
    )


def qrels_with_holes() -> pl.DataFrame:
    return qrels_frame({p: g for p, g in ALICE.items() if p not in HOLES})


def run_frame(name: str) -> pl.DataFrame:
    rows = []
    for q, docs in RUNS[name].items():
        for rank, d in enumerate(docs, start=1):
            tie = name == "lex" and q == "g2" and rank <= 2
            rows.append((q, d, 10.0 if tie else 10.0 - rank, rank))
    return pl.DataFrame(
        rows,
        schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "score": pl.Float64, "rank": pl.Int64},
        orient="row",
    )


def strata_frame() -> pl.DataFrame:
    return pl.DataFrame({"query_id": QUERIES, "stratum": [STRATA[q] for q in QUERIES]})


def write_files(folder: Path) -> dict[str, Path]:
    """qrels (with the holes), both runs, strata, topics and corpus as files `goldset review`
    reads; the runs' tie on g2 is written as equal scores."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"qrels": folder / "holes.qrels", "strata": folder / "strata.csv"}
    paths["qrels"].write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels_with_holes().iter_rows())
    )
    strata_frame().write_csv(paths["strata"])
    for name in RUNS:
        p = folder / f"{name}.run"
        p.write_text(
            "".join(f"{q} Q0 {d} {r} {s} {name}\n" for q, d, s, r in run_frame(name).iter_rows())
        )
        paths[name] = p
    docs = sorted({d for runs in RUNS.values() for ds in runs.values() for d in ds} | {"d20"})
    paths["topics"] = folder / "topics.tsv"
    paths["topics"].write_text("".join(f"{q}\tquestion {q}\n" for q in QUERIES))
    paths["corpus"] = folder / "corpus.jsonl"
    paths["corpus"].write_text(
        "".join(f'{{"_id": "{d}", "title": "T {d}", "text": "text of {d}"}}\n' for d in docs)
    )
    return paths


def review_context(qrels: Path | str, *options: str, runs: dict[str, Path] | None = None):
    """`goldset review`'s context for ``qrels`` and ``runs`` (NAME: path; default none) at
    ``METRIC``, with further command-line ``options`` (``--strata``, ``--topics``, ``-o``...)."""
    import argparse

    from goldset_tui.commands.review import add_arguments, build_context

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    argv = ["--qrels", str(qrels), *options, "--measure", METRIC]
    for name, path in (runs or {}).items():
        argv += ["--run", f"{name}={path}"]
    return build_context(parser.parse_args(argv))


def both_runs(paths: dict[str, Path]) -> dict[str, Path]:
    """The two planted runs, as `review_context` takes them."""
    return {name: paths[name] for name in RUNS}


def pool_file(path: Path) -> Path:
    """A pool (JSON lines) recording each document's systems and ranks, with stratum and texts:
    what `goldset review --store DIR` rebuilds the runs and strata from."""
    import json

    where: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for name, runs in RUNS.items():
        for q, docs in runs.items():
            for rank, d in enumerate(docs, start=1):
                where.setdefault((q, d), []).append((name, rank))
    lines = []
    for (q, d), hits in sorted(where.items()):
        lines.append(
            json.dumps(
                {
                    "query_id": q,
                    "query": f"question {q}",
                    "doc_id": d,
                    "text": f"text of {d}",
                    "title": f"T {d}",
                    "stratum": STRATA[q],
                    "systems": [s for s, _ in hits],
                    "ranks": [r for _, r in hits],
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def make_store(folder: Path, *, with_bob: bool = True, alice_holes: bool = False) -> Path:
    """A store on the planted pool with alice's grades (all, or with the holes) and bob's."""
    from goldset_tui.store.files import sha256_file
    from goldset_tui.store.project import Project

    folder.mkdir(parents=True, exist_ok=True)
    pool = pool_file(folder / "pool.jsonl")
    project = Project.create(folder / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    alice = qrels_with_holes() if alice_holes else qrels_frame(ALICE)
    project.import_prior(alice, labeller="alice")
    if with_bob:
        project.import_prior(qrels_frame(BOB), labeller="bob")
    return folder / "store"
