"""Rank correlations between two orderings of the same systems: Kendall's tau-b and tau_AP.

Contract: pure functions over ``{system: score}`` mappings (higher is better); ``None`` when fewer
than two systems are shared or a correlation is undefined (one ordering all ties).

- :func:`kendall_tau` is Kendall's tau-b, (C - D) / sqrt((P - T_x)(P - T_y)) over the P pairs of
  systems, C concordant, D discordant, T_x and T_y the pairs tied in each; without ties it is the
  plain tau-a. This is what ``scipy.stats.kendalltau`` computes by default.
- :func:`tau_ap` is Yilmaz, Aslam & Robertson's AP correlation (SIGIR 2008), which weighs a swap
  near the top of the ranking more than one at the bottom:

      tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1

  where i runs over the positions of the *evaluated* ordering (here the one under ``other``) and
  C(i) counts the systems above position i that the *reference* ordering also puts above the
  system at i. It is asymmetric: the reference is the ordering taken as the truth (the human
  labels). tau_AP is defined on strict orderings. Ties in the evaluated scores have no order of
  their own, so the result is the **average of tau_AP over every order of the tied systems**, each
  equally likely (what breaking the tie at random gives on average): never a function of the
  systems' names, which used to break the tie (a > b > c against a = b > c gave 1.0, and 0.0 with
  the two names swapped; the average is 0.5). A pair tied in the reference counts as not
  correctly ordered; a reference tying every system has no ordering at all, and gives ``None``.

  The average is exact, by linearity, without listing the orders: a system x in a tie group of g
  systems below s strictly better ones sits at position s + j (j = 1..g) with probability 1/g,
  and then has above it the s better systems and j - 1 of its g - 1 tie-mates drawn at random.
  Of those s, A_x are above x in the reference; of its tie-mates, B_x. So its term averages
  (1/g) sum_j (A_x + (j - 1) B_x / (g - 1)) / (s + j - 1), the top position (s + j = 1) having
  no term. docs/agreement.md says why the average and not a tie-aware variant.
"""

from __future__ import annotations

import math
from collections.abc import Mapping


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def kendall_tau(a: Mapping[str, float], b: Mapping[str, float]) -> float | None:
    """Kendall's tau-b between the scores ``a`` and ``b`` of the systems both hold."""
    names = sorted(set(a) & set(b))
    concordant = discordant = tied_a = tied_b = pairs = 0
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            pairs += 1
            sa, sb = _sign(a[x] - a[y]), _sign(b[x] - b[y])
            tied_a += sa == 0
            tied_b += sb == 0
            if sa and sb:
                concordant += sa == sb
                discordant += sa != sb
    denominator = math.sqrt((pairs - tied_a) * (pairs - tied_b))
    if pairs == 0 or denominator == 0:
        return None
    return (concordant - discordant) / denominator


def order(scores: Mapping[str, float]) -> list[str]:
    """Systems best first; equal scores by name, so the order is reproducible."""
    return sorted(scores, key=lambda name: (-scores[name], name))


def tau_ap(reference: Mapping[str, float], other: Mapping[str, float]) -> float | None:
    """tau_AP of the ordering by ``other`` against the reference ordering by ``reference``."""
    names = set(reference) & set(other)
    ranked = [n for n in order(other) if n in names]
    if len(ranked) < 2 or len({reference[n] for n in ranked}) == 1:
        return None  # nothing to take as the truth when the reference ties every system
    total = 0.0
    start = 0  # systems strictly above the current tie group under ``other``
    while start < len(ranked):
        end = start
        while end < len(ranked) and other[ranked[end]] == other[ranked[start]]:
            end += 1
        group, size = ranked[start:end], end - start
        for x in group:
            here = reference[x]
            better = sum(1 for above in ranked[:start] if reference[above] > here)
            mates = sum(1 for y in group if y != x and reference[y] > here)
            for j in range(1, size + 1):
                position = start + j  # 1-based
                if position == 1:
                    continue  # the top system has nothing above it: no term
                expected = better + ((j - 1) * mates / (size - 1) if size > 1 else 0.0)
                total += expected / (position - 1) / size
        start = end
    return 2.0 / (len(ranked) - 1) * total - 1.0
