"""Every shell block of README.md and docs/*.md runs as written, page by page, in a scratch folder
holding a copy of sample_data; the first example of every command's --help runs on the bundled
sample data as written. The markers a page uses are in docs/DEVELOPING.md ("Documentation that
runs"); the parsing and running are in docrun.py."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from docrun import (
    ASSIGNMENT,
    ROOT,
    SCREEN_TEXT,
    Block,
    Command,
    blocks,
    copy_scratch,
    help_examples,
    json_mismatches,
    make_scratch,
    not_run,
    page_json,
    parse_directive,
    quoted,
    run_command,
    run_screen,
    screen_kind,
    squash,
)

# Screens run in tmux (a page without one needs none); README's and judging.md's take tens of
# seconds.
pytestmark = [pytest.mark.terminal, pytest.mark.slow]

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMANDS = sorted(
    p.stem for p in (ROOT / "goldset_tui" / "commands").glob("*.py") if not p.stem.startswith("_")
)


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("doc-run-template")
    make_scratch(folder)
    return folder


@pytest.fixture
def scratch(template: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "scratch"
    copy_scratch(template, folder)
    return folder


def _check(
    command: Command, directives: list[str], scratch: Path, cwd: Path, previous: int = 0
) -> tuple[str, int | None, list[str]]:
    """Run one command: its output, its status and the problems found (none when it did what
    the page says). ``expect-exit`` is about the block's goldset commands (an ``echo $?`` after
    one exits 0)."""
    expected_exit = 0
    screen_text = None
    keys: list[str] = []
    for directive in directives:
        name, rest = parse_directive(directive)
        if name == "expect-exit" and command.text.startswith("goldset"):
            expected_exit = int(rest)
        elif name == "keys":
            keys += quoted(rest)
        elif name == "screen":
            screen_text = (quoted(rest) or [None])[0] or SCREEN_TEXT
    if screen_text is None and screen_kind(command.text):
        screen_text = SCREEN_TEXT
    if screen_text is not None:
        result = run_screen(command, scratch, cwd, screen_text, keys)
    else:
        result = run_command(command, scratch, cwd, previous=previous)
    problems = []
    if result.status != expected_exit:
        tail = "\n".join(result.out.strip().splitlines()[-6:])
        problems.append(f"exit {result.status}, expected {expected_exit}:\n{tail}")
    if "expect-output" in directives:
        flat = squash(result.out)
        for line in command.output:
            if line.strip(". …") and squash(line) not in flat:
                problems.append(f"output lacks the page's line {line!r}")
    return result.out, result.status, problems


def _run_blocks(page_blocks: list[Block], scratch: Path) -> list[str]:
    failures: list[str] = []
    cwd, last_out, status = scratch, "", 0
    variables: list[str] = []
    for block in page_blocks:
        directives = [parse_directive(d) for d in block.directives]
        names = {name for name, _ in directives}
        if {"skip", "needs"} & names:
            continue
        if "expect-json" in names:
            problems = json_mismatches(page_json(block.body), json.loads(last_out))
            failures += [f"{block.page}:{block.line}: {p}" for p in problems]
            continue
        for name, rest in directives:
            if name == "setup":
                _, _, problems = _check(Command(rest), [], scratch, cwd)
                failures += [f"{block.page}:{block.line}: setup {rest!r}: {p}" for p in problems]
        skipped = [quoted(rest)[0] for name, rest in directives if name == "skip-command"]
        said = ""
        for command in block.commands:
            if any(command.text.startswith(p) for p in skipped) or not_run(command.text):
                continue
            if ASSIGNMENT.match(command.text):
                variables.append(command.text)  # each command runs in its own shell
                continue
            if variables:
                command = Command(
                    "\n".join([*variables, command.text]), command.output, command.line
                )
            last_out, status, problems = _check(
                command, block.directives, scratch, cwd, status or 0
            )
            said += last_out
            where = scratch / ".doc-run-cwd"
            cwd = Path(where.read_text().strip()) if where.exists() else cwd
            failures += [f"{block.page}:{command.line}: {command.text}\n  {p}" for p in problems]
        texts = [t for name, rest in directives if name == "expect" for t in quoted(rest)]
        failures += [
            f"{block.page}:{block.line}: the block's output lacks {t!r}"
            for t in texts
            if squash(t) not in squash(said)
        ]
    return failures


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_runs_as_written(page: Path, scratch: Path) -> None:
    failures = _run_blocks(blocks(page), scratch)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", COMMANDS)
def test_first_help_example_runs_on_the_sample_data(name: str, scratch: Path) -> None:
    """The examples up to the first that runs the command itself (the lines before it make what
    it needs), as printed by --help."""
    module = importlib.import_module(f"goldset_tui.commands.{name}")
    examples = help_examples(getattr(module, "DESCRIPTION", "") or "")
    assert examples, f"goldset {module.NAME} --help has no examples"
    failures: list[str] = []
    for command in examples:
        _, _, problems = _check(command, [], scratch, scratch)
        failures += [f"{command.text}\n  {p}" for p in problems]
        if command.text.split()[:2] == ["goldset", module.NAME]:
            break
    assert not failures, "\n".join(failures)
