"""One front door for qrels and runs handed to goldset from a notebook.

Every public function of ``goldset_tui.eval`` that takes qrels or a run sends it through
:func:`qrels_frame` or :func:`run_frame`, so all of them accept the same things, in the forms IR
researchers already hold:

- a Polars DataFrame, or a pandas DataFrame, with goldset's column names (``query_id, doc_id,
  grade`` / ``query_id, doc_id, score``) or the usual other spellings (trec_eval's and
  ir_measures' ``relevance``, pytrec_eval's and trectools' ``qid``/``query``, ``docid``/``docno``,
  ranx's ``q_id``, ``rel``...); extra columns (``iter``, ``Q0``, ``tag``) are left out;
- pytrec_eval's and ranx's nested dicts: ``{query_id: {doc_id: grade}}`` for qrels,
  ``{query_id: {doc_id: score}}`` for a run (and ranx's ``Qrels``/``Run`` objects);
- ir_measures' named tuples, any iterable of them: ``Qrel(query_id, doc_id, relevance)``,
  ``ScoredDoc(query_id, doc_id, score)``;
- a path (``str`` or ``Path``): a TREC qrels or run file (gzipped or not, ``-`` for standard
  input), or a goldset table (``.parquet``, ``.csv``, ``.tsv``, ``.jsonl``) with the columns above.

Anything else is a ``TypeError`` that lists these. A Polars frame already in goldset's schema
(the column names and types below) is passed on as it is, unchecked and uncopied, as it always
was: goldset's readers made it and checked it. Bad values in any other object (a missing column, a
fractional grade, a non-finite score, one document twice in a query's run, two grades for one
judgment) are a ``ValueError`` naming the column; in a file, the readers' ``InputError``.

What the result guarantees is goldset's frame contract (docs/DEVELOPING.md): qrels ``query_id: str,
doc_id: str, grade: i64``; run ``query_id: str, doc_id: str, score: f64``. A run's ``rank`` column
is dropped unless the frame is already one of goldset's own (a Polars frame with only goldset's
run columns, as ``read_run`` and the fusions return it): trec_eval ignores the rank field of a
run file and orders by score, and so does goldset, so a file's ranks must not leak in through a
frame. pandas is imported only when the object is a pandas frame, and converted column by column
through NumPy or plain lists: neither pandas nor pyarrow is needed to use goldset.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeAlias

import polars as pl

from goldset_tui.io.trec import QRELS_SCHEMA

if TYPE_CHECKING:
    from goldset_tui.errors import InputError


class Frame(Protocol):
    """A data frame as far as the type checker needs to know: Polars' or pandas'."""

    @property
    def columns(self) -> object: ...


class QrelLike(Protocol):
    """ir_measures' ``Qrel`` (any named tuple with these fields)."""

    @property
    def query_id(self) -> str: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def relevance(self) -> int: ...


class ScoredDocLike(Protocol):
    """ir_measures' ``ScoredDoc`` (any named tuple with these fields)."""

    @property
    def query_id(self) -> str: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def score(self) -> float: ...


PathLike: TypeAlias = "str | os.PathLike[str]"
QrelsInput: TypeAlias = "Frame | Mapping[str, Mapping[str, int]] | Iterable[QrelLike] | PathLike"
RunInput: TypeAlias = (
    "Frame | Mapping[str, Mapping[str, float]] | Iterable[ScoredDocLike] | PathLike"
)

RUN_SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
# goldset's own run frames (read_run, the fusions): their rank is trec_eval's order already.
OWN_RUN_COLUMNS = frozenset({"query_id", "doc_id", "score", "rank", "tag"})

# Other spellings of each column, lower case, in order of preference after goldset's own.
SPELLINGS = {
    "query_id": ("qid", "q_id", "query", "topic", "topic_id"),
    "doc_id": ("docid", "doc", "docno", "doc_no", "document", "document_id"),
    "grade": ("relevance", "rel", "label", "judgment", "judgement"),
    "score": ("sim", "similarity"),
    "subtopic": ("subtopic_id",),
}

