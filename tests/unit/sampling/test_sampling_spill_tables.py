"""A CSV, TSV or Parquet log larger than memory goes through the spill files too, and its labels
are those of the in-memory count: CSV byte for byte, the same totals. The limits are made tiny
so that a small table spills, in batches of a few rows and ranges of a few queries."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldset_tui.errors import InputError
from goldset_tui.sampling import spill, spill_tables
from goldset_tui.sampling.classify import classify_to_file

QUERIES = [
    "rotate api key", "Rotate  API key", " rotate api key ", "how do i login",
    "sso login not working", "ERR-4411", "café menü", "New York Paris", "", "   ",
    "why is billing wrong", "a", "b c",
]  # fmt: skip


def _write(path: Path, rows: list[tuple[str, int]]) -> None:
    frame = pl.DataFrame(rows, schema={"query": pl.String, "count": pl.Int64}, orient="row")
    if path.suffix == ".parquet":
        frame.write_parquet(path)
    else:
        frame.write_csv(path, separator="\t" if path.suffix == ".tsv" else ",")


def _labels(log: Path, out: Path, monkeypatch: pytest.MonkeyPatch, spilled: bool):
    with monkeypatch.context() as patch:
        taken: list[Path] = []
        if spilled:
            real = spill_tables.table_partition

            def partition(path: Path, folder: Path, cuts: pl.Series) -> tuple[int, int]:
                taken.append(path)  # the table's own pass, not a fallback to the in-memory count
                return real(path, folder, cuts)

            patch.setattr(spill_tables, "table_partition", partition)
            patch.setattr(spill, "SPILL_ABOVE", 0)
            patch.setattr(spill, "PART_BYTES", 40)
            patch.setattr(spill_tables, "BATCH_ROWS", 3)
            patch.setattr(spill_tables, "SAMPLE_KEEP", 4)  # the bucket doubles several times
        else:
            patch.setattr(spill, "SPILL_ABOVE", 1 << 40)
        assert spill.spills(log) == spilled
        done = classify_to_file(log, out)
        assert taken == ([log] if spilled else [])
    return done, out.read_bytes()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(st.tuples(st.sampled_from(QUERIES), st.integers(1, 5)), min_size=1, max_size=40),
    suffix=st.sampled_from([".csv", ".tsv", ".parquet"]),
)
def test_a_spilled_table_gives_the_in_memory_labels(
    tmp_path_factory, monkeypatch: pytest.MonkeyPatch, rows, suffix
) -> None:
    folder = tmp_path_factory.mktemp("tables")
    log = folder / f"log{suffix}"
    _write(log, rows)
    try:
        want, want_bytes = _labels(log, folder / "memory.csv", monkeypatch, spilled=False)
    except InputError as exc:  # every query blank: both paths refuse the same way
        with pytest.raises(InputError) as info:
            _labels(log, folder / "spilled.csv", monkeypatch, spilled=True)
        assert str(info.value) == str(exc)
        return
    got, got_bytes = _labels(log, folder / "spilled.csv", monkeypatch, spilled=True)
    assert got_bytes == want_bytes
    assert (got.occurrences, got.distinct, got.blank) == (
        want.occurrences,
        want.distinct,
        want.blank,
    )
    assert got.strata.equals(want.strata)


def test_a_bad_count_in_a_spilled_table_is_named_as_before(tmp_path, monkeypatch) -> None:
    log = tmp_path / "log.csv"
    log.write_text("query,count\nrotate api key,2\nsso login,3\nhow do i,two\n")
    with monkeypatch.context() as patch:
        patch.setattr(spill, "SPILL_ABOVE", 1 << 40)
        with pytest.raises(InputError) as before:
            classify_to_file(log, tmp_path / "a.csv")
    monkeypatch.setattr(spill, "SPILL_ABOVE", 0)
    monkeypatch.setattr(spill_tables, "BATCH_ROWS", 1)
    with pytest.raises(InputError) as now:
        classify_to_file(log, tmp_path / "b.csv")
    assert str(now.value) == str(before.value) and "log.csv:4: column 'count'" in str(now.value)


def test_the_boundaries_sample_distinct_queries_in_bounded_memory(tmp_path, monkeypatch) -> None:
    log = tmp_path / "log.csv"
    _write(log, [(f"query {i:05d}", 1 + (i % 3)) for i in range(3000)] + [("head", 10**6)] * 50)
    monkeypatch.setattr(spill_tables, "BATCH_ROWS", 500)
    monkeypatch.setattr(spill_tables, "SAMPLE_KEEP", 200)
    cuts = spill_tables.table_boundaries(log, 10)
    assert cuts.len() == 9 and cuts.is_sorted()
    # Ranges of about equal numbers of distinct queries: the head repeated 50 times weighs one.
    ranks = [int(c.split()[1]) for c in cuts.to_list() if c.startswith("query ")]
    gaps = [b - a for a, b in zip([0, *ranks], [*ranks, 3000], strict=True)]
    assert max(gaps) < 3 * 3000 / 10
