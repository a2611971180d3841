"""Synthetic queries held against real ones: generated queries tend to reuse the document's
words, so they are easier than what users type and inflate scores; compare their distributions
with real ones (docs/background.md#synthetic-queries).

Both sides are read as query logs (``sampling.normalise``: a ``query`` column with an optional
``count``, or one query a line) and weighted by occurrences, so the real side is its traffic.
Five features, each side by side with a divergence and a verdict:

- the stratum mix (the query-shape rules, ``sampling.rules``);
- the length in tokens (whitespace-separated), binned 1, 2, 3, 4, 5, 6-8, 9+;
- the share of a query's words found in the corpus vocabulary (with a vocabulary), binned in
  fifths: queries written from the documents reuse their words;
- the identifier rate and the negation rate (a query holds an identifier / a negation word, by
  the same rules' patterns).

Each feature is judged by ``sampling.shape_tests``: the largest one-bin-against-the-rest odds
ratio (the effect) and a chi-square test of homogeneity on the bins at each side's
occurrences; one rule for two bins and for seven, so a doubled rate is never "alike". The
Jensen-Shannon divergence in bits is still reported (0: the same distribution, 1: disjoint) but
decides nothing: one threshold on it called 10% against 20% alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.sampling.normalise import count_distinct
from goldset_tui.sampling.rules import (
    EDGE_PUNCTUATION,
    IDENT_POLARS,
    NEGATION,
    STRATA,
    classify_frame,
)
from goldset_tui.sampling.shape_tests import (
    A_LOT,
    MAY_DIFFER,
    SOMEWHAT,
    effect,
    shape_verdict,
)
from goldset_tui.scalar import as_float

SHARE_BINS = ("0-20%", "20-40%", "40-60%", "60-80%", "80-100%")


def js_divergence(p: Mapping[str, float], q: Mapping[str, float]) -> float:
    """Jensen-Shannon divergence (base 2) of two distributions given as weights by key (they are
    normalised here); 0 for two empty sides."""
    keys = set(p) | set(q)
    sp, sq = sum(p.values()), sum(q.values())
    if sp <= 0 or sq <= 0:
        return math.nan
    out = 0.0
    for key in sorted(keys):  # a set's order follows the hash seed; a sum's last digit, the order
        a, b = p.get(key, 0.0) / sp, q.get(key, 0.0) / sq
        m = (a + b) / 2
        if a > 0:
            out += 0.5 * a * math.log2(a / m)
        if b > 0:
            out += 0.5 * b * math.log2(b / m)
    return max(0.0, out)


def features(queries: pl.DataFrame, vocab: frozenset[str] | None) -> pl.DataFrame:
    """Per distinct query (``query, count, spelling``): stratum, tokens, length bin, identifier,
    negation, and the share of its words in ``vocab`` (null without one) with its bin."""
    spelling = queries.get_column("spelling")
    frame = queries.with_columns(
        classify_frame(spelling, vocab).alias("stratum"),
        pl.col("spelling").str.split(" ").list.len().alias("tokens"),
        pl.col("spelling").str.contains(IDENT_POLARS).alias("identifier"),
    )
    words = pl.col("query").str.split(" ").list.eval(pl.element().str.strip_chars(EDGE_PUNCTUATION))
    frame = frame.with_columns(
        words.list.eval(pl.element().is_in(list(NEGATION))).list.any().alias("negation")
    )
    if vocab is not None:
        vocab_series = pl.Series(sorted(vocab), dtype=pl.Utf8).implode()
        letters = pl.col("query").str.extract_all(r"\p{L}+")
        # A query without a word ("404", "!!!") has no share: null, left out, rather than 0/0.
        frame = frame.with_columns(
            pl.when(letters.list.len() > 0)
            .then(
                letters.list.eval(pl.element().is_in(vocab_series)).list.sum() / letters.list.len()
            )
            .otherwise(None)
            .alias("in_vocab")
        )
    else:
        frame = frame.with_columns(pl.lit(None, pl.Float64).alias("in_vocab"))
    length_bin = (
        pl.when(pl.col("tokens") <= 5)
        .then(pl.col("tokens").cast(pl.Utf8))
        .when(pl.col("tokens") <= 8)
        .then(pl.lit("6-8"))
        .otherwise(pl.lit("9+"))
    )
    share_bin = pl.col("in_vocab").mul(5).floor().clip(0, 4).cast(pl.Int64)
    return frame.with_columns(
        length_bin.alias("length_bin"),
        pl.when(pl.col("in_vocab").is_null())
        .then(None)
        .otherwise(share_bin.replace_strict(dict(enumerate(SHARE_BINS)), return_dtype=pl.Utf8))
        .alias("share_bin"),
    )


def weights(frame: pl.DataFrame, column: str) -> dict[str, float]:
    """Occurrences per value of ``column`` (nulls left out); a yes/no column's keys are
    ``yes`` and ``no``."""
    grouped = frame.filter(pl.col(column).is_not_null()).group_by(column).agg(pl.col("count").sum())
    named = {True: "yes", False: "no"}
    return {named[k] if isinstance(k, bool) else str(k): float(v) for k, v in grouped.iter_rows()}


def searches(frame: pl.DataFrame, column: str) -> float:
    """The occurrences behind the mix of ``column`` (queries where it is null left out)."""
    return as_float(frame.filter(pl.col(column).is_not_null()).get_column("count").sum())


def weighted_mean(frame: pl.DataFrame, column: str) -> float:
    kept = frame.filter(pl.col(column).is_not_null())
    total = float(kept.get_column("count").sum())
    if total == 0:
        return math.nan
    value = kept.select((pl.col(column).cast(pl.Float64) * pl.col("count")).sum()).item()
    return float(value) / total


@dataclass(frozen=True)
class Row:
    """One feature side by side: what each side shows, the effect (largest odds ratio, with the
    bin it is in; None for a yes/no rate), the chi-square test's p-value at ``df`` degrees of
    freedom on the two sides' occurrences (``sizes``), and the Jensen-Shannon divergence for
    reference."""

    feature: str
    real: str
    synthetic: str
    divergence: float
    odds_ratio: float = math.nan
    bin: str | None = None
    p_value: float = math.nan
    df: int = 0
    sizes: tuple[float, float] = (math.nan, math.nan)

    @property
    def verdict(self) -> str:
        return shape_verdict(self.odds_ratio, self.p_value)

    def effect_text(self) -> str:
        if math.isnan(self.odds_ratio):
            return "-"
        ratio = "inf" if math.isinf(self.odds_ratio) else f"{self.odds_ratio:.2f}"
        return ratio + (f" ({self.bin})" if self.bin else "")

    def to_dict(self) -> dict[str, Any]:
        def number(x: float) -> float | None:
            return None if math.isnan(x) else x

        return {
            "feature": self.feature,
            "real": self.real,
            "synthetic": self.synthetic,
            "odds_ratio": None if math.isinf(self.odds_ratio) else number(self.odds_ratio),
            "one_sided": math.isinf(self.odds_ratio),
            "bin": self.bin,
            "test": f"chi-square, {self.df} df" if self.df else None,
            "p_value": number(self.p_value),
            "searches": [number(x) for x in self.sizes],
            "divergence": number(self.divergence),
            "verdict": self.verdict,
        }


def judged(
    feature: str,
    real: str,
    synthetic: str,
    mixes: tuple[Mapping[str, float], Mapping[str, float]],
    sizes: tuple[float, float],
    *,
    binary: bool = False,
) -> Row:
    """A row judged by ``shape_tests``: ``mixes`` are the two sides' weights by bin, ``sizes``
    their occurrences; ``binary``: a yes/no rate (the bin goes unnamed)."""
    wa, wb = mixes
    divergence = js_divergence(wa, wb)
    if math.isnan(divergence):
        return Row(feature, real, synthetic, divergence, sizes=sizes)
    ratio, where, p_value, df = effect(wa, wb, *sizes)
    return Row(
        feature,
        real,
        synthetic,
        divergence,
        odds_ratio=ratio,
        bin=None if binary else where,
        p_value=p_value,
        df=df,
        sizes=sizes,
    )


def _mix(w: Mapping[str, float], order: Sequence[str]) -> str:
    total = sum(w.values()) or 1.0
    return " ".join(f"{k} {w.get(k, 0.0) / total:.0%}" for k in order if w.get(k, 0.0) > 0)


def _share(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.0%}"  # no query of that side has a word


def compare_frames(
    real: pl.DataFrame, synthetic: pl.DataFrame, vocab: frozenset[str] | None
) -> list[Row]:
    a, b = features(real, vocab), features(synthetic, vocab)

    def mixes(column: str) -> tuple[dict[str, float], dict[str, float]]:
        return weights(a, column), weights(b, column)

    def sizes(column: str) -> tuple[float, float]:
        return searches(a, column), searches(b, column)

    wa, wb = mixes("stratum")
    rows = [
        judged("stratum mix", _mix(wa, STRATA), _mix(wb, STRATA), (wa, wb), sizes("stratum")),
        judged(
            "length in tokens (mean)",
            f"{weighted_mean(a, 'tokens'):.1f}",
            f"{weighted_mean(b, 'tokens'):.1f}",
            mixes("length_bin"),
            sizes("length_bin"),
        ),
    ]
    if vocab is not None:
        rows.append(
            judged(
                "words in the corpus vocabulary (mean share)",
                _share(weighted_mean(a, "in_vocab")),
                _share(weighted_mean(b, "in_vocab")),
                mixes("share_bin"),
                sizes("share_bin"),
            )
        )
    for column, name in (("identifier", "identifier rate"), ("negation", "negation rate")):
        ra, rb = weighted_mean(a, column), weighted_mean(b, column)
        rows.append(
            judged(
                name,
                _rate(ra),
                _rate(rb),
                mixes(column),
                sizes(column),
                binary=True,
            )
        )
    return rows


def _rate(value: float) -> str:
    """A rate to the whole percent, or to the tenth under 10% (2.4% against 4.9% read "2%" and
    "5%"); "-" when there is none."""
    if math.isnan(value):
        return "-"
    return f"{value:.1%}" if 0 < value < 0.1 else f"{value:.0%}"


def summary(rows: Sequence[Row]) -> str:
    """The plain-words verdict: which features differ, and what that does to offline scores."""

    def named(chosen: Sequence[Row]) -> str:
        return ", ".join(
            r.feature
            if r.feature == "stratum mix"
            else f"{r.feature}: {r.real} real, {r.synthetic} synthetic"
            for r in chosen
        )

    differing = [r for r in rows if r.verdict in (SOMEWHAT, A_LOT)]
    unsure = [r for r in rows if r.verdict == MAY_DIFFER]
    unsure_text = (
        f"{named(unsure)} may differ as much, but too few queries to tell it from chance"
        if unsure
        else ""
    )
    if not differing:
        if unsure:
            return (
                f"no feature measured here differs beyond chance; {unsure_text}: compare more "
                "queries before reading offline scores on them as scores on real traffic"
            )
        return (
            "the synthetic queries look like real traffic on every feature measured here; "
            "offline scores on them should read like scores on real queries"
        )
    return (
        f"the synthetic queries differ from real traffic in {named(differing)}; queries that "
        "mirror the source wording are easier to retrieve than what users type and inflate "
        "offline scores: report on real queries, or regenerate from users who have not seen the "
        "documents" + (f" ({unsure_text})" if unsure else "")
    )


def compare_logs(
    real_path: str | Path, synthetic_path: str | Path, vocab: frozenset[str] | None
) -> list[Row]:
    from goldset_tui.errors import InputError

    sides = []
    for path in (real_path, synthetic_path):
        distinct = log_queries(path)
        if distinct.height == 0:
            raise InputError(path, "no queries: every line or value is blank")
        sides.append(distinct)
    return compare_frames(sides[0], sides[1], vocab)


def log_queries(path: str | Path) -> pl.DataFrame:
    """The log's distinct queries (``query, count, spelling``, by count descending) as `goldset
    classify` counts them: streamed, so memory follows the distinct strings rather than the lines,
    and a large log through the spill files (docs/sampling.md), its labels read back whole."""
    from goldset_tui.sampling import spill
    from goldset_tui.sampling.classify import classified_labels
    from goldset_tui.sampling.stream import count_raw

    if spill.spills(Path(path)):
        return classified_labels(path).select("query", "count", "spelling")
    return count_distinct(count_raw(path))[0]
