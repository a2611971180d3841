"""`goldset synth` against the fake provider, through the real SDKs: what is written (queries,
expected-relevant qrels, a manifest naming the whole setup), the cache (a rerun makes no
request), malformed answers refused per document and counted, the key in no written file, a
SIGKILL mid-run resumed, and `classify --compare` at the end with --log."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import polars as pl
import pytest
from fake_provider import ANTHROPIC_KEY, OPENAI_KEY, FakeProvider, Reply
from judge_support import ROOT, child_env, files_holding

from goldset_tui.cli import main
from goldset_tui.io.trec import read_qrels
from goldset_tui.machine.synth_prompt import DEFAULT_PROMPT
from goldset_tui.store.answers import read_answers
from goldset_tui.store.files import sha256_file

CORPUS = ROOT / "sample_data" / "corpus.jsonl"
LOG = ROOT / "sample_data" / "query_log.csv"


def small_corpus(folder: Path, n: int = 6) -> Path:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    # Every 97th passage: different modules, so queries built from titles are no near-duplicates.
    path = folder / "corpus.jsonl"
    path.write_text("\n".join(lines[::97][:n]) + "\n", encoding="utf-8")
    return path


def doc_ids(corpus: Path) -> list[str]:
    return [json.loads(line)["_id"] for line in corpus.read_text(encoding="utf-8").splitlines()]


def by_title(prompt: str) -> str:
    """A model that writes three queries from the title the prompt shows (numbered, quoted, with
    an introduction: what models do whatever they are told)."""
    title = re.search(r"Title: (.*)", prompt).group(1)  # type: ignore[union-attr]
    return f'Here are three queries:\n1. how to use {title}\n2. "{title} example"\n3. {title} fails'


def synth_args(server: FakeProvider, corpus: Path, out: Path, *extra: str) -> list[str]:
    return [
        "synth",
        str(corpus),
        "-o",
        str(out),
        "--model",
        "claude-sonnet-4-5",
        "--base-url",
        server.url,
        *extra,
    ]


def synth(monkeypatch, capsys, server, corpus, out, *extra) -> tuple[int, str, str]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    status = main(synth_args(server, corpus, out, *extra))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_queries_qrels_and_a_manifest_naming_the_setup(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    corpus = small_corpus(tmp_path)
    fake_provider.answer = by_title
    out = tmp_path / "synth.csv"
    status, stdout, err = synth(monkeypatch, capsys, fake_provider, corpus, out)
    assert status == 0, err
    ids = doc_ids(corpus)
    assert fake_provider.count("/v1/messages") == len(ids)
    sent = fake_provider.requests[0].prompt
    assert "have NOT seen this document" in sent and "Write 3 search queries" in sent
    queries = pl.read_csv(out)
    assert queries.columns == ["query_id", "query", "doc_id", "origin"]
    assert queries.height == 3 * len(ids) and set(queries["origin"]) == {"synthetic"}
    assert queries["doc_id"].unique(maintain_order=True).to_list() == ids  # corpus order
    first = queries.row(0, named=True)
    assert first["query"].startswith("how to use ")  # the numbering gone
    assert not queries["query"].str.contains('"').any()  # the quotes gone
    qrels = read_qrels(tmp_path / "synth.qrels")
    pairs = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    assert pairs == set(zip(queries["query_id"], queries["doc_id"], strict=True))
    assert set(qrels["grade"]) == {1}
    manifest = tomllib.loads((tmp_path / "synth.manifest.toml").read_text(encoding="utf-8"))
    assert manifest["kind"] == "synth"
    assert manifest["prompt"]["text"] == DEFAULT_PROMPT and manifest["prompt"]["source"] == (
        "built-in"
    )
    import hashlib

    assert manifest["prompt"]["sha256"] == hashlib.sha256(DEFAULT_PROMPT.encode()).hexdigest()
    model = manifest["model"]
    assert model["provider"] == "anthropic" and model["model"] == "claude-sonnet-4-5"
    assert model["model_version"] == "claude-sonnet-4-5-20250929"  # what the server reported
    assert model["temperature"] == 1.0
    # "sent" is what went over the wire (recent Anthropic SDKs take no temperature)
    assert model["temperature_sent"] is ("temperature" in fake_provider.requests[0].body)
    assert manifest["corpus"]["sha256"] == sha256_file(corpus)
    assert manifest["near_duplicate_threshold"] == 0.9
    assert manifest["counts"]["queries"] == queries.height
    assert manifest["counts"]["lines_not_queries"] == len(ids)  # the introductions
    assert manifest["outputs"]["queries"]["sha256"] == sha256_file(out)
    assert f"{queries.height} synthetic queries from {len(ids)} documents" in stdout


def test_a_rerun_costs_nothing_and_another_setup_asks_again(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    corpus = small_corpus(tmp_path)
    fake_provider.answer = by_title
    out = tmp_path / "synth.csv"
    assert synth(monkeypatch, capsys, fake_provider, corpus, out)[0] == 0
    first = out.read_bytes()
    asked = fake_provider.count()
    import goldset_tui.llm.provider as provider_module

    def no_provider(config):  # the cache answers every document: nothing to open
        raise AssertionError("the provider was opened")

    with monkeypatch.context() as patched:
        patched.setattr(provider_module, "open_provider", no_provider)
        status, _, err = synth(monkeypatch, capsys, fake_provider, corpus, out)
    assert status == 0 and fake_provider.count() == asked  # 0 requests
    assert f"({asked} from the cache)" in err
    assert out.read_bytes() == first
    # Another temperature is another setup: asked again, not answered from the old one.
    synth(monkeypatch, capsys, fake_provider, corpus, out, "--temperature", "0.2")
    assert fake_provider.count() == 2 * asked


def test_malformed_answers_are_refused_per_document_and_counted(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    corpus = small_corpus(tmp_path)
    ids = doc_ids(corpus)
    fake_provider.answer = by_title
    replies = [
        Reply(text=""),
        Reply(text="I'm sorry, but I cannot help with writing queries for this document today."),
    ]
    fake_provider.script.extend(replies)
    out = tmp_path / "synth.csv"
    status, stdout, err = synth(
        monkeypatch, capsys, fake_provider, corpus, out, "--concurrency", "1"
    )
    assert status == 0, err  # never a traceback, never the run's failure
    queries = pl.read_csv(out)
    assert queries["doc_id"].unique(maintain_order=True).to_list() == ids[2:]
    manifest = tomllib.loads((tmp_path / "synth.manifest.toml").read_text(encoding="utf-8"))
    assert manifest["counts"]["refused"] == 2
    assert manifest["counts"]["refusals"] == {
        "empty answer": 1,
        "no queries in the answer (prose only)": 1,
    }
    assert "1 empty answer" in stdout and "1 no queries in the answer (prose only)" in stdout


def test_the_key_is_in_no_written_file_nor_output(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    corpus = small_corpus(tmp_path, 3)
    fake_provider.answer = by_title
    # A careless server echoes the key into an error; the run survives it (retried) and says so
    # without the key.
    fake_provider.script.append(Reply(error="server_error", echo_key=True, retry_after="0"))
    out = tmp_path / "synth.csv"
    status, stdout, err = synth(monkeypatch, capsys, fake_provider, corpus, out)
    assert status == 0, err
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) >= 5  # queries, qrels, manifest, the cache, the prompt kept
    assert files_holding(tmp_path, ANTHROPIC_KEY) == []
    assert ANTHROPIC_KEY not in stdout + err
    # openai too, with its seed sent and recorded
    out2 = tmp_path / "o.csv"
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    args = ["synth", str(corpus), "-o", str(out2), "--model", "gpt-4o", "--provider", "openai"]
    args += ["--base-url", fake_provider.openai_url, "--documents", "2", "--seed", "5"]
    assert main(args) == 0
    capsys.readouterr()
    assert files_holding(tmp_path, OPENAI_KEY) == []
    manifest = tomllib.loads((tmp_path / "o.manifest.toml").read_text(encoding="utf-8"))
    assert manifest["model"]["seed"] == 5 and manifest["model"]["seed_sent"] is True
    assert manifest["model"]["model_version"] == "gpt-4o-2024-08-06"
    assert manifest["model"]["fingerprints"] == ["fp_fc9f1d7035"]
    assert manifest["corpus"]["sample"] == 2 and manifest["corpus"]["documents_asked"] == 2
    assert fake_provider.requests[-1].body["seed"] == 5


def test_sample_draws_the_same_documents_for_the_same_seed(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    corpus = small_corpus(tmp_path, 12)
    fake_provider.answer = by_title
    runs = []
    for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        out = tmp_path / f"{name}.csv"
        synth(monkeypatch, capsys, fake_provider, corpus, out, "--documents", "5", "--seed", seed)
        runs.append(pl.read_csv(out)["doc_id"].unique(maintain_order=True).to_list())
    assert runs[0] == runs[1] and runs[0] != runs[2] and len(runs[0]) == 5
    order = doc_ids(corpus)
    assert runs[0] == sorted(runs[0], key=order.index)  # corpus order kept
    status = main(synth_args(fake_provider, corpus, tmp_path / "d.csv", "--documents", "5"))
    assert status == 2
    assert "--documents needs --seed" in capsys.readouterr().err


def test_log_compares_with_real_traffic_at_the_end(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    corpus = small_corpus(tmp_path)
    fake_provider.answer = by_title
    out = tmp_path / "synth.csv"
    status, stdout, err = synth(monkeypatch, capsys, fake_provider, corpus, out, "--log", str(LOG))
    assert status == 0, err
    assert "stratum mix" in stdout and "odds ratio" in stdout
    # The same verdict as `classify --compare` on the two files.
    assert main(["classify", "--compare", str(LOG), str(out), "--format", "json"]) == 0
    verdict = json.loads(capsys.readouterr().out)["verdict"]
    manifest = tomllib.loads((tmp_path / "synth.manifest.toml").read_text(encoding="utf-8"))
    assert manifest["compare"]["verdict"] == verdict
    assert manifest["compare"]["log"]["sha256"] == sha256_file(LOG)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_sigkill_mid_run_keeps_every_counted_answer_and_resumes(
    tmp_path: Path, fake_provider: FakeProvider, concurrency: int
) -> None:
    corpus = small_corpus(tmp_path, 10)
    fake_provider.answer = by_title
    out = tmp_path / "synth.csv"
    fake_provider.hold_after = 5
    command = [sys.executable, "-m", "goldset_tui", *synth_args(fake_provider, corpus, out)]
    command += ["--concurrency", str(concurrency)]
    child = subprocess.Popen(
        command, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        assert fake_provider.held.wait(timeout=120), child.stderr
        child.kill()
        assert child.wait(timeout=60) == -9
    finally:
        if child.poll() is None:
            child.kill()
        child.stderr.close()  # type: ignore[union-attr]
    assert not out.exists()  # nothing written before every document was asked
    (log,) = (tmp_path / "synth.synth" / "llm" / "cache").glob("*.jsonl")
    kept, _ = read_answers(log)
    assert len(kept) >= 5 - (concurrency - 1)
    first = len(fake_provider.requests)
    fake_provider.hold_after = None
    fake_provider.release.set()
    done = subprocess.run(command, env=child_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    asked_again = {r.prompt for r in fake_provider.requests[first:]}
    assert len(fake_provider.requests) - first == 10 - len(kept)
    titles = {
        row["_id"]: row["title"]
        for row in map(json.loads, corpus.read_text(encoding="utf-8").splitlines())
    }
    kept_titles = {titles[doc] for _, doc, _ in kept}
    asked_titles = {re.search(r"Title: (.*)", p).group(1) for p in asked_again}  # type: ignore[union-attr]
    assert len(asked_titles) == 10 - len(kept) and not asked_titles & kept_titles
    assert pl.read_csv(out).height == 30


def test_dry_run_needs_no_key_sends_and_writes_nothing(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    corpus = small_corpus(tmp_path)
    fake_provider.answer = by_title
    out = tmp_path / "synth.csv"
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    args = synth_args(fake_provider, corpus, out, "--dry-run")
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "have NOT seen this document" in printed
    assert "dry run: 6 documents for claude-sonnet-4-5 (0 answered already" in printed
    assert fake_provider.count() == 0 and sorted(tmp_path.iterdir()) == [corpus]
    assert synth(monkeypatch, capsys, fake_provider, corpus, out)[0] == 0
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert main(args) == 0
    assert "(6 answered already under this setup, 0 to ask)" in capsys.readouterr().out


def test_a_budget_stop_or_a_refused_key_writes_nothing_and_the_rerun_goes_on(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    corpus = small_corpus(tmp_path, 4)
    fake_provider.answer = by_title
    out = tmp_path / "synth.csv"
    status, stdout, _ = synth(
        monkeypatch, capsys, fake_provider, corpus, out, "--max-cost", "0", "--price", "1,1"
    )
    assert status == 0 and "stopped at --max-cost: 4 documents left" in stdout
    assert fake_provider.count() == 0 and not out.exists()
    fake_provider.script.append(Reply(error="auth"))  # the key refused: the run stops at once
    status, _, err = synth(monkeypatch, capsys, fake_provider, corpus, out, "--concurrency", "1")
    assert status == 2 and "HTTP 401" in err and not out.exists()
    assert ANTHROPIC_KEY not in err
    assert synth(monkeypatch, capsys, fake_provider, corpus, out)[0] == 0
    assert pl.read_csv(out).height == 12


def test_a_key_on_the_command_line_is_refused_without_repeating_it(
    tmp_path: Path, fake_provider: FakeProvider, capsys
) -> None:
    corpus = small_corpus(tmp_path, 2)
    args = synth_args(fake_provider, corpus, tmp_path / "s.csv", "--api-key", ANTHROPIC_KEY)
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "never taken on the command line" in err and ANTHROPIC_KEY not in err
    assert fake_provider.count() == 0
