"""The labellers of `goldset serve` and their tokens: USERS.toml.

A token is what a labeller pastes into the browser: ``<id>.<secret>``, where ``id`` (12 hex
digits) picks the labeller's entry and ``secret`` is 32 random bytes. USERS.toml keeps, per
labeller, the id and a salted scrypt hash of the whole token, never the token itself, so a copy
of the file (a backup, a shared folder) lets nobody in::

    [labellers.alice]
    id = "3f9a0c1b2d4e"
    hash = "scrypt$16384$8$1$<salt, base64>$<key, base64>"
    check = "<16 hex digits>"
    created = "2026-11-30T19:30:00Z"

``check`` is the first 64 bits of HMAC-SHA256 of the token keyed by the hash's salt: the server
refuses a wrong token for a known id with it before any scrypt work (:func:`fails_check`), so a
flood that knows a labeller's id cannot keep that labeller waiting. Why this keeps a leaked file
as useless as before is in docs/serve.md. Entries written before it have none, and are checked
with scrypt alone.

Contract: :func:`labeller_for` returns the labeller's name for a valid token and None for
anything else, comparing hashes in constant time (``hmac.compare_digest``) and spending the same
scrypt work on an unknown id as on a known one. The server goes further and answers a token whose
id is not in the file before any scrypt work (:func:`token_id`), so a flood of made-up tokens
costs nothing: that answer tells only that an id is unknown, and an id opens nothing without the
256-bit secret after it (docs/serve.md). The name always comes from this file, never from the
request.
Bad files raise :class:`InputError` naming the file, the line when known, and what is wrong.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from goldset_tui.errors import InputError
from goldset_tui.io.tomlfile import parse_toml
from goldset_tui.store.files import atomic_write_bytes, now_iso
from goldset_tui.text import visible

# scrypt's interactive-login parameters (2^14, 8, 1): about 16 MiB and tens of milliseconds per
# check. The token is already 256 random bits; the hash only keeps a leaked file useless.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
_SALT_BYTES = 16
_KEY_BYTES = 32
_ID = re.compile(r"[0-9a-f]{12}")
_TOKEN = re.compile(r"([0-9a-f]{12})\.([A-Za-z0-9_-]{43})")
_MAX_NAME = 100
_CHECK = re.compile(r"[0-9a-f]{16}")
HEADER = (
    "# The labellers goldset serve lets in. Only a salted hash of each token is kept here:\n"
    "# add one with `goldset serve --add-user NAME --users FILE` (it prints the token once).\n"
)


@dataclass(frozen=True)
class Labeller:
    name: str
    id: str
    hash: str
    check: str | None = None  # see token_check; None in entries written before it


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_token(token: str, *, salt: bytes | None = None) -> str:
    """The stored form of a token: ``scrypt$N$r$p$salt$key`` (salt and key in base64)."""
    salt = secrets.token_bytes(_SALT_BYTES) if salt is None else salt
    key = _scrypt(token, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(key)}"


def _scrypt(token: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        token.encode("utf-8"),
        salt=salt,
        n=n,
        r=r,
        p=p,
        maxmem=256 * n * r + 2**20,
        dklen=_KEY_BYTES,
    )


def _parse_hash(stored: str) -> tuple[int, int, int, bytes, bytes] | None:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        return None
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt, key = (
            base64.b64decode(parts[4], validate=True),
            base64.b64decode(parts[5], validate=True),
        )
    except ValueError:
        return None
    # Bounds keep a tampered file from asking for gigabytes (scrypt needs 128 * n * r bytes);
    # n must be a power of two.
    if not (n >= 2 and n & (n - 1) == 0 and r >= 1 and n * r <= 2**20 and 1 <= p <= 4):
        return None
    if len(salt) < 8 or len(key) != _KEY_BYTES:
        return None
    return n, r, p, salt, key


def token_matches(token: str, stored: str) -> bool:
    """Whether ``token`` hashes to ``stored``; the comparison takes the same time either way."""
    parsed = _parse_hash(stored)
    if parsed is None:
        return False
    n, r, p, salt, key = parsed
    return hmac.compare_digest(_scrypt(token, salt, n, r, p), key)


def token_check(token: str, stored: str) -> str:
    """The entry's ``check``: HMAC-SHA256 of the token keyed by ``stored``'s salt, 64 bits."""
    parsed = _parse_hash(stored)
    salt = parsed[3] if parsed else b""
    return hmac.new(salt, token.encode("utf-8"), hashlib.sha256).hexdigest()[:16]


def fails_check(entry: Labeller, token: str) -> bool:
    """Whether ``token`` is certainly not ``entry``'s, known in microseconds (no scrypt); False
    when the entry has no check (scrypt decides) or the token passes it (scrypt still decides)."""
    if entry.check is None:
        return False
    return not hmac.compare_digest(token_check(token, entry.hash), entry.check)


# A fixed entry to hash against when the id is unknown: the same work, then a certain "no".
_DECOY = (
    f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(bytes(_SALT_BYTES))}${_b64(bytes(_KEY_BYTES))}"
)


def token_id(token: str) -> str | None:
    """The id part of a well-formed token (which picks its USERS.toml entry), else None."""
    found = _TOKEN.fullmatch(token)
    return found.group(1) if found else None


def labeller_for(labellers: dict[str, Labeller], token: str) -> str | None:
    """The name of the labeller whose token this is, or None. ``labellers`` is keyed by id."""
    found = _TOKEN.fullmatch(token)
    entry = labellers.get(found.group(1)) if found else None
    matches = token_matches(token, entry.hash if entry else _DECOY)
    return entry.name if entry is not None and matches else None


_NAME_RULE = (
    f"a labeller's name must be 1 to {_MAX_NAME} characters, without control characters or"
    " spaces at either end"
)


def _plain(name: str) -> bool:
    return (
        bool(name.strip())
        and name == name.strip()
        and visible(name, keep_newlines=False) == name
        and len(name) <= _MAX_NAME
    )


def check_name(name: str) -> str:
    """A labeller name as typed on the command line, refused when it could not be shown plainly."""
    if not _plain(name):
        raise InputError(None, f"--add-user {visible(name, keep_newlines=False)!r}: {_NAME_RULE}")
    from goldset_tui.store.machine import CONSENSUS, CONSENSUS_TAKEN  # (imports Polars)

    if name == CONSENSUS:  # the server, which checks every labeller, would not start
        raise InputError(None, f"--add-user {name!r}: {CONSENSUS_TAKEN}")
    return name


def _line_of(raw: bytes, name: str) -> int | None:
    """The line of ``[labellers.NAME]`` (however quoted), to point at in an error."""
    for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), start=1):
        if not line.strip().startswith("[labellers."):
            continue
        try:  # the header alone is a valid TOML document naming one table
            if name in tomllib.loads(line).get("labellers", {}):
                return number
        except tomllib.TOMLDecodeError:
            continue
    return None


def read_labellers(path: str | Path) -> dict[str, Labeller]:
    """USERS.toml's labellers keyed by id; a missing file is an error (the server needs users)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(
            path,
            "no such file; create it with `goldset serve --add-user NAME --users FILE`",
        ) from None
    except IsADirectoryError:
        raise InputError(path, "is a folder, not a labellers file") from None
    return _labellers(path, raw, parse_toml(path, raw, what="labellers file"))


