"""The README's and `goldset import --help`'s adjacent import examples run one after the other as
written: alice's 0-3 qrels and then dee's 1-5 qrels (they used to go into the same default store,
whose scale is 0-3, and the second was refused)."""

from __future__ import annotations

import importlib
import shlex
from pathlib import Path

import pytest

from goldset_tui.cli import main

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "sample_data"


def import_lines(text: str) -> list[list[str]]:
    """Each `goldset import --pool ...` example, its continuation lines joined, comments cut."""
    joined = text.replace("\\\n", " ")
    lines = [line.split("#")[0].strip() for line in joined.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("goldset import --pool")]


def scratch(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "pool.jsonl").write_bytes((SAMPLE / "pool.jsonl").read_bytes())
    (tmp_path / "sample_data").symlink_to(SAMPLE)  # --help's first example runs on the sample
    alice = (SAMPLE / "judgments" / "alice.qrels").read_text(encoding="utf-8")
    one_to_five = "".join(
        f"{q} {it} {d} {int(g) + 1}\n" for q, it, d, g in (ln.split() for ln in alice.splitlines())
    )
    files = {"alice-2024.qrels": alice, "dee.qrels": one_to_five, "dee-1to5.qrels": one_to_five}
    for name, body in files.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    return {"~/": f"{tmp_path}/"}


@pytest.mark.parametrize("source", ["README.md", "import --help"])
def test_the_two_import_examples_run_in_a_row(source, tmp_path, monkeypatch) -> None:
    text = (
        (ROOT / "README.md").read_text(encoding="utf-8")
        if source == "README.md"
        else importlib.import_module("goldset_tui.commands.import").DESCRIPTION
    )
    examples = import_lines(text)
    assert len(examples) == 2, examples  # alice's, then dee's
    home = scratch(tmp_path)
    monkeypatch.chdir(tmp_path)
    for args in examples:
        args = [a.replace("~/", home["~/"]) for a in args]
        assert main(args) == 0, args
