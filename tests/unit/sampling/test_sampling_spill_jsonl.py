"""A JSON lines log larger than memory goes through the spill files too (it was read whole by the
careful reader), with the labels of the in-memory count byte for byte; a bad line still gets the
careful reader's one-line error. `goldset sample draw --log` counts a large log the same way, and
a Parquet log spills by the rows it holds, not its file's size. The limits are made tiny so that
a small log spills, in pieces of a line or two."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.sampling import inclusion, sample, spill, spill_jsonl, spill_tables
from goldset_tui.sampling.classify import classify_to_file

QUERIES = [
    "rotate api key", "Rotate  API key", " rotate api key ", "how do i login",
    "sso login not working", "ERR-4411", "café menü", "New York Paris", "", "   ",
    "why is billing wrong", "a", "b c", "tab\there", "\u00a0nbsp\u00a0",
]  # fmt: skip
NUMBERS = [404, 7, 12345, 0, 2024]  # queries a logger wrote as JSON numbers
MISSING = object()  # the line has no "query" key at all


def _count(mode: str, n: int) -> object:
    return {"int": n, "float": float(n), "text": f" {n} "}[mode]


def _line(query: object, count: int, mode: str, extra: int) -> str:
    row: dict[str, object] = {} if query is MISSING else {"query": query}
    if mode != "none":
        row["count"] = _count(mode, count)
    row["ts"] = extra  # a field the count ignores, as a real log's
    return json.dumps(row, ensure_ascii=extra % 2 == 0)


def _labels(log: Path, out: Path, monkeypatch: pytest.MonkeyPatch, spilled: bool):
    """(what classify wrote, its bytes, whether the JSON lines' own pass was taken)."""
    with monkeypatch.context() as patch:
        taken: list[Path] = []
        real = spill_tables.table_partition

        def partition(path: Path, *args) -> tuple[int, int]:
            taken.append(path)  # the spill files' pass, not a fallback to the in-memory count
            return real(path, *args)

        patch.setattr(spill_tables, "table_partition", partition)
        if spilled:
            patch.setattr(spill, "SPILL_ABOVE", 0)
            patch.setattr(spill, "PART_BYTES", 40)
            patch.setattr(spill_jsonl, "CHUNK_BYTES", 30)  # a piece is a line or two
            patch.setattr(spill_tables, "SAMPLE_KEEP", 4)
        else:
            patch.setattr(spill, "SPILL_ABOVE", 1 << 40)
        done = classify_to_file(log, out)
    return done, out.read_bytes(), taken == [log]


def _same(log: Path, folder: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    """The spilled labels are the in-memory ones (or both refuse alike); whether it spilled."""
    try:
        want, want_bytes, _ = _labels(log, folder / "memory.csv", monkeypatch, spilled=False)
    except InputError as exc:
        with pytest.raises(InputError) as info:
            _labels(log, folder / "spilled.csv", monkeypatch, spilled=True)
        assert str(info.value) == str(exc)
        return False
    got, got_bytes, taken = _labels(log, folder / "spilled.csv", monkeypatch, spilled=True)
    assert got_bytes == want_bytes
    assert (got.occurrences, got.distinct, got.blank) == (
        want.occurrences,
        want.distinct,
        want.blank,
    )
    assert got.strata.equals(want.strata)
    return taken


# Any text but lone surrogates (refused by both paths alike, not a spilled log's case).
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
QUERY = st.one_of(st.sampled_from(QUERIES), TEXT, st.none(), st.just(MISSING))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(st.tuples(QUERY, st.integers(1, 5), st.integers(0, 3)), min_size=1, max_size=30),
    mode=st.sampled_from(["none", "int", "float", "text"]),
    numbers=st.booleans(),
    blank_lines=st.booleans(),
    bom=st.booleans(),
    crlf=st.booleans(),
)
def test_a_spilled_jsonl_log_gives_the_in_memory_labels(
    tmp_path_factory, monkeypatch, rows, mode, numbers, blank_lines, bom, crlf
) -> None:
    folder = tmp_path_factory.mktemp("jsonl")
    log = folder / "log.jsonl"
    if numbers:  # every query a JSON number: one type in every piece
        rows = [(NUMBERS[i % len(NUMBERS)], n, e) for i, (_, n, e) in enumerate(rows)]
    lines = [_line(q, n, mode, e) for q, n, e in rows]
    if blank_lines:
        lines = [x for line in lines for x in (line, "", "  ")]
    end = "\r\n" if crlf else "\n"
    log.write_bytes((b"\xef\xbb\xbf" if bom else b"") + (end.join(lines) + end).encode())
    has_query = any(q is not MISSING for q, _, _ in rows)
    spilled = _same(log, folder, monkeypatch)
    # Every such log is one the spill files can read whole: never a fallback in memory, unless
    # no line names a query (the careful reader refuses it) or every query is blank.
    all_blank = all(q is MISSING or q is None or not str(q).strip() for q, _, _ in rows)
    assert spilled == (has_query and not all_blank)


def test_a_field_of_two_types_in_two_pieces_is_counted_as_the_whole_file_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Over the whole file Polars reads the counts as decimals; a piece alone would read whole
    # numbers: the log goes to the careful reader rather than guess what the whole file says.
    log = tmp_path / "log.jsonl"
    log.write_text('{"query": "a b", "count": 2}\n{"query": 7, "count": 3.0}\n{"query": "c"}\n')
    with pytest.raises(InputError):
        _labels(log, tmp_path / "o.csv", monkeypatch, spilled=False)
    log.write_text('{"query": "a b", "count": 2}\n{"query": 7, "count": 3.0}\n')
    assert _same(log, tmp_path, monkeypatch) is False  # same bytes, through the careful reader


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"query": "a"}\n{"query": "b"}\n["not", "an", "object"]\n', "log.jsonl:3"),
        ('{"q": "a"}\n{"q": "b"}\n', "column 'query'"),
        ('{"query": "a", "count": 2}\n{"query": "b", "count": 0}\n', "log.jsonl:2"),
        ('{"query": "a", "count": 2}\n{"query": "b", "count": 1.5}\n', "log.jsonl:2"),
        ('{"query": "a", "count": 2}\n{"query": "b"}\n', "log.jsonl:2"),
        ('{"query": "a"}\n{"query": "b", "query": "c"}\n', "log.jsonl:2"),
        ('{"query": "a"}\n{"query": 1.5}\n', "log.jsonl:2"),
        ('{"query": "a"}\n{"query": "b"\n', "log.jsonl:2"),
    ],
)
def test_a_bad_line_in_a_spilled_log_is_named_as_before(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    text: str,
    where: str,
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(text)
    with monkeypatch.context() as patch:
        patch.setattr(spill, "SPILL_ABOVE", 1 << 40)
        with pytest.raises(InputError) as before:
            classify_to_file(log, tmp_path / "a.csv")
    monkeypatch.setattr(spill, "SPILL_ABOVE", 0)
    monkeypatch.setattr(spill_jsonl, "CHUNK_BYTES", 8)
    assert main(["classify", str(log), "-o", str(tmp_path / "b.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(before.value) in err and where in err
    assert "Traceback" not in err and not (tmp_path / "b.csv").exists()


def test_sample_draw_log_counts_a_large_log_through_the_spill_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.txt"
    queries = [f"how do i rotate key {i % 37}" for i in range(400)]
    queries += [f"ERR_{4000 + i % 11} webhook" for i in range(90)] + ["", "  "]
    queries += [f"Sync Stripe and Salesforce {i % 5}" for i in range(60)]
    log.write_text("\n".join(queries) + "\n")
    real = spill.classify_spilled
    taken: list[Path] = []

    def watched(path: Path, *args, **kwargs):
        taken.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(spill, "classify_spilled", watched)
    outputs = {}
    for name, above in (("memory", 1 << 40), ("spilled", 0)):
        monkeypatch.setattr(spill, "SPILL_ABOVE", above)
        monkeypatch.setattr(spill, "CHUNK_BYTES", 256)
        monkeypatch.setattr(spill, "PART_BYTES", 300)
        out = tmp_path / name / "golden.csv"
        out.parent.mkdir()
        argv = ["sample", "draw", str(log), "--log", "-o", str(out), "--seed", "7", "--total", "20"]
        argv += ["--min-per-stratum", "4"]
        assert main(argv) == 0
        printed = capsys.readouterr()
        files = {f.name: f.read_bytes().replace(name.encode(), b"X") for f in out.parent.iterdir()}
        outputs[name] = (files, printed.out.replace(name, "X"), printed.err.replace(name, "X"))
        assert taken == ([log] if name == "spilled" else [])
    assert outputs["spilled"] == outputs["memory"]
    assert len(outputs["memory"][0]) >= 3  # the sample, its companions and its manifest


def test_a_parquet_log_spills_by_the_rows_it_holds_not_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log.parquet"
    rows = [f"rotate api key {i % 3}" for i in range(3000)] + ["", "ERR-4411"] * 5
    pl.DataFrame({"query": rows}).write_parquet(log)
    monkeypatch.setattr(spill, "SPILL_ABOVE", 4096)
    # Repeated queries compress to a file far under the threshold; its rows are far over it.
    assert log.stat().st_size < spill.SPILL_ABOVE < len(rows) * spill.ROW_BYTES
    assert spill.spills(log)
    small = tmp_path / "small.parquet"
    pl.DataFrame({"query": rows[:100]}).write_parquet(small)
    assert not spill.spills(small)
    taken: list[Path] = []
    real = spill_tables.table_partition

    def partition(path: Path, folder: Path, cuts: pl.Series) -> tuple[int, int]:
        taken.append(path)
        return real(path, folder, cuts)

    monkeypatch.setattr(spill_tables, "table_partition", partition)
    got = classify_to_file(log, tmp_path / "spilled.csv")
    assert taken == [log]
    monkeypatch.setattr(spill, "SPILL_ABOVE", 1 << 40)
    want = classify_to_file(log, tmp_path / "memory.csv")
    assert (tmp_path / "spilled.csv").read_bytes() == (tmp_path / "memory.csv").read_bytes()
    assert (got.occurrences, got.distinct, got.blank) == (want.occurrences, want.distinct, 5)


def test_a_null_query_in_a_spilled_table_is_blank_as_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An empty CSV field reads as null: it was neither counted blank nor left out of the total.
    log = tmp_path / "log.csv"
    log.write_text("query,count\n,3\nrotate api key,1\nsso login,2\n")
    results = []
    for above in (1 << 40, 0):
        monkeypatch.setattr(spill, "SPILL_ABOVE", above)
        done = classify_to_file(log, tmp_path / f"{above}.csv")
        results.append((done.occurrences, done.blank, done.distinct))
    assert results == [(3, 3, 2), (3, 3, 2)]


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_spilled_log_with_an_origin_column_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    # The spill files carry the query alone: a large CSV log lost its origin column (synthetic
    # queries then read as real traffic downstream). Such a log is counted in memory.
    log = tmp_path / f"log{suffix}"
    rows = [{"query": "rotate api key", "origin": "synthetic"}, {"query": "sso", "origin": "real"}]
    if suffix == ".csv":
        pl.DataFrame(rows).write_csv(log)
    else:
        log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setattr(spill, "SPILL_ABOVE", 0)
    classify_to_file(log, tmp_path / "labels.csv")
    labels = pl.read_csv(tmp_path / "labels.csv")
    assert labels.sort("query").get_column("origin").to_list() == ["synthetic", "real"]


def _old_draw(pool: pl.DataFrame, k: int, seed: int, cap: int) -> pl.DataFrame:
    """The draw as it was before it went a slice at a time: every query's key in one list."""
    if k >= pool.height:
        return pool.with_columns(pl.lit(1.0, dtype=pl.Float64).alias(sample.INCLUSION))
    pool = pool.sort("query")
    weights = pool.get_column("count").clip(upper_bound=cap).to_list()
    uniforms = sample.hash_uniforms(pool.get_column("query").to_list(), seed)
    keys = pl.Series("_key", sample.efraimidis_spirakis_keys(weights, uniforms), dtype=pl.Float64)
    by_weight = sample.probability_of_weight(weights, k)
    probability = pl.Series(sample.INCLUSION, [by_weight[w] for w in weights], dtype=pl.Float64)
    ordered = pool.with_columns(keys, probability).sort(["_key", "query"], descending=[True, False])
    return ordered.head(k).drop("_key")


def _old_design_effects(pool: pl.DataFrame, k: int, cap: int) -> dict[str, float]:
    """The design effects as they were: lists of every query's count, weight and head."""
    counts = [float(c) for c in pool.get_column("count").to_list()]
    head = [c >= cap for c in counts]
    total = sum(counts)
    top = sum(c for c, h in zip(counts, head, strict=True) if h)
    out = dict.fromkeys((sample.DEFF_SEARCH, sample.DEFF_QUERY, sample.DEFF_HEAD), 0.0)
    out |= {sample.DEFF_TAIL: 0.0, sample.HEAD_COUNT: float(cap)}
    out[sample.HEAD_SHARE] = top / total if total else 0.0
    if k >= pool.height or k <= 0:
        return out
    weights = [min(int(c), cap) for c in counts]
    by_weight = sample.probability_of_weight(weights, k)
    search = query = heavy = light = 0.0
    for c, w, h in zip(counts, weights, head, strict=True):
        pi = by_weight[w]
        search += (1.0 - pi) * c * c / pi
        query += (1.0 - pi) / pi
        if h:
            heavy += (1.0 - pi) * c * c / pi
        else:
            light += (1.0 - pi) * c * c / pi
    out[sample.DEFF_SEARCH] = k * search / (total * total)
    out[sample.DEFF_QUERY] = k * query / (pool.height * pool.height)
    out[sample.DEFF_HEAD] = k * heavy / (top * top) if top else 0.0
    out[sample.DEFF_TAIL] = k * light / ((total - top) ** 2) if total > top else 0.0
    return out


@settings(max_examples=80, deadline=None)
@given(
    counts=st.lists(st.sampled_from([1, 1, 1, 2, 3, 7, 49, 50, 51, 400]), min_size=1, max_size=60),
    k=st.integers(0, 70),
    cap=st.sampled_from([1, 3, 50]),
    seed=st.integers(0, 3),
    exact=st.booleans(),
    slice_rows=st.sampled_from([1, 3, 7, 1 << 16]),
)
def test_the_draw_a_slice_at_a_time_is_the_draw_of_every_query_at_once(
    counts: list[int], k: int, cap: int, seed: int, exact: bool, slice_rows: int
) -> None:
    # A stratum of millions of queries was lists of millions of Python values (1 GB at 6 M
    # distinct queries): now a slice at a time, with the same keys, probabilities and sums.
    pool = pl.DataFrame(
        {"query": [f"q {i % 23} {i}" for i in range(len(counts))], "count": counts},
        schema={"query": pl.String, "count": pl.Int64},
    ).sample(fraction=1.0, shuffle=True, seed=seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sample, "SLICE", slice_rows)
        if not exact:  # Rosén's approximation, not the exact successive draw
            patch.setattr(inclusion, "EXACT_STATES", 0)
        got = sample.draw_stratum(pool, k, seed, "s", cap)
        want = _old_draw(pool, k, seed, cap)
        assert got.equals(want)
        assert sample.design_effects(pool, k, cap) == _old_design_effects(pool, k, cap)
