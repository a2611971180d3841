"""Near-duplicate candidates within one query's pool.

The pitfall (docs/background.md#near-duplicates): a pool often holds the same passage twice (a
page and its mirror, a chunk that overlaps its neighbour), and a labeller who grades the copies
differently makes the set disagree with itself. Candidates are grouped when their normalised texts
are equal, or when the Jaccard similarity of their word 5-gram shingles is at least ``THRESHOLD``
(0.9; the usual suggestion is cosine > 0.95 on embeddings, which we cannot compute without a
model - shingle Jaccard is the classic model-free stand-in, Broder 1997).

One query holds tens of candidates, so all pairs are compared at once with a Polars self-join on
shingle hashes (intersection sizes for every pair that shares anything); very long texts are
shingled by mod-sampling (keep the shingles whose hash is 0 mod M), an unbiased estimate of the
same Jaccard that keeps a 1 MB document cheap (shingled and hashed in Polars, off the interpreter).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence

import polars as pl

THRESHOLD = 0.9
SHINGLE_WORDS = 5
# Above this many words, keep one shingle in SAMPLE_MOD (by hash) to bound the work.
SAMPLE_ABOVE_WORDS = 5_000
SAMPLE_MOD = 16


def normalise(texts: Sequence[str | None]) -> list[str]:
    """Casefolded words joined by single spaces: punctuation and layout do not count."""
    series = pl.Series("t", [t or "" for t in texts], dtype=pl.String)
    out = series.str.to_lowercase().str.replace_all(r"[^\p{L}\p{N}]+", " ").str.strip_chars()
    return out.to_list()


# Two texts reach a Jaccard of 0.9 only when their shingle counts are within 10% of each other:
# when a query holds a text long enough to be sampled, every text longer than this share of the
# limit is sampled too, with the same hash, so that a 5,001-word text and its 4,999-word copy
# still meet (a sampled set against a whole one is a sixteenth of its size, never similar).
SAMPLE_NEIGHBOURS = 0.85


def words_in(normalised: str) -> int:
    return normalised.count(" ") + 1 if normalised else 0


def shingles(normalised: str, sample: bool | None = None) -> set[int]:
    """The text's shingle hashes: all of them, or one in ``SAMPLE_MOD`` when ``sample`` (by
    default, when the text alone is longer than ``SAMPLE_ABOVE_WORDS`` words)."""
    if not normalised:
        return set()
    if sample is None:
        sample = words_in(normalised) > SAMPLE_ABOVE_WORDS
    if sample:
        return _sampled_shingles(normalised)
    words = normalised.split(" ")
    if len(words) < SHINGLE_WORDS:
        return {zlib.crc32(normalised.encode())}
    grams = (" ".join(words[i : i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1))
    return {zlib.crc32(g.encode()) for g in grams}


def _sampled_shingles(normalised: str) -> set[int]:
    """A long text's shingles, one in ``SAMPLE_MOD``, kept by their hash. Hashed in Polars, not
    with crc32 in Python: a megabyte's 200,000 shingles cost 65 ms of CPU there, holding the
    interpreter (the worker that loads the next query ahead kept the labeller's keys waiting that
    long), and 18 ms here, with the interpreter free. Another hash keeps another sample, an
    estimate of the same Jaccard; a sampled text is only ever compared with another
    sampled one (``SAMPLE_NEIGHBOURS``)."""
    words = pl.Series("w", [normalised]).str.split(" ").explode()
    grams = words.len() - SHINGLE_WORDS + 1
    hashed = (
        words.to_frame()
        .select(
            pl.concat_str([pl.col("w").shift(-k) for k in range(SHINGLE_WORDS)], separator=" ")
            .head(grams)
            .hash(_SAMPLE_SEED)
        )
        .to_series()
    )
    kept = hashed.filter(hashed % SAMPLE_MOD == 0).cast(pl.UInt32, wrap_numerical=True)
    return set(kept.unique().to_list())


_SAMPLE_SEED = 5  # fixed, so a text's sample is the same from one call to the next


def similar_pairs(sets: Sequence[set[int]], threshold: float = THRESHOLD) -> list[tuple[int, int]]:
    """Index pairs (i < j) whose Jaccard similarity is at least ``threshold``.

    Vectorised: one row per (text, shingle), a self-join on the shingle counts every pair's
    intersection at once (only pairs sharing a shingle meet), and |A u B| = |A| + |B| - |A n B|.
    """
    rows = pl.DataFrame(
        {
            "doc": [i for i, s in enumerate(sets) for _ in s],
            "h": [h for s in sets for h in s],
        },
        schema={"doc": pl.Int32, "h": pl.UInt32},
    )
    sizes = pl.DataFrame(
        {"doc": list(range(len(sets))), "n": [len(s) for s in sets]},
        schema={"doc": pl.Int32, "n": pl.Int64},
    )
    pairs = (
        rows.join(rows, on="h", suffix="_b")
        .filter(pl.col("doc") < pl.col("doc_b"))
        .group_by("doc", "doc_b")
        .agg(pl.len().alias("both"))
        .join(sizes, on="doc")
        .join(sizes.rename({"doc": "doc_b", "n": "n_b"}), on="doc_b")
        .filter(pl.col("both") >= threshold * (pl.col("n") + pl.col("n_b") - pl.col("both")))
        .sort("doc", "doc_b")
    )
    return list(zip(pairs["doc"].to_list(), pairs["doc_b"].to_list(), strict=True))


def groups(
    texts: Sequence[str | None],
    threshold: float = THRESHOLD,
    *,
    between: Callable[[], object] | None = None,
) -> list[int]:
    """A group label per text: texts with the same label are (near-)duplicates of each other.

    Labels are the index of the group's first member, so a text alone in its group has its own
    index. Grouping is transitive (union-find), as a labeller would expect of "the same text".
    ``between`` is called after each text is shingled (the part that runs in Python): a caller in
    a worker thread passes ``time.sleep(0)`` there, which hands the interpreter to a waiting
    thread at once instead of after the interpreter's switch interval (5 ms).
    """
    norm = normalise(texts)
    parent = list(range(len(norm)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)

    first_of: dict[str, int] = {}
    for i, t in enumerate(norm):
        if t in first_of:
            union(first_of[t], i)
        else:
            first_of[t] = i
    # Only distinct texts need the shingle comparison.
    distinct = sorted(first_of.values())
    counts = [words_in(norm[i]) for i in distinct]
    cutoff = (
        SAMPLE_NEIGHBOURS * SAMPLE_ABOVE_WORDS
        if any(c > SAMPLE_ABOVE_WORDS for c in counts)
        else float("inf")
    )
    sets = []
    for i, count in zip(distinct, counts, strict=True):
        sets.append(shingles(norm[i], sample=count > cutoff))
        if between is not None:
            between()
    for i, j in similar_pairs(sets, threshold):
        union(distinct[i], distinct[j])
    return [find(i) for i in range(len(norm))]
