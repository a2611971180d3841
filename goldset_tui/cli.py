"""The ``goldset`` command: parse, validate, dispatch. Thin on purpose.

Each subcommand lives in its own module under ``goldset_tui.commands`` and exposes ``NAME``,
``HELP`` (one line), optional ``DESCRIPTION``, ``add_arguments(parser)`` and
``run(args) -> int``. ``goldset_tui.commands.COMMANDS`` lists their names and help lines in the
order of ``--help``, so that the listing, ``--version`` and every command start without importing
the other command modules (each pulls in Polars and parts of the core): a command's module is
imported only when its parser is used. A module missing from that table is still discovered (and
imported to be listed, after the others), so adding a command touches no shared file.

Bad input anywhere raises :class:`goldset_tui.errors.InputError`; here it becomes one line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from types import ModuleType

from goldset_tui import __version__
from goldset_tui.commands import COMMANDS

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
HELP_ORDER = tuple(name for name, _ in COMMANDS)

_PACKAGE = "goldset_tui.commands"


def _unlisted_modules() -> list[ModuleType]:
    """Command modules not in ``COMMANDS``, imported (a directory listing finds them)."""
    import goldset_tui.commands as pkg

    listed = set(HELP_ORDER)
    names = set()
    for folder in pkg.__path__:
        for entry in os.listdir(folder):
            stem, ext = os.path.splitext(entry)
            if ext == ".py" or (
                not ext and os.path.isfile(os.path.join(folder, entry, "__init__.py"))
            ):
                names.add(stem)
    modules = []
    for name in sorted(names):
        if name.startswith("_") or name in listed:
            continue
        module = importlib.import_module(f"{_PACKAGE}.{name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            modules.append(module)
    return sorted(modules, key=lambda module: module.NAME)


def command_modules() -> list[ModuleType]:
    """Every command module, imported, in ``--help`` order (for tests and tools; the command line
    itself imports only the one it runs)."""
    listed = [importlib.import_module(f"{_PACKAGE}.{name}") for name in HELP_ORDER]
    return listed + _unlisted_modules()


class _CommandParser(argparse.ArgumentParser):
    """A subcommand's parser that imports its module and adds its arguments on first use: when
    its arguments are parsed or its help or usage is shown, never merely to be listed."""

    def __init__(self, *args: Any, command: str | ModuleType | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._command = command

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

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._load()
        return super().parse_known_args(args, namespace)

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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    listing: list[tuple[str, str, str | ModuleType]] = [(name, h, name) for name, h in COMMANDS]
    listing += [(m.NAME, m.HELP, m) for m in _unlisted_modules()]
    for name, help_line, command in listing:
        sub.add_parser(
            name,
            help=help_line,
            command=command,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    return parser


def error(message: str) -> int:
    print(f"goldset: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # Imported after parsing: `--help` and `--version` exit above without needing them.
    from goldset_tui.errors import InputError, StoreLockedError

    run = getattr(args, "_run", None)
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
