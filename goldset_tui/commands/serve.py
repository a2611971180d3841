"""`goldset serve`: the judging screen in a web browser, for labellers who cannot use a terminal.

Everything is checked before the server listens (one line, exit 2): the labellers file, the pool,
the store, the keymap, and the address. The server itself is ``goldset_tui.serve.server``; the
labellers and their tokens are ``goldset_tui.serve.users``. See docs/serve.md.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from goldset_tui.errors import InputError

NAME = "serve"
HELP = "judge in a web browser: each labeller opens a private link; judgments go to the store"
DESCRIPTION = """\
Serve the judging screen to web browsers, for labellers who cannot use a terminal. Each labeller
opens http://HOST:PORT/?token=THEIR-TOKEN and judges POOL with the keyboard, exactly as with
`goldset judge`: every grade is on disk before the screen says saved, and one labeller can have
only one judging screen open at a time. The name judgments are kept under comes from the token.
The token then leaves the address bar: a session cookie keeps the labeller in for reloads (12
hours, or until the server restarts). Wrong tokens are limited per client address (behind a
reverse proxy, add --behind-proxy so that the client is told apart from the proxy).

Give each labeller a token first: --add-user prints it once (USERS.toml keeps only a salted
hash of it), --remove-user takes it back. Tokens are read from USERS.toml at every login, so
adding or removing a labeller needs no restart.

The server listens on 127.0.0.1 (this machine only) unless told otherwise, and the connection
is not encrypted. To let labellers in from other machines, use an SSH tunnel or a reverse proxy
that adds HTTPS (docs/serve.md shows both); --host with an address other machines can reach
also needs --allow-remote. Ctrl+C or SIGTERM saves and
closes every open judging screen, then stops.

Needs the optional web packages: pip install 'goldset-tui[serve]'

examples:
  goldset serve --add-user alice --users team.toml
  goldset serve pool.jsonl --store ~/golden/docs-store --users team.toml
  goldset serve pool.jsonl --store ~/golden/docs-store --users team.toml --port 8080
  goldset serve pool.jsonl --store ~/golden/docs-store --users team.toml --behind-proxy
  goldset serve --remove-user alice --users team.toml
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "pool", metavar="POOL", nargs="?", help="the pool file to judge (as for goldset judge)"
    )
    parser.add_argument("--store", metavar="DIR", help="the store the judgments go to")
    parser.add_argument(
        "--users",
        metavar="USERS.toml",
        required=True,
        help="the labellers and the hashes of their tokens",
    )
    parser.add_argument(
        "--corpus", metavar="FILE", help="document texts for a pool that lists ids only"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, this machine)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other machines can reach (unencrypted: put HTTPS in front)",
    )
    parser.add_argument(
        "--behind-proxy",
        action="store_true",
        help="a reverse proxy on this machine passes the requests on: limit wrong tokens by the"
        " client address it puts last in X-Forwarded-For, not by the proxy's own",
    )
    parser.add_argument(
        "--add-user", metavar="NAME", help="add a labeller and print their token (shown once)"
    )
    parser.add_argument(
        "--remove-user", metavar="NAME", help="remove a labeller: their token stops working"
    )


