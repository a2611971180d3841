"""`goldset judge --machine` against the fake provider, through the real SDKs: the labels land as
`import --machine` puts them (agreement and validate read them), a rate limit is waited out,
each malformed answer is refused for its pair and counted, the cache makes a rerun free, the
budget stops and the next run goes on, and the setup is in the store's version and history (the
key and the refusals: test_judge_refusals.py; SIGKILL: test_judge_kill.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from fake_provider import ANTHROPIC_KEY, FakeProvider, Reply
from judge_support import ROOT, child_env, judge, judge_args, pairs_of, small_pool

from goldset_tui.cli import main
from goldset_tui.history.version import describe_change, golden_set_version
from goldset_tui.machine.prompt import DEFAULT_PROMPT, prompt_digest
from goldset_tui.store import Project
from goldset_tui.store.machine import machine_labels


def _grade_by_doc(grades: dict[str, str]):
    """A model answering by the document in the prompt (its first line of text is unique)."""

    def answer(prompt: str) -> str:
        for doc, text in grades.items():
            if doc in prompt:
                return text
        return "Rationale: on topic.\nConfidence: 0.9\nFinal score: 1"

    return answer


def test_judges_every_pair_and_labels_read_like_an_import(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path)
    store = tmp_path / "store"
    fake_provider.answer = lambda p: "Rationale: it answers.\nConfidence: 0.8\nFinal score: 3"
    status, out, err = judge(monkeypatch, capsys, fake_provider, pool, store)
    assert status == 0, err
    pairs = pairs_of(pool)
    assert fake_provider.count("/v1/messages") == len(pairs)
    labels = machine_labels(Project.open(store), "llm")
    assert labels.height == len(pairs) and set(labels["grade"]) == {3}
    assert set(labels["confidence"]) == {0.8}
    notes = Project.open(store).judgments("llm")["note"].to_list()
    assert notes == ["it answers."] * len(pairs)  # the rationale is the judgment's note
    entry = Project.open(store).manifest["labellers"]["llm"]
    assert entry["machine"] is True and entry["provider"] == "anthropic"
    assert entry["model"] == "claude-sonnet-4-5"
    assert entry["model_version"] == "claude-sonnet-4-5-20250929"  # what the server reported
    assert entry["prompt_sha256"] == prompt_digest(DEFAULT_PROMPT)
    kept = store / "llm" / "prompts" / f"{entry['prompt_sha256'][:16]}.txt"
    assert kept.read_text(encoding="utf-8") == DEFAULT_PROMPT  # the sha256 can be read back
    assert f"12 of {len(pairs)} pairs graded" in out
    # The same store reads in `goldset agreement` as a machine rater, unchanged.
    alice = tmp_path / "alice.qrels"
    wanted = set(pairs)
    alice.write_text(
        "".join(
            line + "\n"
            for line in (ROOT / "sample_data" / "judgments" / "alice.qrels")
            .read_text()
            .splitlines()
            if (line.split()[0], line.split()[2]) in wanted
        )
    )
    assert (
        main(["import", "--store", str(store), "--labeller", "alice", "--human", str(alice)]) == 0
    )
    capsys.readouterr()
    assert main(["agreement", "--store", str(store), "--format", "json", "--samples", "20"]) == 0
    report = json.loads(capsys.readouterr().out)
    (machine,) = report["machine"]
    assert machine["labeller"] == "llm"
    (entry,) = [e for e in machine["against"] if e["b"] == "alice"]
    assert entry["n"] == len(pairs)


def test_the_prompt_sent_holds_the_query_and_the_passage(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path, {"q01": 1})
    row = json.loads(pool.read_text(encoding="utf-8"))
    judge(monkeypatch, capsys, fake_provider, pool, tmp_path / "s")
    (seen,) = fake_provider.requests
    assert f"Query: {row['query']}" in seen.prompt and row["text"] in seen.prompt
    assert "Final score:" in seen.prompt  # the built-in prompt's answer format


def test_a_rate_limit_is_waited_out(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path, {"q01": 3})
    fake_provider.script.extend(
        [Reply(error="rate_limit", retry_after="0"), Reply(error="overloaded", retry_after="0")]
    )
    status, out, err = judge(
        monkeypatch, capsys, fake_provider, pool, tmp_path / "s", "--concurrency", "1"
    )
    assert status == 0, err
    assert fake_provider.count() == 3 + 2
    assert "2 retries" in err
    assert machine_labels(Project.open(tmp_path / "s"), "llm").height == 3


# Each malformed answer, and whether it must be refused (None) or read as a grade.
ANSWERS = {
    "off the scale": ("Final score: 7", None),
    "negative": ("Final score: -1", None),
    "empty": ("", None),
    "blank": ("  \n ", None),
    "prose, two numbers": ("It is a 2 or maybe a 3.", None),
    "half grade": ("Final score: 2.5", None),
    "two score lines": ("Score: 1\nFinal score: 3", None),
    "lone number in prose": ("I would grade this passage 2.", 2),
    "bold score line": ("**Final score:** 1", 1),
}


def test_malformed_answers_are_refused_per_pair_and_counted(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path, {"q01": 9, "q02": 3})
    docs = [d for _, d in pairs_of(pool)]
    by_doc = {doc: text for doc, (text, _) in zip(docs, ANSWERS.values(), strict=False)}
    rows = {
        json.loads(line)["doc_id"]: json.loads(line)["text"]
        for line in pool.read_text().splitlines()
    }
    answers = {rows[doc][:200]: text for doc, text in by_doc.items()}
    fake_provider.answer = _grade_by_doc(answers)
    status, out, err = judge(monkeypatch, capsys, fake_provider, pool, tmp_path / "s")
    assert status == 0 and "Traceback" not in err
    refused = sum(1 for _, grade in ANSWERS.values() if grade is None)
    assert f"{refused} refused" in err
    assert "off the scale 0-3" in out and "1 empty answer" not in out  # counted together: 2
    assert "2 empty answer" in out and "several numbers and no score line" in out
    labels = machine_labels(Project.open(tmp_path / "s"), "llm")
    graded = dict(zip(labels["doc_id"], labels["grade"], strict=True))
    for doc, (_, grade) in zip(docs, ANSWERS.values(), strict=False):
        assert graded.get(doc) == grade, doc
    assert len(graded) == len(docs) - refused


def test_a_pair_the_server_refuses_is_counted_and_asked_again_next_time(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path, {"q01": 4})
    store = tmp_path / "s"
    fake_provider.script.append(Reply(error="too_long"))
    status, out, err = judge(monkeypatch, capsys, fake_provider, pool, store, "--concurrency", "1")
    assert status == 0 and "1 not answered" in err
    assert "1 pairs not answered; run the same command again" in out and "stopped" not in out
    assert "prompt is too long" in out  # the server's reason, counted
    assert machine_labels(Project.open(store), "llm").height == 3
    judge(monkeypatch, capsys, fake_provider, pool, store)
    assert fake_provider.count() == 5  # the refused pair alone is asked again
    assert machine_labels(Project.open(store), "llm").height == 4


def test_a_rerun_is_answered_by_the_cache(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path)
    store = tmp_path / "s"
    assert judge(monkeypatch, capsys, fake_provider, pool, store)[0] == 0
    asked = fake_provider.count()
    manifest = (store / "manifest.toml").read_bytes()
    status, out, err = judge(monkeypatch, capsys, fake_provider, pool, store)
    assert status == 0 and fake_provider.count() == asked  # no request at all
    assert f"{asked}/{asked} pairs ({asked} from the cache)" in err and "$0.0000" in err
    assert (store / "manifest.toml").read_bytes() == manifest  # the same labels: nothing written
    # Another labeller on the same prompt and model is answered by the same cache.
    assert judge(monkeypatch, capsys, fake_provider, pool, store, labeller="llm2")[0] == 0
    assert fake_provider.count() == asked
    # An edited prompt is another cache: asked again.
    prompt = tmp_path / "p.txt"
    prompt.write_text("Q: {query}\nP: {passage}\nFinal score, 0 to 3:", encoding="utf-8")
    judge(monkeypatch, capsys, fake_provider, pool, store, "--prompt", str(prompt))
    assert fake_provider.count() == 2 * asked


def test_a_rerun_the_cache_answers_imports_no_sdk(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path, {"q01": 2})
    store = tmp_path / "s"
    assert judge(monkeypatch, capsys, fake_provider, pool, store)[0] == 0
    argv = judge_args(fake_provider, pool, store)
    code = (
        "import sys\nfrom goldset_tui.cli import main\n"
        f"status = main({argv!r})\n"
        "print('imported' if 'anthropic' in sys.modules else 'not imported')\n"
        "sys.exit(status)"
    )
    env = {**child_env(), "ANTHROPIC_API_KEY": ANTHROPIC_KEY}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "not imported" and fake_provider.count() == 2


def test_the_budget_stops_and_the_next_run_goes_on(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path)
    store = tmp_path / "s"
    status, out, err = judge(monkeypatch, capsys, fake_provider, pool, store, "--max-pairs", "5")
    assert status == 0 and fake_provider.count() == 5
    assert "stopped at --max-pairs: 7 pairs left" in out
    assert machine_labels(Project.open(store), "llm").height == 5
    judge(monkeypatch, capsys, fake_provider, pool, store)
    assert fake_provider.count() == 12
    assert machine_labels(Project.open(store), "llm").height == 12


def test_max_cost_counts_the_servers_tokens(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path)
    # A dollar per input token: the first answer alone costs more than $1, so one request only.
    status, out, err = judge(
        monkeypatch,
        capsys,
        fake_provider,
        pool,
        tmp_path / "s",
        "--max-cost",
        "1",
        "--price",
        "1000000,0",
        "--concurrency",
        "4",
    )
    assert status == 0 and fake_provider.count() == 1
    words = sum(len(str(m["content"]).split()) for m in fake_provider.requests[0].body["messages"])
    assert f"tokens {words:,} in" in err and f"${words:,.4f}" in err
    assert "stopped at --max-cost" in out
    # No price for a model the table does not know: the cost budget is refused, not guessed.
    status, out, err = judge(
        monkeypatch, capsys, fake_provider, pool, tmp_path / "t", "--max-cost", "1", model="llama3"
    )
    assert status == 2 and "--price" in err and fake_provider.count() == 1


def test_openai_compatible_endpoint(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path, {"q01": 2})
    status, out, err = judge(
        monkeypatch,
        capsys,
        fake_provider,
        pool,
        tmp_path / "s",
        "--seed",
        "5",
        model="llama3.1:8b",
        provider="openai",
    )
    assert status == 0, err
    assert fake_provider.count("/v1/chat/completions") == 2
    assert {r.body["seed"] for r in fake_provider.requests} == {5}
    record = Project.open(tmp_path / "s").manifest["labellers"]["llm"]["imports"][-1]
    assert record["provider"] == "openai" and record["model_version"] == "gpt-4o-2024-08-06"
    assert record["fingerprints"] == ["fp_fc9f1d7035"] and record["seed"] == 5
    assert "cost unknown" in err  # no price for a local model: said, not invented


def test_a_new_model_replaces_the_old_ones_labels_and_the_version_says_so(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path)
    store = tmp_path / "s"
    judge(monkeypatch, capsys, fake_provider, pool, store, model="claude-sonnet-4-5")
    project = Project.open(store)
    before = golden_set_version(project.manifest, project.qrels("llm"))
    assert before["machine_labels"]["llm"]["model"] == "claude-sonnet-4-5"
    fake_provider.anthropic_model = "claude-opus-4-6-20260101"
    fake_provider.answer = lambda p: "Final score: 0"
    # Only 4 pairs with the new model: the 8 others' old labels are withdrawn, not mixed in.
    judge(
        monkeypatch, capsys, fake_provider, pool, store, "--max-pairs", "4", model="claude-opus-4-6"
    )
    project = Project.open(store)
    labels = machine_labels(project, "llm")
    assert labels.height == 4 and set(labels["grade"]) == {0}
    after = golden_set_version(project.manifest, project.qrels("llm"))
    assert after["machine_labels"]["llm"] == {
        "provider": "anthropic",
        "model": "claude-opus-4-6",
        "model_version": "claude-opus-4-6-20260101",
        "prompt_sha256": prompt_digest(DEFAULT_PROMPT),
    }
    assert (
        "machine labels from model claude-opus-4-6 replaced those from model claude-sonnet-4-5 (llm)"
        in describe_change(before, after)
    )


def test_history_records_carry_the_setup(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path)
    store = tmp_path / "s"
    run = tmp_path / "bm25.run"
    wanted = {q for q, _ in pairs_of(pool)}
    run.write_text(
        "".join(
            line + "\n"
            for line in (ROOT / "sample_data" / "runs" / "bm25.run").read_text().splitlines()
            if line.split()[0] in wanted
        )
    )
    judge(monkeypatch, capsys, fake_provider, pool, store)
    eval_args = [
        "eval",
        str(store),
        str(run),
        "--labeller",
        "llm",
        "-m",
        "nDCG@10",
        "--store",
        str(store),
    ]
    assert main([*eval_args, "--release", "r1"]) == 0
    fake_provider.anthropic_model = "claude-haiku-4-5-20251001"
    judge(monkeypatch, capsys, fake_provider, pool, store, model="claude-haiku-4-5")
    assert main([*eval_args, "--release", "r2"]) == 0
    capsys.readouterr()
    records = [json.loads(p.read_text()) for p in (store / "history").glob("*.json")]
    setups = {r["release"]: r["version"]["machine_labels"]["llm"] for r in records}
    assert (
        setups["r1"]["model"] == "claude-sonnet-4-5" and setups["r2"]["model"] == "claude-haiku-4-5"
    )
    assert all(s["prompt_sha256"] == prompt_digest(DEFAULT_PROMPT) for s in setups.values())
    manifest = (store / "manifest.toml").read_text()
    assert re.search(
        r"\[version\.machine_labels\.llm\]\n(.*\n)*model = \"claude-haiku-4-5\"", manifest
    )
    assert main(["history", "--store", str(store), "-m", "nDCG@10"]) == 0
    shown = capsys.readouterr().out
    assert (
        "machine labels from model claude-haiku-4-5 replaced those from model claude-sonnet-4-5"
        in shown
    )


SAMPLE = ROOT / "sample_data" / "pool.jsonl"
