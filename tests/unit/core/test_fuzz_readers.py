"""The reader fuzzer: hostile files for every reader, and for each one either a correct
read or one InputError line naming the file, never another exception, never a value changed
without a word, never a write into the store.

Every reader gets ``EXAMPLES`` generated files (random bytes, BOMs and other encodings, cut or
spliced bytes, wrong types in every column, nested and null values, huge fields, control
characters), which keeps the whole fuzzer well under a minute in CI. For a longer soak:

    GOLDSET_FUZZ_EXAMPLES=2000 python -m pytest tests/unit/core/test_fuzz_readers.py -p no:randomly
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from fuzz_files import TEXT, VALUES, Written, as_id, damaged, table_file, trec_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldset_tui.config import load_config
from goldset_tui.drift.zero_click import read_labels_with_clicks, read_zero_clicks
from goldset_tui.errors import InputError
from goldset_tui.io.corpus import read_corpus
from goldset_tui.io.machine import read_human_labels
from goldset_tui.io.pools import load_pool, read_topics
from goldset_tui.io.strata_and_traffic import read_strata, read_traffic
from goldset_tui.io.trec import read_qrels, read_run
from goldset_tui.model import GradeScale, Judgment
from goldset_tui.sampling.labels import read_labels
from goldset_tui.sampling.normalise import read_log
from goldset_tui.sampling.stream import count_raw
from goldset_tui.store import Project, sha256_file

EXAMPLES = int(os.environ.get("GOLDSET_FUZZ_EXAMPLES", "20"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=EXAMPLES <= 20,  # CI: the same files every run; a soak explores
)

# name -> (formats, columns, read)
TABLES: dict[str, tuple[list[str], list[str], Callable[[Path], object]]] = {
    "pool": (
        ["jsonl", "csv", "tsv", "parquet"],
        ["query_id", "query", "doc_id", "text", "systems", "ranks", "stratum", "grade"],
        load_pool,
    ),
    "corpus": (["jsonl", "tsv", "parquet"], ["_id", "title", "text"], read_corpus),
    "topics": (["jsonl", "csv", "tsv"], ["query_id", "query", "stratum"], read_topics),
    "log": (["csv", "jsonl", "parquet"], ["query", "count"], read_log),
    # the streaming count of a log (classify): the same files, read or refused the same way
    "log_stream": (["csv", "tsv", "parquet"], ["query", "count"], count_raw),
    "labels": (["csv", "parquet"], ["query", "count", "stratum", "spelling"], read_labels),
    "strata": (["csv", "tsv", "parquet"], ["query_id", "stratum"], read_strata),
    "traffic": (["csv", "parquet"], ["stratum", "share"], read_traffic),
    # goldset classify --clicks (the clicks column) and goldset drift (labels with zero_click)
    "log_clicks": (
        ["csv", "jsonl", "parquet"],
        ["query", "count", "clicks"],
        lambda path: read_zero_clicks(path, "clicks"),
    ),
    "labels_clicks": (
        ["csv", "parquet"],
        ["query", "count", "stratum", "zero_click"],
        read_labels_with_clicks,
    ),
    # goldset import --human
    "human_labels": (
        ["jsonl", "csv", "tsv", "parquet"],
        ["query_id", "doc_id", "grade", "note"],
        lambda path: read_human_labels(path, GradeScale(), None),
    ),
}


def outcome(read: Callable[[Path], object], path: Path, named: Path) -> object | None:
    """The reader's result, or None after checking its refusal is one line naming ``named``."""
    try:
        return read(path)
    except InputError as exc:
        message = str(exc)
        assert "\n" not in message and "\r" not in message, message
        assert str(named) in message, message
        return None


@pytest.mark.parametrize("name", sorted(TABLES))
@FUZZ
@given(data=st.data())
def test_table_readers_read_or_refuse_in_one_line(name: str, data: st.DataObject) -> None:
    formats, columns, read = TABLES[name]
    fmt = data.draw(st.sampled_from(formats), label="format")
    written: Written = data.draw(table_file(fmt, columns), label="file")
    with tempfile.TemporaryDirectory() as folder:
        suffix = {"tsv": ".tsv", "csv": ".csv", "jsonl": ".jsonl", "parquet": ".parquet"}[fmt]
        path = Path(folder) / f"{name}{suffix}"
        path.write_bytes(written.data)
        result = outcome(read, path, path)
        if name == "pool" and result is not None and written.rows is not None and fmt == "jsonl":
            # No id was made up: each one read is a written string or integer, as written.
            allowed = {as_id(r.get("query_id")) for r in written.rows} - {None}
            allowed |= {a.strip() for a in allowed if a}
            got = set(result.frame["query_id"].to_list())  # type: ignore[attr-defined]
            assert got <= allowed, (got, allowed)


@pytest.mark.parametrize(("name", "fields"), [("run", 6), ("qrels", 4), ("human_qrels", 4)])
@FUZZ
@given(data=st.data())
def test_trec_readers_read_or_refuse_in_one_line(
    name: str, fields: int, data: st.DataObject
) -> None:
    written = data.draw(trec_file(fields), label="file")
    read = {
        "run": read_run,
        "qrels": read_qrels,
        "human_qrels": lambda path: read_human_labels(path, GradeScale(), None),
    }[name]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"x.{name}"
        path.write_bytes(written.data)
        outcome(read, path, path)


