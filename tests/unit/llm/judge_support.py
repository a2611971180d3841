"""A small pool cut from the sample, and running `goldset judge --machine` on it against the fake
provider, in this process (``judge``) or as a child process (``judge_command``)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from fake_provider import ANTHROPIC_KEY, OPENAI_KEY, FakeProvider

from goldset_tui.cli import main

ROOT = Path(__file__).resolve().parents[3]
SAMPLE_POOL = ROOT / "sample_data" / "pool.jsonl"


def small_pool(folder: Path, per_query: dict[str, int] | None = None) -> Path:
    """The first candidates of a few sample queries (default: 6 of q01, 4 of q02, 2 of q03)."""
    want = per_query or {"q01": 6, "q02": 4, "q03": 2}
    taken: dict[str, int] = {}
    lines = []
    for line in SAMPLE_POOL.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        qid = row["query_id"]
        if taken.get(qid, 0) < want.get(qid, 0):
            taken[qid] = taken.get(qid, 0) + 1
            lines.append(line)
    path = folder / "pool.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def pairs_of(pool: Path) -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in pool.read_text(encoding="utf-8").splitlines()]
    return [(r["query_id"], r["doc_id"]) for r in rows]


def judge_args(
    server: FakeProvider,
    pool: Path,
    store: Path,
    *extra: str,
    model: str = "claude-sonnet-4-5",
    provider: str = "anthropic",
    labeller: str = "llm",
) -> list[str]:
    url = server.url if provider == "anthropic" else server.openai_url
    args = ["judge", "--machine", model, str(pool), "--store", str(store), "--labeller", labeller]
    return [*args, "--provider", provider, "--base-url", url, *extra]


def judge(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    server: FakeProvider,
    pool: Path,
    store: Path,
    *extra: str,
    **kw: str,
) -> tuple[int, str, str]:
    """Run the command in this process with the test keys set; (status, stdout, stderr)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    status = main(judge_args(server, pool, store, *extra, **kw))
    out, err = capsys.readouterr()
    return status, out, err


def judge_command(server: FakeProvider, pool: Path, store: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "goldset_tui", *judge_args(server, pool, store, *extra)]


def child_env() -> dict[str, str]:
    env = {**os.environ, "ANTHROPIC_API_KEY": ANTHROPIC_KEY, "PYTHONPATH": str(ROOT)}
    env.pop("OPENAI_API_KEY", None)
    return env


def files_holding(folder: Path, secret: str) -> list[Path]:
    """Every file under ``folder`` whose bytes hold ``secret``."""
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
