"""Run a workload with a fault at every call the injector counts, and check what goldset promised.

For each point (a workload, a fault, the number N of the call it hits):

1. the workload's template (its ``setup``, made once) is copied to a fresh folder;
2. the workload runs with call N failing once (EIO, ENOSPC: in this process) or with the process
   SIGKILLed just before call N (KILL: in a child process, child.py);
3. the checks: no traceback (every error one line, exit status 2 for a command); the store opens
   again with goldset and its next writer opens; every acknowledged record is there and nothing
   reported failed is counted (the store API: the grades in force are exactly those of the
   acknowledged operations, plus at most the one in flight at a kill; a command: its effect is
   all there if it said so and absent if it said it failed); a command that failed or was killed
   succeeds when run again, to the same effect as a run without faults; and nothing is left
   behind: no temporary file or folder, no half-built store, no new lock file, no empty folder a
   run without faults does not leave.

A point whose fault never fired (the call was not reached: an earlier error ended the run) is
counted as covered only when it fired.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faults.injector import FAULTS, Injector
from faults.ledger import Ledger
from faults.workloads import Workload, copy_tree
from goldset_tui.errors import InputError, StoreLockedError

CHILD = Path(__file__).with_name("child.py")
TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
# How goldset's errors say that the change is made all the same (see says_done).
DONE = re.compile(r"\bIS (recorded whole|made|in place)\b")
SOME_NEW = re.compile(r"\bARE the new ones\b")  # a set of files some of which could not go back
LEFTOVER = re.compile(r"(^\.tmp|\.tmp[-.]|\.tmp$|\.merging-|\.partial)")


@dataclass
class Prepared:
    workload: Workload
    base: Path  # holds template/ and the point's run folder
    calls: int = 0
    names: list[str] = field(default_factory=list)
    before: Any = None
    after: Any = None
    clean_tree: set[str] = field(default_factory=set)

    @property
    def template(self) -> Path:
        return self.base / "template"

    @property
    def root(self) -> Path:
        return self.base / "point"


@dataclass
class Point:
    workload: str
    fault: str
    at: int
    call: str | None  # the call the fault hit; None: not reached
    violations: list[str]


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@contextmanager
def home(root: Path) -> Iterator[dict[str, str]]:
    """goldset's data and config folders inside the point's folder (the known-stores list too)."""
    env = {
        "GOLDSET_DATA_DIR": str(root / "_home" / "data"),
        "GOLDSET_CONFIG_DIR": str(root / "_home" / "config"),
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield env
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def prepare(workload: Workload, base: Path) -> Prepared:
    """The template, and a run without faults: its call count, its effect, the tree it leaves."""
    prepared = Prepared(workload, base)
    shutil.rmtree(base, ignore_errors=True)
    prepared.template.mkdir(parents=True)
    with home(prepared.template):
        workload.setup(prepared.template)
        prepared.before = workload.effect(prepared.template)
    copy_tree(prepared.template, prepared.root)
    ledger = Ledger()
    with home(prepared.root), Injector().installed() as counter:
        workload.run(prepared.root, ledger)
    if ledger.failed or ledger.escaped:
        raise AssertionError(
            f"{workload.name}: fails without faults: {ledger.failed or ledger.escaped}"
        )
    prepared.calls, prepared.names = counter.calls, counter.names
    with home(prepared.root):
        prepared.after = workload.effect(prepared.root)
    prepared.clean_tree = tree(prepared.root) | tree(prepared.template)
    return prepared


# --- the checks -------------------------------------------------------------------------------
def leftovers(prepared: Prepared) -> list[str]:
    root = prepared.root
    found = []
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if (
            LEFTOVER.search(path.name)
            or name not in prepared.clean_tree
            and (path.name.endswith(".lock") or (path.is_dir() and not any(path.iterdir())))
        ):
            found.append(name)
    return [f"left behind: {name}" for name in found]


def message_problems(ledger: Ledger, command: bool) -> list[str]:
    problems = [f"traceback in {op[0]}: {what}" for op, what in ledger.escaped]
    for op, message in ledger.failed:
        if command:
            lines = [line for line in message.splitlines() if line.strip()]
            errors = [line for line in lines if line.startswith("goldset: error:")]
            if "Traceback" in message or len(errors) != 1 or lines[-1] != errors[0]:
                problems.append(f"{op[0]}: not one error line: {message!r}")
        elif "\n" in message or "/" not in message:
            problems.append(f"{op[0]}: the error is not one line naming a file: {message!r}")
    return problems


def _read(prepared: Prepared) -> tuple[Any, str | None]:
    """The workload's effect, as the next goldset reads it; or the refusal, as text."""
    with home(prepared.root):
        try:
            return prepared.workload.effect(prepared.root), None
        except (OSError, InputError, StoreLockedError) as exc:
            return None, f"goldset refuses it after the fault: {exc}"
        except Exception as exc:
            return None, f"traceback reading it after the fault: {type(exc).__name__}: {exc}"


