"""`goldset sample`: byte-identical, never a repeated query, shortfalls said, weighting right, the
worked example's arithmetic (docs/background.md#the-sampled-log) and the closure of the sampling
table."""

from __future__ import annotations

import random
import tomllib
from collections import defaultdict
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.cli import main
from goldset_tui.sampling.sample import (
    allocate_total,
    draw_stratum,
    stratified_sample,
    stratum_counts,
)

# The sampled log's targets and shares (docs/background.md#the-sampled-log).
TARGETS = {
    "howto": 40,
    "navigational": 30,
    "error": 30,
    "entity_attr": 25,
    "migration": 15,
    "tail": 20,
}
TRAFFIC_SHARE = {
    "howto": 0.31,
    "navigational": 0.22,
    "error": 0.18,
    "entity_attr": 0.15,
    "migration": 0.06,
    "tail": 0.08,
}


def seed_stratified_sample(labelled_queries, seed=20240301):
    rng = random.Random(seed)
    buckets = defaultdict(list)
    for q in labelled_queries:
        buckets[q["stratum"]].append(q)
    sample = []
    for stratum, target in TARGETS.items():
        pool = buckets[stratum]
        weights = [min(q["count"], 50) for q in pool]
        sample += (
            rng.sample(pool, k=target)
            if len(pool) <= target
            else rng.choices(pool, weights=weights, k=target)
        )
    return sample


def seed_like_labels(per_stratum: int = 120, rng_seed: int = 3) -> pl.DataFrame:
    """A log shaped like the sampled log: six strata, a heavy head (counts up to thousands), a
    long tail."""
    rng = random.Random(rng_seed)
    rows = []
    for stratum, share in TRAFFIC_SHARE.items():
        for i in range(per_stratum):
            rows.append(
                (f"{stratum} q{i:04d}", max(1, int(rng.paretovariate(1.1) * share * 10)), stratum)
            )
    return pl.DataFrame(
        rows, schema={"query": pl.Utf8, "count": pl.Int64, "stratum": pl.Utf8}, orient="row"
    )


def targets_arg(targets: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in targets.items())


def test_seed_snippet_branches_are_swapped_and_ours_are_not() -> None:
    labels = seed_like_labels()
    records = [{"text": q, "stratum": s, "count": c} for q, c, s in labels.iter_rows()]
    # Large pools: rng.choices draws with replacement, so a head query appears twice.
    drawn = [q["text"] for q in seed_stratified_sample(records)]
    assert len(drawn) == 160 and len(set(drawn)) < len(drawn)
    # A small pool: rng.sample with k larger than the pool raises.
    small = [r for r in records if r["stratum"] != "migration"] + [
        r for r in records if r["stratum"] == "migration"
    ][:5]
    with pytest.raises(ValueError):
        seed_stratified_sample(small)
    ours = stratified_sample(labels, TARGETS, 20240301).sample
    assert ours.height == 160 and ours.get_column("query").n_unique() == 160
    few = labels.filter(
        (pl.col("stratum") != "migration") | pl.col("query").is_in(labels["query"][:0])
    )
    few = pl.concat([few, labels.filter(pl.col("stratum") == "migration").head(5)])
    result = stratified_sample(few, TARGETS, 20240301)
    assert result.sample.filter(pl.col("stratum") == "migration").height == 5
    assert any("only 5 distinct queries for a target of 15" in n for n in result.notes)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from("abcdef"),
        st.lists(st.integers(1, 500), min_size=0, max_size=40),
        min_size=1,
    ),
    st.dictionaries(st.sampled_from("abcdefg"), st.integers(0, 50), min_size=1),
    st.integers(0, 2**32),
    st.integers(1, 60),
)
def test_never_a_repeated_query_and_every_stratum_gets_min_target_available(
    pools, targets, seed, cap
) -> None:
    rows = [(f"{s}-{i}", c, s) for s, counts in pools.items() for i, c in enumerate(counts)]
    if not rows:
        return
    labels = pl.DataFrame(
        rows, schema={"query": pl.Utf8, "count": pl.Int64, "stratum": pl.Utf8}, orient="row"
    )
    result = stratified_sample(labels, targets, seed, cap)
    queries = result.sample.get_column("query")
    assert queries.n_unique() == queries.len()
    assert set(queries) <= set(labels["query"])
    for s, target in targets.items():
        available = len(pools.get(s, []))
        assert result.sample.filter(pl.col("stratum") == s).height == min(target, available)
    assert all(c.ok for c in result.closure if c.name != "set size reaches the requested size")
    # The row order of LABELS never changes the sample.
    assert stratified_sample(labels.reverse(), targets, seed, cap).sample.equals(result.sample)


