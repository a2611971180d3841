"""Spot-checking the stratum classifier by hand (seed 000: 183 of 200 agreed), durably.

A labeller sees one query at a time with the stratum the classifier gave it and either agrees,
names the right stratum, or skips; ``undo`` takes back their latest answer. Every answer is one
record in the labeller's journal (``STORE/spotcheck/<labeller>.jsonl``), fsynced before ``answer``
returns, so what the screen shows as saved survives a crash, and reopening resumes where they were.

What the checks are for (seed 000): the classifier only has to be roughly right. Its error rate
``e`` puts about ``e * n`` misfiled queries in a stratum of ``n``, which can shift that stratum's
measured rate by at most ``e`` (every misfiled query flipping); the sampling band of the stratum is
``1.96 * sqrt(p (1 - p) / n)``. When ``e`` is below the band the classifier's error is inside the
noise the sample size already imposes, and improving the classifier improves nothing observable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.eval.intervals import wilson
from goldset_tui.sampling.plan import DEFAULT_RATE, half_width
from goldset_tui.sampling.rules import STRATA
from goldset_tui.store.files import now_iso, safe_name
from goldset_tui.store.journal import Journal, replay

DEFAULT_SAMPLE = 200  # seed 000 checked 200
RECORD_KIND = "spotcheck"


def journal_path(store: str | Path, labeller: str) -> Path:
    try:
        safe = safe_name(labeller)
    except ValueError as exc:
        raise InputError(None, str(exc), column="labeller") from None
    return Path(store) / "spotcheck" / f"{safe}.jsonl"


def strata_order(labels: pl.DataFrame) -> list[str]:
    """Seed 004's strata first (in rule order), then any others by name."""
    present = set(labels.get_column("stratum").unique().to_list())
    return [s for s in STRATA if s in present] + sorted(present - set(STRATA))


def check_items(labels: pl.DataFrame, sample: int | None, seed: int) -> pl.DataFrame:
    """The queries to check, in the order shown: a seeded uniform sample of distinct queries.

    Uniform over distinct queries (not traffic), since the question is how often the classifier
    files a query wrongly, and the golden set is sampled per distinct query too.
    """
    ordered = labels.sort("query")
    n = ordered.height if sample is None else min(sample, ordered.height)
    picks = random.Random(f"spotcheck:{seed}").sample(range(ordered.height), n)
    columns = ["query", "stratum"] + (["spelling"] if "spelling" in labels.columns else [])
    return ordered.select(columns)[picks]


# --- folding the journal -------------------------------------------------------------------------
@dataclass
class Answer:
    query: str
    assigned: str
    correct: str | None  # None: skipped


def fold(records: list[dict]) -> list[Answer]:
    """The labeller's answers still standing: each ``undo`` takes back the latest one."""
    stack: list[Answer] = []
    for r in records:
        if r.get("kind") != RECORD_KIND:
            continue
        action = r.get("action")
        if action == "undo":
            if stack:
                stack.pop()
        elif action in ("check", "skip"):
            stack.append(
                Answer(
                    str(r["query"]),
                    str(r["assigned"]),
                    r.get("correct") if action == "check" else None,
                )
            )
    return stack


def latest(answers: list[Answer]) -> dict[str, Answer]:
    """Per query, its latest standing answer (a query answered again overrides itself)."""
    out: dict[str, Answer] = {}
    for a in answers:
        out[a.query] = a
    return out


# --- statistics -------------------------------------------------------------------------------
@dataclass(frozen=True)
class StratumAgreement:
    stratum: str
    n: int
    agree: int

    @property
    def precision(self) -> float | None:
        return self.agree / self.n if self.n else None


@dataclass(frozen=True)
class Agreement:
    n: int
    agree: int
    skipped: int
    confusion: dict[str, dict[str, int]]  # assigned -> correct -> count
    per_stratum: list[StratumAgreement]

    @property
    def rate(self) -> float | None:
        return self.agree / self.n if self.n else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        return wilson(self.agree, self.n) if self.n else None

    def to_json(self) -> dict:
        lo_hi = self.ci95
        return {
            "n": self.n,
            "agree": self.agree,
            "rate": self.rate,
            "ci95": list(lo_hi) if lo_hi else None,
            "skipped": self.skipped,
            "confusion": self.confusion,
            "per_stratum": [
                {"stratum": s.stratum, "n": s.n, "agree": s.agree, "precision": s.precision}
                for s in self.per_stratum
            ],
        }


