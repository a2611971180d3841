"""Spot-checking the stratum classifier by hand, durably (docs/background.md#classifier-errors).

A labeller sees one query at a time with the stratum the classifier gave it and either agrees,
names the right stratum, or skips; ``undo`` takes back their latest answer. Every answer is one
record in the labeller's journal (``STORE/spotcheck/<labeller>.jsonl``), fsynced before ``answer``
returns, so what the screen shows as saved survives a crash, and reopening resumes where they were.

Whether the classifier's errors matter is ``verdict``'s question; this module gives it the
numbers: agreement overall and per stratum as filed, each with a 95% Wilson interval with continuity correction, and the
confusion between strata.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.eval.intervals import wilson_cc
from goldset_tui.sampling.rules import STRATA
from goldset_tui.store.files import now_iso, safe_name
from goldset_tui.store.journal import Journal, replay

DEFAULT_SAMPLE = 200  # pins the overall misfiling rate to a few points (per stratum: too few)
RECORD_KIND = "spotcheck"


def journal_path(store: str | Path, labeller: str) -> Path:
    try:
        safe = safe_name(labeller)
    except ValueError as exc:
        raise InputError(None, str(exc), column="labeller") from None
    return Path(store) / "spotcheck" / f"{safe}.jsonl"


def strata_order(labels: pl.DataFrame) -> list[str]:
    """The default rules' strata first (in rule order), then any others by name."""
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


def fold(records: list[dict[str, Any]]) -> list[Answer]:
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

    @property
    def ci95(self) -> tuple[float, float] | None:
        """The precision's 95% Wilson interval with continuity correction (a few dozen checks per
        stratum: Wald would be far off near 1, and could pass it; plain Wilson covers as little as
        0.83-0.86 there, docs/sampling.md)."""
        return wilson_cc(self.agree, self.n) if self.n else None


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
        return wilson_cc(self.agree, self.n) if self.n else None

    def to_json(self) -> dict[str, Any]:
        lo_hi = self.ci95
        return {
            "n": self.n,
            "agree": self.agree,
            "rate": self.rate,
            "ci95": list(lo_hi) if lo_hi else None,
            "skipped": self.skipped,
            "confusion": self.confusion,
            "per_stratum": [
                {
                    "stratum": s.stratum,
                    "n": s.n,
                    "agree": s.agree,
                    "precision": s.precision,
                    "precision_ci95": list(ci) if (ci := s.ci95) else None,
                }
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

    def current(self) -> dict[str, Any] | None:
        i = self.position()
        return self.items.row(i, named=True) if i < self.items.height else None

    def _append(self, action: str, item: dict[str, Any] | None, correct: str | None = None) -> None:
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
