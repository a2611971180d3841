"""What a workload told its user, operation by operation: the ledger the checks hold goldset to.

Each operation is started, then either acknowledged (the API returned, the command exited 0),
reported failed (an OSError or a goldset error: one line, exit 2) or it *escaped* (any other
exception: a traceback the user would see). In a child process that may be SIGKILLed, every
event is also printed on stdout, flushed, so the parent knows what was acknowledged before the
kill and which operation was in flight.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

from goldset_tui.errors import InputError, StoreLockedError

Op = tuple[Any, ...]  # ("judge", query, doc, grade), ("cli", argv...), ...


@dataclass
class Ledger:
    out: TextIO | None = None  # the child's stdout, or None in process
    acked: list[Op] = field(default_factory=list)
    failed: list[tuple[Op, str]] = field(default_factory=list)
    escaped: list[tuple[Op, str]] = field(default_factory=list)
    inflight: Op | None = None
    after_op: Callable[[], None] | None = None  # the sweep heals a persistent fault here
    # What a reader saw right after a failure ("now") and after the next acknowledged operation
    # ("next"), beside how many operations were acknowledged then.
    seen: list[tuple[str, int, Any]] = field(default_factory=list)
    # What a command told its user on the way, before it ended: ("answer", query_id, doc_id) is
    # a model's answer the progress line counted (durable, it says); the checks hold it to that.
    notes: list[Op] = field(default_factory=list)

    def _say(self, *event: Any) -> None:
        if self.out is not None:
            self.out.write(json.dumps(event) + "\n")
            self.out.flush()

    def start(self, op: Op) -> None:
        self.inflight = op
        self._say("start", op)

    def note(self, *what: Any) -> None:
        self.notes.append(tuple(what))
        self._say("note", what)

    def ack(self) -> None:
        assert self.inflight is not None
        self.acked.append(self.inflight)
        self._say("ack")
        self.inflight = None

    def fail(self, message: str) -> None:
        assert self.inflight is not None
        self.failed.append((self.inflight, message))
        self._say("fail", message)
        self.inflight = None

    def escape(self, what: str) -> None:
        assert self.inflight is not None
        self.escaped.append((self.inflight, what))
        self._say("escape", what)
        self.inflight = None

    @contextmanager
    def op(self, *op: Any) -> Iterator[None]:
        """Run one API operation: returning acknowledges it; a goldset error (OSError,
        InputError, StoreLockedError) is a failure reported to the user; anything else escaped."""
        self.start(tuple(op))
        try:
            yield
        except (OSError, InputError, StoreLockedError) as exc:
            self.fail(str(exc))
        except Exception as exc:  # a traceback the user would see
            self.escape(f"{type(exc).__name__}: {exc}")
        else:
            self.ack()
        finally:
            if self.after_op is not None:
                self.after_op()

    @classmethod
    def parse(cls, text: str) -> Ledger:
        """The ledger a child printed (its last line may be cut by the kill)."""
        ledger = cls()
        for line in text.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue  # "calls: N", or a line the kill cut short
            kind = event[0]
            if kind == "start":
                ledger.inflight = tuple(_tupled(event[1]))
            elif kind == "note":
                ledger.notes.append(tuple(_tupled(event[1])))
            elif kind == "ack":
                ledger.ack()
            elif kind == "fail":
                ledger.fail(event[1])
            elif kind == "escape":
                ledger.escape(event[1])
        return ledger


def _tupled(value: Any) -> Any:
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value


def child_stdout() -> TextIO:
    return sys.stdout