def agreement(answers: list[Answer], strata: list[str]) -> Agreement:
    standing = list(latest(answers).values())
    checked = [a for a in standing if a.correct is not None]
    confusion: dict[str, dict[str, int]] = {}
    for a in checked:
        row = confusion.setdefault(a.assigned, {})
        correct = cast(str, a.correct)  # checked: never None
        row[correct] = row.get(correct, 0) + 1
    names = strata + sorted({a.assigned for a in checked} - set(strata))
    per = [
        StratumAgreement(s, sum(confusion.get(s, {}).values()), confusion.get(s, {}).get(s, 0))
        for s in names
    ]
    agree = sum(1 for a in checked if a.correct == a.assigned)
    return Agreement(len(checked), agree, len(standing) - len(checked), confusion, per)


# --- seed 000's verdict ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    stratum: str
    size: int  # the stratum's size in the golden set
    misfiled: float  # expected misfiled queries in it: size * error rate
    shift: float  # the most they can move the stratum's rate: misfiled / size
    band: float  # the stratum's 95% sampling half-width at the assumed rate

    @property
    def inside(self) -> bool:
        return self.shift <= self.band


def verdicts(result: Agreement, sizes: dict[str, int], rate: float = DEFAULT_RATE) -> list[Verdict]:
    if not result.n:
        return []
    error = 1.0 - result.agree / result.n
    return [Verdict(s, n, n * error, error, half_width(n, rate)) for s, n in sizes.items() if n > 0]


def one_in(error: float) -> str:
    return "none" if error <= 0 else f"about 1 in {round(1 / error)}"


def verdict_text(result: Agreement, sizes: dict[str, int], rate: float = DEFAULT_RATE) -> str:
    """Seed 000's reasoning, spelled out for these numbers."""
    if not result.n:
        return "No checks yet: agree (y) or pick the right stratum to start."
    error = 1.0 - result.agree / result.n
    rows = verdicts(result, sizes, rate)
    if error == 0:
        lo, _ = wilson(result.agree, result.n)
        return (
            f"The classifier agreed on all {result.n} checked: none misfiled so far, though with {result.n} "
            f"checks the 95% interval still allows an error of up to {1 - lo:.0%}. Keep checking."
        )
    if not rows:
        return (
            f"The classifier agreed on {result.agree} of {result.n}: it misfiles {one_in(error)}."
        )
    smallest = min(rows, key=lambda v: v.size)
    inside = all(v.inside for v in rows)
    lo, hi = wilson(result.agree, result.n)
    head = (
        f"The classifier agreed on {result.agree} of {result.n}, so it misfiles {one_in(error)} "
        f"(error {error:.1%}, 95% interval {1 - hi:.1%} to {1 - lo:.1%}). "
        f"On the smallest stratum ({smallest.stratum}, {smallest.size} queries) that is about "
        f"{smallest.misfiled:.1f} queries in the wrong bucket, shifting its rate by {smallest.shift * 100:.1f} "
        f"points at most, against a sampling band of +-{smallest.band * 100:.0f} points."
    )
    if inside:
        return head + (
            " The classifier's error is inside the noise the sample size already imposes: improving it "
            "without enlarging the strata improves nothing observable."
        )
    outside = ", ".join(v.stratum for v in rows if not v.inside)
    return (
        head
        + f" Not inside the noise for: {outside}. Improve the classifier or check more before trusting those rows."
    )


