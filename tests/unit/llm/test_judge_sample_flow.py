"""docs/agreement.md's "A model as a judge" on the sample, end to end: the page's own commands run
against the fake provider (answering each pair with the illustrative machine judge's label,
through the real SDK) and print what the page shows; and the labels reached that way are those
`goldset import --machine` of the same file gives, as are `goldset agreement`'s numbers against
the sample's human labels: the model's labels are stored exactly as an import's."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from fake_provider import ANTHROPIC_KEY, FakeProvider, replaying
from judge_support import ROOT

from goldset_tui.cli import main
from goldset_tui.machine.example import build_sample_machine_store
from goldset_tui.store import Project
from goldset_tui.store.machine import machine_labels

LABELS = ROOT / "sample_data" / "judgments" / "llm.jsonl"
PAGE = ROOT / "docs" / "agreement.md"


def _walkthrough() -> list[tuple[list[str], list[str]]]:
    """The page's `goldset` commands in "On the sample, with a local stand-in", each with the
    output lines shown under it."""
    text = PAGE.read_text(encoding="utf-8")
    block = text[text.index("### On the sample, with a local stand-in") :]
    block = block[block.index("\n    python -c") : block.index("\n\nThe tokens are")]
    lines = [line[4:] for line in block.splitlines() if line.startswith("    ")]
    steps: list[tuple[list[str], list[str]]] = []
    joined = ""
    for line in lines:
        if joined:
            joined += " " + line.strip()
        elif line.startswith("goldset "):
            joined = line
        elif steps and not line.startswith(("python ", "export ", "...")):
            steps[-1][1].append(line)
            continue
        else:
            continue
        if joined.endswith("\\"):
            joined = joined[:-1].rstrip()
            continue
        steps.append((shlex.split(joined), []))
        joined = ""
    return steps


@pytest.mark.slow
def test_the_pages_walkthrough_and_import_machine_agree(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    judged = build_sample_machine_store(tmp_path / "mjm", ROOT / "sample_data")
    imported = build_sample_machine_store(tmp_path / "imported", ROOT / "sample_data")
    fake_provider.answer = replaying(tmp_path / "mjm" / "pool.jsonl", LABELS)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    steps = _walkthrough()
    assert [argv[:2] for argv, _ in steps] == [["goldset", "judge"]] * 2 + [
        ["goldset", "agreement"]
    ]
    for argv, shown in steps:
        argv = [
            a.replace("/tmp/mjm", str(tmp_path / "mjm")).replace(
                "http://127.0.0.1:8765", fake_provider.url
            )
            for a in argv[1:]
        ]
        assert main(argv) == 0
        out, err = capsys.readouterr()
        text = (out + err).replace(str(tmp_path / "mjm"), "/tmp/mjm")
        printed = [" ".join(line.split()) for line in text.splitlines()]
        for line in shown:
            assert " ".join(line.split()) in printed, line
    assert (
        main(["import", "--store", str(imported), "--labeller", "llm", "--machine", str(LABELS)])
        == 0
    )
    capsys.readouterr()
    a = machine_labels(Project.open(judged), "llm").sort("query_id", "doc_id")
    b = machine_labels(Project.open(imported), "llm").sort("query_id", "doc_id")
    assert a.height == 1285 and a.equals(b)
    reports = []
    for store in (judged, imported):
        assert (
            main(["agreement", "--store", str(store), "--format", "json", "--samples", "50"]) == 0
        )
        reports.append(json.loads(capsys.readouterr().out))
    assert reports[0]["machine"] == reports[1]["machine"]
    assert {e["b"] for e in reports[0]["machine"][0]["against"]} == {"alice", "bob", "consensus"}
    assert re.search(r"--max-pairs 200", PAGE.read_text(encoding="utf-8"))
