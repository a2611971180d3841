"""A query log full of what makes regular-expression engines disagree, shared by the engine
parity tests (DuckDB, Spark), and the run of `goldset sample` both compare against."""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl

from goldset_tui.cli import main
from goldset_tui.sampling.sample import add_probabilities
from goldset_tui.sampling.warehouse import bundle_paths

# Pieces chosen for the rules: identifiers, negations with punctuation, title-cased entities;
# then Unicode where engines differ: decomposed accents, Roman numerals, titlecase digraphs,
# superscript and non-ASCII digits, circled and fullwidth letters, joiners, letters outside the
# Basic Multilingual Plane, modifier letters, marks, and every kind of space.
WORDS = [
    "how",
    "do",
    "i",
    "rotate",
    "an",
    "api",
    "key",
    "not,",
    "without",
    "paginaton?",
    "Stripe",
    "Salesforce",
    "Sync",
    "ERR_4021",
    "user_id",
    "getUserById",
    "/v2/",
    "e\u0301_x",
    "\u00b2_x",
    "\u216b",
    "\u216bI",
    "\u01c5emal",
    "\u01c4",
    "x\u00b2y",
    "\u0663_\u0664",
    "\u2460_a",
    "\u24b6bc",
    "\u24d0",
    "\uff21\uff22_1",
    "\uff41\uff42",
    "a\u200db",
    "a\u200c_b",
    "\U0001d400bc",
    "\U00010400\U00010428",
    "\U00010428",
    "caf\u00e9",
    "CAF\u00c9",
    "na\u00efve",
    "\u00c9cole",
    "\u0391\u03b8\u03ae\u03bd\u03b1",
    "\u10fc",
    "\ua7f2x",
    "\u02b0",
    "\u0e01\u0e32\u0e23",
    "\u6f22\u5b57",
    "\u0928\u0939\u0940\u0902",
    "\U0001f600",
    "Mc\u0301Donald",
    "O'Neil",
    "(Paris)",
    "[API]",
    "v\u00b9",
    "/v\u0663/",
    "AB_\u0663",
    "\u1e9e",
    "\u00df",
    "I",
    "NOT",
    "Cannot",
    "Berlin",
    "\u01c8ubljana",
]
SPACES = [" ", "  ", "\u3000", "\u00a0", "\u2028", "\u001c", "\t", " \u2003 ", "\u0085"]


def exotic_log(path: Path, lines: int = 3000, seed: int = 4, kinds: int = 700) -> list[str]:
    """A text log of ``lines`` queries (head repeated, case variants), written to ``path``."""
    rng = random.Random(seed)
    distinct = []
    for _ in range(kinds):
        n = rng.randint(1, 6)
        parts = [rng.choice(WORDS) for _ in range(n)]
        text = parts[0]
        for part in parts[1:]:
            text += rng.choice(SPACES) + part
        distinct.append(rng.choice(["", " ", "\u00a0"]) + text + rng.choice(["", " ", "\t"]))
    out = []
    for i in range(lines):
        q = (
            distinct[min(int(rng.paretovariate(0.9)) - 1, len(distinct) - 1)]
            if i % 3
            else (distinct[i % len(distinct)])
        )
        out.append(q.upper() if rng.random() < 0.05 else q)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return out


# Most plain words are known, so every stratum has queries; "paginaton" and a few others are not.
VOCAB = [
    "how",
    "do",
    "i",
    "rotate",
    "an",
    "api",
    "key",
    "not",
    "without",
    "stripe",
    "salesforce",
    "sync",
    "caf\u00e9",
    "berlin",
    "na\u00efve",
    "\u00e9cole",
    "o'neil",
    "paris",
    "cannot",
    "\u03b1\u03b8\u03ae\u03bd\u03b1",
    "\u00df",
    "\u01c6emal",
    "ljubljana",
    "\u01c9ubljana",
]
TARGETS = {
    "exact_identifier": 40,
    "negation": 25,
    "misspelled": 30,
    "short_keyword": 35,
    "multi_entity": 20,
    "paraphrase": 30,
}


def targets_arg(targets: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in targets.items())


def local_and_sql(
    tmp_path: Path, dialect: str, targets: dict[str, int], seed: int = 11, kinds: int = 700
) -> dict:
    """`goldset sample --log` on the log, and the SQL bundle for the same draw."""
    log = tmp_path / "log.txt"
    lines = exotic_log(log, kinds=kinds)
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    local = tmp_path / "local.csv"
    common = ["--seed", str(seed), "--targets", targets_arg(targets), "--vocab", str(vocab)]
    assert main(["sample", str(log), "--log", "-o", str(local), *common]) == 0
    sql = tmp_path / f"{dialect}.sql"
    assert (
        main(["sample", "--emit-sql", dialect, "--table", "query_log", "-o", str(sql), *common])
        == 0
    )
    # The warehouse's copy of the log: one row per line, as a loader would make it.
    table = tmp_path / "log.parquet"
    pl.DataFrame({"query": lines}, schema={"query": pl.String}).write_parquet(table)
    return {
        "local": local,
        "bundle": bundle_paths(sql),
        "table": table,
        "targets": targets,
        "log": log,
        "vocab": vocab,
    }


def finish(rows: pl.DataFrame, weights: pl.DataFrame, targets: dict[str, int], out: Path) -> bytes:
    """The warehouse's two results made into a SAMPLE file, written as goldset writes one."""
    from goldset_tui.sampling.files import write_frame

    rows = rows.with_columns(pl.col("count").cast(pl.Int64))
    weights = weights.with_columns(pl.col("weight", "queries").cast(pl.Int64))
    write_frame(add_probabilities(rows, weights, targets, 50), out)
    return out.read_bytes()
