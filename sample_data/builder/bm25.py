"""BM25 over the corpus, vectorised with Polars: the lexical retriever of the sample.

Scoring is Lucene's BM25 (the variant Anserini and Pyserini use):

    score(q, d) = sum over distinct query terms t in d of
                  idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avglen))
    idf(t)      = ln(1 + (N - df + 0.5) / (df + 0.5))

with Anserini's defaults k1 = 0.9, b = 0.4. Tokens are lowercase runs of letters and digits (so
``os.path.join`` is ``os path join`` and ``JSONDecodeError`` is one token ``jsondecodeerror``),
minus Lucene's English stopword list, with no stemming. The title is indexed with the text.
"""

from __future__ import annotations

import polars as pl

K1 = 0.9
B = 0.4
TOKEN = r"[a-z0-9]+"
# Lucene's EnglishAnalyzer stopwords. Note that "no" and "not" are among them: BM25 cannot see a
# negation at all, which is one of the things the negation stratum is there to show.
STOPWORDS = sorted(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)


def tokens(texts: pl.Expr) -> pl.Expr:
    return texts.str.to_lowercase().str.extract_all(TOKEN)


def index(corpus: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(postings: term, doc_id, tf, len; stats: term, idf) for a corpus with _id, title, text."""
    words = (
        corpus.select(
            pl.col("_id").alias("doc_id"),
            tokens(pl.col("title") + " " + pl.col("text")).alias("term"),
        )
        .explode("term")
        .filter(pl.col("term").is_not_null() & ~pl.col("term").is_in(STOPWORDS))
    )
    lengths = words.group_by("doc_id").agg(pl.len().alias("len"))
    # Documents made only of stopwords still count in N and in the average length (as 0).
    lengths = (
        corpus.select(pl.col("_id").alias("doc_id"))
        .join(lengths, on="doc_id", how="left")
        .fill_null(0)
    )
    n_docs = lengths.height
    postings = words.group_by("doc_id", "term").agg(pl.len().alias("tf")).join(lengths, on="doc_id")
    stats = (
        postings.group_by("term")
        .agg(pl.len().alias("df"))
        .select(
            "term", ((1 + (n_docs - pl.col("df") + 0.5) / (pl.col("df") + 0.5)).log()).alias("idf")
        )
    )
    avg_len = lengths.get_column("len").mean()
    postings = postings.with_columns((pl.col("len") / avg_len).alias("rel_len"))
    return postings, stats


def search(corpus: pl.DataFrame, topics: pl.DataFrame, depth: int = 100) -> pl.DataFrame:
    """A run frame (query_id, doc_id, score) with at most ``depth`` documents per query."""
    postings, stats = index(corpus)
    terms = (
        topics.select("query_id", tokens(pl.col("query")).alias("term"))
        .explode("term")
        .filter(pl.col("term").is_not_null() & ~pl.col("term").is_in(STOPWORDS))
        .unique()
    )
    tf = pl.col("tf")
    scored = (
        terms.join(stats, on="term")
        .join(postings, on="term")
        .with_columns(
            (pl.col("idf") * tf * (K1 + 1) / (tf + K1 * (1 - B + B * pl.col("rel_len")))).alias(
                "part"
            )
        )
        .group_by("query_id", "doc_id")
        .agg(pl.col("part").sum().alias("score"))
    )
    return top_k(scored, depth)


def top_k(run: pl.DataFrame, depth: int) -> pl.DataFrame:
    """The first ``depth`` documents per query in trec_eval order (score desc, doc_id desc)."""
    return (
        run.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
        .group_by("query_id", maintain_order=True)
        .head(depth)
    )
