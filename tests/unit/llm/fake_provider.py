"""A local HTTP server that speaks both providers' wire protocols, for tests without a network.

``POST /v1/messages`` answers as the Anthropic Messages API does and ``POST
/v1/chat/completions`` as OpenAI's chat completions do, from the recorded bodies in
``recorded/``: the real SDKs are pointed at it through ``base_url`` (``server.url`` for
anthropic, ``server.openai_url`` for openai), so what is tested is the SDK's parsing of real
shapes, its headers and its errors, not a mock of them.

What it answers, in order:
1. ``server.script``, a queue of :class:`Reply` served first, whatever the request (a 429 with
   ``retry-after``, a 529, a malformed body, a fixed text);
2. otherwise ``server.answer(prompt)``: the model, a function of the user message's text (by
   default ``Final score: 2``).

Every request is counted and kept (``server.requests``: path, JSON body, headers), so a test
can say "the second run made 0 requests". Token counts are the words of the prompt (system and
user messages) and of the answer, so a test can recompute the cost on its own.
``server.hold_after = N`` makes request N+1 and later wait until ``server.release`` is set
(``server.held`` is set when one is waiting): how a test stops a child process mid-run with
answers acknowledged and one in flight. Reusable by any test of a command that runs a model.

``replaying(pool, labels)`` is a model that answers each pair of a pool with the grade,
confidence and rationale a labels file (``goldset import --machine``'s format) gives it: the
stand-in docs/agreement.md ("A model as a judge") runs, from the command line::

    python tests/unit/llm/fake_provider.py --port 8765 --pool POOL --answers LABELS.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

RECORDED = Path(__file__).with_name("recorded")
ANTHROPIC_MODEL = "claude-sonnet-4-5-20250929"
OPENAI_MODEL = "gpt-4o-2024-08-06"
# Keys a test gives the SDKs; none is real. Tests look for them in everything goldset writes.
ANTHROPIC_KEY = "sk-ant-api03-TESTKEY-do-not-leak-0123456789abcdef"
OPENAI_KEY = "sk-proj-TESTKEY-do-not-leak-0123456789abcdef"


def recorded(name: str) -> dict[str, Any]:
    return json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))


# (status, Anthropic's recorded body, OpenAI's recorded body) for each error a test can ask for.
ERRORS = {
    "rate_limit": (429, "anthropic_rate_limit_error", "openai_rate_limit_error"),
    "overloaded": (529, "anthropic_overloaded_error", "openai_server_error"),
    "server_error": (500, "anthropic_api_error", "openai_server_error"),
    "auth": (401, "anthropic_authentication_error", "openai_invalid_api_key"),
    "too_long": (400, "anthropic_invalid_request_error", "openai_context_length_exceeded"),
}


@dataclass
class Reply:
    """One scripted answer: ``text`` (a 200 with this model output), ``error`` (a key of ERRORS),
    or ``raw`` (status and body bytes as they are). ``retry_after``: the header's value.
    ``echo_key``: put the request's key into the error message, as a careless proxy might (the
    client must scrub it)."""

    text: str | None = None
    error: str | None = None
    raw: tuple[int, bytes] | None = None
    retry_after: str | None = None
    echo_key: bool = False


@dataclass
class Seen:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def prompt(self) -> str:
        """The user messages' text."""
        return "\n".join(
            _content_text(m.get("content"))
            for m in self.body.get("messages", [])
            if m.get("role") == "user"
        )

    @property
    def key(self) -> str | None:
        auth = self.headers.get("authorization", "")
        return self.headers.get("x-api-key") or (auth[7:] if auth.startswith("Bearer ") else None)


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _words(body: dict[str, Any]) -> int:
    texts = [_content_text(m.get("content")) for m in body.get("messages", [])]
    system = body.get("system")
    texts.append(system if isinstance(system, str) else _content_text(system))
    return sum(len(t.split()) for t in texts)