def _labellers(path: Path, raw: bytes, data: dict[str, Any]) -> dict[str, Labeller]:
    from goldset_tui.store.machine import CONSENSUS, CONSENSUS_TAKEN  # (imports Polars)

    table = data.get("labellers", {})
    if not isinstance(table, dict):
        raise InputError(path, "'labellers' must be a table of [labellers.NAME] entries")
    out: dict[str, Labeller] = {}
    for name, entry in table.items():
        line = _line_of(raw, name)
        shown = visible(name, keep_newlines=False)
        if not isinstance(entry, dict):
            raise InputError(path, f"labeller {shown!r} must be a table", line=line)
        if not _plain(name):
            # A hand-edited name would reach the server's log and the page: keep it printable.
            raise InputError(
                path, f"labeller {shown!r}: {_NAME_RULE}", line=line, column="labellers"
            )
        if name == CONSENSUS:
            # Written before goldset refused the name: the server would stop at start-up on
            # this labeller with a message that did not name this file.
            raise InputError(path, f"labeller {name!r}: {CONSENSUS_TAKEN}", line=line)
        ident, stored = entry.get("id"), entry.get("hash")
        if not isinstance(ident, str) or not _ID.fullmatch(ident):
            raise InputError(path, f"labeller {shown!r}: id must be 12 hex digits", line=line)
        if not isinstance(stored, str) or _parse_hash(stored) is None:
            raise InputError(
                path, f"labeller {shown!r}: hash is not a scrypt hash goldset wrote", line=line
            )
        if ident in out:
            raise InputError(
                path, f"labeller {shown!r} has the same id as {out[ident].name!r}", line=line
            )
        check = entry.get("check")
        if check is not None and not (isinstance(check, str) and _CHECK.fullmatch(check)):
            raise InputError(
                path, f"labeller {shown!r}: check must be 16 hex digits goldset wrote", line=line
            )
        out[ident] = Labeller(name, ident, stored, check)
    return out


def _read_table(path: Path) -> tuple[dict[str, Any], dict[str, Labeller]]:
    if not path.exists():
        return {}, {}
    raw = path.read_bytes()
    data = parse_toml(path, raw, what="labellers file")
    return data, _labellers(path, raw, data)


def _write(path: Path, data: dict[str, Any]) -> None:
    atomic_write_bytes(path, HEADER.encode("utf-8") + tomli_w.dumps(data).encode("utf-8"))


def add_labeller(path: str | Path, name: str) -> str:
    """Add ``name`` to USERS.toml (created if missing) and return their new token, which is
    stored nowhere: the caller shows it once. A name already there is refused."""
    path = Path(path)
    check_name(name)
    if not path.parent.is_dir():
        # A mistyped folder would get a labellers file that the server, given the right path,
        # never reads: the new labeller's token would then be refused with no clue why.
        raise InputError(path, "its folder does not exist; create it first or fix the path")
    data, known = _read_table(path)
    if any(entry.name == name for entry in known.values()):
        raise InputError(
            path,
            f"labeller {name!r} already has a token; to give them a new one, first"
            f" `goldset serve --remove-user {name} --users {path}`",
        )
    ident = secrets.token_hex(6)
    while ident in known:  # 48 random bits: a clash is all but impossible, but cheap to rule out
        ident = secrets.token_hex(6)
    token = f"{ident}.{secrets.token_urlsafe(32)}"
    stored = hash_token(token)
    data.setdefault("labellers", {})[name] = {
        "id": ident,
        "hash": stored,
        "check": token_check(token, stored),
        "created": now_iso(),
    }
    _write(path, data)
    return token


def remove_labeller(path: str | Path, name: str) -> None:
    """Remove ``name`` from USERS.toml: their token stops opening new judging screens."""
    path = Path(path)
    data, known = _read_table(path)
    if not any(entry.name == name for entry in known.values()):
        have = ", ".join(repr(e.name) for e in known.values()) or "none"
        raise InputError(path, f"no labeller {name!r} here (labellers: {have})")
    del data["labellers"][name]
    _write(path, data)
