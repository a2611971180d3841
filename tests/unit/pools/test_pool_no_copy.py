"""Loading a Parquet pool keeps the texts where the reader put them: no column is copied into one
chunk on the way (that copy was a tenth of a second and 150 MB of peak memory on a million rows,
bench/load_pool.py). What the pool holds is the same either way."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from goldset_tui.io.pools import load_pool


def test_a_parquet_pool_of_several_row_groups_is_not_copied_into_one_chunk(
    tmp_path: Path,
) -> None:
    n = 3_000
    frame = pl.DataFrame(
        {
            "query_id": [f"q{i // 30}" for i in range(n)],
            "query": [f"query {i // 30}" for i in range(n)],
            "doc_id": [f"d{i}" for i in range(n)],
            "text": [f"text number {i} " * 5 for i in range(n)],
        }
    )
    path = tmp_path / "pool.parquet"
    frame.write_parquet(path, row_group_size=500)
    read = pl.read_parquet(path)
    assert read.get_column("text").n_chunks() > 1  # the reader keeps its row groups apart
    pool = load_pool(path)
    assert pool.frame.get_column("text").n_chunks() == read.get_column("text").n_chunks()
    assert pool.frame.select("query_id", "query", "doc_id", "text").equals(frame)