@pytest.mark.parametrize(("name", "fields"), [("run", 6), ("qrels", 4)])
@FUZZ
@given(data=st.data())
def test_small_trec_readers_doubt_or_agree_with_polars(
    name: str, fields: int, data: st.DataObject
) -> None:
    # The plain-Python readers of small inputs (goldset eval without Polars) never decide on
    # their own: a hostile file is either read exactly as read_run/read_qrels read it, or left
    # to them (Doubt), which then read it or name the bad line.
    from goldset_tui.io.small_trec import Doubt, read_qrels_small, read_run_small
    from goldset_tui.io.sources import Source

    src = Source(f"x.{name}", data.draw(trec_file(fields), label="file").data)
    try:
        frame = read_run(src, tag=False) if name == "run" else read_qrels(src)
    except InputError:
        frame = None
    try:
        plain = read_run_small(src) if name == "run" else read_qrels_small(src)
    except Doubt:
        return
    assert frame is not None, "the small reader accepted a file the Polars reader refuses"
    if name == "run":
        got = {(q, d, s) for q, pairs in plain.items() for s, d in pairs}
        assert got == set(frame.select("query_id", "doc_id", "score").iter_rows())
    else:
        got = {(q, d.decode(), g) for q, grades in plain.items() for d, g in grades.items()}
        assert got == set(frame.iter_rows())


@FUZZ
@given(data=st.data())
def test_config_reads_or_refuses_in_one_line(data: st.DataObject) -> None:
    line = st.one_of(
        st.sampled_from(
            ["[keymap]", 'grade_0 = "0,a"', "grade_1 = 3", '[keymap]\nquit = "\x1b"', "x = ["]
        ),
        TEXT.map(lambda t: f"key = {json.dumps(t)}"),
        TEXT,
    )
    text = "\n".join(data.draw(st.lists(line, max_size=5)))
    raw = data.draw(damaged(text.encode("utf-8", "surrogatepass")))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        path.write_bytes(raw)
        outcome(load_config, path, path)


# --- the store: manifests, journals, parts ---------------------------------------------------------
def new_store(folder: Path) -> Project:
    pool = folder / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    project = Project.create(folder / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    with project.writer("alice") as writer:
        writer.record(Judgment("alice", "q1", "d1", 2, "2026-01-01T00:00:00Z"))
    return project


def snapshot(store: Path) -> dict[str, bytes]:
    return {str(p.relative_to(store)): p.read_bytes() for p in store.rglob("*") if p.is_file()}


def read_store(store: Path) -> pl.DataFrame | None:
    def read(path: Path) -> pl.DataFrame:
        project = Project.open(path)
        project.judgments(history=True)
        return project.judgments()

    before = snapshot(store)
    result = outcome(read, store, store)  # every message names a file inside the store
    assert snapshot(store) == before, "reading a store changed it"
    return result if isinstance(result, pl.DataFrame) else None


FIELDS = [
    "kind",
    "labeller",
    "query_id",
    "doc_id",
    "grade",
    "time",
    "seconds",
    "position",
    "note",
    "seq",
]


@st.composite
def journal_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    plausible = {
        "kind": st.sampled_from(["judge", "repeat", "undo", "note"]),
        "labeller": st.just("alice"),
        "query_id": st.sampled_from(["q1", "q2"]),
        "doc_id": st.sampled_from(["d1", "d2"]),
        "grade": st.integers(0, 3),
        "time": st.just("2026-01-01T00:00:00Z"),
        "seconds": st.floats(0, 60),
        "position": st.integers(0, 9),
        "note": st.none(),
    }
    records = []
    for seq in range(2, 2 + draw(st.integers(1, 4))):
        record = {k: draw(v) for k, v in plausible.items()} | {"seq": seq}
        if draw(st.booleans()):
            record[draw(st.sampled_from(FIELDS))] = draw(VALUES)
        records.append(record)
    return records


@FUZZ
@given(records=journal_records(), data=st.data())
def test_a_hostile_journal_is_read_or_refused_and_never_changed(
    records: list[dict[str, Any]], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        project = new_store(Path(folder))
        text = "".join(json.dumps(r, allow_nan=True) + "\n" for r in records).encode(
            "utf-8", "surrogatepass"
        )
        journal = project.path / "journal" / "alice.jsonl"
        journal.write_bytes(data.draw(damaged(text)))
        latest = read_store(project.path)
        if latest is not None:
            # Every grade read was written, as an integer on the store's 0-3 scale.
            written = {r.get("grade") for r in records} | {2}
            for grade in latest["grade"].to_list():
                assert grade in written and 0 <= grade <= 3


@FUZZ
@given(data=st.data())
def test_a_hostile_part_or_manifest_is_refused_in_one_line(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        project = new_store(Path(folder))
        if data.draw(st.booleans(), label="part"):
            (part,) = (project.path / "judgments" / "alice").glob("part-*.parquet")
            frame = pl.read_parquet(part)
            column = data.draw(st.sampled_from(frame.columns))
            value = data.draw(VALUES)
            try:
                frame.with_columns(pl.lit(value).alias(column)).write_parquet(part)
            except Exception:  # a value Polars cannot hold or write: its text then
                frame.with_columns(pl.lit(str(value)).alias(column)).write_parquet(part)
        else:
            manifest = project.path / "manifest.toml"
            text = manifest.read_text()
            old = data.draw(
                st.sampled_from(
                    ["format = 1", 'name = "alice"', "[scale]", "[pool]", '0 = "not relevant"']
                )
            )
            new = data.draw(
                st.one_of(TEXT, st.sampled_from(['name = "Alice"', "format = 2", "", '9 = "x"']))
            )
            manifest.write_bytes(
                data.draw(damaged(text.replace(old, new).encode("utf-8", "surrogatepass")))
            )
        read_store(project.path)
