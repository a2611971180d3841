"""The provider layer against the real SDKs, pointed at the local fake server: the answer's text,
tokens, reported model and request id come through; rate limits and overload are retried after
the wait the server asked for; a refused key stops with a message that does not hold the key;
keys come only from the environment or a key file; without the SDKs, one line naming the extra."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fake_provider import (
    ANTHROPIC_KEY,
    ANTHROPIC_MODEL,
    OPENAI_KEY,
    OPENAI_MODEL,
    FakeProvider,
    Reply,
)

from goldset_tui.errors import InputError
from goldset_tui.llm import ProviderConfig, ProviderError, open_provider
from goldset_tui.llm.retry import Retrying, RetryPolicy


def _open(server: FakeProvider, env: dict[str, str], provider: str = "anthropic", **kw):
    url = server.url if provider == "anthropic" else server.openai_url
    model = kw.pop("model", "claude-sonnet-4-5" if provider == "anthropic" else "gpt-4o")
    return open_provider(ProviderConfig(provider, model, base_url=url, environ=env, **kw))


def test_anthropic_answer_through_the_real_sdk(fake_provider: FakeProvider, keys_env) -> None:
    fake_provider.answer = lambda prompt: f"Final score: {len(prompt.split())}"
    done = _open(fake_provider, keys_env).complete("be brief", "one two three")
    assert done.text == "Final score: 3"
    # The server counted the words of system and user message, and of the answer.
    assert (done.input_tokens, done.output_tokens) == (5, 3)
    assert done.model == ANTHROPIC_MODEL  # the dated snapshot the server reports, not the alias
    assert done.request_id == "req_fake000001"
    (seen,) = fake_provider.requests
    assert seen.path == "/v1/messages" and seen.key == ANTHROPIC_KEY
    assert seen.body["system"] == "be brief" and seen.body["model"] == "claude-sonnet-4-5"


def test_openai_compatible_answer_and_seed(fake_provider: FakeProvider, keys_env) -> None:
    done = _open(fake_provider, keys_env, "openai").complete("", "q", seed=7, temperature=0.0)
    assert (done.text, done.model, done.fingerprint) == (
        "Final score: 2",
        OPENAI_MODEL,
        "fp_fc9f1d7035",
    )
    (seen,) = fake_provider.requests
    assert seen.path == "/v1/chat/completions" and seen.key == OPENAI_KEY
    assert seen.body["seed"] == 7 and seen.body["temperature"] == 0.0
    assert [m["role"] for m in seen.body["messages"]] == ["user"]  # no empty system message


def test_a_local_server_needs_no_key(fake_provider: FakeProvider) -> None:
    done = _open(fake_provider, {}, "openai").complete("", "q")
    assert done.text == "Final score: 2"


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("error", ["rate_limit", "overloaded", "server_error"])
def test_rate_limit_then_success_waits_what_the_server_asked(
    fake_provider: FakeProvider, keys_env, provider: str, error: str
) -> None:
    fake_provider.script.extend([Reply(error=error, retry_after="7"), Reply(text="Final score: 3")])
    waits: list[float] = []
    inner = _open(fake_provider, keys_env, provider).inner
    retrying = Retrying(inner, RetryPolicy(), sleep=waits.append, random=lambda: 0.5)
    assert retrying.complete("", "q").text == "Final score: 3"
    assert fake_provider.count() == 2 and retrying.retries == 1
    assert waits == [7.0 + 0.5 * 0.7]  # retry-after, plus jitter of at most a tenth of it


def test_without_retry_after_the_wait_doubles_with_full_jitter(
    fake_provider: FakeProvider, keys_env
) -> None:
    fake_provider.script.extend([Reply(error="overloaded")] * 3)
    waits: list[float] = []
    inner = _open(fake_provider, keys_env).inner
    policy = RetryPolicy(base=2.0, cap=5.0)
    Retrying(inner, policy, sleep=waits.append, random=lambda: 0.999).complete("", "q")
    assert waits == pytest.approx([2.0 * 0.999, 4.0 * 0.999, 5.0 * 0.999])  # capped at 5


def test_retries_used_up_stop_the_run(fake_provider: FakeProvider, keys_env) -> None:
    fake_provider.script.extend([Reply(error="rate_limit", retry_after="0")] * 3)
    inner = _open(fake_provider, keys_env).inner
    retrying = Retrying(inner, RetryPolicy(attempts=3), sleep=lambda s: None)
    with pytest.raises(ProviderError) as caught:
        retrying.complete("", "q")
    assert caught.value.fatal and caught.value.status == 429
    assert "gave up after 3 tries" in str(caught.value)
    assert fake_provider.count() == 3


def test_a_wait_longer_than_the_longest_honoured_is_not_waited(
    fake_provider: FakeProvider, keys_env
) -> None:
    fake_provider.script.append(Reply(error="rate_limit", retry_after="3600"))
    waits: list[float] = []
    inner = _open(fake_provider, keys_env).inner
    with pytest.raises(ProviderError) as caught:
        Retrying(inner, RetryPolicy(), sleep=waits.append).complete("", "q")
    assert caught.value.fatal and waits == []


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_refused_key_is_fatal_and_never_in_the_message(
    fake_provider: FakeProvider, keys_env, provider: str
) -> None:
    fake_provider.script.append(Reply(error="auth", echo_key=True))
    with pytest.raises(ProviderError) as caught:
        _open(fake_provider, keys_env, provider).complete("", "q")
    assert fake_provider.requests[0].key in (ANTHROPIC_KEY, OPENAI_KEY)  # the key was sent
    text = str(caught.value)
    assert caught.value.fatal and caught.value.status == 401 and "[key hidden]" in text
    assert ANTHROPIC_KEY not in text and OPENAI_KEY not in text
    assert fake_provider.count() == 1  # not retried


def test_an_unreadable_answer_fails_that_prompt_alone(
    fake_provider: FakeProvider, keys_env
) -> None:
    fake_provider.script.append(Reply(raw=(200, b"<html>gateway</html>")))
    provider = _open(fake_provider, keys_env)
    with pytest.raises(ProviderError) as caught:
        provider.complete("", "q")
    assert not caught.value.fatal and not caught.value.retryable
    assert provider.complete("", "q").text == "Final score: 2"  # the next prompt is fine


def test_no_server_at_all_is_retried_then_fatal(keys_env) -> None:
    config = ProviderConfig(
        "anthropic",
        "m",
        base_url="http://127.0.0.1:9",  # the discard port: nothing listens
        environ=keys_env,
        retry=RetryPolicy(attempts=2, base=0.0),
        timeout=5.0,
    )
    with pytest.raises(ProviderError) as caught:
        open_provider(config).complete("", "q")
    assert caught.value.fatal and caught.value.status is None


def test_the_key_comes_from_a_key_file_before_the_environment(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("sk-ant-from-the-file-0123456789\n")
    env = {"ANTHROPIC_API_KEY": ANTHROPIC_KEY}
    _open(fake_provider, env, api_key_file=key_file).complete("", "q")
    assert fake_provider.requests[0].key == "sk-ant-from-the-file-0123456789"


@pytest.mark.parametrize("content", ["", "\n\n", "two keys\n", "a\nb\n"])
def test_a_bad_key_file_is_one_line_without_its_text(
    tmp_path: Path, content: str, keys_env
) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(content)
    with pytest.raises(InputError) as caught:
        open_provider(ProviderConfig("anthropic", "m", api_key_file=key_file, environ=keys_env))
    assert caught.value.path == key_file
    assert "two keys" not in str(caught.value)


def test_no_key_names_the_variable() -> None:
    with pytest.raises(InputError, match="ANTHROPIC_API_KEY"):
        open_provider(ProviderConfig("anthropic", "m", environ={}))
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        open_provider(ProviderConfig("openai", "m", environ={}))  # no base_url: OpenAI itself


def test_the_model_comes_from_anthropic_model_when_not_named(keys_env) -> None:
    provider = open_provider(
        ProviderConfig("anthropic", None, environ={**keys_env, "ANTHROPIC_MODEL": "claude-x"})
    )
    assert provider.model == "claude-x"
    with pytest.raises(InputError, match="ANTHROPIC_MODEL"):
        open_provider(ProviderConfig("anthropic", None, environ=keys_env))


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_without_the_sdk_one_line_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, keys_env, provider: str
) -> None:
    monkeypatch.setitem(sys.modules, provider, None)  # import fails as if not installed
    with pytest.raises(InputError) as caught:
        open_provider(ProviderConfig(provider, "m", base_url="http://x", environ=keys_env))
    assert "pip install 'goldset-tui[llm]'" in str(caught.value)