ACCEPTED = {
    "qrels": (
        "a Polars or pandas DataFrame with columns query_id, doc_id, grade (or relevance, rel); "
        "a dict {query_id: {doc_id: grade}} (pytrec_eval, ranx); an iterable of "
        "ir_measures Qrel(query_id, doc_id, relevance) tuples; or the path of a TREC qrels "
        "file or a .parquet/.csv/.tsv/.jsonl table"
    ),
    "run": (
        "a Polars or pandas DataFrame with columns query_id, doc_id, score; a dict "
        "{query_id: {doc_id: score}} (pytrec_eval, ranx); an iterable of ir_measures "
        "ScoredDoc(query_id, doc_id, score) tuples; or the path of a TREC run file or a "
        ".parquet/.csv/.tsv/.jsonl table"
    ),
}
TABLE_SUFFIXES = frozenset({".parquet", ".pq", ".csv", ".tsv", ".tab", ".jsonl", ".ndjson"})


def qrels_frame(qrels: QrelsInput) -> pl.DataFrame:
    """``qrels`` in any accepted form as goldset's qrels frame (see the module docstring): to
    convert once what several calls will take."""
    if _is_own(qrels, QRELS_SCHEMA):
        assert isinstance(qrels, pl.DataFrame)
        return qrels
    return _coerce(qrels, "qrels", "grade")


def run_frame(run: RunInput) -> pl.DataFrame:
    """``run`` in any accepted form as goldset's run frame (see the module docstring): to
    convert once what several calls will take."""
    if _is_own(run, RUN_SCHEMA):
        assert isinstance(run, pl.DataFrame)
        if set(run.columns) <= OWN_RUN_COLUMNS:
            return run
    return _coerce(run, "run", "score")


def run_frames(
    runs: Mapping[str, RunInput] | Iterable[RunInput],
) -> dict[str, pl.DataFrame] | list[pl.DataFrame]:
    """Several runs (a mapping of names to runs, or a sequence of runs), each through
    :func:`run_frame`; the names and the order are kept."""
    if isinstance(runs, Mapping):
        return {str(name): run_frame(run) for name, run in runs.items()}
    if isinstance(runs, str | bytes | os.PathLike) or not isinstance(runs, Iterable):
        raise TypeError(
            f"runs must be a dict of named runs or a list of runs, not {_kind(runs)}; "
            f"each run: {ACCEPTED['run']}"
        )
    return [run_frame(run) for run in runs]


def _is_own(obj: object, schema: Mapping[str, pl.DataType | type[pl.DataType]]) -> bool:
    """A Polars frame already in goldset's schema: passed through untouched, as before."""
    if not isinstance(obj, pl.DataFrame):
        return False
    have = obj.schema
    return all(have.get(name) == dtype for name, dtype in schema.items())


def _kind(obj: object) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}".removeprefix("builtins.")


def _coerce(obj: object, what: str, value: str) -> pl.DataFrame:
    path: Path | None = None
    if isinstance(obj, pl.LazyFrame):
        obj = obj.collect()
    if isinstance(obj, pl.DataFrame):
        frame = obj
    elif _is_pandas_frame(obj):
        frame = _from_pandas(obj, what, value)
    elif _is_ranx(obj):
        frame = _from_nested(obj.to_dict(), what, value)  # type: ignore[attr-defined]
    elif isinstance(obj, str | os.PathLike):
        path = Path(os.fspath(obj))
        if path.suffix.lower() not in TABLE_SUFFIXES:
            return _read_trec(obj, what)
        from goldset_tui.io.tables import read_table

        frame = read_table(path, string_columns=())
    elif isinstance(obj, Mapping):
        frame = _from_nested(obj, what, value)
    elif isinstance(obj, Iterable) and not isinstance(obj, bytes):
        frame = _from_tuples(obj, what, value)
    else:
        raise TypeError(f"{what} must be {ACCEPTED[what]}; got {_kind(obj)}")
    return _normalise(frame, what, value, path)


