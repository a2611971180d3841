"""`goldset drift` end to end on docs/drift.md's example (its JSON keys and the lines a reader
recomputes), its one-line refusals (exit 2), and a store's release: the traffic shares and the
strata definition it records, old records read without them, and the report's note when the
strata changed after a release."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.history.records import load_records, read_record
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"

OLD = {
    "exact_identifier": [("err_4021", 6), ("getuserbyid", 5), ("/v2/charges", 4), ("user_id", 3)],
    "paraphrase": [("stop the sync twice", 7), ("make retries safe", 6), ("no double hooks", 5),
                   ("avoid duplicate charges", 4)],
    "negation": [("regions not covered", 18), ("plans without sso", 16),
                 ("cards not supported", 14), ("exports excluding drafts", 12)],
}  # fmt: skip
NEW_COUNTS = {
    "exact_identifier": [15, 12, 10, 8],
    "paraphrase": [7, 6, 5, 4],
    "negation": [10, 9, 8, 6],
}


def _labels(path: Path, counts: dict[str, list[int]] | None = None) -> Path:
    rows = [
        (q, (counts[s][i] if counts else c), s)
        for s, qs in OLD.items()
        for i, (q, c) in enumerate(qs)
    ]
    pl.DataFrame(rows, schema=["query", "count", "stratum"], orient="row").write_csv(path)
    return path


@pytest.fixture
def example(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "strata.csv").write_text(
        "query_id,stratum\n"
        + "".join(f"q{i},{s}\n" for i, s in zip(range(1, 10), ["exact_identifier"] * 3
                  + ["paraphrase"] * 3 + ["negation"] * 3, strict=True))
    )  # fmt: skip
    (tmp_path / "qrels.txt").write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(1, 10)))
    for name, hits in (("bm25", {1, 2, 3, 4, 5, 7}), ("dense", {1, 2, 4, 5, 6, 7})):
        (tmp_path / f"{name}.run").write_text(
            "".join(f"q{i} Q0 {f'd{i}' if i in hits else 'x'} 1 1.0 {name}\n" for i in range(1, 10))
        )
    return {
        "old": _labels(tmp_path / "old.csv"),
        "new": _labels(tmp_path / "new.csv", NEW_COUNTS),
        "dir": tmp_path,
    }


def _argv(ex: dict[str, Path], *extra: str) -> list[str]:
    d = ex["dir"]
    return [
        "drift", "--labels", str(ex["old"]), "--labels", str(ex["new"]), "--qrels",
        str(d / "qrels.txt"), "--run", f"bm25={d / 'bm25.run'}", "--run",
        f"dense={d / 'dense.run'}", "--strata", str(d / "strata.csv"), "-m", "Success@10",
        "--min-per-stratum", "1", *extra,
    ]  # fmt: skip


def test_the_worked_example_in_json(example, capsys) -> None:
    assert main(_argv(example, "--format", "json")) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {
        "old", "new", "shares", "measure", "headline", "plan", "notes", "zero_click",
        "zero_click_recurring",
    }  # fmt: skip
    ident = out["shares"][0]
    assert set(ident) == {
        "stratum", "old_occurrences", "new_occurrences", "old_share", "new_share", "change",
        "ci95", "p_value", "p_holm",
    }  # fmt: skip
    assert (ident["old_share"], ident["new_share"]) == (0.18, 0.45)
    head = out["headline"]
    assert head["winner"] == {"old": ["dense"], "new": ["bm25"], "flips": True}
    assert head["systems"]["bm25"]["new"] == pytest.approx(0.45 + 0.22 * 2 / 3 + 0.11)
    assert head["pairs"][0]["by_stratum"]["exact_identifier"] == pytest.approx(0.27 / 3)
    plan = out["plan"]
    assert plan["matches"] is False
    assert [r["plan_new"] for r in plan["strata"]] == [4, 2, 3]


def test_the_worked_example_in_text(example, capsys) -> None:
    assert main(_argv(example)) == 0
    out = capsys.readouterr().out
    assert "FLIPS: the best system was dense; under the new shares, bm25" in out
    assert "bm25 - dense: -0.013 -> +0.077" in out
    assert "exact_identifier +0.090" in out
    assert "`goldset sample plan NEW_LABELS --total 9 --min-per-stratum 1`" in out
    plain = [line for line in out.splitlines() if str(example["dir"]) not in line]
    assert max(len(line) for line in plain) <= 100


def test_a_log_is_classified_as_the_new_side(example, capsys) -> None:
    log = example["dir"] / "log.csv"
    log.write_text("query,count\nERR_4021 failing,30\nwhich regions are not covered,10\n")
    assert (
        main(["drift", "--labels", str(example["old"]), "--log", str(log), "--format", "json"]) == 0
    )
    shares = {r["stratum"]: r["new_share"] for r in json.loads(capsys.readouterr().out)["shares"]}
    assert shares["exact_identifier"] == 0.75 and shares["negation"] == 0.25


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--labels", "OLD"], "give --labels OLD with --log NEW_LOG"),
        (["--labels", "OLD", "--labels", "OLD", "--store", "S"], "--store and --release go"),
        (["--labels", "OLD", "--labels", "OLD", "--run", "a=x.run"], "--qrels, --run and --strata"),
        (["--labels", "OLD", "--labels", "BAD"], "count must be a whole number"),
        (["--labels", "OLD", "--labels", "OLD", "--min-per-stratum", "-1"], "must not be negative"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(example, capsys, extra, said) -> None:
    bad = example["dir"] / "bad.csv"
    bad.write_text("query,count,stratum\na,2.5,x\n")
    argv = ["drift"] + [{"OLD": str(example["old"]), "BAD": str(bad)}.get(a, a) for a in extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "Traceback" not in err


@pytest.fixture
def store(tmp_path: Path) -> Path:
    store = tmp_path / "S"
    pool = SAMPLE / "pool.jsonl"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    path = SAMPLE / "judgments" / "alice.qrels"
    assert main(["import", "--store", str(store), "--labeller", "alice", "--human", str(path)]) == 0
    return store


def _report(store: Path, strata: Path, *extra: str) -> list[str]:
    runs = SAMPLE / "runs"
    return [
        "report", "--qrels", str(SAMPLE / "judgments" / "alice.qrels"), "--strata", str(strata),
        "--run", f"bm25={runs / 'bm25.run'}", "--run", f"minilm={runs / 'minilm.run'}",
        "--samples", "20", "--format", "json", "-m", "Success@10", "--store", str(store), *extra,
    ]  # fmt: skip


def test_a_release_records_its_shares_and_strata_definition(store, tmp_path, capsys) -> None:
    from goldset_tui.drift.definition import MECHANISMS, rules_sha256

    strata = SAMPLE / "strata.csv"
    argv = _report(store, strata, "--traffic", str(SAMPLE / "traffic.csv"), "--release", "r1")
    assert main(argv) == 0
    recs = load_records(store)
    assert {r.system for r in recs} == {"bm25", "minilm"}
    traffic = pl.read_csv(SAMPLE / "traffic.csv")
    for rec in recs:
        assert rec.traffic == dict(traffic.select("stratum", "share").iter_rows())
        d = rec.strata_definition
        assert d is not None and d["rules_sha256"] == rules_sha256()
        names = pl.read_csv(strata)["stratum"].unique(maintain_order=True).to_list()
        assert [s["name"] for s in d["strata"]] == names
        assert all(s["mechanism"] == MECHANISMS[s["name"]] for s in d["strata"])
    capsys.readouterr()
    # The same strata later: nothing said. Strata re-filed: the report says what changed.
    assert main(_report(store, strata, "--release", "r2")) == 0
    assert "strata changed" not in capsys.readouterr().err
    moved = tmp_path / "moved.csv"
    frame = pl.read_csv(strata)
    first = frame["query_id"][0]
    frame.with_columns(
        pl.when(pl.col("query_id") == first).then(pl.lit("brand_new")).otherwise(pl.col("stratum"))
        .alias("stratum")
    ).write_csv(moved)  # fmt: skip
    assert main(_report(store, moved, "--release", "r3")) == 0
    err = capsys.readouterr().err
    assert "the strata changed after release 'r2' was recorded" in err
    assert "strata added: brand_new" in err and "1 query filed under another stratum" in err


def test_a_record_made_before_shares_were_kept_is_read(store, capsys) -> None:
    assert main(_report(store, SAMPLE / "strata.csv", "--release", "r1")) == 0
    for path in (store / "history").glob("*.json"):
        data = json.loads(path.read_text())
        assert "traffic" not in data  # no --traffic: no shares written
        data.pop("strata_definition")
        path.write_text(json.dumps(data))
        rec = read_record(path)
        assert rec.traffic is None and rec.strata_definition is None
    data["traffic"] = {"x": -1}
    path.write_text(json.dumps(data))
    with pytest.raises(Exception, match="traffic must map strata"):
        read_record(path)


def test_drift_reweighs_a_recorded_release_as_the_runs_would(store, tmp_path, capsys) -> None:
    strata = SAMPLE / "strata.csv"
    argv = _report(store, strata, "--traffic", str(SAMPLE / "traffic.csv"), "--release", "r1")
    assert main(argv) == 0
    # Labels whose shares are the sample traffic's, then a quarter where identifiers doubled.
    traffic = pl.read_csv(SAMPLE / "traffic.csv")
    old = tmp_path / "old.csv"
    new = tmp_path / "new.csv"
    for path, bump in ((old, 1), (new, 2)):
        pl.DataFrame(
            {
                "query": traffic["stratum"],
                "count": [
                    round(s * 100) * (bump if n == "exact_identifier" else 1)
                    for n, s in traffic.select("stratum", "share").iter_rows()
                ],
                "stratum": traffic["stratum"],
            }
        ).write_csv(path)
    capsys.readouterr()
    common = ["drift", "--labels", str(old), "--labels", str(new), "--format", "json"]
    assert main([*common, "--store", str(store), "--release", "r1"]) == 0
    recorded = json.loads(capsys.readouterr().out)
    runs = SAMPLE / "runs"
    assert main([
        *common, "--qrels", str(SAMPLE / "judgments" / "alice.qrels"), "--strata", str(strata),
        "--run", f"bm25={runs / 'bm25.run'}", "--run", f"minilm={runs / 'minilm.run'}",
        "-m", "Success@10",
    ]) == 0  # fmt: skip
    fresh = json.loads(capsys.readouterr().out)
    assert recorded["measure"] == fresh["measure"] == "Success@10"
    for name in ("bm25", "minilm"):
        assert recorded["headline"]["systems"][name] == pytest.approx(
            fresh["headline"]["systems"][name]
        )
    assert recorded["notes"] == []  # recorded under the old labels' shares
    assert main([*common, "--store", str(store), "--release", "nope"]) == 2
    assert "no release 'nope'" in capsys.readouterr().err


def test_history_shows_the_shares_in_force_at_each_release(store, capsys) -> None:
    strata = SAMPLE / "strata.csv"
    assert (
        main(_report(store, strata, "--traffic", str(SAMPLE / "traffic.csv"), "--release", "r1"))
        == 0
    )
    assert main(_report(store, strata, "--release", "r2")) == 0  # no --traffic: no shares
    capsys.readouterr()
    assert main(["history", "--store", str(store), "-m", "Success@10", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["releases"]
    traffic = dict(pl.read_csv(SAMPLE / "traffic.csv").select("stratum", "share").iter_rows())
    assert {r["release"]: r["traffic"] for r in rows} == {"r1": traffic, "r2": None}
    from goldset_tui.drift.definition import assignment_sha256

    digest = assignment_sha256(pl.read_csv(strata, schema_overrides={"query_id": pl.String}))
    assert {r["strata_assignment_sha256"] for r in rows} == {digest}


def test_a_damaged_record_does_not_stop_a_report_on_the_store(store, capsys) -> None:
    assert main(_report(store, SAMPLE / "strata.csv", "--release", "r1")) == 0
    next((store / "history").glob("*.json")).write_text("{not json")
    argv = _report(store, SAMPLE / "strata.csv")
    argv[argv.index("--qrels") + 1] = str(store)  # the store as qrels: nothing recorded
    argv = argv[: argv.index("--store")] + ["--labeller", "alice"]
    assert main(argv) == 0
