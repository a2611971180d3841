"""Run the documentation as written: every shell block of README.md and docs/*.md, and the first
example of every command's ``--help``, in a scratch folder holding a copy of sample_data.

A page says what the runner should expect with HTML comments, invisible on the rendered page, on
their own line just before a code block (docs/DEVELOPING.md, "Documentation that runs", lists
them). Without one, every command of the block must exit 0.

Parsing (``blocks``): fenced blocks tagged ``sh``/``shell``/``bash``/``console`` or untagged, and
indented (four-space) blocks. In a block, a command is a line starting with a program a reader
would type (``goldset``, ``python``, ``cat``, ...) or a ``$ `` prompt, with its ``\\``
continuation lines; every other line is the output the page shows for the command above it.
Screens (the judging, review and adjudication screens, ``agreement --screen``, the home screen)
run in tmux: open, wait for the page's text (or the screen's footer), ``q``, exit 0.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data"

MARKER = re.compile(r"^\s*<!--\s*doc-run:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
SHELL_TAGS = {"", "sh", "shell", "bash", "console"}
PROGRAMS = (
    "goldset", "python", "python3", "cat", "head", "tail", "cd", "mkdir", "cp", "mv", "rm", "ls",
    "printf", "echo", "zcat", "gzip", "wc", "diff", "sort", "sed", "grep", "cut", "jq", "pip",
    "duckdb", "/usr/bin/time", "tmux", "awk", "for",
)  # fmt: skip
COMMAND = re.compile(
    r"^(\$ )?([A-Z_]+=\S+ )*("
    + "|".join(re.escape(p) for p in PROGRAMS)
    + r"|\.venv/bin/\S+|bench/\S+)(\s|$)"
    + r"|^[A-Z_]+=\S+$"  # a variable the later commands of the page use
)
ASSIGNMENT = re.compile(r"^[A-Z_]+=\S+$")
# Lines of output that begin like a command: `goldset demo: 12 of ...`, `goldset (journal...)`, a
# table row `goldset classify    40.9 ...`.
OUTPUT_LIKE = re.compile(r"^goldset (\S+:\s|\(|[a-z]+ {3,}\S|[a-z]+ [A-Z(]|median )")
# Subcommands that open a screen unless one of these options turns them into a printout.
SCREENS = {"demo": {"--where", "--help"}, "judge": {"--help"}, "review": {"--help"}}
SCREEN_TEXT = "q quit"  # every screen's footer: the screen is up and reading keys


@dataclass
class Command:
    text: str  # as the page shows it, continuation lines joined with newlines
    output: list[str] = field(default_factory=list)  # the lines the page shows after it
    line: int = 0


@dataclass
class Block:
    page: str
    line: int  # 1-based line of the block's first line
    commands: list[Command]
    directives: list[str]
    tag: str = ""
    body: str = ""  # the raw text (for a JSON block compared with the previous output)


def _unfinished(text: str) -> bool:
    """A command that goes on: a quote left open, or a here-document not yet closed."""
    heredoc = re.search(r"<<-?\s*'?(\w+)'?", text)
    if heredoc and not re.search(rf"\n{heredoc.group(1)}\s*$", text):
        return True
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return True
    return False


def _split_commands(lines: list[tuple[int, str]]) -> list[Command]:
    commands: list[Command] = []
    current: Command | None = None
    continuing = False
    for number, raw in lines:
        line = raw.rstrip()
        if continuing and current is not None:
            current.text += "\n" + line
            continuing = line.endswith("\\") or _unfinished(current.text)
            continue
        if COMMAND.match(line) and not OUTPUT_LIKE.match(line):
            text = line[2:] if line.startswith("$ ") else line
            current = Command(text, line=number)
            commands.append(current)
            continuing = line.endswith("\\") or _unfinished(text)
        elif current is not None and line.strip():
            current.output.append(line.strip())
    return commands


def blocks(path: Path) -> list[Block]:
    """Every code block of a Markdown page with the markers just above it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    pending: list[str] = []
    i = 0
    previous_blank = True
    while i < len(lines):
        line = lines[i]
        marker = MARKER.match(line)
        fence = FENCE.match(line)
        if marker:
            pending.append(marker.group(1))
            i += 1
            continue
        if fence:
            indent, ticks, tag = fence.groups()
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(ticks[0] * len(ticks)):
                body.append((i + 1, lines[i][len(indent) :]))
                i += 1
            i += 1
            if tag in SHELL_TAGS or pending:
                commands = _split_commands(body) if tag in SHELL_TAGS else []
                text = "\n".join(t for _, t in body)
                found.append(Block(path.name, start + 1, commands, pending, tag, text))
            pending, previous_blank = [], False
            continue
        if line.startswith("    ") and previous_blank and line.strip():
            start, body = i + 1, []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append((i + 1, lines[i][4:]))
                i += 1
            commands = _split_commands(body)
            if commands or pending:
                found.append(Block(path.name, start, commands, pending, "indented"))
            pending, previous_blank = [], True
            continue
        if line.strip() and pending and not line.lstrip().startswith("<!--"):
            pending = []  # a marker belongs to the block right below it, not one further down
        previous_blank = not line.strip() or line.startswith("#")
        i += 1
    return found


