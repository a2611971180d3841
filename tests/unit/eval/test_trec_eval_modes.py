"""`goldset eval --trec-eval-compat` against trec_eval 10's own printed lines, flag for flag.

Every line goldset prints must be, character for character, a line trec_eval printed with the
same flags (`-c`, `-J`, `-M N`, `-l N`, `-q`), and every trec_eval line of a measure goldset has
must be printed. The measures asked for are trec_eval's names found in the reference output, so
the aliases are exercised too. References: trec_eval's test folder (out.test*,
quicktest_commands.txt gives the flags) and `generated/` (README.txt gives the commands).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from goldset_tui.cli import main


def reference(path: Path) -> dict[tuple[str, str], str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh if line.strip()]
    return {(name.strip(), qid): value for name, qid, value in rows}


def ours(capsys, argv: list[str]) -> tuple[dict[tuple[str, str], str], list[str]]:
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    rows = [line.split("\t") for line in lines]
    return {(name.strip(), qid): value for name, qid, value in rows}, lines


# (qrels, run, reference, flags); runs given as (path, topics to drop) are rebuilt in tmp_path.
CASES = [
    ("trec_eval/qrels.test", "trec_eval/results.test", "trec_eval/out.test.aq", ["-q"]),
    ("trec_eval/qrels.test", "trec_eval/results.trunc", "trec_eval/out.test.aqc", ["-q", "-c"]),
    (
        "trec_eval/qrels.test",
        "trec_eval/results.trunc",
        "trec_eval/out.test.aqcM",
        ["-q", "-c", "-M", "100"],
    ),
    (
        "trec_eval/qrels.rel_level",
        "trec_eval/results.test",
        "trec_eval/out.test.aql",
        ["-q", "-l", "2"],
    ),
    (
        "trec_eval/generated/ties.qrels",
        "trec_eval/generated/ties.run",
        "trec_eval/generated/ties.out.all_trec_qc.txt",
        ["-q", "-c"],
    ),
    (
        "trec_eval/generated/ties.qrels",
        "trec_eval/generated/ties.run",
        "trec_eval/generated/ties.out.all_trec_q_l2.txt",
        ["-q", "-l", "2"],
    ),
    (
        "trec_eval/generated/ties.qrels",
        "trec_eval/generated/ties.run",
        "trec_eval/generated/ties.out.all_trec_qJ.txt",
        ["-q", "-J"],
    ),
    (
        "trec_eval/generated/ties.qrels",
        "trec_eval/generated/ties.run",
        "trec_eval/generated/ties.out.all_trec_qcJM3.txt",
        ["-q", "-c", "-J", "-M", "3"],
    ),
    (
        "trectools/robust03_cs_qrels.txt.gz",
        "trectools/input.uic0301.gz",
        "trec_eval/generated/robust03_uic0301.JM100_q.txt.gz",
        ["-q", "-J", "-M", "100"],
    ),
    (
        "trectools/robust03_cs_qrels.txt.gz",
        "trectools/input.uic0301.gz",
        "trec_eval/generated/robust03_uic0301.c_l2_q.txt.gz",
        ["-q", "-c", "-l", "2"],
    ),
    (
        "trectools/robust03_cs_qrels.txt.gz",
        ("trectools/input.uic0301.gz", {"303", "307", "310"}),
        "trec_eval/generated/robust03_uic0301_missing3.c_q.txt.gz",
        ["-q", "-c"],
    ),
]


def _run_path(peers: Path, run, tmp_path: Path) -> Path:
    if isinstance(run, str):
        return peers / run
    path, drop = run
    with gzip.open(peers / path, "rt") as fh:
        kept = [line for line in fh if line.split()[0] not in drop]
    out = tmp_path / "input.uic0301.missing3"
    out.write_text("".join(kept))
    return out


@pytest.mark.parametrize(
    ("qrels", "run", "expected", "flags"),
    CASES,
    ids=[c[2].split("/")[-1] + " " + " ".join(c[3]) for c in CASES],
)
def test_lines_are_trec_eval_lines(peers, tmp_path, capsys, qrels, run, expected, flags):
    from goldset_tui.eval.aliases import resolve  # here: the -c tests below also run on old code

    ref = reference(peers / expected)
    names = sorted({name for name, _ in ref if resolve(name) and resolve(name)[1] == "trec_eval"})
    assert "map" in names and "num_q" in names
    argv = [
        "eval",
        "--trec-eval-compat",
        *flags,
        str(peers / qrels),
        str(_run_path(peers, run, tmp_path)),
    ]
    for name in names:
        argv += ["-m", name]
    got, lines = ours(capsys, argv)
    # These -m lists name no runid: trec_eval given them prints none (its all_trec, which made
    # the reference, includes runid; the default output test below checks that line).
    assert ("runid", "all") not in got
    wrong = {key: (value, ref.get(key)) for key, value in got.items() if ref.get(key) != value}
    assert not wrong, f"{len(wrong)} of {len(got)} lines differ, e.g. {list(wrong.items())[:5]}"
    missing = [key for key in ref if key[0] in names and key not in got]
    assert not missing, missing[:10]
    assert len(got) > 50


def test_default_output_is_trec_eval_default_byte_for_byte(peers, capsys):
    # trec_eval test/qrels.test test/results.test | diff - test/out.test  (quicktest_commands.txt)
    te = peers / "trec_eval"
    _, lines = ours(
        capsys, ["eval", "--trec-eval-compat", str(te / "qrels.test"), str(te / "results.test")]
    )
    assert "\n".join(lines) + "\n" == (te / "out.test").read_text()


@pytest.mark.parametrize("compat", [[], ["--trec-eval-compat"]])
def test_dash_c_reproduces_trec_eval_with_a_judged_query_without_relevant(peers, capsys, compat):
    # ties' q2 is judged with no relevant document; trec_eval -c averages it in
    # (map 0.3630 = (0.7556 + 0 + 0.3333) / 3), goldset printed 0.5444 in every mode.
    g = peers / "trec_eval" / "generated"
    ref = reference(g / "ties.out.all_trec_qc.txt")
    argv = ["eval", *compat, "-c", str(g / "ties.qrels"), str(g / "ties.run"), "-m", "AP"]
    got, _ = ours(capsys, argv)
    name = "map" if compat else "AP"
    assert got[(name, "all")] == ref[("map", "all")] == "0.3630"


def test_dash_c_counts_qrels_queries_missing_from_the_run(peers, capsys, tmp_path):
    # Robust 2003 without three topics: -c divides by the 100 qrels topics, not the 97 run ones.
    run = _run_path(peers, ("trectools/input.uic0301.gz", {"303", "307", "310"}), tmp_path)
    ref = reference(peers / "trec_eval/generated/robust03_uic0301_missing3.c_q.txt.gz")
    qrels = peers / "trectools/robust03_cs_qrels.txt.gz"
    got, _ = ours(capsys, ["eval", "-c", str(qrels), str(run), "-m", "AP", "-m", "P@10"])
    assert got[("AP", "all")] == ref[("map", "all")]
    assert got[("P@10", "all")] == ref[("P_10", "all")]


def test_mean_scores_complete_is_trec_eval_dash_c(peers):
    from goldset_tui.eval.metrics import mean_scores
    from goldset_tui.io.trec import read_qrels, read_run

    g = peers / "trec_eval" / "generated"
    ref = reference(g / "ties.out.all_trec_qc.txt")
    means = mean_scores(
        read_qrels(g / "ties.qrels"), read_run(g / "ties.run"), ["AP"], complete=True
    )
    assert f"{means['AP']:.4f}" == ref[("map", "all")]


def test_default_output_on_robust_2003_is_trec_eval_byte_for_byte(peers, capsys):
    # trec_eval robust03_cs_qrels.txt input.uic0301 (generated/README.txt): 100 topics x 1,000.
    t = peers / "trectools"
    argv = [
        "eval",
        "--trec-eval-compat",
        str(t / "robust03_cs_qrels.txt.gz"),
        str(t / "input.uic0301.gz"),
    ]
    _, lines = ours(capsys, argv)
    expected = (peers / "trec_eval/generated/robust03_uic0301.official.txt").read_text()
    assert "\n".join(lines) + "\n" == expected
