"""One labeller's judging screen under `goldset serve`: ``python -m goldset_tui.serve.child``.

The server starts this once per browser session, with an argument list it built itself (the
labeller's name from USERS.toml). It is `goldset judge` without the terminal check: the same
``open_judging`` (goldset_tui.app.judging) and ``judge_screen`` (goldset_tui.ui.opening), so the
same writer, durable before "saved", and the same per-labeller journal lock, run by the same app,
whose SIGHUP/SIGTERM handler flushes every screen and exits. Textual's web driver is chosen by
the server through ``TEXTUAL_DRIVER``.

The server account's config file is read (keymap, theme, reading width) but never written: it is
every web labeller's, so ``w`` changes the reading width for that session only.

Anything refused before the screen opens (the lock held by another session, a bad keymap, a pool
that no longer reads) is one line on stderr and exit status 2; the server shows that line in the
browser. If the server dies without closing this process (SIGKILL), the kernel sends it SIGHUP
(Linux's parent-death signal), so it never outlives the server holding the labeller's lock.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldset_tui.config import Config

_PR_SET_PDEATHSIG = 1


def _hang_up_with_parent(parent: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGHUP), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the server died before the line above: nothing to serve
        raise SystemExit(128 + int(signal.SIGHUP))


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m goldset_tui.serve.child")
    parser.add_argument("pool")
    parser.add_argument("--labeller", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--corpus")
    parser.add_argument("--parent", type=int, required=True)
    return parser.parse_args(argv)


def labeller_config(config: Config) -> Config:
    """The server account's config, read but never written: every web labeller shares that file,
    so what one changes on screen (``w``'s reading width) lasts for their session only."""
    return dataclasses.replace(config, shared=True)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    _hang_up_with_parent(args.parent)
    from goldset_tui.app.judging import open_judging
    from goldset_tui.errors import InputError, StoreLockedError
    from goldset_tui.ui.app import GoldsetApp, checked_config
    from goldset_tui.ui.opening import judge_screen

    try:
        config = labeller_config(checked_config())
        prepared = open_judging(args.pool, args.labeller, store=args.store, corpus=args.corpus)
        screen = judge_screen(prepared)
    except (InputError, StoreLockedError) as exc:
        print(f"goldset: error: {exc}", file=sys.stderr)
        return 2
    app = GoldsetApp(lambda: screen, config=config)
    try:
        result = app.run()
    finally:
        screen.flush()  # idempotent; also covers an exception inside the app
    for message in app.flush_errors:
        print(f"goldset: warning: {message}", file=sys.stderr)
    return int(result or 0)


if __name__ == "__main__":
    raise SystemExit(main())
