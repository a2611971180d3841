"""The ``goldset`` command: parse, validate, dispatch. Thin on purpose.

Each subcommand lives in its own module under ``goldset_tui.commands`` and exposes ``NAME``,
``HELP`` (one line), optional ``DESCRIPTION``, ``add_arguments(parser)`` and
``run(args) -> int``; ``HELP_ORDER`` below sets their order in ``--help``. They are discovered,
so adding a command touches no shared file.

Bad input anywhere raises :class:`goldset_tui.errors.InputError`; here it becomes one line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from types import ModuleType

from goldset_tui import __version__
from goldset_tui.errors import InputError, StoreLockedError

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
    "check",
    "pool",
    "qrels",
    "import",
    "classify",
    "sample",
    "spotcheck",
    "eval",
    "compare",
    "fuse",
    "report",
    "review",
    "agreement",
    "adjudicate",
)


def command_modules() -> list[ModuleType]:
    import goldset_tui.commands as pkg

    modules = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            modules.append(module)

    def position(module: ModuleType) -> tuple[int, str]:
        name = module.NAME
        return (HELP_ORDER.index(name) if name in HELP_ORDER else len(HELP_ORDER), name)

    return sorted(modules, key=position)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="goldset",
        description="Build and judge golden sets for retrieval evaluation, in the terminal.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"goldset {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in command_modules():
        sp = sub.add_parser(
            module.NAME,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(sp)
        sp.set_defaults(_run=module.run)
    return parser


def error(message: str) -> int:
    print(f"goldset: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