@dataclass
class FakeProvider:
    anthropic_model: str = ANTHROPIC_MODEL
    openai_model: str = OPENAI_MODEL
    fingerprint: str | None = "fp_fc9f1d7035"
    answer: Callable[[str], str] = lambda prompt: "Final score: 2"
    script: deque[Reply] = field(default_factory=deque)
    requests: list[Seen] = field(default_factory=list)
    hold_after: int | None = None
    release: threading.Event = field(default_factory=threading.Event)
    held: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- running -------------------------------------------------------------------------------
    def start(self, port: int = 0) -> FakeProvider:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                seen = Seen(self.path, body, {k.lower(): v for k, v in self.headers.items()})
                status, payload, headers = fake._respond(seen)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        """The Anthropic SDK's base_url (it posts to {url}/v1/messages)."""
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        """The OpenAI SDK's base_url (it posts to {openai_url}/chat/completions)."""
        return self.url + "/v1"

    def count(self, path: str | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests if path is None or r.path == path)

    # -- answering -----------------------------------------------------------------------------
    def _respond(self, seen: Seen) -> tuple[int, bytes, dict[str, str]]:
        with self._lock:
            self.requests.append(seen)
            number = len(self.requests)
            reply = self.script.popleft() if self.script else None
        if self.hold_after is not None and number > self.hold_after:
            self.held.set()
            self.release.wait()
        anthropic = seen.path.rstrip("/").endswith("/messages")
        if seen.path.rstrip("/") not in ("/v1/messages", "/v1/chat/completions"):
            return 404, b'{"error": {"message": "not found"}}', {"content-type": "application/json"}
        if reply is not None and reply.raw is not None:
            return reply.raw[0], reply.raw[1], {"content-type": "application/json"}
        if reply is not None and reply.error is not None:
            return self._error(seen, reply, anthropic)
        text = (
            reply.text if reply is not None and reply.text is not None else self.answer(seen.prompt)
        )
        body = self._message(seen, text, anthropic, number)
        ids = (
            {"request-id": f"req_fake{number:06d}"}
            if anthropic
            else {"x-request-id": f"req_fake{number:06d}"}
        )
        return 200, json.dumps(body).encode(), {"content-type": "application/json", **ids}

    def _message(self, seen: Seen, text: str, anthropic: bool, number: int) -> dict[str, Any]:
        words_in, words_out = _words(seen.body), len(text.split())
        if anthropic:
            body = recorded("anthropic_message")
            body["id"] = f"msg_fake{number:06d}"
            body["model"] = self.anthropic_model
            body["content"] = [{"type": "text", "text": text}]
            body["usage"]["input_tokens"], body["usage"]["output_tokens"] = words_in, words_out
            return body
        body = recorded("openai_chat_completion")
        body["id"] = f"chatcmpl-fake{number:06d}"
        body["model"] = self.openai_model
        body["system_fingerprint"] = self.fingerprint
        body["choices"][0]["message"]["content"] = text
        usage = body["usage"]
        usage["prompt_tokens"], usage["completion_tokens"] = words_in, words_out
        usage["total_tokens"] = words_in + words_out
        return body

    def _error(
        self, seen: Seen, reply: Reply, anthropic: bool
    ) -> tuple[int, bytes, dict[str, str]]:
        status, anthropic_name, openai_name = ERRORS[str(reply.error)]
        if not anthropic and status == 529:
            status = 503  # OpenAI-compatible servers say "overloaded" with a 503
        body = recorded(anthropic_name if anthropic else openai_name)
        if reply.echo_key:
            inner = body["error"]
            inner["message"] = f"{inner['message']} (key sent: {seen.key})"
        headers = {"content-type": "application/json"}
        if reply.retry_after is not None:
            headers["retry-after"] = reply.retry_after
        if anthropic and status == 529:
            headers["x-should-retry"] = "true"
        return status, json.dumps(body).encode(), headers


_BUILT_IN = re.compile(
    r"Query: (?P<query>.*?)\n\nPassage:\n(?P<passage>.*)\n\nSplit the problem", re.S
)


def replaying(pool: Path, labels: Path) -> Callable[[str], str]:
    """A model answering each of ``pool``'s pairs (found by its query and text in the built-in
    prompt) with the grade, confidence and rationale ``labels`` (JSONL) gives the pair; a pair
    it has no label for gets an answer with no grade."""
    rows = [json.loads(line) for line in pool.read_text(encoding="utf-8").splitlines() if line]
    given = {
        (r["query_id"], r["doc_id"]): r
        for r in map(json.loads, labels.read_text(encoding="utf-8").splitlines())
    }
    by_text = {(r["query"], r["text"]): (r["query_id"], r["doc_id"]) for r in rows}

    def answer(prompt: str) -> str:
        found = _BUILT_IN.search(prompt)
        pair = by_text.get((found["query"], found["passage"])) if found else None
        label = given.get(pair) if pair else None
        if label is None:
            return "I cannot tell."
        lines = [f"Rationale: {label.get('rationale') or ''}"]
        if label.get("confidence") is not None:
            lines.append(f"Confidence: {label['confidence']!r}")
        return "\n".join([*lines, f"Final score: {label['grade']}"])

    return answer


def _serve(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="A local stand-in for the providers' APIs.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--pool", type=Path, help="with --answers: the pool judged")
    parser.add_argument("--answers", type=Path, help="labels (JSONL) to answer each pair with")
    args = parser.parse_args(argv)
    server = FakeProvider()
    if args.answers is not None:
        server.answer = replaying(args.pool, args.answers)
    server.start(port=args.port)
    print(f"anthropic base URL: {server.url}  openai base URL: {server.openai_url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    _serve(sys.argv[1:])