def _read_trec(obj: str | os.PathLike[str], what: str) -> pl.DataFrame:
    from goldset_tui.io.trec import read_qrels, read_run

    if what == "qrels":
        return read_qrels(os.fspath(obj))
    return read_run(os.fspath(obj), tag=False, order=False)  # as `goldset eval` reads it


def _is_pandas_frame(obj: object) -> bool:
    module = type(obj).__module__
    return module.split(".")[0] == "pandas" and hasattr(obj, "columns") and hasattr(obj, "dtypes")


def _is_ranx(obj: object) -> bool:
    return type(obj).__module__.split(".")[0] == "ranx" and callable(getattr(obj, "to_dict", None))


def _from_pandas(obj: object, what: str, value: str) -> pl.DataFrame:
    """Only the columns goldset reads, one at a time: numbers through NumPy (no copy of Python
    objects), anything else (ids, which pandas keeps as objects or strings) as a plain list.
    ``pl.from_pandas`` would need pyarrow."""
    import numpy as np

    names = [str(c) for c in obj.columns]  # type: ignore[attr-defined]
    chosen = _chosen(names, what, value)
    columns: dict[str, pl.Series] = {}
    for target, source in chosen.items():
        series = obj[source]  # type: ignore[index]
        array = series.to_numpy()
        if array.dtype.kind in "iufb":
            # pandas marks a missing number as NaN: a null here, refused as an empty value.
            columns[target] = pl.Series(target, np.ascontiguousarray(array), nan_to_null=True)
        else:
            columns[target] = pl.Series(target, series.tolist(), strict=False)
    return pl.DataFrame(columns)


def _from_nested(obj: object, what: str, value: str) -> pl.DataFrame:
    assert isinstance(obj, Mapping)
    qids: list[str] = []
    dids: list[str] = []
    values: list[object] = []
    for qid, docs in obj.items():
        if not isinstance(docs, Mapping):
            raise TypeError(
                f"{what} must be {ACCEPTED[what]}; got a dict whose query {qid!r} maps to "
                f"{_kind(docs)}"
            )
        for did, val in docs.items():
            qids.append(qid)
            dids.append(did)
            values.append(val)
    return pl.DataFrame(
        [
            pl.Series("query_id", qids, strict=False),
            pl.Series("doc_id", dids, strict=False),
            pl.Series(value, values, strict=False),
        ]
    )


def _from_tuples(obj: Iterable[object], what: str, value: str) -> pl.DataFrame:
    field = "relevance" if what == "qrels" else "score"
    qids: list[object] = []
    dids: list[object] = []
    values: list[object] = []
    for item in obj:
        try:
            qid, did, val = item.query_id, item.doc_id, getattr(item, field)  # type: ignore[attr-defined]
        except AttributeError:
            raise TypeError(
                f"{what} must be {ACCEPTED[what]}; got an iterable holding {_kind(item)}"
            ) from None
        qids.append(qid)
        dids.append(did)
        values.append(val)
    return pl.DataFrame(
        [
            pl.Series("query_id", qids, strict=False),
            pl.Series("doc_id", dids, strict=False),
            pl.Series(value, values, strict=False),
        ]
    )


def _chosen(names: list[str], what: str, value: str, path: Path | None = None) -> dict[str, str]:
    """goldset's column -> the frame's column that holds it."""
    lower = {n.lower(): n for n in reversed(names)}  # the first of two same-case spellings wins
    out: dict[str, str] = {}
    for target in ("query_id", "doc_id", value, "subtopic"):
        for spelling in (target, *SPELLINGS[target]):
            if spelling in lower:
                out[target] = lower[spelling]
                break
        else:
            if target != "subtopic":
                from goldset_tui.text import visible

                spellings = ", ".join((target, *SPELLINGS[target]))
                # The names are the frame's or the file's own text: an escape among them would
                # be obeyed where the traceback is printed.
                have = ", ".join(visible(n, keep_newlines=False) for n in names)
                message = (
                    f"no column for {target} (looked for {spellings}); the "
                    f"{'file' if path else 'frame'} has {have or 'no columns'}"
                )
                if path is not None:
                    from goldset_tui.errors import InputError

                    raise InputError(path, message)
                raise ValueError(f"{what}: {message}")
    return out


