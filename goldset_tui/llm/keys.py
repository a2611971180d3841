"""Where an API key may come from, and keeping it out of everything goldset writes.

A key comes from the provider's environment variable or from a file named on the command line
(``--api-key-file``): never from a command-line value, which would sit in the shell's history and
in every process listing. It is never written: not in a manifest, a history record, a cache line
or an error message. Text that could hold it (an SDK's exception, a server's error body, which
some servers echo the request's headers into) goes through :func:`scrub` before it is shown.

Contract: :func:`read_key` returns the key, or None when ``optional`` and none is set; else one
``InputError`` that names the variable or the file and never the key's text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from goldset_tui.errors import InputError

HIDDEN = "[key hidden]"
# Anything that looks like a bearer credential, in case a server echoes one we were not given
# (a proxy's own key): the known provider prefixes, and a long opaque token after "Bearer".
_LOOKS_LIKE_A_KEY = re.compile(
    r"(?:sk-ant-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9_\-]{16,}|(?<=Bearer )[A-Za-z0-9._\-]{16,})"
)


def read_key(
    variable: str,
    key_file: str | Path | None,
    *,
    environ: Mapping[str, str],
    optional: bool = False,
) -> str | None:
    """The key from ``key_file`` (its first non-empty line) when given, else ``environ[variable]``."""
    if key_file is not None:
        # Named as given, less anything shaped like a key (a key typed where its file goes).
        path = Path(scrub(str(key_file)))
        try:
            raw = Path(key_file).read_bytes()
        except OSError as exc:
            raise InputError(path, f"cannot read the key file ({exc.strerror})") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(path, "the key file is not UTF-8 text") from None
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if not lines:
            raise InputError(path, "the key file is empty")
        if len(lines) > 1 or any(c.isspace() for c in lines[0]):
            raise InputError(path, "the key file must hold one key alone, on one line")
        return lines[0]
    key = (environ.get(variable) or "").strip()
    if key:
        return key
    if optional:
        return None
    raise InputError(None, f"no API key: set {variable}, or give --api-key-file FILE")


def scrub(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with each of ``secrets`` (and anything shaped like a key) replaced by HIDDEN."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, HIDDEN)
    return _LOOKS_LIKE_A_KEY.sub(HIDDEN, text)
