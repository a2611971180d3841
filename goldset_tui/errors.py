"""The one error type that bad input raises.

Every reader in the core raises :class:`InputError` for input it cannot accept. The command line
turns it into a single line on stderr and exit status 2, never a traceback; the UI shows the same
line. Keeping the location (file, line or row, column) as fields lets tests assert on them rather
than on wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


def _one_line(text: str) -> str:
    # Error text is often built from data (a bad id, a column name): keep it on one line.
    return " ".join(str(text).split())


@dataclass
class InputError(Exception):
    """Bad input: names the file, where in it (``line`` for text files, ``row`` for Parquet),
    the column or field when one applies, and what is wrong."""

    path: str | Path | None
    message: str
    line: int | None = None
    row: int | None = None
    column: str | None = None

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        parts: list[str] = []
        where = str(self.path) if self.path is not None else ""
        if self.line is not None:
            where += f":{self.line}" if where else f"line {self.line}"
        if where:
            parts.append(where)
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.column is not None:
            parts.append(f"column {self.column!r}")
        return ": ".join(parts + [_one_line(self.message)])


class StoreLockedError(Exception):
    """Another live process already writes this labeller's journal."""