def help_examples(description: str) -> list[Command]:
    """The examples of a command's ``DESCRIPTION``: the indented lines after ``examples:``."""
    _, sep, tail = description.partition("examples:")
    if not sep:
        return []
    lines = [(n, line[2:]) for n, line in enumerate(tail.splitlines()) if line.startswith("  ")]
    return _split_commands(lines)


SYNOPSIS = re.compile(r" \[-|\(--|\.\.\.\]| [A-Z]{2,}\.\.\.")
NOT_RUN = re.compile(r"(^|\s)bench/|-m pytest|pip install|python3 -m venv")


def not_run(command: str) -> str | None:
    """Why a documented command is never run (None: it runs). Usage lines (``[--store DIR]``,
    ``(--a | --b)``) are synopses, not commands; benchmarks take minutes and have their own
    checks (bench/_needs.py); installs and test runs are the suite's own setup."""
    if SYNOPSIS.search(command):
        return "a synopsis"
    if NOT_RUN.search(command):
        return "a benchmark, an install or a test run"
    return None


def screen_kind(command: str) -> bool:
    """Whether a documented command opens a screen (it then runs in tmux)."""
    try:
        words = shlex.split(command.replace("\\\n", " "), comments=True)
    except ValueError:
        return False
    if not words or words[0] != "goldset" or any(w in {"|", ">"} for w in words):
        return False
    rest = words[1:]
    if not rest or rest[0].startswith("-"):
        return "--help" not in rest and "--version" not in rest
    name, options = rest[0], set(rest[1:])
    if name in SCREENS:
        return not options & SCREENS[name]
    if name == "agreement":
        return "--screen" in options
    if name == "adjudicate":
        return not options & {"--help", "--list", "--format", "-o"}
    if name == "spotcheck":
        return not options & {"--print", "--report", "--help"}
    return False


# ---- the scratch folder ------------------------------------------------------------------------