def is_this_machine(host: str) -> bool:
    """Whether ``host`` is a loopback address, reachable from this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def check_host(host: str, allow_remote: bool) -> str | None:
    """None for a loopback host; the warning to print for another one (refused without the flag)."""
    if is_this_machine(host):
        return None
    if not allow_remote:
        raise InputError(
            None,
            f"--host {host}: other machines could connect, and without encryption; add"
            " --allow-remote to do it anyway, or keep 127.0.0.1 behind an SSH tunnel or an"
            " HTTPS reverse proxy (docs/serve.md)",
        )
    return (
        f"listening on {host}: other machines can connect, and the connection is not encrypted"
        " (tokens and judgments travel in clear unless an HTTPS proxy is in front)"
    )


def _manage_users(args: argparse.Namespace) -> int:
    from goldset_tui.serve.users import add_labeller, remove_labeller

    if args.pool is not None:
        raise InputError(None, "--add-user and --remove-user take no POOL: they only edit --users")
    if args.add_user is not None and args.remove_user is not None:
        raise InputError(None, "give --add-user or --remove-user, not both")
    if args.remove_user is not None:
        remove_labeller(args.users, args.remove_user)
        print(f"removed {args.remove_user} from {args.users}", file=sys.stderr)
        return 0
    token = add_labeller(args.users, args.add_user)
    print(token)
    print(
        f"added {args.add_user} to {args.users}. The line above is their token, shown only"
        " this once: send it to them privately. They open http://HOST:PORT/?token=TOKEN",
        file=sys.stderr,
    )
    return 0


def _child_argv(pool: Path, store: Path, corpus: Path | None) -> Callable[[str], list[str]]:
    def argv(labeller: str) -> list[str]:
        # An argument list, never a shell line; `--labeller=` keeps a name starting with "-" a value.
        # -P: the server's working folder is not put on the import path, so a writable folder it
        # was started in cannot shadow goldset's modules in every labeller's process.
        out = [sys.executable, "-P", "-m", "goldset_tui.serve.child", str(pool)]
        out += [f"--labeller={labeller}", f"--store={store}", f"--parent={os.getpid()}"]
        return out + ([f"--corpus={corpus}"] if corpus else [])

    return argv


def run(args: argparse.Namespace) -> int:
    if args.add_user is not None or args.remove_user is not None:
        return _manage_users(args)
    if args.pool is None or args.store is None:
        raise InputError(None, "give the POOL to judge and --store DIR (see goldset serve --help)")
    if not 0 <= args.port <= 65535:
        raise InputError(None, f"--port {args.port}: expected a port number from 0 to 65535")
    warning = check_host(args.host, args.allow_remote)
    try:
        from goldset_tui.serve.server import JudgingServer, say
    except ImportError as exc:
        raise InputError(
            None,
            f"goldset serve needs the web packages ({(exc.name or '?').split('.')[0]} is missing):"
            " pip install 'goldset-tui[serve]'",
        ) from None
    server, labellers = _prepare(args, JudgingServer)
    if warning:
        say(f"warning: {warning}")
    from goldset_tui.serve.users import read_labellers

    older = sorted(e.name for e in read_labellers(args.users).values() if e.check is None)
    if older:
        say(
            f"note: {', '.join(older)} in {args.users} {'has a token' if len(older) == 1 else 'have tokens'}"
            " from before quick checks: a flood of wrong tokens on such a link's id can delay that"
            " labeller's login; a new token (--remove-user, then --add-user) adds one"
        )

    def listening(urls: list[str]) -> None:
        say(f"judging {args.pool} into {args.store}; labellers: {', '.join(labellers)}")
        for url in urls:
            say(f"labellers open {url}?token=THEIR-TOKEN (Ctrl+C saves and stops)")

    import asyncio

    asyncio.run(server.run(listening))
    return 0


def _prepare(args: argparse.Namespace, server_class: Any) -> tuple[Any, list[str]]:
    """Check everything the judging processes will need, so that a mistake is one line now
    rather than a blank page later; then build the server."""
    from goldset_tui.app.judging import open_judging
    from goldset_tui.serve.users import read_labellers
    from goldset_tui.store.journal import is_locked
    from goldset_tui.store.machine import refuse_machine
    from goldset_tui.ui.app import checked_config

    labellers = sorted(entry.name for entry in read_labellers(args.users).values())
    if not labellers:
        raise InputError(
            args.users, f"no labellers yet: goldset serve --add-user NAME --users {args.users}"
        )
    checked_config()
    # For no labeller in particular (the first by name used to stand in for all): the pool and the
    # store are checked once; each labeller's own checks follow, and each judging process makes
    # them again when it starts.
    prepared = open_judging(args.pool, None, store=args.store, corpus=args.corpus)
    for name in labellers:
        refuse_machine(prepared.project, name)
    for warning in prepared.warnings:
        print(f"goldset: warning: {warning}", file=sys.stderr)
    project = prepared.project
    server = server_class(
        users_path=Path(args.users),
        child_argv=_child_argv(
            Path(args.pool).resolve(),
            project.path.resolve(),
            Path(args.corpus).resolve() if args.corpus else None,
        ),
        is_busy=lambda name: is_locked(project.labeller_paths(name)[0]),
        host=args.host.strip("[]"),  # "[::1]" as in a URL, "::1" for the socket
        port=args.port,
        behind_proxy=args.behind_proxy,
    )
    return server, labellers
