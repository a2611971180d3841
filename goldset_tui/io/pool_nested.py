"""The nested pool shape (docs/pools.md): one JSON object per query with its candidates, and
optionally the grades it arrived with (see ``pools.py``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.pool_schema import _WHERE, FRAME_SCHEMA, PRIOR_SCHEMA, _short_repr
from goldset_tui.io.values import loads_json, too_deep
from goldset_tui.model import GradeScale


def _looks_nested(p: Path) -> bool:
    suffix = p.suffix.lower()
    if suffix == ".json":
        return True
    if suffix not in (".jsonl", ".ndjson"):
        return False
    with p.open("rb") as fh:
        for raw in fh:
            line = raw.strip()
            if not line:
                continue
            try:
                first = loads_json(line)
            except (ValueError, UnicodeDecodeError):
                # A pretty-printed object opens with "{" alone on its line.
                return line == b"{"
            return (
                isinstance(first, dict)
                and "doc_id" not in first
                and ("candidates" in first or "judgments" in first)
            )
    return False


def _json_values(p: Path) -> Iterator[tuple[int, Any]]:
    """Every top-level JSON value in the file with the line it starts on (JSONL, or pretty
    objects one after another)."""
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            p,
            f"bytes that are not UTF-8 (byte {exc.start})",
            line=data.count(b"\n", 0, exc.start) + 1,
        ) from None
    decoder = json.JSONDecoder()
    nonblank = re.compile(r"\S")
    pos, line = 0, 1
    while (m := nonblank.search(text, pos)) is not None:
        line += text.count("\n", pos, m.start())
        try:
            try:
                value, end = decoder.raw_decode(text, m.start())
            except RecursionError:
                raise too_deep(text, m.start()) from None
        except json.JSONDecodeError as exc:
            # Name the line the broken object starts on (in JSONL, its line); say where it broke.
            at = (
                f"column {exc.colno}"
                if exc.lineno == line
                else f"line {exc.lineno} column {exc.colno}"
            )
            raise InputError(p, f"JSON does not parse: {exc.msg} at {at}", line=line) from None
        yield line, value
        line += text.count("\n", m.start(), end)
        pos = end


def _read_nested(
    p: Path, scale: GradeScale
) -> tuple[pl.DataFrame, pl.DataFrame | None, dict[str, dict[str, Any]]]:
    cols: dict[str, list[Any]] = {name: [] for name in (*FRAME_SCHEMA, _WHERE)}
    prior_rows: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "grade": []}
    meta: dict[str, dict[str, Any]] = {}
    seen: dict[str, int] = {}
    any_judgments = False
    for line, obj in _json_values(p):
        if not isinstance(obj, dict):
            raise InputError(
                p, f"expected a JSON object per query, found {type(obj).__name__}", line=line
            )
        q = _QueryObject(p, line, obj)
        qid = q.identifier("query_id")
        if qid in seen:
            raise InputError(
                p, f"query {qid!r} already given on line {seen[qid]}", line=line, column="query_id"
            )
        seen[qid] = line
        query = q.text("query", required=True)
        stratum = q.text("stratum")
        meta[qid] = {
            k: v
            for k, v in (("pool_depth", q.depth()), ("pooled_from", q.names("pooled_from")))
            if v is not None
        }
        judgments = q.judgments(scale)
        any_judgments = any_judgments or judgments is not None
        candidates = q.candidates()
        if candidates is None:
            if judgments is None:
                raise InputError(
                    p,
                    "query has neither 'candidates' nor 'judgments'",
                    line=line,
                    column="candidates",
                )
            candidates = [{"doc_id": d} for d in judgments]
        if not candidates:
            raise InputError(p, f"query {qid!r} has no candidates", line=line, column="candidates")
        for cand in candidates:
            cols["query_id"].append(qid)
            cols["query"].append(query)
            cols["stratum"].append(stratum)
            cols[_WHERE].append(line)
            for key in ("doc_id", "text", "title", "systems", "ranks"):
                cols[key].append(cand.get(key))
        for doc, grade in (judgments or {}).items():
            prior_rows["query_id"].append(qid)
            prior_rows["doc_id"].append(doc)
            prior_rows["grade"].append(grade)
    if not seen:
        raise InputError(p, "has no query objects")
    frame = pl.DataFrame(cols, schema={**FRAME_SCHEMA, _WHERE: pl.Int64})
    prior = pl.DataFrame(prior_rows, schema=PRIOR_SCHEMA) if any_judgments else None
    return frame, prior, meta


class _QueryObject:
    """Field access on one nested query object, raising InputError at its line."""

    def __init__(self, path: Path, line: int, obj: dict[str, Any]) -> None:
        self.path, self.line, self.obj = path, line, obj

    def fail(self, message: str, column: str) -> InputError:
        return InputError(self.path, message, line=self.line, column=column)

    def identifier(self, key: str, value: Any = None, where: str = "") -> str:
        value = self.obj.get(key) if value is None and not where else value
        if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
            raise self.fail(f"{where}empty or missing {key}", key)
        return str(value)

    def text(self, key: str, *, required: bool = False) -> str | None:
        value = self.obj.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or (required and not value.strip()):
            raise self.fail(f"{key} must be non-empty text, found {_short_repr(value)}", key)
        return value

    def depth(self) -> int | None:
        value = self.obj.get("pool_depth")
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(
                f"pool_depth must be a positive whole number, found {_short_repr(value)}",
                "pool_depth",
            )
        return value

    def names(self, key: str, value: Any = None, where: str = "") -> list[str] | None:
        value = self.obj.get(key) if value is None and not where else value
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(
                f"{where}{key} must be a list of names, found {_short_repr(value)}", key
            )
        return value

    def judgments(self, scale: GradeScale) -> dict[str, int] | None:
        value = self.obj.get("judgments")
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail(
                f"judgments must map doc_id to grade, found {_short_repr(value)}", "judgments"
            )
        for doc, grade in value.items():
            if not doc.strip():
                raise self.fail("judgments has an empty doc_id", "judgments")
            if grade not in scale:
                raise self.fail(
                    f"grade {_short_repr(grade)} for {doc!r} is outside the scale {scale.min}-{scale.max}",
                    "judgments",
                )
        return value

    def candidates(self) -> list[dict[str, Any]] | None:
        value = self.obj.get("candidates")
        if value is None:
            return None
        if not isinstance(value, list):
            raise self.fail(f"candidates must be a list, found {_short_repr(value)}", "candidates")
        out = []
        for n, cand in enumerate(value, start=1):
            where = f"candidate {n}: "
            if isinstance(cand, (str, int)) and not isinstance(cand, bool):
                out.append({"doc_id": self.identifier("doc_id", cand, where)})
                continue
            if not isinstance(cand, dict):
                raise self.fail(
                    f"{where}expected a doc id or an object, found {_short_repr(cand)}",
                    "candidates",
                )
            row: dict[str, Any] = {"doc_id": self.identifier("doc_id", cand.get("doc_id"), where)}
            for key in ("text", "title"):
                if cand.get(key) is not None and not isinstance(cand[key], str):
                    raise self.fail(
                        f"{where}{key} must be text, found {_short_repr(cand[key])}", key
                    )
                row[key] = cand.get(key)
            row["systems"] = self.names("systems", cand.get("systems"), where)
            ranks = cand.get("ranks")
            if ranks is not None and (
                not isinstance(ranks, list)
                or not all(isinstance(r, int) and not isinstance(r, bool) for r in ranks)
            ):
                raise self.fail(
                    f"{where}ranks must be a list of whole numbers, found {_short_repr(ranks)}",
                    "ranks",
                )
            row["ranks"] = ranks
            out.append(row)
        return out
