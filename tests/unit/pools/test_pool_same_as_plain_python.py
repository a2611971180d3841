"""`goldset pool` reads runs in slices and cuts each slice down as it arrives (io/run_scan.py);
the pool it writes must be the pool a plain reading of the whole files gives.

The reference here shares no code with goldset: every line split on whitespace, scores parsed by
Python's float(), each query's documents sorted by (score, doc_id) descending (trec_eval's order:
ties by document id descending), the first K taken. The runs are made to be hard: two-decimal
scores full of ties, grouped or shuffled lines (a query's lines scattered over many slices),
tab or space separators, CRLF line ends, scores in exponent notation, and slices of a few
hundred bytes so that queries, ties and cuts fall across slice boundaries.
"""

from __future__ import annotations

import csv
import random
from collections import defaultdict
from pathlib import Path

import pytest

from goldset_tui.io import run_scan

DEPTHS = [1, 3, 20]


@pytest.fixture(autouse=True)
def tiny_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_scan, "SLICE_BYTES", 256)
    monkeypatch.setattr(run_scan, "_MERGE_ROWS", 40)


def score_text(rng: random.Random) -> str:
    value = rng.choice([1.0, 0.5, 0.0, -0.0, round(rng.uniform(-3, 3), 2)])
    style = rng.choice(["plain", "plain", "exp", "EXP"])
    if style == "exp":
        return f"{value:e}"  # 5.000000e-01
    if style == "EXP":
        return f"{value:.2E}"  # 5.00E-01
    return repr(value)


def make_run(seed: int, *, shuffle: bool, separator: str, newline: str) -> str:
    rng = random.Random(seed)
    lines = []
    for q in range(rng.randint(2, 9)):
        for d in rng.sample(range(300), rng.randint(1, 45)):
            # ids of varied length, so byte order and numeric order disagree ("9" > "10")
            fields = [f"q{q * 3}", "Q0", str(d) if d % 2 else f"doc-{d}", "0", score_text(rng)]
            lines.append(separator.join([*fields, "sys"]))
    if shuffle:
        rng.shuffle(lines)
    return newline.join(lines) + (newline if rng.random() < 0.7 else "")


def plain_pool(runs: dict[str, Path], depth: int) -> set[tuple[str, str, str, str]]:
    """(query_id, doc_id, systems, ranks) rows, as the CSV pool writes them."""
    hits: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    for name, path in runs.items():
        per_query: dict[str, list[tuple[float, str]]] = defaultdict(list)
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                qid, _, doc, _, score, _ = line.split()
                per_query[qid].append((float(score), doc))
        for qid, docs in per_query.items():
            # -0.0 and 0.0 tie on score, so their order comes from the id alone
            docs.sort(key=lambda sd: (sd[0] + 0.0, sd[1].encode()), reverse=True)
            for rank, (_, doc) in enumerate(docs[:depth], start=1):
                hits[qid, doc].append((name, rank))
    return {
        (q, d, ";".join(s for s, _ in h), ";".join(str(r) for _, r in h))
        for (q, d), h in hits.items()
    }


def goldset_pool(cli, tmp_path: Path, runs: dict[str, Path], depth: int) -> set[tuple]:
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"q{q * 3}\tquery {q}\n" for q in range(12)), encoding="utf-8")
    out = tmp_path / f"pool{depth}.csv"
    argv = ["pool", *[a for n, p in runs.items() for a in ("--run", f"{n}={p}")]]
    status, _, err = cli(*argv, "--depth", str(depth), "--topics", str(topics), "-o", str(out))
    assert status == 0, err
    with out.open(encoding="utf-8", newline="") as fh:
        return {(r["query_id"], r["doc_id"], r["systems"], r["ranks"]) for r in csv.DictReader(fh)}


@pytest.mark.parametrize("seed", range(4))
def test_pool_equals_a_plain_reading_of_whole_runs(tmp_path: Path, cli, seed: int) -> None:
    layouts = [
        (False, " ", "\n"),
        (True, " ", "\n"),
        (True, "\t", "\n"),
        (False, " ", "\r\n"),
        (True, "\t", "\r\n"),
    ]
    runs = {}
    for n, (shuffle, separator, newline) in enumerate(layouts):
        path = tmp_path / f"run{n}.txt"
        path.write_bytes(
            make_run(seed * 10 + n, shuffle=shuffle, separator=separator, newline=newline).encode()
        )
        runs[f"s{n}"] = path
    for depth in DEPTHS:
        expected = plain_pool(runs, depth)
        assert goldset_pool(cli, tmp_path, runs, depth) == expected, depth


def test_padded_and_mixed_whitespace_runs_give_the_same_pool(tmp_path: Path, cli) -> None:
    # Not the fast layout: read_run's careful path reads these; the pool must not change.
    text = make_run(7, shuffle=True, separator=" ", newline="\n")
    padded = tmp_path / "padded.txt"
    padded.write_text("\n".join("  " + line.replace(" ", "   ", 2) for line in text.splitlines()))
    mixed = tmp_path / "mixed.txt"
    mixed.write_text(text.replace(" ", "\t", 25))
    runs = {"padded": padded, "mixed": mixed}
    for depth in DEPTHS:
        assert goldset_pool(cli, tmp_path, runs, depth) == plain_pool(runs, depth)


@pytest.mark.parametrize("where", ["first", "last", "apart"])
def test_a_document_twice_for_a_query_is_refused_wherever_it_is(
    tmp_path: Path, cli, where: str
) -> None:
    lines = make_run(3, shuffle=False, separator=" ", newline="\n").splitlines()
    qid, _, doc, *_ = lines[0].split()
    again = f"{qid} Q0 {doc} 9 -5.0 sys"  # a low score: far outside any top k
    at = {"first": 1, "last": len(lines), "apart": len(lines) // 2}[where]
    lines.insert(at, again)
    path = tmp_path / "dup.run"
    path.write_text("\n".join(lines) + "\n")
    topics = tmp_path / "topics.tsv"
    topics.write_text(f"{qid}\tq\n")
    status, _, err = cli(
        "pool", "--run", f"a={path}", "--depth", "2", "--topics", str(topics), "-o",
        str(tmp_path / "p.csv"),
    )  # fmt: skip
    assert status == 2
    assert f"dup.run:{at + 1}:" in err and f"document '{doc}' appears twice" in err
