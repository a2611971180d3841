"""``NAME=PATH`` arguments (``--run bm25=runs/bm25.run``, ``--qrels alice=alice.qrels``): one
parser for every command, so each says the same thing about the same mistake.

The rules:

- The name is what comes before the first ``=``, with surrounding spaces trimmed (``a =x`` and
  ``a=y`` both name ``a``, so together they clash). The path is everything after that ``=``, as
  written: a path may itself hold ``=`` (``bm25=runs/k1=0.9.run`` is the file ``runs/k1=0.9.run``).
- Neither may be empty; a name of spaces is empty.
- Where a bare ``PATH`` is accepted too (``goldset eval``, ``compare``, ``fuse``, ``report``), a
  spec without ``=``, or one that names an existing file (even with ``=`` in it), is that file,
  named by its stem (``bm25.run.gz`` -> ``bm25``).
- Where a name is required (``goldset pool --run``, ``agreement --qrels/--run``), a spec that is
  itself an existing file is refused with the fix spelled out: read as ``NAME=PATH``,
  ``runs/k1=0.9.run`` would be the name ``runs/k1`` for a file ``0.9.run``.
- A name given twice (after trimming) is refused, at the second file.

Errors are :class:`InputError`: no file for a malformed spec (the spec is quoted), the second
file for a repeated name. Command-specific rules on the name (``goldset pool`` writes names into
the pool, so it restricts their characters) stay with the command.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from goldset_tui.errors import InputError


def name_from_path(path: Path) -> str:
    """The name a bare ``PATH`` gets: the file name without its extension (and without ``.gz``)."""
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    return Path(name).stem or name


def parse_named_path(spec: str, option: str, *, path_alone: bool = False) -> tuple[str, Path]:
    """One ``NAME=PATH`` (or, with ``path_alone``, a bare ``PATH``) given to ``option``."""
    name, path = split_named_path(spec, option, path_alone=path_alone)
    return (name if name is not None else name_from_path(Path(path))), Path(path)


def split_named_path(spec: str, option: str, *, path_alone: bool = False) -> tuple[str | None, str]:
    """``(NAME, PATH)``, or ``(None, PATH)`` for a bare path (``path_alone``), for a caller that
    names a bare path its own way (``goldset eval`` uses the run's tag when the file name says
    nothing); the same rules and errors as :func:`parse_named_path`."""
    name, sep, path = spec.partition("=")
    if path_alone and (not sep or Path(spec).exists()):
        return None, spec
    expected = "PATH or NAME=PATH" if path_alone else "NAME=PATH"
    if not sep:
        raise InputError(None, f"{option} {spec!r}: expected {expected}")
    if Path(spec).is_file():
        raise InputError(
            Path(spec), f"{option}: a file needs a name here: give it as NAME={spec} ({expected})"
        )
    name = name.strip()
    if not name:
        raise InputError(None, f"{option} {spec!r}: the name before '=' is empty ({expected})")
    if not path.strip():
        raise InputError(None, f"{option} {spec!r}: the path after '=' is empty ({expected})")
    return name, path


def parse_named_paths(
    specs: Iterable[str], option: str, *, path_alone: bool = False
) -> dict[str, Path]:
    """Every ``NAME=PATH`` given to ``option``, in order; a name given twice is an error."""
    out: dict[str, Path] = {}
    for spec in specs:
        name, path = parse_named_path(spec, option, path_alone=path_alone)
        if name in out:
            raise given_twice(name, path, option)
        out[name] = path
    return out


def given_twice(name: str, path: str | Path, option: str) -> InputError:
    """The error for a name given twice, for callers that name their paths in a later pass."""
    # Said for `a=x.run a=y.run` as for two files both called bm25.run: each needs its own name.
    return InputError(
        path, f"{option}: the name {name!r} is given twice; give each its own name with NAME=PATH"
    )
