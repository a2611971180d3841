"""Agreement coefficients: raw agreement, Cohen's kappa (weighted), Fleiss' kappa, Krippendorff's alpha.

The matrices here are tiny (k x k for a k-grade scale), so the arithmetic is plain Python; the one
step that touches every rating (counting values per unit into Krippendorff's coincidence matrix) is
done by Polars in ``coincidences``.

Every coefficient returns ``None`` where it is undefined (no units, or no variation to be chance-
corrected against), never NaN, so JSON output stays valid.

Categories are always the whole declared scale: weighted kappa depends on the distance between
grades, and a scale of 0-3 on which nobody used 1 still has 3 steps between 0 and 3.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import polars as pl

Matrix = list[list[float]]
Coincidence = dict[tuple[int, int], float]

LEVELS = ("nominal", "ordinal", "interval")
KAPPA_WEIGHTS = (None, "linear", "quadratic")


# --- Two raters -------------------------------------------------------------------------------


def confusion_matrix(a: Iterable[int], b: Iterable[int], grades: Sequence[int]) -> list[list[int]]:
    """``m[i][j]`` = units that rater A graded ``grades[i]`` and rater B graded ``grades[j]``.

    Grades outside ``grades`` raise ``ValueError`` (callers check the scale first).
    """
    index = {g: i for i, g in enumerate(grades)}
    m = [[0] * len(grades) for _ in grades]
    for x, y in zip(a, b, strict=True):
        m[index[x]][index[y]] += 1
    return m


def confusion_from_frame(pairs: pl.DataFrame, grades: Sequence[int]) -> list[list[int]]:
    """The same matrix from a frame with columns ``a`` and ``b`` (vectorised count)."""
    index = {g: i for i, g in enumerate(grades)}
    m = [[0] * len(grades) for _ in grades]
    counts = pairs.group_by("a", "b").len()
    for x, y, n in counts.iter_rows():
        m[index[x]][index[y]] += n
    return m


def raw_agreement(confusion: Sequence[Sequence[float]]) -> float | None:
    """Share of units on which both raters gave the same grade."""
    n = sum(map(sum, confusion))
    if n == 0:
        return None
    return sum(confusion[i][i] for i in range(len(confusion))) / n


def kappa_weights(k: int, weights: str | None) -> Matrix:
    """Disagreement weights: 0 on the diagonal; 1 (unweighted), |i-j| or (i-j)^2 off it.

    Cohen (1968); the scale factor cancels in the ratio, so no normalisation by (k-1) is needed.
    """
    if weights is None:
        return [[0.0 if i == j else 1.0 for j in range(k)] for i in range(k)]
    if weights == "linear":
        return [[float(abs(i - j)) for j in range(k)] for i in range(k)]
    if weights == "quadratic":
        return [[float((i - j) ** 2) for j in range(k)] for i in range(k)]
    raise ValueError(f"unknown kappa weights {weights!r}; expected None, 'linear' or 'quadratic'")


def cohen_kappa(confusion: Sequence[Sequence[float]], weights: str | None = None) -> float | None:
    """Cohen's kappa from a confusion matrix: 1 - sum(w*O) / sum(w*E).

    E is what independent raters with the same marginals would produce. ``None`` when there are no
    units or when chance disagreement is zero (both raters used a single, identical grade).
    """
    k = len(confusion)
    n = sum(map(sum, confusion))
    if n == 0:
        return None
    w = kappa_weights(k, weights)
    rows = [sum(confusion[i]) for i in range(k)]
    cols = [sum(confusion[i][j] for i in range(k)) for j in range(k)]
    observed = sum(w[i][j] * confusion[i][j] for i in range(k) for j in range(k))
    expected = sum(w[i][j] * rows[i] * cols[j] / n for i in range(k) for j in range(k))
    if expected == 0:
        return None
    return 1.0 - observed / expected


# --- Many raters, every unit rated the same number of times ------------------------------------


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa (Fleiss 1971) from a units x categories table of rating counts.

    Defined only when every unit has the same number m >= 2 of ratings; ``None`` otherwise, or when
    all ratings fall in one category.
    """
    if not table:
        return None
    m = sum(table[0])
    if m < 2 or any(sum(row) != m for row in table):
        return None
    n_units = len(table)
    k = len(table[0])
    p_bar = sum((sum(c * c for c in row) - m) / (m * (m - 1)) for row in table) / n_units
    p_cat = [sum(row[j] for row in table) / (n_units * m) for j in range(k)]
    p_e = sum(p * p for p in p_cat)
    if p_e == 1:
        return None
    return (p_bar - p_e) / (1 - p_e)


# --- Krippendorff's alpha ------------------------------------------------------------------------


