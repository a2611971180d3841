"""Opening a pool to judge hashes its file once: choosing the store (app/store_choice.py) and
reading the pool (io/pools.py) both need its sha256, and each hashed the whole file (0.14 s of
CPU for a 200 MB pool, bench/load_pool.py). A file changed since it was hashed is hashed again."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from goldset_tui.app.judging import open_judging
from goldset_tui.io import pools

ROWS = "".join(
    f'{{"query_id": "q{i // 3}", "query": "query {i // 3}", "doc_id": "d{i}", "text": "text {i}"}}\n'
    for i in range(9)
)


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of every file hashed with hashlib.file_digest, as it happens."""
    names: list[str] = []
    real = hashlib.file_digest

    def counting(handle, digest):  # type: ignore[no-untyped-def]
        names.append(Path(handle.name).name)
        return real(handle, digest)

    monkeypatch.setattr(hashlib, "file_digest", counting)
    monkeypatch.setattr(pools, "_DIGESTS", {})
    return names


A_MINUTE_AGO = time.time_ns() - 60 * 10**9


def written(path: Path, text: str) -> Path:
    """``text`` in ``path``, last modified a minute ago (its change time is now)."""
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(A_MINUTE_AGO, A_MINUTE_AGO))
    return path


def test_opening_a_pool_to_judge_hashes_it_once(
    tmp_path: Path, hashed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # utime sets the change time to now, which a file that has sat still would not have: the
    # two seconds' wait is waived instead.
    monkeypatch.setattr(pools, "_SETTLED_NS", 0)
    pool = written(tmp_path / "pool.jsonl", ROWS)
    setup = open_judging(pool, "ana")
    assert hashed.count("pool.jsonl") == 1
    assert setup.pool.sha256 == hashlib.sha256(pool.read_bytes()).hexdigest()


def test_a_file_changed_since_it_was_hashed_is_hashed_again(
    tmp_path: Path, hashed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pools, "_SETTLED_NS", 0)
    pool = written(tmp_path / "pool.jsonl", ROWS)
    first = pools.file_sha256(pool)
    assert pools.file_sha256(pool) == first and hashed.count("pool.jsonl") == 1
    changed = ROWS.replace("text 4", "text X")  # the same size
    written(pool, changed)  # and the same modification time: only the change time tells
    assert pools.file_sha256(pool) == hashlib.sha256(changed.encode()).hexdigest()
    assert hashed.count("pool.jsonl") == 2


def test_a_file_changed_within_the_clock_tick_is_not_remembered(
    tmp_path: Path, hashed: list[str]
) -> None:
    pool = tmp_path / "pool.jsonl"
    pool.write_text(ROWS, encoding="utf-8")  # changed just now
    pools.file_sha256(pool)
    pools.file_sha256(pool)
    assert hashed.count("pool.jsonl") == 2


# --- across runs: the data folder's cache (io/digest_cache.py) ---------------------------------
def test_a_large_pool_is_not_hashed_again_by_the_next_run(
    tmp_path: Path, hashed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from goldset_tui.io import digest_cache

    monkeypatch.setattr(pools, "_SETTLED_NS", 0)
    monkeypatch.setattr(digest_cache, "REMEMBER_FROM", 0)  # the sample rows stand for 200 MB
    pool = written(tmp_path / "pool.jsonl", ROWS)
    first = pools.file_sha256(pool)
    monkeypatch.setattr(pools, "_DIGESTS", {})  # the next process: nothing in memory
    assert pools.file_sha256(pool) == first
    assert hashed.count("pool.jsonl") == 1
    assert digest_cache.cache_file().is_file()
    # The same bytes under the same size and times, but changed (the change time moves): hashed.
    changed = ROWS.replace("text 4", "text X")
    written(pool, changed)
    monkeypatch.setattr(pools, "_DIGESTS", {})
    assert pools.file_sha256(pool) == hashlib.sha256(changed.encode()).hexdigest()
    assert hashed.count("pool.jsonl") == 2


def test_a_small_pool_and_a_broken_cache_are_simply_hashed(
    tmp_path: Path, hashed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from goldset_tui.io import digest_cache

    monkeypatch.setattr(pools, "_SETTLED_NS", 0)
    pool = written(tmp_path / "pool.jsonl", ROWS)
    pools.file_sha256(pool)  # below REMEMBER_FROM: not written to the data folder
    assert not digest_cache.cache_file().exists()
    monkeypatch.setattr(digest_cache, "REMEMBER_FROM", 0)
    digest_cache.cache_file().parent.mkdir(parents=True, exist_ok=True)
    digest_cache.cache_file().write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(pools, "_DIGESTS", {})
    assert pools.file_sha256(pool) == hashlib.sha256(ROWS.encode()).hexdigest()
    monkeypatch.setattr(pools, "_DIGESTS", {})
    pools.file_sha256(pool)  # the broken cache was replaced by a good one
    assert hashed.count("pool.jsonl") == 2
