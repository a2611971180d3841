"""The spot-check verdict: planned sizes only, each stratum's own misfile rate with its Wilson
interval with continuity correction, and strata with too few checks named. Numbers checked
against scipy and by hand.

The wrong answers it gave, each reproduced through the command: on ``classify`` output (the whole
log) with no planned sizes the old verdict used the log's rows per stratum (a +-3-point band for
900 queries) and said "not inside the noise" everywhere; and it applied the overall error rate to
every stratum, so errors concentrated in two strata were "inside the noise" and a stratum with 5 of
5 right was flagged.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import binomtest

from goldset_tui.cli import main
from goldset_tui.sampling.spotcheck import Answer, agreement, journal_path
from goldset_tui.sampling.verdict import INSIDE, OUTSIDE, TOO_FEW, verdict_text, verdicts
from goldset_tui.store.journal import Journal

STRATA = ["howto", "navigational", "error", "entity_attr", "migration", "tail"]


def cc(x: float, n: int) -> tuple[float, float]:
    """Wilson's interval with continuity correction (Newcombe 1998, method 4): scipy's for a whole
    count; for a share of n checks that is not a whole count (a rate carried to a planned number
    of checks), Newcombe's closed form written out here."""
    if float(x).is_integer():
        ci = binomtest(int(x), n).proportion_ci(method="wilsoncc")
        return ci.low, ci.high
    z = 1.959963984540054
    p, q = x / n, 1 - x / n
    lo = (2 * n * p + z * z - 1 - z * math.sqrt(z * z - 2 - 1 / n + 4 * p * (n * q + 1))) / (
        2 * (n + z * z)
    )
    hi = (2 * n * p + z * z + 1 + z * math.sqrt(z * z + 2 - 1 / n + 4 * p * (n * q - 1))) / (
        2 * (n + z * z)
    )
    return max(0.0, lo), min(1.0, hi)


def band_by_hand(n: int, p: float = 0.7, population: int = 150) -> float:
    """1.96 sqrt(p (1 - p) / n x (1 - n / N)): the labels file is the log, N = 150 per stratum."""
    return 1.959963984540054 * math.sqrt(p * (1 - p) / n * (1 - n / population))