def environment(scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    home = scratch
    env.update(
        HOME=str(home),
        GOLDSET_DATA_DIR=str(home / ".local" / "share" / "goldset"),
        GOLDSET_CONFIG_DIR=str(home / ".config" / "goldset"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p),
        NO_COLOR="1",
        COLUMNS="100",
    )
    env.pop("CI", None)
    return env


def _shell(text: str) -> str:
    return text.replace("/tmp/", "$DOC_RUN_TMP/")  # the README's /tmp paths, kept in the scratch


@dataclass
class Result:
    command: str
    status: int | None
    out: str


def run_command(
    command: Command, scratch: Path, cwd: Path, timeout: float = 60, previous: int = 0
) -> Result:
    env = environment(scratch)
    env["DOC_RUN_TMP"] = str(scratch / "tmp")
    where = scratch / ".doc-run-cwd"
    # `(exit N)` first: an `echo $?` on a page reads the status of the command above it.
    script = (
        f"cd {shlex.quote(str(cwd))}\n(exit {previous})\n{_shell(command.text)}\n"
        f'rc=$?\npwd > "{where}"\nexit $rc\n'
    )
    try:
        proc = subprocess.run(
            ["bash", "-c", script],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return Result(command.text, None, f"still running after {timeout:.0f} s (a server?)")
    return Result(command.text, proc.returncode, proc.stdout + proc.stderr)


def run_screen(
    command: Command, scratch: Path, cwd: Path, text: str, keys: list[str] = ()
) -> Result:
    sys.path.insert(0, str(ROOT / "tests" / "terminal"))
    from tmuxutil import Tmux  # the terminal tests' driver: private tmux server per test

    env = environment(scratch)
    env["DOC_RUN_TMP"] = str(scratch / "tmp")
    keep = {k: env[k] for k in ("HOME", "GOLDSET_DATA_DIR", "GOLDSET_CONFIG_DIR", "PATH")}
    keep.update(PYTHONPATH=env["PYTHONPATH"], DOC_RUN_TMP=env["DOC_RUN_TMP"])
    tmux = Tmux(120, 36)
    dialog = "Escape, Enter or ? closes"  # the guidelines shown the first time a pool is judged
    try:
        tmux.start(["bash", "-c", _shell(command.text)], env=keep, cwd=cwd)

        def ready(screen: str) -> bool:
            return text in screen or dialog in screen or tmux.exit_status() is not None

        screen = tmux.wait_for(ready, 60)
        # The first frame can come before a dialog the screen opens on: wait for a still screen.
        seen: list[str] = []

        def still(screen: str) -> bool:
            seen.append(screen)
            return len(seen) >= 4 and len(set(seen[-4:])) == 1

        screen = tmux.wait_for(still, 30)
        if dialog in screen:
            tmux.send("Escape")
            screen = tmux.wait_for(lambda s: text in s or tmux.exit_status() is not None, 30)
        if text not in screen:
            lines = tmux.capture(history=50).splitlines()
            said = "\n".join(x for x in lines if x.strip() and not x.startswith("Pane is dead"))
            return Result(command.text, tmux.wait_exit_status(), said)
        for key in keys:  # each key's effect shows before the next (and before q)
            before = tmux.capture()
            tmux.send(key)
            screen = tmux.wait_for(lambda s, before=before: s != before, 30)
        for _ in range(3):  # a dialog opened after the footer showed takes the first q
            tmux.send("q")
            try:
                tmux.wait_dead(5)
                return Result(command.text, tmux.exit_status(), screen)
            except AssertionError:
                tmux.send("Escape")
        return Result(command.text, None, "q did not quit:\n" + tmux.capture())
    finally:
        tmux.close()


# The short names the README's and --help's examples use for a reader's own files, and the sample
# file each stands for in the scratch folder (the README's "Examples" says so).
STAND_INS = {
    "pool.jsonl": "pool.jsonl",
    "corpus.jsonl": "corpus.jsonl",
    "qrels.txt": "judgments/alice.qrels",
    "alice-2024.qrels": "judgments/alice.qrels",
    "alice.qrels": "judgments/alice.qrels",
    "bob.qrels": "judgments/bob.qrels",
    "bm25.run": "runs/bm25.run",
    "dense.run": "runs/minilm.run",
    "run.txt": "runs/bm25.run",
    "strata.csv": "strata.csv",
    "traffic.csv": "traffic.csv",
}


def make_scratch(scratch: Path) -> None:
    """sample_data, and the files and stores the README's short names stand for."""
    shutil.copytree(SAMPLE, scratch / "sample_data", ignore=shutil.ignore_patterns("__pycache__"))
    (scratch / "tmp").mkdir()
    (scratch / "tests").symlink_to(ROOT / "tests")  # the peers' data eval.md's examples read
    for name, source in STAND_INS.items():
        shutil.copyfile(SAMPLE / source, scratch / name)
    import polars as pl

    pool = pl.read_ndjson(SAMPLE / "pool.jsonl")
    pool.write_parquet(scratch / "pool.parquet")
    pool.select("query_id", "query", "doc_id").write_csv(
        scratch / "ids-only-pool.tsv", separator="\t"
    )
    qrels = pl.read_csv(
        SAMPLE / "judgments" / "bob.qrels",
        separator=" ",
        has_header=False,
        new_columns=["query_id", "iteration", "doc_id", "grade"],
        schema_overrides={"query_id": pl.String, "doc_id": pl.String},
    )
    qrels.select("query_id", "doc_id", "grade").write_csv(scratch / "bob-grades.csv")
    dee = qrels.with_columns(pl.col("grade") + 1)  # the same grades on a 1-5 scale
    (scratch / "dee.qrels").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, d, g in dee.select("query_id", "doc_id", "grade").rows())
    )
    # alice's judgments in the store the README names (bob's come in by the README's own
    # import); --help's and the pages' ~/stores/docs-pool has alice's and bob's, of the same pool
    # as a Parquet file (a store of its own: `goldset judge pool.jsonl` finds one store of alice's).
    for store, pool, labellers in (
        ("golden/docs-store", "pool.jsonl", ("alice",)),
        ("stores/docs-pool", "pool.parquet", ("alice", "bob")),
    ):
        for labeller in labellers:
            text = (
                f"goldset import --pool {pool} --store ~/{store} --labeller {labeller}"
                f" --human sample_data/judgments/{labeller}.qrels"
            )
            result = run_command(Command(text), scratch, scratch)
            assert result.status == 0, result.out


