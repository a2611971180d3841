"""The ``goldset`` command: parse, validate, dispatch. Thin on purpose.

Each subcommand lives in its own module under ``goldset_tui.commands`` and exposes ``NAME``,
``HELP`` (one line), optional ``DESCRIPTION``, ``add_arguments(parser)`` and
``run(args) -> int``; ``HELP_ORDER`` below sets their order in ``--help``. They are discovered,
so adding a command touches no shared file.

Start-up is kept short by importing no command module but the one that runs: the listing of
``--help`` comes from a directory listing and each module's ``NAME`` and ``HELP`` lines read as text
(a module whose help is not a plain literal there is imported to be listed), and a command's
module is imported, and its arguments added, only when its parser is used. Importing every
command pulls in Polars and much of the core: a quarter of a second before any work.

Bad input anywhere raises :class:`goldset_tui.errors.InputError`; here it becomes one line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from types import ModuleType

from goldset_tui import __version__

# `typing` costs more to import than argparse: only a type checker needs it here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXIT_BAD_INPUT = 2

EPILOG = """\
Start with `goldset demo` to judge the bundled sample pool, or `goldset` alone for the home screen.
Every command takes --help. Bad input is reported on one line naming the file, line and column,
with exit status 2.
"""


# The order of `goldset --help`: the path a golden set takes, from the log to the decision.
# A command not listed here still works; it is listed after these.
HELP_ORDER = (
    "demo",
    "judge",
    "serve",
    "check",
    "pool",
    "qrels",
    "import",
    "merge",
    "synth",
    "classify",
    "sample",
    "spotcheck",
    "eval",
    "compare",
    "fuse",
    "report",
    "route",
    "drift",
    "review",
    "history",
    "regressions",
    "agreement",
    "adjudicate",
    "validate",
    "simulate",
)

_PACKAGE = "goldset_tui.commands"
# `HELP = "..."`, or string literals in parentheses over several lines, without escapes.
_HELP_SOURCE = re.compile(r'^HELP = (\(\s*(?:"[^"\\\n]*"\s*)+\)|"[^"\\\n]*")[ \t]*$', re.M)
_NAME_SOURCE = re.compile(r'^NAME = "([^"\\\n]*)"[ \t]*$', re.M)
_LITERAL = re.compile(r'"([^"\\\n]*)"')


def _folder() -> str:
    import goldset_tui.commands as pkg

    return str(pkg.__path__[0])


def command_names() -> list[str]:
    """The command modules' names (not their NAMEs), from a directory listing (none imported)."""
    folder = _folder()
    names = set()
    for entry in os.listdir(folder):
        stem, ext = os.path.splitext(entry)
        if stem.startswith("_"):
            continue
        if ext == ".py" or (not ext and os.path.isfile(os.path.join(folder, entry, "__init__.py"))):
            names.add(stem)
    return sorted(names)


def _position(name: str) -> tuple[int, str]:
    return (HELP_ORDER.index(name) if name in HELP_ORDER else len(HELP_ORDER), name)