# --- the session ---------------------------------------------------------------------------------
@dataclass
class SpotCheckSession:
    """One labeller's pass over ``items``; every answer is in the journal before it is shown."""

    items: pl.DataFrame  # query, stratum[, spelling], in the order shown
    strata: list[str]
    path: Path
    labeller: str
    answers: list[Answer] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    journal: Journal | None = None

    @classmethod
    def open(
        cls, items: pl.DataFrame, strata: list[str], path: Path, labeller: str
    ) -> SpotCheckSession:
        journal = Journal(path)  # takes the writer lock and cuts a torn last line first
        records, warnings = replay(path)
        session = cls(
            items, strata, path, labeller, fold(records), warnings + journal.warnings, journal
        )
        return session

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()
            self.journal = None

    @property
    def queries(self) -> list[str]:
        return self.items.get_column("query").to_list()

    def answered(self) -> dict[str, Answer]:
        return latest(self.answers)

    def position(self) -> int:
        """Index of the first item without an answer (len(items) when all are done)."""
        done = self.answered()
        for i, q in enumerate(self.queries):
            if q not in done:
                return i
        return self.items.height

    def current(self) -> dict | None:
        i = self.position()
        return self.items.row(i, named=True) if i < self.items.height else None

    def _append(self, action: str, item: dict | None, correct: str | None = None) -> None:
        if self.journal is None:
            raise ValueError("the spot-check session is closed")
        record: dict[str, object] = {
            "kind": RECORD_KIND,
            "action": action,
            "labeller": self.labeller,
            "time": now_iso(),
        }
        if item is not None:
            record.update(query=item["query"], assigned=item["stratum"])
        if action == "check":
            record["correct"] = correct
        self.journal.append(record)  # durable when this returns

    def answer(self, correct: str | None) -> bool:
        """Record the current item as ``correct`` (its stratum to agree; None to skip)."""
        item = self.current()
        if item is None:
            return False
        if correct is not None and correct not in self.strata:
            raise ValueError(f"unknown stratum {correct!r}")
        action = "skip" if correct is None else "check"
        self._append(action, item, correct)
        self.answers.append(Answer(item["query"], item["stratum"], correct))
        return True

    def agree(self) -> bool:
        item = self.current()
        return self.answer(item["stratum"]) if item is not None else False

    def undo(self) -> Answer | None:
        if not self.answers:
            return None
        self._append("undo", None)
        return self.answers.pop()

    def agreement(self) -> Agreement:
        return agreement(self.answers, self.strata)


def load_answers(path: Path) -> tuple[list[Answer], list[str]]:
    records, warnings = replay(path)
    return fold(records), warnings


def corrected_labels(labels: pl.DataFrame, answers: list[Answer]) -> pl.DataFrame:
    """LABELS with each checked query's stratum replaced by the labeller's; same columns."""
    fixes = {q: a.correct for q, a in latest(answers).items() if a.correct is not None}
    if not fixes:
        return labels
    table = pl.DataFrame(
        {"query": list(fixes), "_correct": list(fixes.values())},
        schema={"query": pl.Utf8, "_correct": pl.Utf8},
    )
    return (
        labels.join(table, on="query", how="left", maintain_order="left")
        .with_columns(pl.coalesce("_correct", "stratum").alias("stratum"))
        .select(labels.columns)
    )


def golden_sizes(
    labels_path: str | Path, labels: pl.DataFrame, targets: dict[str, int] | None = None
) -> tuple[dict[str, int], str]:
    """Each stratum's size in the golden set, for the verdict, and where it came from.

    In order: ``--targets``; the manifest beside LABELS when LABELS is a sample; else the rows per
    stratum of LABELS itself (right when LABELS is the golden set).
    """
    from goldset_tui.sampling.manifest import manifest_path, read_manifest

    if targets:
        return dict(targets), "--targets"
    beside = manifest_path(labels_path)
    if beside.is_file():
        manifest = read_manifest(beside)
        strata = manifest.get("strata", [])
        sizes = {
            str(s.get("stratum")): int(s.get("sampled", 0)) for s in strata if isinstance(s, dict)
        }
        if sizes:
            return sizes, f"the sample's manifest {beside.name}"
    counts = labels.group_by("stratum").len().sort("stratum")
    return dict(
        zip(counts["stratum"].to_list(), counts["len"].to_list(), strict=True)
    ), "the rows of LABELS"
