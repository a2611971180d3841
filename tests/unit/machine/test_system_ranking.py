"""system_ranking: Kendall's tau-b against scipy, tau_AP against a worked example and its known
properties, and the flips of `goldset agreement --run` checked by hand."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from scipy.stats import kendalltau

from goldset_tui.cli import main
from goldset_tui.ranking.correlation import kendall_tau, tau_ap


@pytest.mark.parametrize("seed", range(8))
def test_kendall_tau_b_matches_scipy_with_ties(seed: int) -> None:
    rng = random.Random(seed)
    names = [f"s{i}" for i in range(rng.randint(3, 9))]
    # few distinct values: ties in both orderings (tau-b), as scipy computes by default
    a = {n: float(rng.randint(0, 3)) for n in names}
    b = {n: float(rng.randint(0, 3)) for n in names}
    expected = kendalltau([a[n] for n in names], [b[n] for n in names]).statistic
    ours = kendall_tau(a, b)
    if expected != expected:  # nan: one ordering all ties
        assert ours is None
    else:
        assert ours == pytest.approx(expected, abs=1e-12)


def test_kendall_tau_without_ties_is_tau_a() -> None:
    a = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}
    b = {"B": 4.0, "A": 3.0, "D": 2.0, "C": 1.0}
    # 6 pairs, 2 discordant (A/B, C/D): (4 - 2) / 6
    assert kendall_tau(a, b) == pytest.approx(1 / 3)


def test_tau_ap_worked_example() -> None:
    # Reference (human) A > B > C > D; evaluated (machine) B > A > D > C.
    # i=2 (A): above it B, which the reference puts below A       -> C(2)=0, 0/1
    # i=3 (D): above it B, A, both above D in the reference       -> C(3)=2, 2/2
    # i=4 (C): above it B, A, D; D is below C in the reference    -> C(4)=2, 2/3
    # tau_AP = 2/(4-1) * (0 + 1 + 2/3) - 1 = 10/9 - 1 = 1/9   (Kendall's tau: 1/3)
    human = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}
    machine = {"B": 0.9, "A": 0.8, "D": 0.7, "C": 0.6}
    assert tau_ap(human, machine) == pytest.approx(1 / 9)
    assert tau_ap(human, human) == 1.0
    assert tau_ap(human, {k: -v for k, v in human.items()}) == -1.0


def test_tau_ap_penalises_a_swap_at_the_top_more_than_at_the_bottom() -> None:
    truth = {n: float(10 - i) for i, n in enumerate("ABCDEF")}
    top = dict(truth, A=truth["B"] - 0.5)  # B above A, the rest right
    bottom = dict(truth, E=truth["F"] - 0.5)  # F above E
    assert kendall_tau(truth, top) == kendall_tau(truth, bottom)  # tau cannot tell them apart
    # swap at positions k, k+1 costs 2/(N-1) * 1/k: k=1 -> 2/5, k=5 -> 2/25
    assert tau_ap(truth, top) == pytest.approx(1 - 2 / 5)
    assert tau_ap(truth, bottom) == pytest.approx(1 - 2 / 25)


def test_tau_ap_equals_tau_when_errors_are_uniform() -> None:
    # Yilmaz et al. (2008): with errors spread uniformly over the ranking the two agree in
    # expectation. Here the errors are every permutation of 6 systems, equally likely: both
    # average exactly 0 (a weak check of the property; the top/bottom test above is the sharp one).
    truth = {n: float(6 - i) for i, n in enumerate("ABCDEF")}
    taus, aps = [], []
    for perm in itertools.permutations("ABCDEF"):
        other = {n: float(6 - i) for i, n in enumerate(perm)}
        taus.append(kendall_tau(truth, other))
        aps.append(tau_ap(truth, other))
    assert sum(taus) / len(taus) == pytest.approx(0.0, abs=1e-12)
    assert sum(aps) / len(aps) == pytest.approx(0.0, abs=1e-12)


def write_run(path: Path, scores: dict[str, list[str]]) -> None:
    lines = []
    for q, docs in scores.items():
        for rank, d in enumerate(docs, 1):
            lines.append(f"{q} Q0 {d} {rank} {100 - rank} t")
    path.write_text("\n".join(lines) + "\n")


def test_flips_and_fewer_than_three_systems(tmp_path: Path, capsys) -> None:
    # Two queries, docs a, b, c. Human: a relevant; machine: b relevant (disagrees everywhere).
    for name, doc in (("human", "a"), ("llm", "b")):
        (tmp_path / f"{name}.qrels").write_text(
            "".join(f"q{q} 0 {d} {int(d == doc)}\n" for q in (1, 2) for d in "abc")
        )
    write_run(tmp_path / "s1.run", {"q1": ["a", "b", "c"], "q2": ["a", "b", "c"]})
    write_run(tmp_path / "s2.run", {"q1": ["b", "a", "c"], "q2": ["b", "a", "c"]})
    write_run(tmp_path / "s3.run", {"q1": ["c", "a", "b"], "q2": ["c", "b", "a"]})
    base = ["agreement", "--qrels", f"human={tmp_path / 'human.qrels'}"]
    base += ["--qrels", f"llm={tmp_path / 'llm.qrels'}", "--scale", "0-1", "--format", "json"]
    base += ["--samples", "0", "-m", "RR"]
    runs = [x for n in ("s1", "s2", "s3") for x in ("--run", f"{n}={tmp_path / n}.run")]
    assert main([*base, *runs]) == 0
    ranking = json.loads(capsys.readouterr().out)["system_ranking"]
    assert ranking["measure"] == "RR"
    (pair,) = ranking["pairs"]
    # RR under human: s1 = 1, s2 = 1/2, s3 = (1/2 + 1/3)/2 = 5/12
    # RR under llm:   s1 = 1/2, s2 = 1, s3 = (1/3 + 1/2)/2 = 5/12
    assert pair["a"] == "human" and pair["b"] == "llm" and pair["n_systems"] == 3
    assert pair["means_a"] == pytest.approx({"s1": 1, "s2": 0.5, "s3": 5 / 12})
    # orders s1>s2>s3 and s2>s1>s3: one discordant pair of three -> tau = 1/3;
    # tau_AP: i=2 (s1 below s2 in truth? no: s1 is above s2 in truth) -> 0/1; i=3 (s3): 2/2
    # -> 2/2 * (0 + 1) - 1 = 0
    assert pair["kendall_tau"] == pytest.approx(1 / 3)
    assert pair["tau_ap"] == pytest.approx(0.0)
    (flip,) = pair["flips"]
    assert (flip["x"], flip["y"]) == ("s1", "s2")
    assert flip["diff_a"] == pytest.approx(0.5) and flip["diff_b"] == pytest.approx(-0.5)
    # two queries, both differences +0.5: the randomization p is about 2/4, never significant
    assert flip["significant_a"] is False and flip["p_a"] > 0.3
    (tmp_path / "strata.csv").write_text("query_id,stratum\nq1,x\nq2,y\n")
    assert main([*base, *runs, "--strata", str(tmp_path / "strata.csv")]) == 0
    strata = json.loads(capsys.readouterr().out)["system_ranking"]["strata"]
    (x,) = [s["pairs"][0] for s in strata if s["stratum"] == "x"]
    # q1 alone: human RR s1=1, s2=1/2, s3=1/2 (a tie); llm s1=1/2, s2=1, s3=1/3.
    # Pairs: s1/s2 discordant, s1/s3 concordant, s2/s3 tied under human only:
    # tau-b = (1 - 1) / sqrt((3 - 1) * (3 - 0)) = 0
    assert x["means_a"] == pytest.approx({"s1": 1, "s2": 0.5, "s3": 0.5})
    assert x["kendall_tau"] == pytest.approx(0.0) and x["queries_a"] == 1
    assert [(f["x"], f["y"]) for f in x["flips"]] == [("s1", "s2"), ("s2", "s3")]
    assert main([*base, *runs[:4]]) == 0
    pair = json.loads(capsys.readouterr().out)["system_ranking"]["pairs"][0]
    assert pair["kendall_tau"] is None and pair["tau_ap"] is None
    assert "three or more" in pair["note"]
    assert main([*base, *runs, "-m", "nDCG@x"]) == 2


def test_only_the_queries_both_label_sets_judged_take_part() -> None:
    # People judged q1; the machine labelled q1 and q2 and agrees with them on q1. On q1 run A
    # finds the relevant document, B does not; on q2 only B does. Over its own queries the machine
    # would put A and B level (1/2 each) against the people's A 1, B 0: a flip made by q2, a query
    # nobody checked, not by any disagreement.
    import polars as pl

    from goldset_tui.ranking.systems import system_ranking

    def frame(rows: list[tuple[str, str, int]]) -> pl.DataFrame:
        return pl.DataFrame(rows, schema=["query_id", "doc_id", "grade"], orient="row")

    human = frame([("q1", "a", 1), ("q1", "b", 0)])
    machine = frame([("q1", "a", 1), ("q1", "b", 0), ("q2", "c", 0), ("q2", "d", 1)])
    runs = {
        name: pl.DataFrame(
            {"query_id": ["q1", "q2"], "doc_id": docs, "score": [1.0, 1.0], "rank": [1, 1]}
        )
        for name, docs in (("A", ["a", "c"]), ("B", ["b", "d"]))
    }
    out = system_ranking({"human": human, "llm": machine}, runs, "P@1", [("human", "llm")])
    pair = out["pairs"][0]
    assert pair["queries_a"] == pair["queries_b"] == 1
    assert pair["means_b"] == {"A": 1.0, "B": 0.0}
    assert pair["flips"] == []


def test_tau_ap_is_undefined_when_the_reference_ties_every_system() -> None:
    # Three identical runs: every system ties under both label sets. Kendall's tau-b is 0/0
    # (scipy gives nan) and tau_AP has no ordering to take as the truth; counting every tied
    # pair as "not correctly ordered" reported -1, a perfect reversal of an ordering that is
    # not there.
    tied = {"a": 0.9, "b": 0.9, "c": 0.9}
    other = {"a": 0.5, "b": 0.5, "c": 0.5}
    assert kendall_tau(tied, other) is None
    assert str(kendalltau([0.9] * 3, [0.5] * 3).statistic) == "nan"
    assert tau_ap(tied, other) is None
    assert tau_ap(tied, {"a": 0.1, "b": 0.2, "c": 0.3}) is None
    # One strict pair in the reference is enough to define it (the tied pair counts as wrong):
    # evaluated order c, b, a; reference a = b > c. C(2) = 0/1 (c above b, but c < b), C(3) =
    # 0/2 (neither c nor b is above a under the reference) -> 2/2 * 0 - 1 = -1.
    assert tau_ap({"a": 0.9, "b": 0.9, "c": 0.1}, {"a": 0.1, "b": 0.2, "c": 0.3}) == -1.0


def _tau_ap_strict(truth: dict[str, float], ranked: list[str]) -> float:
    """Yilmaz, Aslam & Robertson's formula on one strict ordering ``ranked`` (best first), written
    out here apart from the module: 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1."""
    n = len(ranked)
    total = 0.0
    for i in range(2, n + 1):
        x = ranked[i - 1]
        total += sum(1 for y in ranked[: i - 1] if truth[y] > truth[x]) / (i - 1)
    return 2 / (n - 1) * total - 1


def _tau_ap_over_tie_orders(truth: dict[str, float], scores: dict[str, float]) -> float:
    """The average of the strict formula over every ordering of the systems that ``scores``
    allows (tied systems in every order), listed by brute force."""
    values = [
        _tau_ap_strict(truth, list(perm))
        for perm in itertools.permutations(scores)
        if all(scores[a] >= scores[b] for a, b in itertools.pairwise(perm))
    ]
    return sum(values) / len(values)


def test_tau_ap_with_ties_in_the_evaluated_scores_does_not_depend_on_names() -> None:
    # a > b > c against a = b > c: breaking the tie by name gave 1.0, and 0.0 once the names
    # sorted the other way. Both orders of the tie are equally likely: (1 + 0) / 2.
    truth = {"a": 3.0, "b": 2.0, "c": 1.0}
    tied = {"a": 2.0, "b": 2.0, "c": 1.0}
    renamed_truth = {"z": 3.0, "b": 2.0, "c": 1.0}
    renamed_tied = {"z": 2.0, "b": 2.0, "c": 1.0}
    assert tau_ap(truth, tied) == pytest.approx(0.5)
    assert tau_ap(renamed_truth, renamed_tied) == pytest.approx(0.5)
    assert _tau_ap_over_tie_orders(truth, tied) == pytest.approx(0.5)


@pytest.mark.parametrize("seed", range(12))
def test_tau_ap_with_ties_is_the_average_over_every_tie_order(seed: int) -> None:
    rng = random.Random(seed)
    names = [f"s{i}" for i in range(rng.randint(3, 7))]
    # Few distinct values, so both orderings tie, in groups of every size.
    truth = {n: float(rng.randint(0, 3)) for n in names}
    scores = {n: float(rng.randint(0, 2)) for n in names}
    if len(set(truth.values())) == 1:
        truth[names[0]] += 1.0  # a reference tying everything has no ordering (None)
    assert tau_ap(truth, scores) == pytest.approx(_tau_ap_over_tie_orders(truth, scores))
    # Renaming the systems (reversing the names' sort order) changes nothing.
    rename = {n: f"t{len(names) - i}" for i, n in enumerate(names)}
    assert tau_ap(
        {rename[n]: v for n, v in truth.items()}, {rename[n]: v for n, v in scores.items()}
    ) == pytest.approx(tau_ap(truth, scores))
