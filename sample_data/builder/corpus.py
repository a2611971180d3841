"""The corpus: this Python's own standard-library documentation, cut into passages.

Every machine with Python 3.11 has this text, so the sample needs no download and a reader can
check any passage against `pydoc MODULE`. Passages are module docstrings (``json/0000``,
``json/0001``, ...) and the docstrings of public functions, classes and methods (``json#loads``,
``json#JSONDecoder.decode``), with the signature first, the way `help()` shows them. A docstring
longer than one passage continues as ``json#JSONDecoder/2`` and so on.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import warnings

# Modules a working Python programmer searches the docs of; chosen by hand, sorted for stability.
MODULES = sorted(
    [
        "abc",
        "argparse",
        "array",
        "ast",
        "builtins",
        "asyncio",
        "asyncio.events",
        "asyncio.locks",
        "asyncio.queues",
        "asyncio.streams",
        "asyncio.subprocess",
        "asyncio.tasks",
        "base64",
        "bisect",
        "calendar",
        "collections",
        "collections.abc",
        "concurrent.futures",
        "configparser",
        "contextlib",
        "copy",
        "csv",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "enum",
        "errno",
        "filecmp",
        "fnmatch",
        "fractions",
        "functools",
        "getpass",
        "glob",
        "gzip",
        "hashlib",
        "heapq",
        "hmac",
        "html",
        "http",
        "http.client",
        "http.server",
        "importlib",
        "inspect",
        "io",
        "ipaddress",
        "itertools",
        "json",
        "logging",
        "logging.handlers",
        "lzma",
        "math",
        "mimetypes",
        "multiprocessing",
        "operator",
        "os",
        "os.path",
        "pathlib",
        "pickle",
        "platform",
        "pprint",
        "queue",
        "random",
        "re",
        "secrets",
        "selectors",
        "shelve",
        "shlex",
        "shutil",
        "signal",
        "socket",
        "sqlite3",
        "ssl",
        "statistics",
        "string",
        "struct",
        "subprocess",
        "sys",
        "tarfile",
        "tempfile",
        "textwrap",
        "threading",
        "time",
        "timeit",
        "tomllib",
        "traceback",
        "typing",
        "unittest",
        "unittest.mock",
        "urllib.parse",
        "urllib.request",
        "uuid",
        "warnings",
        "weakref",
        "xml.etree.ElementTree",
        "zipfile",
        "zlib",
        "zoneinfo",
    ]
)

WORDS_PER_PASSAGE = 220  # a few hundred words: what a retriever's chunker typically makes
MIN_WORDS = 4  # "Return self==value." and friends are noise, not passages
MAX_MEMBERS_PER_CLASS = 40  # keeps giant classes (socket, Path) from swamping the corpus


def _words(text: str) -> int:
    return len(text.split())


def _split(text: str, limit: int = WORDS_PER_PASSAGE) -> list[str]:
    """Cut at paragraph breaks into pieces of about ``limit`` words (a lone huge paragraph is cut by words)."""
    pieces: list[str] = []
    current: list[str] = []
    count = 0
    for para in re.split(r"\n\s*\n", text.strip()):
        n = _words(para)
        if current and count + n > limit:
            pieces.append("\n\n".join(current))
            current, count = [], 0
        if n > 2 * limit:  # no blank lines to cut at: cut by words
            words = para.split()
            for i in range(0, len(words), limit):
                pieces.append(" ".join(words[i : i + limit]))
            continue
        current.append(para)
        count += n
    if current:
        pieces.append("\n\n".join(current))
    return [p for p in pieces if p.strip()]


def _signature(name: str, obj: object) -> str:
    try:
        text = f"{name}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return name
    # Defaults such as <object object at 0x7f...> carry a memory address that changes every run,
    # and platform.architecture's default is the running interpreter's path.
    return ADDRESS.sub("", text).replace(repr(sys.executable), "sys.executable")


ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    own = {module.__name__, "_" + module.__name__.rsplit(".", 1)[-1]}
    keep = []
    for name in sorted(set(names)):
        obj = getattr(module, name, None)
        if obj is None or inspect.ismodule(obj):
            continue
        # Only what the module defines (or its C accelerator does), not what it imported.
        ours = getattr(obj, "__module__", module.__name__) in own or hasattr(module, "__all__")
        if ours and (inspect.isclass(obj) or inspect.isroutine(obj)):
            keep.append(name)
    return keep


def _from_stdlib(obj: object) -> bool:
    """False for what a third-party package patched in (transformers adds Logger.info_once)."""
    module = getattr(obj, "__module__", None)
    return module is None or module.split(".")[0].lstrip("_") in STDLIB


STDLIB = {name.lstrip("_") for name in sys.stdlib_module_names} | {"builtins"}


def _own_doc(obj: object) -> str:
    """The docstring written for this object itself, not one inherited from object or a base."""
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    return inspect.cleandoc(doc) if isinstance(doc, str) else ""


def _member_docs(module_name: str, name: str, obj: object):
    """(id, title, text) for one public object, and for a class its own documented methods."""
    qual = f"{module_name}.{name}"
    doc = _own_doc(obj)
    if _words(doc) >= MIN_WORDS:
        head = f"class {_signature(name, obj)}" if inspect.isclass(obj) else _signature(name, obj)
        yield f"{module_name}#{name}", qual, f"{head}\n\n{doc}"
    if not inspect.isclass(obj):
        return
    members = 0
    for attr in sorted(vars(obj)):
        if attr.startswith("_") and attr not in {
            "__init__",
            "__post_init__",
            "__enter__",
            "__exit__",
        }:
            continue
        member = vars(obj)[attr]
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if isinstance(member, property):
            member = member.fget
        if not inspect.isroutine(member) or not _from_stdlib(member):
            continue
        mdoc = _own_doc(member)
        if _words(mdoc) < MIN_WORDS or mdoc == doc:
            continue
        yield (
            f"{module_name}#{name}.{attr}",
            f"{qual}.{attr}",
            f"{_signature(attr, member)}\n\n{mdoc}",
        )
        members += 1
        if members >= MAX_MEMBERS_PER_CLASS:
            break


def module_passages(module_name: str) -> list[dict]:
    """Every passage of one module, in a stable order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = importlib.import_module(module_name)
    rows: list[dict] = []
    for i, piece in enumerate(_split(_own_doc(module))):
        rows.append({"_id": f"{module_name}/{i:04d}", "title": module_name, "text": piece})
    for name in _public_names(module):
        for doc_id, title, text in _member_docs(module_name, name, getattr(module, name)):
            for part, piece in enumerate(_split(text), start=1):
                suffix = "" if part == 1 else f"/{part}"
                rows.append({"_id": doc_id + suffix, "title": title, "text": piece})
    return rows


def build_corpus(modules: list[str] = MODULES) -> list[dict]:
    """All passages; a text seen before (an alias re-exported by a second module) is kept once."""
    seen_ids: set[str] = set()
    seen_texts: set[str] = set()
    rows = []
    for module_name in modules:
        for row in module_passages(module_name):
            if row["_id"] in seen_ids or row["text"] in seen_texts:
                continue
            seen_ids.add(row["_id"])
            seen_texts.add(row["text"])
            rows.append(row)
    return rows