def copy_scratch(template: Path, scratch: Path) -> None:
    """A copy of the template, its stores' records pointing at the copy."""
    shutil.copytree(template, scratch, symlinks=True)
    for path in [*scratch.glob(".local/**/*.json"), *scratch.glob("*/*/manifest.toml")]:
        text = path.read_text(encoding="utf-8")
        if str(template) in text:
            path.write_text(text.replace(str(template), str(scratch)), encoding="utf-8")


def parse_directive(text: str) -> tuple[str, str]:
    name, _, rest = text.partition(" ")
    return name, rest.strip()


def quoted(rest: str) -> list[str]:
    return [json.loads(f'"{m}"') for m in re.findall(r'"((?:[^"\\]|\\.)*)"', rest)]


_SPACE = re.compile(r"\s+")


def squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


# ---- JSON shown on a page against the JSON printed --------------------------------------------


def page_json(text: str) -> object:
    """A page's JSON excerpt: ``[...]`` and ``"..."`` stand for anything."""
    return json.loads(re.sub(r"\[\.\.\.\]", '"..."', text))


def json_mismatches(shown: object, got: object, where: str = "$") -> list[str]:
    """Where the printed JSON contradicts the page's excerpt: keys the page shows, values at the
    page's rounding, lists up to a trailing "..."."""
    if shown == "...":
        return []
    if isinstance(shown, dict):
        if not isinstance(got, dict):
            return [f"{where}: page shows an object, got {got!r}"]
        problems = []
        for key, value in shown.items():
            if key == "...":
                continue
            if key not in got:
                problems.append(f"{where}.{key}: missing")
            else:
                problems += json_mismatches(value, got[key], f"{where}.{key}")
        return problems
    if isinstance(shown, list):
        if not isinstance(got, list):
            return [f"{where}: page shows a list, got {got!r}"]
        open_ended = bool(shown) and shown[-1] == "..."
        items = shown[:-1] if open_ended else shown
        if len(got) < len(items) or (not open_ended and len(got) != len(items)):
            return [f"{where}: page shows {len(items)} items, got {len(got)}"]
        problems = []
        for n, value in enumerate(items):
            problems += json_mismatches(value, got[n], f"{where}[{n}]")
        return problems
    if isinstance(shown, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        digits = len(repr(shown).partition(".")[2])
        if abs(got - shown) > 0.5 * 10**-digits + 1e-12:
            return [f"{where}: page shows {shown}, got {got}"]
        return []
    if shown != got:
        return [f"{where}: page shows {shown!r}, got {got!r}"]
    return []
