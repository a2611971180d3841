"""docs/report.md's worked example on the sample data, run as written: every figure its paragraph
quotes is what `goldset report` prints. The page once quoted traffic-weighted intervals
([0.930, 0.990], [0.634, 0.769]) that the report no longer printed ([0.913, 0.982], [0.615, 0.776])
after the interval changed; a reader checking the page against the program found neither."""

from __future__ import annotations

import re
from pathlib import Path

from goldset_tui.cli import main

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "report.md"


def _example() -> tuple[list[str], str]:
    """The example's command (its arguments) and the paragraph under it."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## A worked example on the sample data")
    block = text[start:].split("\n\n")
    command = " ".join(line.strip().rstrip("\\") for line in block[1].splitlines())
    return command.split()[1:], block[2]


def test_the_worked_example_prints_every_figure_its_paragraph_quotes(capsys, monkeypatch) -> None:
    args, paragraph = _example()
    assert args[0] == "report" and "--traffic" in args
    monkeypatch.chdir(ROOT)
    assert main(args) == 0
    out = capsys.readouterr().out
    headline = out[out.index("## Headline") : out.index("## Closure")]
    # "bm25 0.953 against minilm 0.653 (traffic-weighted 0.960 [a, b] against 0.702 [c, d])"
    quoted = re.search(
        r"bm25 (\S+) against minilm (\S+) \(traffic-weighted (\S+)\s+\[(\S+), (\S+)\] against "
        r"(\S+) \[(\S+), (\S+)\]\)",
        " ".join(paragraph.split()),
    )
    assert quoted is not None, "the paragraph no longer quotes the headline figures"
    bm25_mean, minilm_mean, bm25_w, bm25_lo, bm25_hi, minilm_w, minilm_lo, minilm_hi = (
        quoted.groups()
    )
    assert f"| bm25 | {bm25_mean} | {bm25_w} | [{bm25_lo}, {bm25_hi}] |" in headline
    assert f"| minilm | {minilm_mean} | {minilm_w} | [{minilm_lo}, {minilm_hi}] |" in headline
    fused = re.search(r"RRF of the two top 10s (\S+);", paragraph)
    assert fused is not None
    assert f"| rrf | {fused.group(1)} |" in headline