def write_population(tmp_path: Path, per_stratum: int = 150) -> Path:
    """A classify-style labels file: the whole log, 900 distinct queries."""
    rows = [
        f"q{s}_{i},{i + 1},{stratum}"
        for s, stratum in enumerate(STRATA)
        for i in range(per_stratum)
    ]
    path = tmp_path / "labels.csv"
    path.write_text("query,count,stratum\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def journal(store: Path, checks: list[tuple[str, str, str]]) -> None:
    with Journal(journal_path(store, "ana")) as j:
        for query, assigned, correct in checks:
            j.append(
                {
                    "kind": "spotcheck",
                    "action": "check",
                    "query": query,
                    "assigned": assigned,
                    "correct": correct,
                }
            )


def concentrated_checks() -> list[tuple[str, str, str]]:
    """183 of 200 agree, all 17 errors in two strata: howto 12 of 23 right, navigational 24 of 30;
    error 5 of 5 right; the other three all right (47, 47, 43 checks)."""
    plan = {
        "howto": (23, 11),
        "navigational": (30, 6),
        "error": (5, 0),
        "entity_attr": (47, 0),
        "migration": (47, 0),
        "tail": (48, 0),
    }
    checks = []
    for s, (n, wrong) in plan.items():
        other = STRATA[(STRATA.index(s) + 1) % 6]
        checks += [(f"q{STRATA.index(s)}_{i}", s, other if i < wrong else s) for i in range(n)]
    assert len(checks) == 200 and sum(1 for _, a, c in checks if a == c) == 183
    return checks


SIZES = {
    "howto": 25,
    "navigational": 30,
    "error": 120,
    "entity_attr": 40,
    "migration": 30,
    "tail": 20,
}


def report(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    labels = write_population(tmp_path)
    args = ["spotcheck", str(labels), "--print", "--format", "json", "--store"]
    assert main([*args, str(tmp_path / "store"), "--labeller", "ana", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_without_planned_sizes_there_is_no_verdict_on_the_population(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Old code: sizes from the 150 rows per stratum, band +-7 < 8.5% error: "not inside" everywhere.
    journal(tmp_path / "store", concentrated_checks())
    data = report(tmp_path, capsys)
    verdict = data["verdict"]
    assert verdict["strata"] == [] and verdict["needs_sizes"] and verdict["sizes_from"] is None
    assert "planned size" in verdict["text"] and "inside" not in verdict["text"].lower()
    # The agreement itself is still reported, with its Wilson interval.
    assert (data["n"], data["agree"]) == (200, 183)
    assert data["ci95"] == pytest.approx(list(cc(183, 200)))


def test_each_stratum_is_judged_by_its_own_misfile_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal(tmp_path / "store", concentrated_checks())
    targets = ",".join(f"{s}={n}" for s, n in SIZES.items())
    data = report(tmp_path, capsys, "--targets", targets)
    rows = {v["stratum"]: v for v in data["verdict"]["strata"]}
    assert data["verdict"]["sizes_from"] == "--targets"
    # howto: 11 of 23 misfiled. Expected misfiled queries in its 25: 25 * 11/23 = 11.96;
    # the shift is 11/23 = 47.8 points, against +-1.96 sqrt(0.21/25 x (1 - 25/150)) = +-16.4
    # (the finite-population correction `--plan` applies; +-18.0 without): outside, even at the
    # low end of the interval.
    howto = rows["howto"]
    lo, hi = cc(11, 23)
    assert howto["misfile_rate"] == pytest.approx(11 / 23)
    assert howto["misfile_ci95"] == pytest.approx([lo, hi])
    assert howto["misfiled"] == pytest.approx(25 * 11 / 23)
    assert howto["band"] == pytest.approx(band_by_hand(25))
    assert round(howto["band"] * 100, 1) == 16.4 and howto["population"] == 150
    assert lo > band_by_hand(25) and howto["status"] == OUTSIDE and not howto["inside"]
    # error: 5 of 5 right. Old code flagged it (8.5% overall > the +-8.2 band of 120 queries);
    # its own interval still allows 54% (the upper end for 0 of 5; plain Wilson said 43%), so it
    # cannot tell.
    err = rows["error"]
    assert err["misfile_rate"] == 0.0
    assert err["misfile_ci95"] == pytest.approx(list(cc(0, 5)))
    assert round(err["misfile_ci95"][1], 2) == 0.54
    assert err["status"] == TOO_FEW
    # navigational: 6 of 30, 20% against +-16.4: the interval straddles the band.
    nav = rows["navigational"]
    nlo, nhi = cc(6, 30)
    assert nlo < band_by_hand(30) < nhi and nav["status"] == TOO_FEW
    # entity_attr: 0 of 47 misfiled, upper 7.6% < +-14.2: inside.
    assert cc(0, 47)[1] < band_by_hand(40)
    assert rows["entity_attr"]["status"] == INSIDE
    text = data["verdict"]["text"]
    assert "outside the noise: howto;" in text
    # navigational: even 30 checks at 20% leave the interval at 8% to 39%, across the band: no
    # number of checks can tell (it said "about 410").
    assert nav["cannot_tell"] and nav["checks_needed"] is None
    assert nav["set_range"] == pytest.approx([nlo, nhi])
    # error: 120 checks, all right, would still leave the upper end at 3.9%, above its +-3.7 band
    # (120 of 150 queries, finite-population corrected): checking its 120 queries is what tells.
    assert err["band"] == pytest.approx(band_by_hand(120)) and round(err["band"], 3) == 0.037
    assert err["cannot_tell"] and err["checks_needed"] is None
    assert err["set_range"] == pytest.approx(list(cc(0, 120))) and cc(0, 120)[1] > err["band"]
    assert "no number of checks can tell: navigational, error" in text
    # Per-stratum precision carries its Wilson interval too.
    per = {p["stratum"]: p for p in data["per_stratum"]}
    assert per["howto"]["precision_ci95"] == pytest.approx(list(cc(12, 23)))


def test_the_spot_check_reasoning_spelled_out_for_one_stratum() -> None:
    # The reasoning's numbers: 183 of 200 agree overall; a stratum of 25 with about one in twelve
    # misfiled holds about two misfiled queries, against a band of about +-18 points.
    answers = [
        Answer(f"e{i}", "entity_attr", "tail" if i < 3 else "entity_attr") for i in range(36)
    ]
    answers += [Answer(f"t{i}", "tail", "tail" if i >= 14 else "howto") for i in range(164)]
    result = agreement(answers, STRATA)
    assert (result.n, result.agree) == (200, 183)
    (v,) = verdicts(result, {"entity_attr": 25})
    assert v.misfiled == pytest.approx(25 * 3 / 36) and round(v.misfiled) == 2
    assert round(v.band * 100) == 18
    # 3 of 36 misfiled: 8.3%, below the band, but the interval's upper end (24%) is above it.
    assert cc(3, 36)[1] > v.band and v.status == TOO_FEW
    # No number of checks settles it: even 25 checks at 3/36 leave an interval (at 25 x 3/36 of
    # 25) that holds the band.
    lo25, hi25 = cc(25 * 3 / 36, 25)
    assert lo25 <= v.band < hi25 and v.cannot_tell and v.checks_needed is None
    text = verdict_text(result, {"entity_attr": 25})
    assert "agreed on 183 of 200" in text and "about 1 in 12" in text
    assert "about 2.1 of its 25 queries sit in the wrong bucket" in text
    assert "+-18 points" in text and "inside on the rate seen so far" in text
    assert (
        f"even 25 checks at the misfile rate seen so far would leave its interval at {lo25:.0%} to {hi25:.0%}"
        in text
    )
    assert "Check its 25 queries by hand" in text and "would tell" not in text
    # With 400 in the set the same rate can be settled: the advice is a number of checks, at
    # most the stratum's size, that puts the whole interval on one side of the band.
    (big,) = verdicts(result, {"entity_attr": 400})
    need = big.checks_needed
    assert need is not None and not big.cannot_tell and 36 < need <= 400
    nlo, nhi = cc(need * 3 / 36, need)
    assert nhi <= big.band or nlo > big.band
    assert f"About {need} checks of this stratum would tell." in verdict_text(
        result, {"entity_attr": 400}
    )


def test_the_shift_is_an_estimate_with_the_upper_end_beside_it() -> None:
    # 6 of 30 misfiled: the shift is about 20 points, but the interval reaches 39 (plain Wilson:
    # 37); "by 20 points at most" read the point estimate as a bound.
    answers = [Answer(f"n{i}", "howto", "tail" if i < 6 else "howto") for i in range(30)]
    text = verdict_text(agreement(answers, STRATA), {"howto": 30})
    hi = cc(6, 30)[1]
    assert round(hi * 100) == 39
    assert "shifting its rate by about 20 points (up to 39 at the interval's upper end)" in text
    assert "at most" not in text


@pytest.mark.parametrize(
    ("size", "wrong", "checked"), [(15, 9, 40), (15, 3, 14), (60, 5, 40), (200, 0, 10)]
)
def test_no_number_of_checks_is_advised_beyond_the_stratum(size, wrong, checked) -> None:
    # A 15-query stratum with 9 of 40 misfiled (22.5%) against a +-23-point band: the old advice
    # was "about 14870 checks" (3 of 14: 2377). The rule: no advice past the stratum's size; "no number of checks
    # can tell" exactly when the band lies inside the interval at the seen rate over the size.
    answers = [Answer(f"n{i}", "howto", "tail" if i < wrong else "howto") for i in range(checked)]
    result = agreement(answers, STRATA)
    (v,) = verdicts(result, {"howto": size})
    lo, hi = cc(size * wrong / checked, size)
    assert v.cannot_tell == (v.status == TOO_FEW and lo <= v.band < hi)
    if v.checks_needed is not None:
        assert v.checks_needed <= size
        nlo, nhi = cc(v.checks_needed * wrong / checked, v.checks_needed)
        assert nhi <= v.band or nlo > v.band
    text = verdict_text(result, {"howto": size})
    if v.cannot_tell:
        assert "No number of checks can tell" in text and "would tell" not in text
    assert v.cannot_tell == (size < 200)  # the last case is settled by 57 checks of its 200


def test_all_strata_inside_gives_the_reasonings_conclusion() -> None:
    answers = [Answer(f"{s}{i}", s, s) for s in STRATA for i in range(60)]
    text = verdict_text(agreement(answers, STRATA), dict.fromkeys(STRATA, 25))
    assert "inside the noise the sample size already imposes" in text
    assert all(v.status == INSIDE for v in verdicts(agreement(answers, STRATA), {"howto": 25}))


def test_sizes_from_total_and_from_a_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal(tmp_path / "store", concentrated_checks())
    data = report(tmp_path, capsys, "--total", "90")
    # 900 queries, equal traffic? No: counts 1..150 per stratum are equal, so 90 splits as 15 each.
    assert {v["stratum"]: v["size"] for v in data["verdict"]["strata"]} == dict.fromkeys(STRATA, 15)
    assert "--total 90" in data["verdict"]["sizes_from"]
    manifest = tmp_path / "m.toml"
    manifest.write_text(
        'kind = "sample"\n[[strata]]\nstratum = "howto"\nsampled = 40\n', encoding="utf-8"
    )
    data = report(tmp_path, capsys, "--manifest", str(manifest))
    assert [(v["stratum"], v["size"]) for v in data["verdict"]["strata"]] == [("howto", 40)]
    labels = write_population(tmp_path)
    base = ["spotcheck", str(labels), "--print", "--store", str(tmp_path / "store")]
    assert main([*base, "--total", "90", "--targets", "howto=5"]) == 2
    assert "--targets and --total" in capsys.readouterr().err
    classify_manifest = tmp_path / "c.toml"
    classify_manifest.write_text('kind = "classify"\n', encoding="utf-8")
    assert main([*base, "--manifest", str(classify_manifest)]) == 2
    assert "not a sample manifest" in capsys.readouterr().err


def test_spotcheck_band_is_the_plan_band(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `goldset sample --plan` and the spot-check verdict give one band per stratum, both with the
    # finite-population correction from the labels file's distinct queries (150 per stratum).
    journal(tmp_path / "store", concentrated_checks())
    targets = ",".join(f"{s}={n}" for s, n in SIZES.items())
    verdict = {
        v["stratum"]: v["band"]
        for v in report(tmp_path, capsys, "--targets", targets)["verdict"]["strata"]
    }
    labels = tmp_path / "labels.csv"
    assert main(["sample", str(labels), "--plan", "--targets", targets, "--format", "json"]) == 0
    plan = {r["stratum"]: r["half_width"] for r in json.loads(capsys.readouterr().out)["strata"]}
    assert verdict == pytest.approx(plan)
    assert verdict == pytest.approx({s: band_by_hand(n) for s, n in SIZES.items()})


def test_a_sample_manifest_gives_sizes_and_populations(tmp_path: Path) -> None:
    from goldset_tui.sampling.verdict import sizes_from_manifest

    labels = write_population(tmp_path)
    targets = ",".join(f"{s}={n}" for s, n in SIZES.items())
    golden = tmp_path / "golden.csv"
    assert (
        main(["sample", str(labels), "-o", str(golden), "--seed", "3", "--targets", targets]) == 0
    )
    sizes = sizes_from_manifest(tmp_path / "golden.manifest.toml")
    assert sizes == SIZES and sizes.populations == dict.fromkeys(SIZES, 150)