def test_byte_identical_for_a_seed_whatever_the_row_order(tmp_path: Path) -> None:
    labels = seed_like_labels()
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    labels.write_csv(a)
    labels.sample(fraction=1.0, shuffle=True, seed=9).write_csv(b)
    outs = []
    for i, src in enumerate([a, a, b]):
        out = tmp_path / f"out{i}" / "golden.csv"
        out.parent.mkdir()
        assert (
            main(
                [
                    "sample",
                    str(src),
                    "-o",
                    str(out),
                    "--seed",
                    "20240301",
                    "--targets",
                    targets_arg(TARGETS),
                ]
            )
            == 0
        )
        outs.append(out)
    assert outs[0].read_bytes() == outs[1].read_bytes() == outs[2].read_bytes()
    m0 = (outs[0].parent / "golden.manifest.toml").read_text()
    m1 = (outs[1].parent / "golden.manifest.toml").read_text()
    assert m0.replace("out0", "outX") == m1.replace("out1", "outX")
    other = tmp_path / "other.csv"
    main(
        [
            "sample",
            str(a),
            "-o",
            str(other),
            "--seed",
            "20240302",
            "--targets",
            targets_arg(TARGETS),
        ]
    )
    assert other.read_bytes() != outs[0].read_bytes()


def test_parquet_sample_is_byte_identical_too(tmp_path: Path) -> None:
    labels = tmp_path / "labels.parquet"
    seed_like_labels().write_parquet(labels)
    x, y = tmp_path / "x.parquet", tmp_path / "y.parquet"
    for out in (x, y):
        assert (
            main(["sample", "draw", str(labels), "-o", str(out), "--seed", "1", "--total", "160"])
            == 0
        )
    assert x.read_bytes() == y.read_bytes()
    assert pl.read_parquet(x).columns == [
        "query_id",
        "query",
        "count",
        "stratum",
        "inclusion_probability",
    ]


def exact_inclusion(weights: list[float], k: int) -> list[float]:
    """Inclusion probabilities of successive weighted draws without replacement, by enumeration."""
    probs = [0.0] * len(weights)

    def walk(chosen: tuple[int, ...], p: float) -> None:
        if len(chosen) == k:
            for i in chosen:
                probs[i] += p
            return
        rest = sum(w for i, w in enumerate(weights) if i not in chosen)
        for i, w in enumerate(weights):
            if i not in chosen:
                walk(chosen + (i,), p * w / rest)

    walk((), 1.0)
    return probs


def test_weighting_matches_successive_sampling_with_the_cap() -> None:
    counts = [1, 5, 20, 400]  # 400 is capped at 50
    pool = pl.DataFrame({"query": ["a", "b", "c", "d"], "count": counts, "stratum": ["s"] * 4})
    trials = 1500
    hits = defaultdict(int)
    for seed in range(trials):
        for q in draw_stratum(pool, 2, seed, "s", 50).get_column("query"):
            hits[q] += 1
    expected = exact_inclusion([min(c, 50) for c in counts], 2)
    for q, p in zip("abcd", expected, strict=True):
        se = (p * (1 - p) / trials) ** 0.5
        assert abs(hits[q] / trials - p) < 4.5 * se + 1e-3, (q, hits[q] / trials, p)


def test_shortfall_is_reported_in_the_manifest_and_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("query,count,stratum\na,5,x\nb,1,x\nc,2,x\nd,1,y\n", encoding="utf-8")
    out = tmp_path / "s.csv"
    assert (
        main(["sample", "draw", str(labels), "-o", str(out), "--seed", "4", "--targets", "x=5,y=2"])
        == 0
    )
    err = capsys.readouterr().err
    assert "only 3 distinct queries for a target of 5" in err
    manifest = tomllib.loads((tmp_path / "s.manifest.toml").read_text())
    strata = {s["stratum"]: s for s in manifest["strata"]}
    assert strata["x"]["sampled"] == 3 and strata["x"]["shortfall"] == 2
    assert strata["y"]["sampled"] == 1 and strata["y"]["shortfall"] == 1
    closure = {c["name"]: c for c in manifest["closure"]}
    assert closure["set size reaches the requested size"] == {
        "name": "set size reaches the requested size",
        "expected": 7.0,
        "actual": 4.0,
        "residual": -3.0,
        "ok": False,
    }
    assert sorted(pl.read_csv(out)["query"].to_list()) == ["a", "b", "c", "d"]