def from_source(module: str) -> tuple[str, str] | None:
    """(NAME, HELP) of command module ``module``, read as text; None when either is not a plain
    literal there (the module is then imported to know them)."""
    try:
        with open(os.path.join(_folder(), f"{module}.py"), encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        return None
    name = _NAME_SOURCE.search(text)
    found = _HELP_SOURCE.search(text)
    if name is None or found is None:
        return None
    return name.group(1), "".join(_LITERAL.findall(found.group(1)))


def _is_command(module: ModuleType) -> bool:
    return hasattr(module, "NAME") and hasattr(module, "run")


def command_modules() -> list[ModuleType]:
    """Every command module, imported, in ``--help`` order (for tests and tools; the command line
    itself imports only the one it runs)."""
    modules = [importlib.import_module(f"{_PACKAGE}.{name}") for name in command_names()]
    return sorted([m for m in modules if _is_command(m)], key=lambda m: _position(m.NAME))


def _listing() -> list[tuple[str, str, str | ModuleType]]:
    """(NAME, help line, module name or the module imported to read them), in --help order."""
    out: list[tuple[str, str, str | ModuleType]] = []
    for module_name in command_names():
        known = from_source(module_name)
        if known is not None:
            out.append((known[0], known[1], module_name))
            continue
        module = importlib.import_module(f"{_PACKAGE}.{module_name}")
        if _is_command(module):
            out.append((module.NAME, module.HELP, module))
    return sorted(out, key=lambda entry: _position(entry[0]))


class _CommandParser(argparse.ArgumentParser):
    """A subcommand's parser that imports its module and adds its arguments on first use: when
    its arguments are parsed or its help or usage is shown, never merely to be listed."""

    def __init__(self, *args: Any, command: str | ModuleType | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._command = command
        self._old_spellings: Any = None

    def _load(self) -> None:
        command, self._command = self._command, None
        if command is None:
            return
        module = (
            command
            if isinstance(command, ModuleType)
            else importlib.import_module(f"{_PACKAGE}.{command}")
        )
        self.description = getattr(module, "DESCRIPTION", module.HELP)
        module.add_arguments(self)
        self.set_defaults(_run=module.run)
        # A command whose old spellings argparse cannot alias (sample's modes, once flags) turns
        # them into the new ones here, saying so once (docs/cli.md).
        self._old_spellings = getattr(module, "old_spellings", None)

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._load()
        if self._old_spellings is not None:
            args = self._old_spellings(list(sys.argv[1:] if args is None else args))
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            # Said here, not by the top parser after this returns: its message came under
            # `usage: goldset [-h] [--version] COMMAND ...`, which shows none of this command's
            # options (`goldset eval --qrels Q RUN`: nothing said eval takes QRELS first).
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras

    def format_usage(self) -> str:
        self._load()
        return super().format_usage()

    def format_help(self) -> str:
        self._load()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="goldset",
        description="Build and judge golden sets for retrieval evaluation, in the terminal.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"goldset {__version__}")
    parser.add_argument(
        "--store",
        metavar="DIR",
        dest="home_store",
        help="with no command: open the home screen on this store (its judging, history, review, "
        "agreement and closure screens), wherever it is",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    for name, help_line, command in _listing():
        sub.add_parser(
            name,
            help=help_line,
            command=command,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    return parser


def error(message: str) -> int:
    # The message names files and ids from the user's data: a file called "\x1b]0;x\x07.run"
    # must not retitle the terminal, so control characters are shown as placeholders.
    from goldset_tui.text import visible

    print(f"goldset: error: {visible(message, keep_newlines=False)}", file=sys.stderr)
    return EXIT_BAD_INPUT


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # Imported after parsing: `--help` and `--version` exit above without needing them.
    from goldset_tui.commands._args import seed_problem
    from goldset_tui.errors import InputError, StoreLockedError

    problem = seed_problem(args)  # one check for every command's --seed, before any work
    if problem:
        return error(problem)
    run = getattr(args, "_run", None)
    if run is not None and getattr(args, "home_store", None) is not None:
        # `goldset --store S judge ...` would have used the pool's store, not S: said, not guessed.
        return error(
            f"--store before a command opens the home screen; give it after: goldset {args.command} ... --store DIR"
        )
    if run is None:
        from goldset_tui.commands._home import run as run_home

        run = run_home
    try:
        return int(run(args) or 0)
    except InputError as exc:
        return error(str(exc))
    except StoreLockedError as exc:
        return error(str(exc))
    except BrokenPipeError:
        # `goldset eval ... | head`: not an error worth a traceback.
        sys.stderr.close()
        return 0
    except OSError as exc:
        # An output path that is a directory, under a file, read-only, a full disk: the user's
        # environment, not a bug; one line naming the path, like any other bad input.
        # A rename names the temporary file first and the user's path second: show the user's.
        where = exc.filename2 or exc.filename or ""
        reason = exc.strerror or type(exc).__name__
        return error(f"{where}: {reason}" if where else reason)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
