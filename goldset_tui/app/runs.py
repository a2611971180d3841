"""Loading runs (and the qrels beside them) as `goldset eval`, `compare`, `fuse`, `report`,
`review` and `validate` all read them: NAME=PATH or a bare path named by its file or its tag,
standard input and pipes read once, and, for `goldset eval`, the plain-Python reader for small
inputs with Polars as the fallback.

Imports stay light on purpose: `goldset eval` on a small file must not load Polars or the store.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldset_tui.errors import InputError
from goldset_tui.specs import given_twice, name_from_path, parse_named_paths, split_named_path

if TYPE_CHECKING:  # imported lazily: `goldset --help` and a small evaluation never load Polars
    import polars as pl

    from goldset_tui.eval.measures import Measure
    from goldset_tui.io.run_lean import LeanRun
    from goldset_tui.io.small_trec import Qrels
    from goldset_tui.io.sources import Source

# A file name this plain says nothing about the system: the run's tag names it instead.
PLAIN_FILE_NAMES = frozenset(
    {"input", "run", "runs", "result", "results", "output", "out", "submission", "stdin", "-"}
)


def default_run_name(path: str, tag: str | None, *, stream: bool) -> str:
    """The file name without .gz and extension, or the run's tag (trec_eval's runid) when the
    file name says nothing more: standard input or a pipe, a plain name (``results.test``,
    ``run.txt``), or a name that holds the tag (``input.uic0301.gz`` is ``uic0301``)."""
    by_file = name_from_path(Path(path)) if path != "-" else "stdin"
    if not tag:
        return by_file
    plain = by_file.lower() in PLAIN_FILE_NAMES or by_file.isdigit()  # /dev/fd/63
    if stream or plain or tag in Path(path).name.split("."):
        return tag
    return by_file


def split_run_spec(spec: str) -> tuple[str | None, str]:
    """(NAME, PATH) from NAME=PATH, or (None, PATH): an existing file wins, so a path may
    contain '='."""
    return split_named_path(spec, "run", path_alone=True)  # rules: goldset_tui.specs


def parse_run_specs(specs: list[str]) -> dict[str, Path]:
    """NAME=PATH or PATH (the rules: goldset_tui.specs)."""
    return parse_named_paths(specs, "run", path_alone=True)


class RunInput:
    """A run on the command line: its name, its opened input and its tag (runid)."""

    __slots__ = ("name", "source", "tag")  # a plain class: `dataclasses` costs start-up time

    def __init__(self, name: str, source: Source, tag: str | None) -> None:
        self.name, self.source, self.tag = name, source, tag


def open_runs(specs: list[str]) -> dict[str, RunInput]:
    """Each spec opened (standard input and pipes are read now), named: NAME=PATH, else
    :func:`default_run_name`. Two runs with one name are an error."""
    from goldset_tui.io.sources import STDIN, open_source, run_tag

    if sum(1 for spec in specs if spec == STDIN) > 1:
        raise InputError(None, "standard input ('-') can be read only once")
    out: dict[str, RunInput] = {}
    for spec in specs:
        given, path = split_run_spec(spec)
        source = open_source(path)
        tag = run_tag(source)
        stream = path == STDIN or not Path(path).is_file()  # a pipe's name says nothing
        name = given if given is not None else default_run_name(path, tag, stream=stream)
        if name in out:
            raise given_twice(name, path, "run")
        out[name] = RunInput(name, source, tag)
    return out


def load_runs(specs: list[str]) -> dict[str, pl.DataFrame]:
    """Each run of ``specs`` (NAME=PATH or PATH) read whole, named as :func:`open_runs` names it."""
    return read_run_paths({name: r.source for name, r in open_runs(specs).items()})


def read_run_paths(paths: Mapping[str, Path | Source]) -> dict[str, pl.DataFrame]:
    from goldset_tui.io.trec import read_run

    return {name: read_run(path, tag=False, order=False) for name, path in paths.items()}


def load_eval_inputs(
    qrels: str | Source,
    inputs: Mapping[str, RunInput],
    measures: list[Measure],
    labeller: str | None = None,
    *,
    whole: bool = False,
) -> tuple[pl.DataFrame | Qrels, dict[str, Any]]:
    """The qrels and the runs, read in plain Python when they are small and every measure has
    a plain kernel (``eval.small``), else (or on any doubt about a file) by Polars. The runs
    are whole frames, lean runs (``io.run_lean``) or the small path's plain ``Run`` dicts, as
    ``app/scoring.score_runs`` takes them."""
    from goldset_tui.app.qrels import load_qrels
    from goldset_tui.io.sources import Source

    if isinstance(qrels, Source) and not whole:
        from goldset_tui.eval.small import fits
        from goldset_tui.io.small_trec import Doubt, read_qrels_small, read_run_small

        total = qrels.size() + sum(r.source.size() for r in inputs.values())
        if fits(total, measures):
            # Hundreds of thousands of small objects and not one reference cycle among them:
            # the cyclic collector would only walk them again and again (a third of the time).
            gc.disable()
            try:
                # The runs first: a doubt (a shuffled run over 4 MB) most often comes from them.
                plain_runs = {name: read_run_small(r.source) for name, r in inputs.items()}
                return read_qrels_small(qrels), plain_runs
            except Doubt:
                pass  # Polars reads them, and names the bad line if there is one
            finally:
                gc.enable()
    frame = load_qrels(qrels, labeller, subtopics=any(m.needs_subtopics for m in measures))
    from goldset_tui.progress import working  # its imports (shutil, bz2, lzma) take time

    with working("reading the runs"):
        if (
            whole
            or "subtopic" in frame.columns
            or any(m.entry.frame is not None for m in measures)  # Compat: the whole run
        ):
            return frame, read_run_paths({name: r.source for name, r in inputs.items()})
        return frame, {name: read_lean(r.source, frame) for name, r in inputs.items()}


def read_lean(source: Source, qrels: pl.DataFrame) -> LeanRun | pl.DataFrame:
    """The run as the measures need it: its judged rows ranked and its counts (``io.run_lean``,
    a fraction of the memory), or the whole run when the lean reader has any doubt."""
    from goldset_tui.io.run_lean import Doubt, read_run_lean
    from goldset_tui.io.trec import read_run

    try:
        return read_run_lean(source, qrels)
    except Doubt:
        return read_run(source, tag=False, order=False)  # the answer, or the bad line named