def check_store_api(
    prepared: Prepared, ledger: Ledger, killed: bool, persistent: bool = False
) -> list[str]:
    """An API workload (a journal's writer: the store's, an adjudicator's, a spot-checker's): what
    a reader finds is exactly what the acknowledged operations made (``workload.model``)."""
    workload = prepared.workload
    problems = message_problems(ledger, command=False)
    for when, acked, seen in ledger.seen:
        if seen != workload.model(ledger.acked[:acked]) and not (when == "now" and persistent):
            moment = "right after a failure" if when == "now" else "after the next save"
            problems.append(f"{moment}, a reader sees {seen}")
    with home(prepared.root):
        try:  # the next session opens (folding what the journal holds) and saves
            key, value = workload.next_session(prepared.root)
        except (OSError, InputError, StoreLockedError) as exc:
            return [*problems, f"the next session cannot save: {exc}"]
    found, refused = _read(prepared)
    if refused:
        return [*problems, refused]
    found = workload.without_next(found, key, value)
    if found is None:
        problems.append("the next session's save is not counted")
        found = {}
    options = [workload.model(ledger.acked)]
    if killed and ledger.inflight is not None:
        options.append(workload.model([*ledger.acked, ledger.inflight]))
    if found not in options:
        expected = options[0]
        if isinstance(expected, dict) and isinstance(found, dict):
            lost = {k: v for k, v in expected.items() if found.get(k) != v}
            extra = {k: v for k, v in found.items() if expected.get(k) != v}
            problems.append(
                f"grades differ from the acknowledged ones: missing/changed {lost}, counted {extra}"
            )
        else:
            problems.append(f"differs from the acknowledged operations: {found} != {expected}")
    return problems + leftovers(prepared)


def check_command(prepared: Prepared, ledger: Ledger, killed: bool) -> list[str]:
    workload = prepared.workload
    problems = message_problems(ledger, command=True)
    found, refused = _read(prepared)
    with home(prepared.root):
        problems += workload.promises(prepared.root, ledger, killed)
    if refused:
        problems.append(refused)
    elif ledger.acked and found != prepared.after:
        problems.append("exit 0, but not all of it was done")
    elif ledger.failed and SOME_NEW.search(ledger.failed[0][1]):
        if not prepared.workload.each_whole(found, prepared.before, prepared.after):
            problems.append(
                f"said some files are new ({_last_line(ledger.failed[0][1])}), but a file is half"
            )
    elif ledger.failed and says_done(ledger.failed[0][1]):
        if found != prepared.after:  # an error after the commit point says so: it must be true
            problems.append(f"said it is done ({_last_line(ledger.failed[0][1])}), but it is not")
    elif (
        ledger.failed
        and found != prepared.before
        and not workload.resumable(found, prepared.before, prepared.after)
    ):
        done = "all of it done" if found == prepared.after else "half of it done"
        problems.append(f"reported failed ({_last_line(ledger.failed[0][1])}), but {done}")
    elif (
        killed
        and found not in (prepared.before, prepared.after)
        and not prepared.workload.each_whole(found, prepared.before, prepared.after)
        and not workload.resumable(found, prepared.before, prepared.after)
    ):
        problems.append("killed: half of it done")
    if not killed:
        problems += leftovers(prepared)  # a failed run cleans up after itself
    if ledger.acked or ledger.failed and says_done(ledger.failed[0][1]):
        return problems  # done: there is nothing to run again for
    again = Ledger()
    with home(prepared.root):
        prepared.workload.run(prepared.root, again)
    if not again.acked:
        problems.append(f"run again, it still fails: {again.failed or again.escaped}")
    found, refused = _read(prepared)
    if refused or found != prepared.after:
        problems.append(f"run again, the result differs from a run without faults {refused or ''}")
    problems += workload.rerun_promises(ledger, again)
    return problems + (leftovers(prepared) if killed else [])


def says_done(message: str) -> bool:
    """Whether an error says the command's change IS made (it failed after its commit point, at a
    step the next command finishes, or at a folder's fsync it could not take back): then the
    change must be all there, as a success's is."""
    return DONE.search(message) is not None


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else text


def check(prepared: Prepared, ledger: Ledger, killed: bool, persistent: bool = False) -> list[str]:
    if prepared.workload.command:
        return check_command(prepared, ledger, killed)
    return check_store_api(prepared, ledger, killed, persistent)


# --- running the points -----------------------------------------------------------------------
def fault_point(prepared: Prepared, fault: str, at: int) -> Point:
    """Call ``at`` fails with ``fault`` (once for EIO or ENOSPC; for EIO*, it and every call after
    it in the same operation), in this process."""
    copy_tree(prepared.template, prepared.root)
    injector = Injector(fault, at)
    ledger = Ledger(after_op=injector.heal)
    with home(prepared.root), injector.installed():
        prepared.workload.run(prepared.root, ledger)
    problems = check(prepared, ledger, False, persistent=fault == "EIO*")
    return Point(prepared.workload.name, fault, at, injector.fired, problems)


def kill_point(prepared: Prepared, at: int) -> Point:
    """The process is SIGKILLed just before call ``at`` (child.py runs the workload)."""
    copy_tree(prepared.template, prepared.root)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(TESTS), str(REPO), env.get("PYTHONPATH")])
    )
    with home(prepared.root) as paths:
        env.update(paths)
        done = subprocess.run(
            [sys.executable, str(CHILD), prepared.workload.name, str(prepared.root), str(at)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
    ledger = Ledger.parse(done.stdout)
    if done.returncode != -9:
        why = (
            "it finished"
            if done.returncode == 0
            else f"exit {done.returncode}: {done.stderr[-500:]}"
        )
        return Point(
            prepared.workload.name, "KILL", at, None, [] if done.returncode == 0 else [why]
        )
    hit = re.search(r"^killed at (\w+)$", done.stdout, re.M)
    return Point(prepared.workload.name, "KILL", at, hit and hit[1], check(prepared, ledger, True))


def sweep(
    prepared: Prepared, faults: Iterable[str] = FAULTS, kills: Iterable[int] = ()
) -> list[Point]:
    points = [fault_point(prepared, fault, n) for fault in faults for n in range(prepared.calls)]
    return points + [kill_point(prepared, n) for n in kills]
