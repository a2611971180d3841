"""Named regression cases: recurring failures promoted by name, kept in the store.

``STORE/regressions.toml`` holds one ``[[case]]`` table per case (``name``, ``query_id``,
``stratum``, ``note``, ``promoted``): plain TOML, so it travels with the golden set and reads in
a diff. It is written whole (atomic replace) under the manifest's lock. Promoting the same name
for the same query again changes nothing; a name already given to another query is refused.

A case *passes* a release when its query scored above 0 there (the report's failure lists are
the queries that scored 0), *fails* when it scored 0, and is *not evaluated* when the release did
not score that query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from goldset_tui.errors import InputError
from goldset_tui.history.records import Record
from goldset_tui.io.tomlfile import parse_toml
from goldset_tui.store.files import atomic_write_bytes, now_iso
from goldset_tui.store.manifest import manifest_lock, read_manifest
from goldset_tui.text import visible

REGRESSIONS = "regressions.toml"


@dataclass(frozen=True)
class Case:
    name: str
    query_id: str
    stratum: str
    note: str
    promoted: str

    def to_toml(self) -> dict[str, str]:
        return {
            "name": self.name,
            "query_id": self.query_id,
            "stratum": self.stratum,
            "note": self.note,
            "promoted": self.promoted,
        }


def cases_path(store: Path) -> Path:
    return Path(store) / REGRESSIONS


def load_cases(store: Path) -> list[Case]:
    """The store's named cases, in the order they were promoted; none when there is no file."""
    path = cases_path(store)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    data = parse_toml(path, raw, what="regression cases")
    tables = data.get("case", [])
    if not isinstance(tables, list):
        raise InputError(path, "[[case]] must be an array of tables", column="case")
    out = []
    for i, table in enumerate(tables, start=1):
        if not isinstance(table, dict) or not all(
            isinstance(table.get(key), str) for key in ("name", "query_id")
        ):
            raise InputError(path, f"case {i} needs a name and a query_id (text)", column="case")
        out.append(
            Case(
                name=table["name"],
                query_id=table["query_id"],
                stratum=str(table.get("stratum", "")),
                note=str(table.get("note", "")),
                promoted=str(table.get("promoted", "")),
            )
        )
    return out


def promote(
    store: Path, query_id: str, name: str, note: str, records: Sequence[Record]
) -> tuple[Case, bool]:
    """Name ``query_id`` as a regression case; (the case, whether anything was written).

    The query must appear in the store's history (a typo is refused, not kept)."""
    store = Path(store)
    read_manifest(store)
    if not name.strip():
        raise InputError(None, "--name must not be empty")
    if visible(name, keep_newlines=False) != name:
        # A case's name is printed by every later report and eval: keep it plain text.
        shown = visible(name, keep_newlines=False)
        raise InputError(None, f"--name {shown!r}: a case's name cannot hold control characters")
    seen = [r for r in records if query_id in r.scores]
    if not seen:
        raise InputError(
            store, f"query {query_id!r} is in no recorded evaluation of this store's history"
        )
    stratum = seen[-1].stratum_of(query_id)
    with manifest_lock(store):
        cases = load_cases(store)
        for case in cases:
            if case.name == name:
                if case.query_id == query_id:
                    return case, False
                raise InputError(
                    cases_path(store),
                    f"the name {name!r} is already given to query {case.query_id!r}",
                )
        case = Case(name, query_id, stratum, note, now_iso())
        body = {"case": [c.to_toml() for c in [*cases, case]]}
        atomic_write_bytes(
            cases_path(store), tomli_w.dumps(body, multiline_strings=True).encode("utf-8")
        )
    return case, True


def case_status(cases: Sequence[Case], records: Sequence[Record]) -> list[dict[str, Any]]:
    """Per case and per record (one release's systems): passes, fails or not evaluated."""
    out = []
    for case in cases:
        for rec in records:
            value = rec.scores.get(case.query_id)
            status = "not evaluated" if value is None else ("passes" if value > 0 else "fails")
            out.append(
                {
                    "name": case.name,
                    "query_id": case.query_id,
                    "system": rec.system,
                    "release": rec.release,
                    "measure": rec.measure,
                    "status": status,
                }
            )
    return out
