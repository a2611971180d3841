"""A labeller name holding a newline, an escape or an invisible character (`--labeller $'a\\nb'`,
a name pasted with a right-to-left override) was accepted by `goldset import` and `goldset
judge`: the import printed its report and the `goldset judge` command to run next over two
lines, or with a placeholder (␛) that does not run; `goldset serve --add-user` refuses such
names, so that labeller could never be served. Import and judge refuse them too, as does serve,
and names with spaces at either end ("ana " is not "ana"), before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldset_tui.cli import main
from goldset_tui.commands.judge import prepare
from goldset_tui.errors import InputError

BAD = ["a\nb", "a\x1b[31mred", "x\u202ey", "ana ", " ana", "tab\tname"]


def files(tmp_path: Path) -> tuple[Path, Path]:
    pool = tmp_path / "pool.jsonl"
    pool.write_text(
        json.dumps({"query_id": "q1", "query": "q", "doc_id": "d1", "text": "t"}) + "\n"
    )
    qrels = tmp_path / "old.qrels"
    qrels.write_text("q1 0 d1 2\n")
    return pool, qrels


@pytest.mark.parametrize("name", BAD)
def test_import_refuses_the_name_in_one_line(tmp_path: Path, capsys, name: str) -> None:
    pool, qrels = files(tmp_path)
    store = tmp_path / "store"
    argv = ["import", "--pool", str(pool), "--store", str(store), "--labeller", name]
    assert main([*argv, "--human", str(qrels)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and "\u202e" not in err, err
    assert not store.exists()


@pytest.mark.parametrize("name", BAD)
def test_judge_refuses_the_name(tmp_path: Path, name: str) -> None:
    pool, _ = files(tmp_path)
    with pytest.raises(InputError) as caught:
        prepare(pool, name, store=tmp_path / "store")
    assert caught.value.column == "labeller"
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize("name", ["ana", "Ana María", "o'brien", "李"])
def test_ordinary_names_still_import(tmp_path: Path, name: str) -> None:
    pool, qrels = files(tmp_path)
    argv = ["import", "--pool", str(pool), "--store", str(tmp_path / "s"), "--labeller", name]
    assert main([*argv, "--human", str(qrels)]) == 0
