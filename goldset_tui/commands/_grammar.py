"""The command line's one grammar (docs/cli.md): the old spellings, kept for one release.

Each concept has one spelling, the one ``--help`` shows. A spelling the command line used before
still parses to the same ``dest`` (so a command's ``run`` sees no difference), is hidden from
``--help``, and says once per invocation, on one line of stderr, what it is now. "Once" is per
parse: the note is remembered on the namespace being filled, not on the parser, so a parser
built once and used twice (tests, the home screen) still says it each time.
"""

from __future__ import annotations

import argparse
import copy
import sys
from typing import Any

NOTE = "goldset: {old} is now {new} (the old spelling goes in the next release)"
# Where the notes already given in this parse are kept: a name no command reads.
_SAID = "_old_spellings_said"


def say_once(namespace: object, old: str, new: str) -> None:
    """Print NOTE for ``old`` unless this parse (``namespace``) has said it already."""
    said: set[str] = getattr(namespace, _SAID, None) or set()
    if old in said:
        return
    said.add(old)
    setattr(namespace, _SAID, said)
    print(NOTE.format(old=old, new=new), file=sys.stderr)


_WARNING_CLASSES: dict[type[argparse.Action], type[argparse.Action]] = {}


def _warning_class(base: type[argparse.Action]) -> type[argparse.Action]:
    """``base`` (argparse's store, append, store_true ... action) that first says the note."""
    if base not in _WARNING_CLASSES:

        class OldSpelling(base):  # type: ignore[valid-type,misc]
            now = ""

            def __call__(
                self,
                parser: argparse.ArgumentParser,
                namespace: argparse.Namespace,
                values: Any,
                option_string: str | None = None,
            ) -> None:
                say_once(namespace, self.option_strings[0], self.now)
                super().__call__(parser, namespace, values, option_string)

        OldSpelling.__name__ = f"OldSpelling{base.__name__}"
        _WARNING_CLASSES[base] = OldSpelling
    return _WARNING_CLASSES[base]


def is_old_spelling(action: argparse.Action) -> bool:
    return type(action) in _WARNING_CLASSES.values()


def old_name(
    parser: argparse.ArgumentParser | Any, old: str, like: argparse.Action, now: str | None = None
) -> argparse.Action:
    """Add ``old`` as a hidden alias of ``like`` (the action of the new spelling): the same dest,
    type, choices and action, no default of its own (the new spelling's stands), and the note
    "OLD is now NOW" (NOW: the new spelling's longest option string, unless given)."""
    if like.required:
        # argparse would still ask for the new spelling when only the old one is given.
        raise ValueError(f"{old}: a required option cannot have an old spelling")
    alias = copy.copy(like)
    alias.option_strings = [old]
    alias.help = argparse.SUPPRESS
    alias.default = argparse.SUPPRESS
    alias.__class__ = _warning_class(type(like))
    alias.now = now or max(like.option_strings, key=len)  # type: ignore[attr-defined]
    return parser._add_action(alias)


def old_option(
    parser: argparse.ArgumentParser | Any, old: str, *, now: str, **kwargs: Any
) -> argparse.Action:
    """Add ``old`` as a hidden option of its own kind (``kwargs`` as for ``add_argument``: it
    keeps the old form of value, e.g. classify's ``--json`` flag beside ``--format json``) that
    says "OLD is now NOW" once."""
    action: argparse.Action = parser.add_argument(
        old, help=argparse.SUPPRESS, default=argparse.SUPPRESS, **kwargs
    )
    action.__class__ = _warning_class(type(action))
    action.now = now  # type: ignore[attr-defined]
    return action


class FlagChoice(argparse.Action):
    """``--format {text,json}`` stored as the boolean ``dest`` an old ``--json`` flag set: True
    when the value is ``self.const`` (so the command's code reading the flag needs no change)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values == self.const)
