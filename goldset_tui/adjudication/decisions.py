"""An adjudicator's decisions, kept durably inside the store: ``STORE/adjudication/<name>.jsonl``.

Same durability as judging: each decision is one journal line, fsynced before ``decide`` returns
(so the screen only says "saved" once it is on disk), and one writer per adjudicator (the journal's
lock). Records are ``{"adjudicator", "query_id", "doc_id", "grade", "rule", "time"}``; ``grade``
null withdraws a decision. The latest record for a pair wins, across adjudicators too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.judging import utc_now
from goldset_tui.store.journal import Journal, replay_numbered

FOLDER = "adjudication"
SCHEMA = {
    "adjudicator": pl.Utf8,
    "query_id": pl.Utf8,
    "doc_id": pl.Utf8,
    "grade": pl.Int64,
    "time": pl.Utf8,
}


def no_adjudications() -> pl.DataFrame:
    """No decision at all, in the shape ``consensus.decide`` takes (without a store)."""
    return pl.DataFrame(schema={k: v for k, v in SCHEMA.items() if k != "time"})


def journal_path(store: Path, adjudicator: str) -> Path:
    from goldset_tui.store.files import safe_name

    return Path(store) / FOLDER / f"{safe_name(adjudicator)}.jsonl"


def load_adjudications(store: Path) -> pl.DataFrame:
    """The decision in force per pair: query_id, doc_id, grade, adjudicator, time.

    Pairs whose latest record withdrew the decision are absent.
    """
    rows: list[dict[str, Any]] = []
    folder = Path(store) / FOLDER
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        numbered, _warnings = replay_numbered(path)  # a torn last line was never confirmed saved
        for line, record in numbered:
            rows.append(_checked(record, path, line) | {"order": len(rows)})
    if not rows:
        return pl.DataFrame(schema=SCHEMA)
    frame = pl.DataFrame(rows, schema=SCHEMA | {"order": pl.Int64})
    latest = frame.sort("time", "order").group_by("query_id", "doc_id", maintain_order=True).last()
    return latest.filter(pl.col("grade").is_not_null()).select(list(SCHEMA))


def _checked(record: dict[str, Any], path: Path, line: int) -> dict[str, Any]:
    for key in ("adjudicator", "query_id", "doc_id", "time"):
        if not isinstance(record.get(key), str):
            raise InputError(path, "adjudication record lacks a text value", line=line, column=key)
    grade = record.get("grade")
    if grade is not None and (isinstance(grade, bool) or not isinstance(grade, int)):
        raise InputError(path, "adjudication grade is not an integer", line=line, column="grade")
    return {k: record.get(k) for k in SCHEMA}


class AdjudicationWriter:
    """Appends one adjudicator's decisions; holds that adjudicator's journal lock until closed."""

    def __init__(self, store: Path, adjudicator: str, rule: str):
        self.adjudicator = adjudicator
        self.rule = rule
        self.path = journal_path(store, adjudicator)
        self._journal = Journal(self.path, lock=True)
        self.warnings = list(self._journal.warnings)

    def decide(self, query_id: str, doc_id: str, grade: int | None) -> None:
        """Record (or with ``None`` withdraw) a decision; durable when this returns."""
        self._journal.append(
            {
                "adjudicator": self.adjudicator,
                "query_id": query_id,
                "doc_id": doc_id,
                "grade": grade,
                "rule": self.rule,
                "time": utc_now(),
            }
        )

    def close(self) -> None:
        self._journal.close()

    def __enter__(self) -> AdjudicationWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