def test_sampled_log_manifest_closes_with_160_and_shares_summing_to_one(tmp_path: Path) -> None:
    share_counts = {s: int(v * 214_000) for s, v in TRAFFIC_SHARE.items()}  # the sampled log
    rows = []
    for s, occ in share_counts.items():
        per = occ // 100
        rows += [(f"{s} {i}", 100, s) for i in range(per)] + [(f"{s} rest", occ - 100 * per, s)] * (
            occ % 100 > 0
        )
    labels = tmp_path / "labels.csv"
    pl.DataFrame(rows, schema=["query", "count", "stratum"], orient="row").write_csv(labels)
    out = tmp_path / "golden.csv"
    assert (
        main(
            [
                "sample",
                "draw",
                str(labels),
                "-o",
                str(out),
                "--seed",
                "20240301",
                "--targets",
                targets_arg(TARGETS),
            ]
        )
        == 0
    )
    manifest = tomllib.loads((tmp_path / "golden.manifest.toml").read_text())
    assert manifest["set_size"] == 160 and sum(s["sampled"] for s in manifest["strata"]) == 160
    shares = {s["stratum"]: s["share"] for s in manifest["strata"]}
    assert shares == pytest.approx(TRAFFIC_SHARE, abs=1e-12)
    assert sum(shares.values()) == pytest.approx(1.0, abs=1e-12)
    assert all(c["ok"] for c in manifest["closure"])
    assert manifest["seed"] == 20240301 and manifest["targets"] == TARGETS
    import hashlib

    assert manifest["inputs"]["labels"]["sha256"] == hashlib.sha256(labels.read_bytes()).hexdigest()


def test_total_with_a_floor_lifts_the_small_strata() -> None:
    counts = pl.DataFrame(
        {
            "stratum": list(TRAFFIC_SHARE),
            "distinct": [10_000] * 6,
            "occurrences": [round(v * 214_000) for v in TRAFFIC_SHARE.values()],
        }
    ).sort("stratum")
    sizes = allocate_total(counts, 160, 15)
    assert sum(sizes.values()) == 160
    assert sizes["migration"] == 15 and sizes["tail"] == 15  # 9.6 and 12.8 proportionally
    # Above the floor the rest stays in proportion to traffic (howto : error = 31 : 18).
    assert sizes["howto"] / sizes["error"] == pytest.approx(31 / 18, rel=0.05)
    proportional = allocate_total(counts, 160, 0)
    assert sum(proportional.values()) == 160 and proportional["migration"] in (
        9,
        10,
    )  # ten, as the proportional split gives


def test_total_respects_what_each_stratum_has() -> None:
    counts = stratum_counts(
        pl.DataFrame(
            {"query": list("abcdefg"), "count": [9, 9, 9, 9, 9, 1, 1], "stratum": list("xxxxxyy")}
        )
    )
    assert allocate_total(counts, 6, 3) == {"x": 4, "y": 2}
    assert allocate_total(counts, 50, 3) == {"x": 5, "y": 2}


def test_bad_sample_arguments_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("query,count,stratum\na,5,x\nb,1,y\n", encoding="utf-8")
    cases = [
        ["-o", str(tmp_path / "s.csv"), "--targets", "x=1"],  # no seed
        ["-o", str(tmp_path / "s.csv"), "--seed", "1", "--targets", "x=one"],
        ["-o", str(tmp_path / "s.csv"), "--seed", "1", "--targets", "x=1,x=2"],
        ["-o", str(tmp_path / "s.txt"), "--seed", "1", "--targets", "x=1"],
        ["-o", str(tmp_path / "s.csv"), "--seed", "1", "--total", "1", "--min-per-stratum", "5"],
    ]
    for extra in cases:
        assert main(["sample", "draw", str(labels), *extra]) == 2, extra
        err = capsys.readouterr().err
        assert err.startswith("goldset: error:") and err.count("\n") == 1
    assert not (tmp_path / "s.csv").exists()


