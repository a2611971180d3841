"""ILLUSTRATIVE judgments for two made-up labellers, alice and bob. Nobody judged these.

They exist so that the agreement and report screens have something to show before anyone has
judged the sample. They are derived transparently, and a reader should treat them as a fixture:

- alice's grade comes from term overlap between the query and the passage (title + text), with the
  same tokens and stopwords as the BM25 run: the share of the query's distinct terms found, plus a
  bonus when a query term names the passage's object (its title). 0 below a third, 1 from a third,
  2 from two thirds, 3 when every term is found and the title matches.
- bob starts from alice's grade and disagrees in a seeded, lopsided way that agreement statistics
  should pick up: he is lenient between 0 and 1 (a 0 becomes 1 one time in six), stricter at the
  top (a 3 becomes 2 one time in four), and otherwise moves one grade either way one time in ten.
  He skipped every tenth query (q10, q20, q30, q40), so some units have one labeller only.

Because the grades follow term overlap, they favour the lexical run: do not read any comparison of
bm25 and minilm on these qrels as a finding.
"""

from __future__ import annotations

import random

import polars as pl

from builder.bm25 import STOPWORDS, tokens

SEED = 4021
BOB_SKIPS_EVERY = 10  # every tenth query, so the skipped ones fall in different strata


def alice(pool: pl.DataFrame) -> pl.DataFrame:
    """query_id, doc_id, grade from term overlap (see the module docstring)."""
    q_terms = pool.select(
        "query_id",
        "doc_id",
        tokens(pl.col("query")).list.set_difference(pl.lit(STOPWORDS)).list.unique().alias("q"),
        tokens(pl.col("title").fill_null("") + " " + pl.col("text")).list.unique().alias("d"),
        tokens(pl.col("title").fill_null("")).alias("t"),
    )
    scored = q_terms.with_columns(
        (
            pl.col("q").list.set_intersection("d").list.len()
            / pl.col("q").list.len().clip(lower_bound=1)
        ).alias("overlap"),
        (pl.col("q").list.set_intersection(pl.col("t").list.slice(1)).list.len() > 0).alias(
            "names_it"
        ),
    )
    grade = (
        pl.when((pl.col("overlap") >= 0.999) & pl.col("names_it"))
        .then(3)
        .when(pl.col("overlap") >= 2 / 3)
        .then(2)
        .when(pl.col("overlap") >= 1 / 3)
        .then(1)
        .otherwise(0)
    )
    return scored.select("query_id", "doc_id", grade.cast(pl.Int64).alias("grade")).sort(
        "query_id", "doc_id"
    )


def bob(alice_qrels: pl.DataFrame) -> pl.DataFrame:
    rng = random.Random(SEED)
    queries = alice_qrels.get_column("query_id").unique().sort().to_list()
    skipped = queries[BOB_SKIPS_EVERY - 1 :: BOB_SKIPS_EVERY]
    kept = alice_qrels.filter(~pl.col("query_id").is_in(skipped))
    grades = []
    for g in kept.get_column("grade").to_list():  # ~1,000 pairs, once, at build time
        r = rng.random()
        if g == 0 and r < 1 / 6:
            g = 1
        elif g == 3 and r < 1 / 4:
            g = 2
        elif r < 0.10:
            g = min(3, max(0, g + rng.choice((-1, 1))))
        grades.append(g)
    return kept.with_columns(pl.Series("grade", grades, dtype=pl.Int64))


def write_qrels(qrels: pl.DataFrame, path) -> None:
    lines = (
        qrels.sort("query_id", "doc_id")
        .select(pl.format("{} 0 {} {}", "query_id", "doc_id", "grade"))
        .to_series()
    )
    path.write_text("\n".join(lines.to_list()) + "\n", encoding="utf-8")
