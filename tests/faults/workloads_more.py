"""The fault sweep's workloads for the commands that ask a model (`judge --machine`, `synth`) and
for the two screens that keep a journal of their own (`adjudicate`, `spotcheck`).

The model is the tests' local fake server (tests/unit/llm/fake_provider.py), started inside the
workload's run, so that a killed child kills its own server and every run answers the same.
Requests go one at a time (``--concurrency 1``): the writes stay on the caller's thread in any
case, and one request in flight is what a kill can lose.

What each promises, beyond the checks every command gets (sweep.py):

- `judge --machine`: every answer counted on the progress line (made durable in the answer log)
  is in the log after any fault, and the run after the fault does not ask for it again; the
  labels stored after a failure or a kill are some of the final ones, never others; and when the
  answer log holds answers the labels do not (a run killed, or stopped by an error, before it
  stored them), `goldset qrels` says so and names the command that stores them.
- `synth`: the same for its answers; its three files (queries, qrels, manifest) are the earlier
  run's set or the new one, never some of each after an error.
- `adjudicate` (the screen's writer, ``AdjudicationWriter``) and `spotcheck` (``SpotCheckSession``):
  as the store API: what a reader finds is exactly what the acknowledged decisions or answers
  made, right after a failure and after the next save; the next session opens and saves.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from faults.ledger import Ledger, Op
from faults.workloads import SAMPLE, ApiWorkload, Command, FileOutput

LLM_TESTS = Path(__file__).resolve().parents[1] / "unit" / "llm"
LLM_LABELS = SAMPLE / "judgments" / "llm.jsonl"
PER_QUERY = {"q01": 2, "q02": 2, "q03": 1}  # the judged pool: 5 pairs of the sample's


def _fake_provider() -> Any:
    if str(LLM_TESTS) not in sys.path:
        sys.path.insert(0, str(LLM_TESTS))
    import fake_provider

    return fake_provider


@contextlib.contextmanager
def model_server(answer: Any) -> Iterator[Any]:
    """The fake provider answering with ``answer``, and its key in the environment."""
    fake = _fake_provider()
    server = fake.FakeProvider(answer=answer).start()
    saved = os.environ.get("ANTHROPIC_API_KEY")
    os.environ["ANTHROPIC_API_KEY"] = fake.ANTHROPIC_KEY
    try:
        yield server
    finally:
        server.stop()
        if saved is None:
            os.environ.pop("ANTHROPIC_API_KEY", None)
        else:
            os.environ["ANTHROPIC_API_KEY"] = saved


@contextlib.contextmanager
def noting_answers(ledger: Ledger) -> Iterator[None]:
    """Each answer the answer log made durable (what the progress line counts) goes to the
    ledger as a note: ``("answer", id, id)``."""
    from goldset_tui.store.answers import AnswerLog

    real_add = AnswerLog.add

    def add(self: Any, record: dict[str, Any]) -> None:
        real_add(self, record)
        ledger.note("answer", record["query_id"], record["doc_id"])

    AnswerLog.add = add  # type: ignore[method-assign]
    try:
        yield
    finally:
        AnswerLog.add = real_add  # type: ignore[method-assign]


def cached_answers(folder: Path) -> set[tuple[str, str, str]]:
    """(log, id, id) of every answer in the answer logs under ``folder`` (a torn line dropped)."""
    from goldset_tui.store.answers import read_answers

    found: set[tuple[str, str, str]] = set()
    for log in sorted(folder.glob("llm/cache/*.jsonl")):
        found |= {(log.name, q, d) for q, d, _ in read_answers(log)[0]}
    return found


class ModelCommand(Command):
    """A command asking the fake model: the answers it counted are held to their word."""

    pairs = 0  # how many items the command asks about in all

    def answer(self, root: Path) -> Any:
        raise NotImplementedError

    def cache(self, root: Path) -> Path:
        raise NotImplementedError

    def argv_for(self, root: Path, url: str) -> list[str]:
        raise NotImplementedError

    def run(self, root: Path, ledger: Ledger) -> None:
        with model_server(self.answer(root)) as server, noting_answers(ledger):
            self._url = server.url
            super().run(root, ledger)
            self.requests = server.count()

    def argv(self, root: Path) -> list[str]:
        return self.argv_for(root, self._url)

    def earlier_answers(self, root: Path) -> None:
        """The answers an earlier run left (in the template): the run under test adds to them."""
        self.earlier = cached_answers(self.cache(root))

    def promises(self, root: Path, ledger: Ledger, killed: bool) -> list[str]:
        kept = cached_answers(self.cache(root)) - self.earlier
        self.kept_before_rerun = {(q, d) for _, q, d in kept}
        lost = [(q, d) for _, q, d in ledger.notes if (q, d) not in self.kept_before_rerun]
        return [f"answers counted as kept are not in the answer log: {lost}"] if lost else []

    def rerun_promises(self, ledger: Ledger, again: Ledger) -> list[str]:
        asked, expected = self.requests, self.pairs - len(self.kept_before_rerun)
        if asked != expected:
            return [f"run again, it asked {asked} times; {expected} answers were missing"]
        return []


class JudgeMachine(ModelCommand):
    """`judge --machine`: a model judges a small pool into an existing store."""

    name = "judge --machine"
    pairs = sum(PER_QUERY.values())

    def setup(self, root: Path) -> None:
        from goldset_tui.store import Project, sha256_file

        lines, taken = [], dict.fromkeys(PER_QUERY, 0)
        for line in (SAMPLE / "pool.jsonl").read_text(encoding="utf-8").splitlines():
            query = json.loads(line)["query_id"]
            if taken.get(query, 99) < PER_QUERY.get(query, 0):
                taken[query] += 1
                lines.append(line)
        pool = root / "pool.jsonl"
        pool.write_text("\n".join(lines) + "\n", encoding="utf-8")
        Project.create(root / "store", pool_path=pool, pool_sha256=sha256_file(pool))
        self.earlier_answers(root)

    def answer(self, root: Path) -> Any:
        return _fake_provider().replaying(root / "pool.jsonl", LLM_LABELS)

    def cache(self, root: Path) -> Path:
        return root / "store"

    def argv_for(self, root: Path, url: str) -> list[str]:
        return ["judge", "--machine", "claude-sonnet-4-5", str(root / "pool.jsonl"),
                "--store", str(root / "store"), "--labeller", "llm", "--base-url", url,
                "--concurrency", "1"]  # fmt: skip

    def effect(self, root: Path) -> Any:
        from goldset_tui.store import Project
        from goldset_tui.store.machine import machine_labels

        project = Project.open(root / "store")
        if "llm" not in project.labellers():
            return tuple(project.labellers()), None
        labels = machine_labels(project, "llm").select("query_id", "doc_id", "grade", "confidence")
        return tuple(project.labellers()), tuple(sorted(labels.iter_rows()))

    def resumable(self, found: Any, before: Any, after: Any) -> bool:
        # Whatever stops the run, the answers made durable are stored as labels: some of them.
        return found[1] is None or set(found[1]) <= set(after[1])

    def promises(self, root: Path, ledger: Ledger, killed: bool) -> list[str]:
        problems = super().promises(root, ledger, killed)
        try:
            labels = self.effect(root)[1] or ()
        except Exception:  # a store that does not open: sweep.py reports it
            return problems
        pending = self.kept_before_rerun - {(row[0], row[1]) for row in labels}
        if not pending:
            return problems
        # What `goldset qrels` tells a user who looks right after the fault.
        from goldset_tui.cli import main

        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            main(["qrels", "--store", str(root / "store"), "--labeller", "llm"])
        said = err.getvalue()
        if not re.search(rf"\b{len(pending)} answers? .*judge --machine", said):
            problems.append(
                f"{len(pending)} answers kept are not in the labels, and `goldset qrels` says "
                f"nothing of them: {said.strip()[-300:]!r}"
            )
        return problems


def _by_title(prompt: str) -> str:
    """Three queries from the title the prompt shows (as tests/unit/llm/test_synth.py's model)."""
    found = re.search(r"Title: (.*)", prompt)
    title = found.group(1) if found else "untitled"
    return f'Here are three queries:\n1. how to use {title}\n2. "{title} example"\n3. {title} fails'


class SynthOut(ModelCommand, FileOutput):
    """`synth -o`: queries, qrels and manifest over an earlier run's (other documents drawn)."""

    name = "synth -o"
    pairs = 3  # --documents

    def setup(self, root: Path) -> None:
        lines = (SAMPLE / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
        # Every 97th passage: different modules, so the queries are no near-duplicates.
        (root / "corpus.jsonl").write_text("\n".join(lines[::97][:8]) + "\n", encoding="utf-8")
        (root / "out").mkdir()
        with model_server(_by_title) as server, redirect_stdout(io.StringIO()):
            from goldset_tui.cli import main

            with redirect_stderr(io.StringIO()):
                assert main(self._synth(root, server.url, "1")) == 0
        self.earlier_answers(root)

    def _synth(self, root: Path, url: str, seed: str) -> list[str]:
        return ["synth", str(root / "corpus.jsonl"), "-o", str(root / "out" / "synth.csv"),
                "--model", "claude-sonnet-4-5", "--base-url", url, "--documents", str(self.pairs),
                "--seed", seed, "--concurrency", "1"]  # fmt: skip

    def answer(self, root: Path) -> Any:
        return _by_title

    def cache(self, root: Path) -> Path:
        return root / "out" / "synth.synth"

    def argv_for(self, root: Path, url: str) -> list[str]:
        return self._synth(root, url, "2")

    def effect(self, root: Path) -> Any:
        # The manifest says when it was written: that line aside, a rerun writes the same bytes.
        out = root / "out"
        found = []
        for path in sorted(out.iterdir()):
            if not path.is_file() or path.name.startswith(".tmp"):
                continue
            data = path.read_bytes()
            if path.name.endswith(".manifest.toml"):
                data = re.sub(rb"(?m)^created = .*\n", b"", data)
            found.append((path.name, hashlib.sha256(data).hexdigest()[:16]))
        return tuple(found)


# --- the screens' own journals ------------------------------------------------------------------
ADJUDICATIONS: tuple[tuple[Op, ...], ...] = (
    (
        ("decide", "q01", "json#JSONDecoder.__init__", 1),
        ("decide", "q01", "json#JSONDecoder", 2),
        ("withdraw", "q01", "json#JSONDecoder.__init__"),
        ("decide", "q01", "builtins#ValueError", 0),
    ),
    (
        ("decide", "q01", "json#JSONDecoder", 3),
        ("decide", "q01", "json#JSONDecoder.__init__", 0),
    ),
)


class Adjudicate(ApiWorkload):
    """`adjudicate`'s writer, as the screen drives it: two sessions of one adjudicator deciding,
    changing and withdrawing decisions (``STORE/adjudication/<name>.jsonl``)."""

    name = "adjudicate"

    def setup(self, root: Path) -> None:
        from faults.workloads import _store_from

        _store_from(root, "alice", "bob")

    def run(self, root: Path, ledger: Ledger) -> None:
        from goldset_tui.adjudication.decisions import AdjudicationWriter

        self._after_failure = False
        for session in ADJUDICATIONS:
            writer = None
            for _attempt in range(2):  # the user tries again once after a failed open
                with ledger.op("open"):
                    writer = AdjudicationWriter(root / "store", "dana", "median")
                if writer is not None:
                    break
            if writer is None:
                continue
            for op in session:
                failures, acked = len(ledger.failed), len(ledger.acked)
                with ledger.op(*op):
                    writer.decide(op[1], op[2], op[3] if op[0] == "decide" else None)
                if ledger.out is None:
                    self._look(root, ledger, failures, acked)
            with ledger.op("close"):
                writer.close()

    def model(self, ops: list[Op]) -> Any:
        decided: dict[tuple[str, str], int] = {}
        for op in ops:
            if op[0] == "decide":
                decided[(op[1], op[2])] = op[3]
            elif op[0] == "withdraw":
                decided.pop((op[1], op[2]), None)
        return decided

    def next_session(self, root: Path) -> tuple[Any, Any]:
        from goldset_tui.adjudication.decisions import AdjudicationWriter

        with AdjudicationWriter(root / "store", "dana", "median") as writer:
            writer.decide("q02", "next", 1)
        return ("q02", "next"), 1

    def effect(self, root: Path) -> Any:
        from goldset_tui.adjudication.decisions import load_adjudications

        frame = load_adjudications(root / "store")
        return {(q, d): g for q, d, g in frame.select("query_id", "doc_id", "grade").iter_rows()}


# Each step: what the spot-checker presses. ("pick", i): the i-th stratum that is not the one
# the classifier gave.
SPOTCHECKS: tuple[tuple[Op, ...], ...] = (
    (("agree",), ("pick", 0), ("skip",), ("undo",), ("pick", 1), ("agree",)),
    (("agree",), ("undo",), ("skip",)),
)


class Spotcheck(ApiWorkload):
    """`spotcheck`'s session, as the screen drives it: two sessions of one labeller agreeing,
    correcting, skipping and undoing (``STORE/spotcheck/<labeller>.jsonl``)."""

    name = "spotcheck"

    def setup(self, root: Path) -> None:
        from goldset_tui.cli import main

        labels = ["classify", str(SAMPLE / "query_log.csv"), "-o", str(root / "labels.csv")]
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            assert main(labels) == 0

    def _open(self, root: Path) -> Any:
        from goldset_tui.app.spotcheck import open_spotcheck, start_spotcheck

        check = open_spotcheck(
            root / "labels.csv", labeller="ana", store=root / "checks", targets=None,
            total=None, min_per_stratum=None, manifest=None,
        )  # fmt: skip
        return start_spotcheck(check, 12, 1)

    def run(self, root: Path, ledger: Ledger) -> None:
        self._after_failure = False
        for session_ops in SPOTCHECKS:
            session = None
            for _attempt in range(2):
                with ledger.op("open"):
                    session = self._open(root)
                if session is not None:
                    break
            if session is None:
                continue
            for step in session_ops:
                op = self._op(session, step)
                failures, acked = len(ledger.failed), len(ledger.acked)
                with ledger.op(*op):
                    if op[0] == "undo":
                        session.undo()
                    else:
                        session.answer(op[3] if op[0] == "check" else None)
                if ledger.out is None:
                    self._look(root, ledger, failures, acked)
            with ledger.op("close"):
                session.close()

    @staticmethod
    def _op(session: Any, step: Op) -> Op:
        """The step as the answer it records: ("check", query, filed, correct), ("skip", query,
        filed) or ("undo",)."""
        if step[0] == "undo":
            return ("undo",)
        item = session.current()
        query, filed = item["query"], item["stratum"]
        if step[0] == "skip":
            return ("skip", query, filed)
        if step[0] == "agree":
            return ("check", query, filed, filed)
        others = [s for s in session.strata if s != filed]
        return ("check", query, filed, others[step[1] % len(others)])

    def model(self, ops: list[Op]) -> Any:
        stack: list[tuple[str, str, str | None]] = []
        for op in ops:
            if op[0] == "undo":
                if stack:
                    stack.pop()
            elif op[0] in ("check", "skip"):
                stack.append((op[1], op[2], op[3] if op[0] == "check" else None))
        return tuple(stack)

    def next_session(self, root: Path) -> tuple[Any, Any]:
        session = self._open(root)
        try:
            op = self._op(session, ("agree",))
            session.answer(op[3])
        finally:
            session.close()
        return None, (op[1], op[2], op[3])

    def without_next(self, found: Any, key: Any, value: Any) -> Any:
        return found[:-1] if found and found[-1] == value else None

    def effect(self, root: Path) -> Any:
        from goldset_tui.sampling.spotcheck import journal_path, load_answers

        answers, _ = load_answers(journal_path(root / "checks", "ana"))
        return tuple((a.query, a.assigned, a.correct) for a in answers)


class SpotcheckExport(FileOutput):
    """`spotcheck --export`: the labels with a spot-checker's corrections, over an earlier export
    (another spot-checker's, who corrected nothing)."""

    name = "spotcheck --export"

    def setup(self, root: Path) -> None:
        Spotcheck().setup(root)
        session = Spotcheck()._open(root)  # ana corrects two queries, agrees with one
        try:
            for step in (("pick", 0), ("agree",), ("pick", 1)):
                op = Spotcheck._op(session, step)
                session.answer(op[3])
        finally:
            session.close()
        super().setup(root)

    def _export(self, root: Path, labeller: str) -> list[str]:
        return ["spotcheck", str(root / "labels.csv"), "--store", str(root / "checks"),
                "--labeller", labeller, "--export", str(root / "out" / "corrected.csv")]  # fmt: skip

    def earlier(self, root: Path) -> list[str]:
        return self._export(root, "bob")

    def argv(self, root: Path) -> list[str]:
        return self._export(root, "ana")
