"""The "wrote PATH" lines show the output path literally. The path is text from outside (a
script builds it from a release or a stratum name), and these lines printed it raw: an escape or
a bidi control in it was obeyed by the terminal (screen cleared, line reordered), where every
other message shows such characters as placeholders (text.visible)."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.cli import main

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
RUNS = [f"{n}={SAMPLE / 'runs' / f'{n}.run'}" for n in ("bm25", "minilm")]
HOSTILE = "o\x1b[2J\u202ex"
SHOWN = "o␛[2J<U+202E>x"


def _said(capsys, argv: list[str]) -> str:
    assert main(argv) == 0
    out = capsys.readouterr()
    return out.out + out.err


def _literal(text: str) -> None:
    assert "\x1b" not in text and "\u202e" not in text
    assert SHOWN in text


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / HOSTILE).mkdir()
    return tmp_path / HOSTILE


def test_classify_and_sample(capsys, folder, tmp_path):
    labels = folder / "labels.csv"
    _literal(_said(capsys, ["classify", str(SAMPLE / "query_log.csv"), "-o", str(labels)]))
    draw = ["sample", "draw", str(labels), "-o", str(folder / "g.csv"), "--seed", "1"]
    _literal(_said(capsys, [*draw, "--total", "60", "--min-per-stratum", "5"]))
    sql = ["sample", "emit-sql", "duckdb", "--table", "t", "--seed", "1"]
    _literal(_said(capsys, [*sql, "--targets", "short_keyword=5", "-o", str(folder / "s.sql")]))


def test_fuse_pool_and_report(capsys, folder):
    _literal(_said(capsys, ["fuse", *RUNS, "-o", str(folder / "f.run")]))
    pool = ["pool", *(a for r in RUNS for a in ("--run", r)), "--depth", "5"]
    pool += ["--topics", str(SAMPLE / "topics.tsv"), "--corpus", str(SAMPLE / "corpus.jsonl")]
    _literal(_said(capsys, [*pool, "-o", str(folder / "p.jsonl")]))
    report = ["report", "--qrels", str(SAMPLE / "judgments" / "alice.qrels")]
    report += [*(a for r in RUNS for a in ("--run", r)), "--strata", str(SAMPLE / "strata.csv")]
    _literal(_said(capsys, [*report, "-o", str(folder / "out")]))


def test_qrels_export(capsys, folder, tmp_path):
    store = tmp_path / "store"
    imp = ["import", "--pool", str(SAMPLE / "pool.jsonl"), "--store", str(store)]
    _said(capsys, [*imp, "--labeller", "ana", "--human", str(SAMPLE / "judgments" / "alice.qrels")])
    argv = ["qrels", "--store", str(store), "--labeller", "ana", "-o", str(folder / "a.qrels")]
    _literal(_said(capsys, argv))


def test_the_judging_exit_line_shows_the_pool_path_literally(tmp_path):
    from types import SimpleNamespace

    from goldset_tui.commands._judge_exit import exit_line, quoted

    store, pool = tmp_path / "store", f"{HOSTILE}.jsonl"
    resume = quoted("goldset", "judge", pool, "--labeller", "ana", "--store", store)
    screen = SimpleNamespace(session=None)
    line = exit_line("judge", screen, store, resume, quoted("goldset", "qrels", "--store", store))
    _literal(line)
