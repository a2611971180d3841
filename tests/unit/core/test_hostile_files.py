"""Hostile files: each is refused in one line naming the file and where in
it, exit 2, no traceback and no silent change of a value."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.io.pools import load_pool, read_topics
from goldset_tui.io.tables import read_table
from goldset_tui.markdown_text import md_literal

BASE = {"query_id": "q1", "query": "x", "doc_id": "d1", "text": "t"}


def jsonl(path: Path, *rows: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def parquet(path: Path, **columns: list[object]) -> Path:
    pl.DataFrame(columns).write_parquet(path)
    return path


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], where: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"goldset: error: {where}"), err
    return err


# --- 7 and 8: types checked, not coerced ----------------------------------------------------------
POOLS: dict[str, Callable[[Path], tuple[Path, str]]] = {
    "systems nested": lambda d: (
        jsonl(d / "p.jsonl", BASE | {"systems": [["a"]], "ranks": [1]}),
        ":1: column 'systems'",
    ),
    "ranks nested": lambda d: (
        jsonl(d / "p.jsonl", BASE | {"systems": ["a"], "ranks": [[1]]}),
        ":1: column 'ranks'",
    ),
    "ranks 1.7 jsonl": lambda d: (
        jsonl(d / "p.jsonl", BASE | {"systems": ["a"], "ranks": [1.7]}),
        ":1: column 'ranks'",
    ),
    "ranks 1.7 parquet": lambda d: (
        parquet(
            d / "p.parquet", **{k: [v] for k, v in BASE.items()}, systems=[["a"]], ranks=[[1.7]]
        ),
        ": row 1: column 'ranks'",
    ),
    "systems binary": lambda d: (
        parquet(
            d / "p.parquet", **{k: [v] for k, v in BASE.items()}, systems=[[b"a"]], ranks=[[1]]
        ),
        ": row 1: column 'systems'",
    ),
    "query_id struct": lambda d: (
        jsonl(d / "p.jsonl", BASE | {"query_id": {"x": 1}}),
        ":1: column 'query_id'",
    ),
    "query_id float among ids": lambda d: (
        jsonl(
            d / "p.jsonl",
            BASE | {"query_id": 1},
            BASE | {"query_id": "q2", "doc_id": "d2"},
            BASE | {"query_id": 1.5, "doc_id": "d3"},
        ),
        ":3: column 'query_id'",
    ),
    "lone surrogate": lambda d: (
        _raw(d / "p.jsonl", '{"query_id":"\\ud800","query":"x","doc_id":"d1","text":"t"}\n'),
        ":1: ",
    ),
    "NaN": lambda d: (_raw(d / "p.jsonl", json.dumps(BASE)[:-1] + ', "score": NaN}\n'), ":1: "),
    "huge integer": lambda d: (
        _raw(d / "p.jsonl", json.dumps(BASE)[:-1] + ', "n": 99999999999999999999999}\n'),
        ":1: ",
    ),
    "csv quoted newlines": lambda d: (
        _raw(d / "p.csv", 'query_id,query,doc_id,text\nq1,x,d1,"a\nb"\nq2,y,d2,"c\nd"\nq3,z,d3,\n'),
        ":6: column 'text'",
    ),
    "csv unterminated quote": lambda d: (
        _raw(d / "p.csv", 'query_id,query,doc_id,text\nq1,x,d1,t\nq2,y,d2,"abc\nq3,z,d3,t\n'),
        ":3: ",
    ),
}


def _raw(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", sorted(POOLS))
def test_a_hostile_pool_is_refused_naming_file_and_place(tmp_path, capsys, case: str) -> None:
    path, where = POOLS[case](tmp_path)
    refused(capsys, ["check", str(path)], f"{path}{where}")


def test_an_integer_id_is_read_as_its_digits(tmp_path) -> None:
    pool = load_pool(jsonl(tmp_path / "p.jsonl", BASE | {"query_id": 7}, BASE | {"query_id": "q2"}))
    assert pool.frame["query_id"].to_list() == ["7", "q2"]


@pytest.mark.parametrize(
    ("command", "column"),
    [
        (["classify", "{f}", "-o", "{o}"], "count"),
        (["sample", "draw", "{f}", "-o", "{o}", "--seed", "1", "--total", "1"], "count"),
    ],
)
def test_a_list_count_is_refused(tmp_path, capsys, command: list[str], column: str) -> None:
    f = parquet(tmp_path / "log.parquet", query=["a"], count=[[1]], stratum=["s"])
    argv = [a.format(f=f, o=tmp_path / "out.csv") for a in command]
    refused(capsys, argv, f"{f}: row 1: column '{column}'")
    assert not (tmp_path / "out.csv").exists()


def test_a_list_share_is_refused(tmp_path) -> None:
    from goldset_tui.io.strata_and_traffic import read_traffic

    f = parquet(tmp_path / "traffic.parquet", stratum=["a"], share=[[0.5]])
    with pytest.raises(InputError) as caught:
        read_traffic(f)
    assert (caught.value.row, caught.value.column) == (1, "share")


# --- 10: a BOM does not hide the first topic ------------------------------------------------------
def test_a_bom_in_a_topics_tsv_keeps_the_first_query(tmp_path) -> None:
    path = tmp_path / "topics.tsv"
    path.write_bytes("\ufeffq01\tfirst\nq02\tsecond\n".encode())
    assert read_topics(path)["query_id"].to_list() == ["q01", "q02"]


# --- 11: agreement Markdown shows control characters as placeholders ------------------------------
def test_markdown_cells_show_escapes_as_placeholders() -> None:
    shown = md_literal("al\x1b[31mice|x\nz")
    assert "\x1b" not in shown and "\u241b" in shown and "\\|" in shown and "\n" not in shown


# --- 12: the message is true for links and pipes --------------------------------------------------
def test_a_symlink_loop_and_a_fifo_are_named_for_what_they_are(tmp_path) -> None:
    os.symlink(tmp_path / "b.csv", tmp_path / "a.csv")
    os.symlink(tmp_path / "a.csv", tmp_path / "b.csv")
    with pytest.raises(InputError, match="loop of symbolic links"):
        read_table(tmp_path / "a.csv")
    os.symlink(tmp_path / "gone.csv", tmp_path / "dangling.csv")
    with pytest.raises(InputError, match="symbolic link to a file that does not exist"):
        read_table(tmp_path / "dangling.csv")
    os.mkfifo(tmp_path / "pipe.csv")
    with pytest.raises(InputError, match="named pipe"):
        read_table(tmp_path / "pipe.csv")


# --- JSON nested deeper than Python's parser recurses ---------------------------------------------
# 100,000 "[" made a RecursionError (a ValueError's stranger cousin) escape every JSON reader as a
# traceback: the pool, a machine judge's labels, the journal, a history record, TOML files.
DEEP = "[" * 100_000


def _store(d: Path) -> Path:
    from goldset_tui.store import Project, sha256_file

    pool = jsonl(d / "pool.jsonl", BASE)
    return Project.create(d / "store", pool_path=pool, pool_sha256=sha256_file(pool)).path


def _deep_journal(d: Path) -> tuple[list[str], str]:
    from goldset_tui.store import Project

    store = _store(d)
    with Project.open(store).writer("ana"):
        pass
    good = {
        "kind": "judge",
        "labeller": "ana",
        "query_id": "q1",
        "doc_id": "d1",
        "grade": 1,
        "time": "t",
        "seconds": 1.0,
        "position": 0,
        "note": None,
        "seq": 1,
    }
    journal = store / "journal" / "ana.jsonl"
    journal.write_text(json.dumps(good) + "\n" + DEEP + "\n" + json.dumps(good | {"seq": 2}) + "\n")
    return ["qrels", "--store", str(store)], f"{journal}:2:"


def _deep_history(d: Path) -> tuple[list[str], str]:
    store = _store(d)
    (store / "history").mkdir()
    record = store / "history" / "0123.json"
    record.write_text('{"format": 1, "scores": ' + DEEP)
    return ["history", "--store", str(store)], f"{record}:1:"


def _deep_manifest(d: Path) -> tuple[list[str], str]:
    store = _store(d)
    manifest = store / "manifest.toml"
    lines = manifest.read_text().count("\n")
    manifest.write_text(manifest.read_text() + "\n[extra]\nx = " + DEEP + "\n")
    return ["qrels", "--store", str(store)], f"{manifest}:{lines + 3}:"


def _deep_labels(d: Path, option: str) -> tuple[list[str], str]:
    pool = jsonl(d / "pool.jsonl", BASE)
    labels = d / "labels.jsonl"
    labels.write_text('{"query_id": "q1", "doc_id": "d1", "grade": 1}\n' + DEEP + "\n")
    argv = ["import", "--pool", str(pool), "--labeller", "m", option, str(labels)]
    return argv, f"{labels}:2:"


DEEP_FILES: dict[str, Callable[[Path], tuple[list[str], str]]] = {
    "flat pool": lambda d: (
        ["check", str(_raw(d / "p.jsonl", json.dumps(BASE) + "\n" + DEEP + "\n"))],
        f"{d / 'p.jsonl'}:2:",
    ),
    "nested pool": lambda d: (
        [
            "check",
            str(_raw(d / "n.jsonl", '{"query_id": "q1", "query": "x", "candidates": ' + DEEP)),
        ],
        f"{d / 'n.jsonl'}:1:",
    ),
    "machine labels": lambda d: _deep_labels(d, "--machine"),
    "human labels": lambda d: _deep_labels(d, "--human"),
    "journal": _deep_journal,
    "history record": _deep_history,
    "store manifest": _deep_manifest,
}


@pytest.mark.parametrize("case", sorted(DEEP_FILES))
def test_deeply_nested_json_is_refused_in_one_line(tmp_path, capsys, case: str) -> None:
    argv, where = DEEP_FILES[case](tmp_path)
    refused(capsys, argv, where)


def test_deeply_nested_corpus_topics_and_config_name_the_line(tmp_path) -> None:
    from goldset_tui.config import load_config
    from goldset_tui.io.corpus import read_corpus

    corpus = _raw(tmp_path / "c.jsonl", '{"_id": "d1", "text": "t"}\n' + DEEP + "\n")
    topics = _raw(tmp_path / "t.jsonl", '{"query_id": "q1", "query": "x"}\n' + DEEP + "\n")
    config = _raw(tmp_path / "config.toml", "theme = " + DEEP + "\n")
    for read, path, line in [
        (read_corpus, corpus, 2),
        (read_topics, topics, 2),
        (load_config, config, 1),
    ]:
        with pytest.raises(InputError) as info:
            read(path)
        assert info.value.line == line and "nested" in str(info.value), str(info.value)


def test_a_deeply_nested_list_of_known_stores_is_ignored_like_any_damage(tmp_path) -> None:
    # The list is a courtesy (store/registry.py): damaged, it is read as empty, never a traceback.
    from goldset_tui.locations import known_stores_file
    from goldset_tui.store.registry import known_stores, remember

    known_stores_file().parent.mkdir(parents=True, exist_ok=True)
    known_stores_file().write_text('{"stores": ' + DEEP)
    assert known_stores() == []
    remember(_store(tmp_path))  # and the next store remembered writes a good list again
    assert known_stores() == [(tmp_path / "store").resolve()]
