"""A printed p-value never reads 0: a randomization p-value is (1 + extreme) / (1 + samples)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldset_tui.agreement.markdown import p_text
from goldset_tui.cli import main
from goldset_tui.history.format import change_text
from goldset_tui.pvalue import p_value_text

SAMPLES = 20000
QUERIES = 30


@pytest.fixture
def clear_win(tmp_path: Path) -> list[Path]:
    """30 queries where run a ranks the one relevant document first and run b never retrieves it:
    a sign flip as extreme as the observed difference has chance 2 / 2**30, so among 20000 random
    flips none is, and the p-value is 1 / 20001 (about 5e-05)."""
    qrels, a, b = tmp_path / "qrels", tmp_path / "a.run", tmp_path / "b.run"
    qrels.write_text("".join(f"q{i} 0 rel{i} 1\n" for i in range(QUERIES)))
    a.write_text("".join(f"q{i} Q0 rel{i} 1 2.0 a\n" for i in range(QUERIES)))
    b.write_text("".join(f"q{i} Q0 other{i} 1 2.0 b\n" for i in range(QUERIES)))
    return [qrels, a, b]


def compare(capsys, files: list[Path], fmt: str, measure: str = "R@10") -> str:
    argv = ["compare", *map(str, files), "-m", measure, "--samples", str(SAMPLES), "--format", fmt]
    assert main(argv) == 0
    out: str = capsys.readouterr().out
    return out


def test_compare_text_never_prints_a_zero_p_value(clear_win, capsys):
    doc = json.loads(compare(capsys, clear_win, "json"))
    assert doc["p_value"] == pytest.approx(1 / (1 + SAMPLES))
    text = compare(capsys, clear_win, "text")
    line = next(x for x in text.splitlines() if x.startswith("p-value"))
    assert line.endswith("\t< 0.0001"), line
    # R@10 with one relevant document a query is 0 or 1 by definition, so the exact McNemar test
    # is printed too: 2 / 2**30, not 0 either.
    mcnemar = next(x for x in text.splitlines() if x.startswith("McNemar"))
    assert mcnemar.endswith("\t< 0.0001"), mcnemar
    # RR takes the same values here (1 or 0) but is graded by definition: no McNemar.
    graded = compare(capsys, clear_win, "text", "RR")
    assert not any(x.startswith(("McNemar", "discordant")) for x in graded.splitlines())


@pytest.mark.parametrize(
    ("p", "digits", "shown"),
    [
        (1 / 20001, 4, "< 0.0001"),
        (0.0001, 4, "0.0001"),
        (0.00009999, 4, "< 0.0001"),
        (0.04321, 4, "0.0432"),
        (1.0, 4, "1.0000"),
        (None, 4, "-"),
        (float("nan"), 4, "-"),
        (0.0004, 3, "< 0.001"),
        (0.0123, 3, "0.012"),
    ],
)
def test_p_value_text(p, digits, shown):
    assert p_value_text(p, digits) == shown


def test_history_and_agreement_use_the_same_form():
    change = {"mean_diff": 0.1, "ci95": [0.05, 0.15], "p_value": 1 / 20001, "n": 30}
    change["significant"] = True
    assert "p < 0.0001 on 30 *" in change_text(change)
    assert "p=" not in change_text(change | {"p_value": 0.5})
    assert p_text(0.0004) == "p < 0.001" and p_text(0.25) == "p = 0.250" and p_text(None) == "p -"
