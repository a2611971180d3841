"""docs/history.md's quarter, run as written: every line of its "Week 12" output must be what
`goldset history` prints today on the sample.

The doc's `2026.3-repooled` row once kept an interval from the percentile bootstrap the history no
longer uses, after grades of the 166 re-pooled pairs the doc never gave: no reader could get it,
and nothing noticed. Here alice's grades of those pairs follow the rule her sample grades were
made by (``alice()`` in sample_data/builder/judgments.py), as the doc says.
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

from goldset_tui.cli import main
from goldset_tui.io.pools import load_pool

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "sample_data"
REL = SAMPLE / "releases"
DOC = ROOT / "docs" / "history.md"


def _report(store: Path, out: Path, release: str, *, runs_of: str, dense: bool) -> list[str]:
    names = ["bm25", "minilm", *(["dense-v2"] if dense else [])]
    args = ["report", "--qrels", str(store), "--strata", str(SAMPLE / "strata.csv")]
    for name in names:
        args += ["--run", f"{name}={REL / runs_of / (name + '.run')}"]
    # --samples is the report's own intervals: the record keeps per-query scores only.
    args += ["--measure", "nDCG@10", "--samples", "20", "-o", str(out / release)]
    return [*args, "--store", str(store), "--release", release]


def _doc_block(heading: str) -> list[str]:
    """The lines of the first fenced block after ``heading`` in the doc."""
    text = DOC.read_text(encoding="utf-8")
    after = text[text.index(heading) :]
    start = after.index("\n", after.index("```")) + 1  # past the fence and its language
    return after[start : after.index("```", start)].rstrip("\n").split("\n")


def _alice_rule(fresh: pl.DataFrame) -> pl.DataFrame:
    sys.path.insert(0, str(SAMPLE))
    try:
        from builder.judgments import alice
    finally:
        sys.path.remove(str(SAMPLE))
    return alice(fresh)


def test_the_quarter_of_the_doc_prints_what_the_doc_says(tmp_path, capsys):
    store, out = tmp_path / "store", tmp_path / "out"
    pool = SAMPLE / "pool.jsonl"
    alice = SAMPLE / "judgments" / "alice.qrels"
    assert main(["import", "--pool", str(pool), "--store", str(store), "--labeller", "alice"]
                + ["--human", str(alice)]) == 0  # fmt: skip
    for release in ("2026.1", "2026.2"):
        assert main(_report(store, out, release, runs_of=release, dense=False)) == 0
    assert main(_report(store, out, "2026.3", runs_of="2026.3", dense=True)) == 0
    new_pool = tmp_path / "pool+dense-v2.jsonl"
    extend = ["pool", "--extend", str(pool), "--run", f"dense-v2={REL / '2026.3' / 'dense-v2.run'}"]
    extend += ["--depth", "10", "--corpus", str(SAMPLE / "corpus.jsonl")]
    assert main([*extend, "-o", str(new_pool), "--store", str(store)]) == 0
    assert "adds 166 new pairs to 1,285" in capsys.readouterr().out

    fresh = load_pool(new_pool).frame.join(
        load_pool(pool).frame, on=["query_id", "doc_id"], how="anti"
    )
    grades = _alice_rule(fresh)
    # What the doc says of them: 166 pairs, 25 relevant (24 graded 1, one 2).
    assert grades.height == 166
    assert grades.get_column("grade").value_counts().sort("grade").rows() == [
        (0, 141),
        (1, 24),
        (2, 1),
    ]
    qrels = tmp_path / "alice-new.qrels"
    qrels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, d, g in grades.iter_rows()), encoding="utf-8"
    )
    assert (
        main(["import", "--store", str(store), "--labeller", "alice", "--human", str(qrels)]) == 0
    )
    said = capsys.readouterr()
    assert "imported 166 judgments of 166 for alice" in said.out + said.err

    # 2026.3 again, against the new judgments: refused, as the doc says.
    assert main(_report(store, out, "2026.3", runs_of="2026.3", dense=True)) == 2
    err = capsys.readouterr().err
    assert "history/55b4cffaaaf9463c43ed.json: release '2026.3' of 'bm25' (nDCG@10)" in err
    assert main(_report(store, out, "2026.3-repooled", runs_of="2026.3", dense=True)) == 0
    capsys.readouterr()

    assert main(["history", "--store", str(store), "--measure", "nDCG@10"]) == 0
    printed = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    block = _doc_block("### Week 12: reading the quarter")
    shown = [line.rstrip() for line in block if "..." not in line]
    assert len(shown) >= 6 and any("2026.3-repooled" in line for line in shown)
    missing = [line for line in shown if line not in printed]
    assert missing == [], "docs/history.md, Week 12: lines goldset history does not print"
    # The doc's elided lines start as printed lines do.
    for line in (x for x in block if x.endswith("...") and x.strip() != "..."):
        assert any(p.startswith(line[:-3].rstrip()) for p in printed), line
    # The recurring failures the doc shows, as printed.
    recurring = [x.rstrip() for x in _doc_block("### Recurring failures become named")]
    assert [x for x in recurring if x not in printed] == []
    # The [version] table the doc shows is the store's after the quarter (digests abbreviated).
    from goldset_tui.store.manifest import read_manifest

    version = read_manifest(store)["version"]
    checked = set()
    for line in _doc_block("## The golden set's version"):
        key, _, value = (part.strip() for part in line.split("#")[0].partition("="))
        if key in {"id", "judgments", "goldset"} or key.endswith("sha256"):
            assert str(version[key]).startswith(value.strip('".')), line
            checked.add(key)
    assert checked == {"id", "judgments", "goldset", "pool_sha256", "qrels_sha256"} | {
        "guidelines_sha256",
        "corpus_sha256",
    }
