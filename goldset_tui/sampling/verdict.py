"""Does the stratum classifier's error matter? The spot-check verdict, stratum by stratum.

The reasoning (docs/background.md#classifier-errors): a classifier that misfiles a share ``e`` of
a stratum's queries leaves about ``e * N`` of the stratum's ``N`` golden-set queries in the wrong
bucket, which can move the stratum's measured rate by at most ``e`` (every misfiled query flipping).
The stratum's own sampling band is ``1.96 * sqrt(p (1 - p) / N x (1 - N / P))``, with P the
stratum's distinct queries in the log when known: the same band, finite-population correction
included, that ``goldset sample plan`` prints for that stratum (``plan.half_width``). When the
misfiling shift is below the band, the classifier's error is inside the noise the sample size
already imposes, and improving the classifier improves nothing observable.

What this module guarantees, and why:

- ``N`` is the stratum's PLANNED size in the golden set (``--targets``, ``--total`` allocated as
  ``goldset sample`` allocates it, or a sample's manifest), never the number of rows of the labels
  file: a labels file is usually the whole log (900 queries give a +-3-point band where the set's
  25 give +-18), so a verdict built on it would be about a set nobody evaluates on. Without planned
  sizes there is no verdict, only a sentence saying a size is needed.
- ``e`` is each stratum's OWN misfile rate among the checked queries the classifier filed there
  (1 - precision), with its 95% Wilson interval with continuity correction: the interval the
  report gives a stratum's 0/1 rate (plain Wilson held as little as 0.83-0.86 of its 95% at a rate
  near 0 or 1 with 5-12 checks, docs/report.md). One overall rate would spread errors that sit in
  two strata over all six, hiding the bad ones and flagging the clean ones.
- A stratum is ``inside`` only when the whole interval of ``e`` is at or below the band,
  ``outside`` when the whole interval is above it, and ``too few checks`` otherwise (5 of 5 right
  still allows a 54% error): the verdict never claims more than the checks show. For those strata
  ``checks_needed`` says roughly how many checks, at the rate seen so far, would settle it.
- Some strata no number of checks can settle (``cannot_tell``): the checks that would settle
  ``e`` number more than the stratum's ``N`` golden-set queries (even ``N`` checks at the rate
  seen so far leave the interval across the band, ``set_range``). Past that, checks of other
  queries only estimate a rate, while what moves the stratum's row is how many of its own ``N``
  queries are misfiled: checking those ``N`` queries themselves (and correcting them) is what
  can tell. "About 14870 checks would tell" for a stratum of 15 was advice with no meaning.
  docs/sampling.md works an example.
- The shift is stated as the point estimate with the interval's upper end beside it ("about 20
  points, up to 39 at the interval's upper end"): the point alone read as a bound ("at most").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.eval.intervals import wilson_cc, wilson_cc_at
from goldset_tui.io.strata_and_traffic import INCLUSION
from goldset_tui.sampling.plan import DEFAULT_RATE, half_width
from goldset_tui.sampling.spotcheck import Agreement

INSIDE = "inside"
OUTSIDE = "outside"
TOO_FEW = "too few checks"
MAX_CHECKS = 100_000  # past this, "more checks" is no longer advice anyone can follow

NEEDS_SIZES = (
    "No verdict yet: it needs each stratum's planned size in the golden set. Give --targets "
    "STRATUM=N,..., or --total N as planned with `goldset sample plan`, or --manifest with the "
    "sample's manifest. The rows of the labels file are the whole log, not the golden set, so "
    "their sampling band would be far too narrow."
)


class PlannedSizes(dict[str, int]):
    """Each stratum's planned size in the golden set, carrying ``populations``: the stratum's
    distinct queries in the log (P), where known, for the finite-population correction of its
    band. A dict, so every caller that only needs the sizes reads it as before."""

    def __init__(self, sizes: dict[str, int], populations: dict[str, int] | None = None) -> None:
        super().__init__(sizes)
        self.populations: dict[str, int] = dict(populations or {})


@dataclass(frozen=True)
class Verdict:
    """One stratum: its misfiling, what that can do to its rate, and its sampling band."""

    stratum: str
    size: int  # planned size in the golden set
    checked: int  # spot-checked queries the classifier filed in this stratum
    agree: int  # of which the labeller agreed
    band: float  # 95% sampling half-width of the stratum's rate at the assumed rate
    population: int | None = None  # the stratum's distinct queries in the log, when known

    @property
    def misfile_rate(self) -> float | None:
        return 1.0 - self.agree / self.checked if self.checked else None

    @property
    def misfile_ci(self) -> tuple[float, float] | None:
        if not self.checked:
            return None
        lo, hi = wilson_cc(self.checked - self.agree, self.checked)
        return (lo, hi)

    @property
    def misfiled(self) -> float | None:
        """Expected misfiled queries among the stratum's ``size`` golden-set queries."""
        e = self.misfile_rate
        return None if e is None else e * self.size

    @property
    def shift(self) -> float | None:
        """The most the misfiled queries can move the stratum's rate: all of them flipping."""
        return self.misfile_rate

    @property
    def status(self) -> str:
        ci = self.misfile_ci
        if ci is None:
            return TOO_FEW
        if ci[1] <= self.band:
            return INSIDE
        if ci[0] > self.band:
            return OUTSIDE
        return TOO_FEW

    @property
    def set_range(self) -> tuple[float, float]:
        """The misfile interval as ``size`` checks at the rate seen so far would leave it (the
        interval's form at ``e`` over ``size``): as good as checks of the stratum can do before
        they cover as many queries as the stratum holds in the set."""
        e = self.misfile_rate if self.misfile_rate is not None else 0.0
        return wilson_cc_at(e, self.size)

    @property
    def cannot_tell(self) -> bool:
        """Too few checks, and no number of them can settle it: the band lies inside
        :attr:`set_range` (module docstring)."""
        if self.status != TOO_FEW:
            return False
        lo, hi = self.set_range
        return lo <= self.band < hi

    @property
    def checks_needed(self) -> int | None:
        """About how many checks of this stratum, at the misfile rate seen so far, would put the
        whole interval on one side of the band (None when settled, or when no number of
        checks can: :attr:`cannot_tell`). Never more than the stratum's size, since by then the
        interval is no wider than :attr:`set_range`, which leaves the band out."""
        if self.status != TOO_FEW or self.cannot_tell:
            return None
        e = self.misfile_rate if self.misfile_rate is not None else 0.0
        n = max(self.checked, 1)
        last = min(self.size, MAX_CHECKS)
        while n < last:
            lo, hi = wilson_cc_at(e, n)
            if hi <= self.band or lo > self.band:
                return n
            n = n + max(1, n // 8)
        return last

    def to_json(self) -> dict[str, Any]:
        ci = self.misfile_ci
        return {
            "stratum": self.stratum,
            "size": self.size,
            "checked": self.checked,
            "agree": self.agree,
            "misfile_rate": self.misfile_rate,
            "misfile_ci95": list(ci) if ci else None,
            "misfiled": self.misfiled,
            "shift": self.shift,
            "band": self.band,
            "population": self.population,
            "status": self.status,
            "inside": self.status == INSIDE,
            "checks_needed": self.checks_needed,
            "cannot_tell": self.cannot_tell,
            "set_range": list(self.set_range) if self.checked else None,
        }


def verdicts(
    result: Agreement, sizes: dict[str, int] | None, rate: float = DEFAULT_RATE
) -> list[Verdict]:
    """One verdict per planned stratum (size > 0), from that stratum's own checks."""
    if not sizes:
        return []
    per = {s.stratum: s for s in result.per_stratum}
    populations = getattr(sizes, "populations", {})
    out = []
    for stratum, size in sizes.items():
        if size <= 0:
            continue
        row = per.get(stratum)
        checked, agree = (row.n, row.agree) if row else (0, 0)
        population = populations.get(stratum)
        band = half_width(size, rate, population=population)
        out.append(Verdict(stratum, size, checked, agree, band, population))
    return out


def one_in(error: float) -> str:
    return "none" if error <= 0 else f"about 1 in {round(1 / error)}"


def stratum_sentence(v: Verdict) -> str:
    """The reasoning for one stratum, spelled out with its numbers."""
    band = f"a sampling band of +-{v.band * 100:.0f} points" + (
        f" ({v.size} of its {v.population} distinct queries, finite-population corrected)"
        if v.population
        else ""
    )
    if not v.checked:
        return (
            f"{v.stratum} ({v.size} in the set): no checks yet, so nothing to compare with {band}."
        )
    lo, hi = v.misfile_ci or (0.0, 0.0)
    e = v.misfile_rate or 0.0
    head = (
        f"{v.stratum} ({v.size} in the set): {v.checked - v.agree} of {v.checked} checked were "
        f"misfiled ({e:.0%}, 95% interval {lo:.0%} to {hi:.0%}), so about {v.misfiled or 0:.1f} of "
        f"its {v.size} queries sit in the wrong bucket, shifting its rate by about "
        f"{e * 100:.0f} points (up to {hi * 100:.0f} at the interval's upper end), against {band}."
    )
    if v.status == INSIDE:
        return head + " Inside the noise."
    if v.status == OUTSIDE:
        return head + (
            " Outside the noise: correct this stratum's labels by hand (the spot-check can export "
            "them) or improve the classifier before reading its row."
        )
    more = v.checks_needed
    advice = f" About {more} checks of this stratum would tell." if more else ""
    if v.cannot_tell:
        low, high = v.set_range
        advice = (
            f" No number of checks can tell: even {v.size} checks at the misfile rate seen so "
            f"far would leave its interval at {low:.0%} to {high:.0%}, across the band, and what "
            f"moves this stratum's row is how many of its own {v.size} queries are misfiled. "
            f"Check its {v.size} queries by hand instead (the spot-check can export them)."
        )
    leaning = "inside" if e <= v.band else "outside"
    return head + (
        f" Too few checks to tell: {leaning} on the rate seen so far, but its interval reaches "
        f"across the band.{advice}"
    )


def verdict_text(
    result: Agreement, sizes: dict[str, int] | None, rate: float = DEFAULT_RATE
) -> str:
    """The whole verdict: the overall agreement, then each planned stratum's own reasoning."""
    if not result.n:
        return "No checks yet: agree (y) or pick the right stratum to start."
    error = 1.0 - result.agree / result.n
    lo, hi = wilson_cc(result.agree, result.n)
    if error == 0:
        head = (
            f"The classifier agreed on all {result.n} checked: none misfiled so far, though with "
            f"{result.n} checks the 95% interval still allows an error of up to {1 - lo:.0%}."
        )
    else:
        head = (
            f"The classifier agreed on {result.agree} of {result.n} checked, so it misfiles "
            f"{one_in(error)} overall (error {error:.1%}, 95% interval {1 - hi:.1%} to "
            f"{1 - lo:.1%})."
        )
    if not sizes:
        return head + " " + NEEDS_SIZES
    rows = verdicts(result, sizes, rate)
    groups = {
        status: [v.stratum for v in rows if v.status == status and not v.cannot_tell]
        for status in (INSIDE, OUTSIDE, TOO_FEW)
    }
    beyond = [v.stratum for v in rows if v.cannot_tell]
    parts = [head, "Each stratum by its own checks:"]
    parts += [stratum_sentence(v) for v in rows]
    if rows and len(groups[INSIDE]) == len(rows):
        parts.append(
            "The classifier's error is inside the noise the sample size already imposes: "
            "improving it without enlarging the strata improves nothing observable."
        )
    else:
        summary = [
            f"{label}: {', '.join(names)}"
            for label, names in (
                ("inside the noise", groups[INSIDE]),
                ("outside the noise", groups[OUTSIDE]),
                ("too few checks to tell", groups[TOO_FEW]),
                ("no number of checks can tell", beyond),
            )
            if names
        ]
        line = "; ".join(summary) + "."
        parts.append(line[:1].upper() + line[1:])
    return "\n".join(parts)


# --- where the planned sizes come from ----------------------------------------------------------


def sizes_from_manifest(path: Path) -> PlannedSizes | None:
    """Per stratum the number sampled, from a ``goldset sample`` manifest (None if it is not one),
    with each stratum's distinct queries in the log it was drawn from as its population."""
    from goldset_tui.sampling.manifest import read_manifest

    manifest = read_manifest(path)
    if manifest.get("kind", "sample") != "sample":
        return None  # a classify manifest beside the labels: no golden-set sizes in it
    strata = [s for s in manifest.get("strata", []) if isinstance(s, dict)]
    sizes = {str(s.get("stratum")): int(s.get("sampled", 0)) for s in strata if "sampled" in s}
    populations = {
        str(s.get("stratum")): int(s["distinct"])
        for s in strata
        if isinstance(s.get("distinct"), int) and s["distinct"] > 0
    }
    return PlannedSizes(sizes, populations) if sizes else None


def log_populations(labels: pl.DataFrame) -> dict[str, int]:
    """Distinct queries per stratum of LABELS when LABELS is the log (``classify`` output); none
    when it is a sample (it has ``inclusion_probability``): a sample's rows are not the log."""
    if INCLUSION in labels.columns:
        return {}
    counts = labels.group_by("stratum").agg(pl.len())
    return {str(s): int(n) for s, n in counts.iter_rows()}


def golden_sizes(
    labels_path: str | Path,
    labels: pl.DataFrame,
    *,
    targets: dict[str, int] | None = None,
    total: int | None = None,
    min_per_stratum: int | None = None,
    manifest: str | Path | None = None,
) -> tuple[dict[str, int] | None, str | None]:
    """Each stratum's planned size in the golden set, and where it came from; (None, None) when
    nothing says (then there is no verdict: the rows of LABELS are not the set).

    In order: ``--targets``; ``--total`` split as ``goldset sample`` splits it; ``--manifest``; a
    sample manifest beside LABELS (when LABELS is a sample).
    """
    from goldset_tui.errors import InputError
    from goldset_tui.sampling.allocation import (
        DEFAULT_MIN_PER_STRATUM,
        allocate_total,
        stratum_counts,
    )
    from goldset_tui.sampling.manifest import manifest_path

    if targets:
        return PlannedSizes(dict(targets), log_populations(labels)), "--targets"
    if total is not None:
        floor = DEFAULT_MIN_PER_STRATUM if min_per_stratum is None else min_per_stratum
        allocated = allocate_total(stratum_counts(labels), total, floor)
        return (
            PlannedSizes(allocated, log_populations(labels)),
            f"--total {total} split by traffic with at least {floor} per stratum",
        )
    if manifest is not None:
        listed = sizes_from_manifest(Path(manifest))
        if listed is None:
            raise InputError(manifest, "not a sample manifest: it has no sampled sizes per stratum")
        return listed, f"the sample's manifest {Path(manifest).name}"
    beside = manifest_path(labels_path)
    if beside.is_file():
        beside_sizes = sizes_from_manifest(beside)
        if beside_sizes:
            return beside_sizes, f"the sample's manifest {beside.name}"
    return None, None
