"""The sample's ILLUSTRATIVE releases are what sample_data/releases/README.md says they are,
checked from the files with plain Python (not with the builder)."""

from __future__ import annotations

from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"


def ranked(path: Path) -> dict[str, list[str]]:
    """query -> doc ids by the file's rank (the committed runs are in trec_eval order)."""
    out: dict[str, list[tuple[int, str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        q, _, doc, rank, _, _ = line.split()
        out.setdefault(q, []).append((int(rank), doc))
    return {q: [d for _, d in sorted(rows)] for q, rows in out.items()}


BM25 = ranked(SAMPLE / "runs" / "bm25.run")
MINILM = ranked(SAMPLE / "runs" / "minilm.run")
BROKEN = ["q08", "q09", "q10"]  # the first three misspelled queries by id (strata.csv)


def release(name: str, system: str) -> dict[str, list[str]]:
    return ranked(SAMPLE / "releases" / name / f"{system}.run")


def test_the_broken_queries_are_the_first_three_misspelled():
    lines = (SAMPLE / "strata.csv").read_text(encoding="utf-8").splitlines()[1:]
    misspelled = sorted(q for q, s in (line.split(",") for line in lines) if s == "misspelled")
    assert misspelled[:3] == BROKEN


def test_each_release_follows_its_rule():
    top20 = {q: docs[:20] for q, docs in BM25.items()}
    assert release("2026.1", "bm25") == top20
    swapped = {q: docs[10:20] + docs[:10] for q, docs in top20.items()}
    assert release("2026.2", "bm25") == {q: swapped[q] if q in BROKEN else top20[q] for q in top20}
    assert release("2026.3", "bm25") == {
        q: swapped[q] if q in BROKEN[1:] else top20[q] for q in top20
    }
    for name in ("2026.1", "2026.2", "2026.3"):
        assert release(name, "minilm") == {q: docs[:20] for q, docs in MINILM.items()}
    assert release("2026.3", "dense-v2") == {q: docs[15:35] for q, docs in MINILM.items()}