def test_a_stratum_not_in_labels_is_refused_with_the_known_strata(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Audit: a typo in a stratum name wrote an empty sample and exited 0.
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "query,count,stratum\na,5,howto\nb,1,error\nc,2,\x1b[31mtail\n", encoding="utf-8"
    )
    out = tmp_path / "s.csv"
    for targets in ("bogus=5", "howto=1,bogus=5", "howto=1,Error=1"):
        assert (
            main(
                ["sample", "draw", str(labels), "-o", str(out), "--seed", "1", "--targets", targets]
            )
            == 2
        ), targets
        err = capsys.readouterr().err
        assert err.startswith("goldset: error:") and err.count("\n") == 1, err
        assert (
            "its strata are: \u241b[31mtail, error, howto" in err and "\x1b" not in err
        )  # listed, control characters shown
    assert "'Error'" in err
    assert not out.exists() and not (tmp_path / "s.manifest.toml").exists()
    # --plan with targets is checked the same way, and known names still work.
    assert main(["sample", "plan", str(labels), "--targets", "bogus=5"]) == 2
    assert (
        main(
            [
                "sample",
                "draw",
                str(labels),
                "-o",
                str(out),
                "--seed",
                "1",
                "--targets",
                "howto=1,error=1",
            ]
        )
        == 0
    )
    assert sorted(pl.read_csv(out)["query"].to_list()) == ["a", "b"]


def test_output_into_a_missing_folder_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Audit: -o /nonexistent/dir/x.csv silently created the folders, hiding a typo in the path.
    labels = tmp_path / "labels.csv"
    labels.write_text("query,count,stratum\na,5,x\nb,1,y\n", encoding="utf-8")
    (tmp_path / "file").write_text("not a folder")
    for out, manifest in [
        (tmp_path / "nope" / "dir" / "s.csv", None),
        (tmp_path / "file" / "s.csv", None),
        (tmp_path / "s.csv", tmp_path / "nope" / "s.manifest.toml"),
    ]:
        extra = ["--manifest", str(manifest)] if manifest else []
        assert (
            main(
                [
                    "sample",
                    "draw",
                    str(labels),
                    "-o",
                    str(out),
                    "--seed",
                    "1",
                    "--total",
                    "2",
                    "--min-per-stratum",
                    "1",
                    *extra,
                ]
            )
            == 2
        )
        err = capsys.readouterr().err
        assert (
            err.startswith("goldset: error:")
            and err.count("\n") == 1
            and "cannot write here" in err
        ), err
        assert not out.exists()
    assert not (tmp_path / "nope").exists()


def test_manifest_closure_is_what_the_closure_screen_reads(tmp_path: Path) -> None:
    from goldset_tui.report.pipeline import read_sampling_closure

    labels = tmp_path / "labels.csv"
    seed_like_labels().write_csv(labels)
    out = tmp_path / "golden.csv"
    assert (
        main(
            [
                "sample",
                "draw",
                str(labels),
                "-o",
                str(out),
                "--seed",
                "3",
                "--targets",
                targets_arg(TARGETS),
            ]
        )
        == 0
    )
    checks = read_sampling_closure(tmp_path / "golden.manifest.toml")
    assert [c["name"] for c in checks][0] == "traffic shares sum to 1"
    assert all(
        set(c) == {"name", "expected", "actual", "residual", "ok"} and c["ok"] for c in checks
    )


def test_spotcheck_of_a_sample_takes_stratum_sizes_from_its_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    labels = tmp_path / "labels.csv"
    seed_like_labels().write_csv(labels)
    out = tmp_path / "golden.csv"
    assert (
        main(
            [
                "sample",
                "draw",
                str(labels),
                "-o",
                str(out),
                "--seed",
                "3",
                "--targets",
                targets_arg(TARGETS),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert (
        main(
            ["spotcheck", str(out), "--print", "--format", "json", "--store", str(tmp_path / "st")]
        )
        == 0
    )
    verdict = json.loads(capsys.readouterr().out)["verdict"]
    assert "golden.manifest.toml" in verdict["sizes_from"]
