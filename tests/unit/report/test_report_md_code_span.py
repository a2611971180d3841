"""The Markdown report names a command in our own sentences as code, not as escaped backticks.

With a hand-made strata file the headline explains that `goldset sample` writes what is missing;
the sentence went through the data escaper, so the report read \\`goldset sample\\` in a terminal
and rendered as literal backticks on GitHub."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from goldset_tui.cli import main
from goldset_tui.markdown_text import md_literal, md_prose

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
MD = MarkdownIt("commonmark").enable(["table"])


def test_report_headline_and_decisions_name_goldset_sample_as_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["report", "--qrels", str(SAMPLE / "judgments/alice.qrels")]
    argv += [
        "--run",
        f"bm25={SAMPLE / 'runs/bm25.run'}",
        "--run",
        f"minilm={SAMPLE / 'runs/minilm.run'}",
    ]
    argv += ["--strata", str(SAMPLE / "strata.csv"), "--traffic", str(SAMPLE / "traffic.csv")]
    argv += ["-m", "Success@3", "--format", "md"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "\\`" not in out
    html = MD.render(out)
    # Once in the headline's list, once in the decisions' first sentence.
    assert html.count("<code>goldset sample</code>") == 2, html


def test_prose_keeps_a_plain_code_span_and_escapes_the_rest() -> None:
    assert md_prose("which `goldset sample` writes") == "which `goldset sample` writes"
    # Inside a span needing an escape, or an unpaired backtick: literal, as md_literal makes it.
    assert md_prose("`a*b` and *c*") == md_literal("`a*b` and *c*")
    assert md_prose("one ` alone") == md_literal("one ` alone")
    for text in ("`a*b` and *c*", "one ` alone", "a `b` c `d"):
        assert "<em>" not in MD.render(md_prose(text))