def _problem(what: str, path: Path | None, message: str, column: str) -> ValueError | InputError:
    if path is not None:
        from goldset_tui.errors import InputError

        return InputError(path, message, column=column)
    return ValueError(f"{what}: column {column!r}: {message}")


def _normalise(frame: pl.DataFrame, what: str, value: str, path: Path | None) -> pl.DataFrame:
    """The chosen columns, renamed and typed as goldset's frames are, with the checks the TREC
    readers make (no empty value, whole grades, finite scores, each judgment or document once)."""
    chosen = _chosen(frame.columns, what, value, path)
    out = frame.select([pl.col(source).alias(target) for target, source in chosen.items()])
    columns = [_ids(out.get_column(c), what, path) for c in out.columns if c != value]
    columns.insert(2, _values(out.get_column(value), what, path))
    out = pl.DataFrame(columns)
    for name in out.columns:
        if out.get_column(name).null_count():
            row = out.get_column(name).is_null().arg_true()[0]
            raise _problem(what, path, f"empty value (row {row + 1})", name)
    if value == "score":
        bad = out.filter(~pl.col("score").is_finite())
        if bad.height:
            raise _problem(what, path, f"score {bad.item(0, 'score')} is not finite", "score")
    else:
        out = out.unique(maintain_order=True)
    keys = ["query_id", "doc_id"] + (["subtopic"] if "subtopic" in out.columns else [])
    twice = out.filter(pl.struct(keys).is_duplicated())
    if twice.height:
        doc, query = twice.item(0, "doc_id"), twice.item(0, "query_id")
        said = "has two different grades" if value == "grade" else "is ranked twice"
        raise _problem(what, path, f"document {doc!r} {said} for query {query!r}", "doc_id")
    return out


def _ids(series: pl.Series, what: str, path: Path | None) -> pl.Series:
    """Ids as text: pandas and CSV readers turn ``301`` into a number, and a missing value
    turns a column of whole numbers into floats (``301.0`` would not match ``301``)."""
    if series.dtype == pl.String:
        return series
    if series.dtype == pl.Null:  # no rows at all, or only missing values (refused later)
        return series.cast(pl.String)
    if series.dtype.is_float() and _whole(series):
        series = series.cast(pl.Int64)
    if series.dtype.is_integer():
        return series.cast(pl.String)
    if series.dtype in (pl.Object, pl.Null) or series.dtype.is_nested():
        raise _problem(what, path, f"ids must be text, not {series.dtype}", series.name)
    return series.cast(pl.String)


def _values(series: pl.Series, what: str, path: Path | None) -> pl.Series:
    name = series.name
    if series.dtype == pl.Null:  # as in _ids
        return series.cast(pl.Int64 if name == "grade" else pl.Float64)
    if name == "grade":
        if series.dtype == pl.String:  # a CSV table: every column is text
            parsed = series.str.strip_chars().cast(pl.Int64, strict=False)
            bad = series.filter(parsed.is_null() & series.is_not_null())
            if bad.len():
                raise _problem(what, path, f"grade {bad[0]!r} is not a whole number", name)
            return parsed
        if series.dtype.is_float():
            if not _whole(series):
                bad = series.filter(series.is_not_null() & (series.round(0) != series))
                raise _problem(what, path, f"grade {bad[0]} is not a whole number", name)
            return series.cast(pl.Int64)
        if series.dtype.is_integer() or series.dtype == pl.Boolean:
            return series.cast(pl.Int64)
    else:
        if series.dtype == pl.String:
            parsed = series.str.strip_chars().cast(pl.Float64, strict=False)
            bad = series.filter(parsed.is_null() & series.is_not_null())
            if bad.len():
                raise _problem(what, path, f"score {bad[0]!r} is not a number", name)
            return parsed
        if series.dtype.is_numeric():
            return series.cast(pl.Float64)
    raise _problem(what, path, f"{name}s must be numbers, not {series.dtype}", name)


def _whole(series: pl.Series) -> bool:
    values = series.drop_nulls()
    return bool((values.is_finite() & (values.round(0) == values)).all())
