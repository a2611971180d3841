"""`goldset judge --machine`'s refusals and its keys: the API key is in no file goldset writes nor
in what it prints (a server echoing it back included), never taken on the command line; options
of the other mode, a person's name, a bad prompt or price, a missing llm extra are refused on one
line, before a store is made or a request sent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fake_provider import ANTHROPIC_KEY, OPENAI_KEY, FakeProvider, Reply
from judge_support import ROOT, files_holding, judge, small_pool

from goldset_tui.cli import main

SAMPLE = ROOT / "sample_data" / "pool.jsonl"


def test_the_key_is_in_no_file_and_no_output(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path)
    store = tmp_path / "s"
    # Answers, a rate limit, then a server that echoes the key back in its refusal.
    fake_provider.script.append(Reply(error="rate_limit", retry_after="0", echo_key=True))
    status, out, err = judge(monkeypatch, capsys, fake_provider, pool, store, "--max-pairs", "6")
    assert status == 0
    assert all(r.key == ANTHROPIC_KEY for r in fake_provider.requests)  # it was sent
    fake_provider.script.append(Reply(error="auth", echo_key=True))
    status, out2, err2 = judge(monkeypatch, capsys, fake_provider, pool, store)
    assert status == 2 and "401" in err2 and "[key hidden]" in err2
    assert len(err2.strip().splitlines()) == 2  # the progress so far, then the error: one line
    status, out3, err3 = judge(
        monkeypatch, capsys, fake_provider, pool, store, "--provider", "openai"
    )
    for text in (out, err, out2, err2, out3, err3):
        assert ANTHROPIC_KEY not in text and OPENAI_KEY not in text
    assert files_holding(store, ANTHROPIC_KEY) == [] and files_holding(store, OPENAI_KEY) == []
    assert files_holding(store, "TESTKEY") == []


def test_a_key_file_and_never_a_key_value_on_the_command_line(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    pool = small_pool(tmp_path, {"q01": 1})
    key_file = tmp_path / "key"
    key_file.write_text("sk-ant-from-a-file-0123456789abcdef\n")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    status = main(
        [
            "judge",
            "--machine",
            "m",
            str(pool),
            "--store",
            str(tmp_path / "s"),
            "--labeller",
            "llm",
            "--base-url",
            fake_provider.url,
            "--api-key-file",
            str(key_file),
        ]
    )
    assert status == 0 and fake_provider.requests[0].key == "sk-ant-from-a-file-0123456789abcdef"
    capsys.readouterr()
    typed = "sk-ant-typed-on-the-command-line-0123456789"
    for option in (["--api-key", typed], [f"--api-key={typed}"]):
        with pytest.raises(SystemExit) as stopped:
            main(["judge", "--machine", "m", str(pool), "--labeller", "llm", *option])
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert "a key is never taken on the command line" in err and typed not in err
    # A key given where its file goes is not repeated in the error either.
    assert (
        main(["judge", "--machine", "m", str(pool), "--labeller", "llm", "--api-key-file", typed])
        == 2
    )
    err = capsys.readouterr().err
    assert "cannot read the key file" in err and typed not in err


def test_options_of_the_other_mode_are_refused(tmp_path: Path, capsys) -> None:
    pool = small_pool(tmp_path, {"q01": 1})
    assert main(["judge", str(pool), "--labeller", "a", "--max-pairs", "3"]) == 2
    assert "--max-pairs is an option of --machine" in capsys.readouterr().err
    assert main(["judge", "--machine", "m", str(pool), "--labeller", "a", "--reveal"]) == 2
    assert "--reveal is an option of the judging screen" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (["--prompt", "missing.txt"], "cannot read the prompt"),
        (["--max-cost", "1", "--price", "x"], "--price 'x'"),
        (["--labeller", "consensus"], "'consensus' is the name goldset gives"),
        (["--scale", "1-5"], "the built-in prompt grades 0-3"),
    ],
)
def test_refused_before_a_store_is_made(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys, extra: list[str], why: str
) -> None:
    pool = small_pool(tmp_path, {"q01": 1})
    monkeypatch.chdir(tmp_path)
    status, out, err = judge(monkeypatch, capsys, fake_provider, pool, tmp_path / "s", *extra)
    assert status == 2 and why in err and len(err.splitlines()) == 1
    assert not (tmp_path / "s").exists() and fake_provider.count() == 0


def test_a_persons_name_is_refused_before_any_request(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    store = tmp_path / "s"
    assert (
        main(
            [
                "import",
                "--pool",
                str(SAMPLE),
                "--store",
                str(store),
                "--labeller",
                "alice",
                "--human",
                str(ROOT / "sample_data" / "judgments" / "alice.qrels"),
            ]
        )
        == 0
    )
    status, out, err = judge(monkeypatch, capsys, fake_provider, SAMPLE, store, labeller="alice")
    assert status == 2 and "human labeller" in err and fake_provider.count() == 0


@pytest.mark.parametrize("sdk", ["anthropic", "openai"])
def test_without_the_llm_extra_one_line_and_exit_2(tmp_path: Path, sdk: str) -> None:
    pool = small_pool(tmp_path, {"q01": 1})
    provider = (
        ["--provider", "openai", "--base-url", "http://127.0.0.1:9/v1"] if sdk == "openai" else []
    )
    argv = ["judge", "--machine", "m", str(pool), "--labeller", "x", "--store", str(tmp_path / "s")]
    code = (
        "import sys; sys.modules['anthropic'] = None; sys.modules['openai'] = None\n"
        "from goldset_tui.cli import main\n"
        f"sys.exit(main({[*argv, *provider]!r}))"
    )
    env = {"ANTHROPIC_API_KEY": "k" * 20, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 2 and not (tmp_path / "s").exists()
    assert done.stderr.strip().splitlines() == [
        f"goldset: error: running a model needs the {sdk} SDK, in the llm extra: "
        "pip install 'goldset-tui[llm]'"
    ]


@pytest.mark.parametrize(
    ("provider", "variable"), [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")]
)
def test_no_key_at_all_is_one_plain_line(
    tmp_path: Path, monkeypatch, capsys, provider: str, variable: str
) -> None:
    # The missing key is no column of any file: the line says what to set, and nothing else.
    monkeypatch.delenv(variable, raising=False)
    pool = small_pool(tmp_path, {"q01": 1})
    args = ["judge", "--machine", "m", str(pool), "--labeller", "llm", "--provider", provider]
    assert main([*args, "--store", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err == f"goldset: error: no API key: set {variable}, or give --api-key-file FILE\n"