def coincidences(ratings: pl.DataFrame) -> Coincidence:
    """Krippendorff's coincidence matrix from a long frame of ``unit`` and ``value``.

    Each unit with m_u >= 2 values contributes every ordered pair of its values (from different
    raters) with weight 1/(m_u - 1): o_ck = sum_u (n_uc n_uk - [c=k] n_uc) / (m_u - 1).
    Units with a single value are not pairable and contribute nothing (Krippendorff 2011, sec. B).
    """
    counts = pairable_counts(ratings)
    if counts.height == 0:
        return {}
    pairs = (
        counts.join(counts, on="unit", suffix="_k")
        .with_columns(
            o=(
                pl.col("count") * pl.col("count_k")
                - pl.when(pl.col("value") == pl.col("value_k")).then(pl.col("count")).otherwise(0)
            )
            / (pl.col("m") - 1)
        )
        .group_by("value", "value_k")
        .agg(pl.col("o").sum())
    )
    return {(c, k): o for c, k, o in pairs.iter_rows() if o}


def binarised(o: Coincidence, threshold: int) -> Coincidence:
    """The coincidence matrix of "grade >= threshold" (values 0 and 1) from the graded one: a
    unit's binary value pairs are its graded pairs relabelled, so each cell is a sum of cells."""
    out: Coincidence = {}
    for (c, k), v in o.items():
        key = (int(c >= threshold), int(k >= threshold))
        out[key] = out.get(key, 0.0) + v
    return {key: v for key, v in out.items() if v}


def pairable_counts(ratings: pl.DataFrame) -> pl.DataFrame:
    """``unit, value, count, m``: value counts of the units holding at least two values."""
    return (
        ratings.group_by("unit", "value")
        .agg(pl.len().cast(pl.Int64).alias("count"))
        .with_columns(m=pl.col("count").sum().over("unit"))
        .filter(pl.col("m") >= 2)
    )


def delta_squared(
    level: str, grades: Sequence[int], marginals: dict[int, float]
) -> dict[tuple[int, int], float]:
    """The difference function for each pair of values (Krippendorff 2011, sec. E).

    nominal: 0 if equal, else 1; interval: (c - k)^2; ordinal: (sum_{g=c..k} n_g - (n_c + n_k)/2)^2,
    where n_g are the coincidence marginals, so ordinal distances depend on how often each grade
    was used (a grade nobody used adds no distance).
    """
    out: dict[tuple[int, int], float] = {}
    if level == "nominal":
        for c in grades:
            for k in grades:
                out[c, k] = 0.0 if c == k else 1.0
    elif level == "interval":
        for c in grades:
            for k in grades:
                out[c, k] = float((c - k) ** 2)
    elif level == "ordinal":
        for c in grades:
            for k in grades:
                lo, hi = min(c, k), max(c, k)
                between = sum(marginals.get(g, 0.0) for g in grades if lo <= g <= hi)
                out[c, k] = (between - (marginals.get(c, 0.0) + marginals.get(k, 0.0)) / 2) ** 2
    else:
        raise ValueError(f"unknown level {level!r}; expected one of {', '.join(LEVELS)}")
    return out


def alpha_from_coincidences(
    o: Coincidence, level: str, grades: Sequence[int] | None = None
) -> float | None:
    """alpha = 1 - (n - 1) * sum o_ck d_ck / sum n_c n_k d_ck  (Krippendorff 2011, eq. for D_o/D_e).

    ``None`` when fewer than two pairable values exist or when expected disagreement is zero
    (every pairable value is the same: there is no variation to agree about).
    """
    if grades is None:
        grades = sorted({c for c, _ in o} | {k for _, k in o})
    marginals: dict[int, float] = {}
    for (c, _k), v in o.items():
        marginals[c] = marginals.get(c, 0.0) + v
    n = sum(marginals.values())
    if n <= 1:
        return None
    d = delta_squared(level, grades, marginals)
    observed = sum(v * d[c, k] for (c, k), v in o.items())
    expected = sum(marginals[c] * marginals[k] * d[c, k] for c in marginals for k in marginals)
    if expected == 0:
        return None
    return 1.0 - (n - 1) * observed / expected


def krippendorff_alpha(
    ratings: pl.DataFrame, level: str = "ordinal", grades: Sequence[int] | None = None
) -> float | None:
    """Krippendorff's alpha over a long frame of ``unit`` and ``value`` (missing = absent row)."""
    return alpha_from_coincidences(coincidences(ratings), level, grades)


def coincidence_agreement(o: Coincidence) -> float | None:
    """Share of pairable value pairs that agree: sum_c o_cc / n (raw agreement, many raters)."""
    n = sum(o.values())
    if n == 0:
        return None
    return sum(v for (c, k), v in o.items() if c == k) / n
