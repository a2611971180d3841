"""Each shared constant is written once in goldset_tui/, and everything else imports it.

Copies drift: the qrels schema was spelled out beside the unused ``QRELS_SCHEMA``, the label of
the stratum-less group in five modules, the report's measure beside ``DEFAULT_METRIC``, the resample
counts in a library default, a screen and a command's option each, and judgments were stamped in
one time format while everything else used another. These checks read the package's syntax
(``ast``), so a new copy fails here with its file and line, whatever its formatting.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import goldset_tui

PACKAGE = Path(goldset_tui.__file__).resolve().parent


@functools.cache
def modules() -> tuple[tuple[str, ast.Module], ...]:
    return tuple(
        (path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    )


def places(predicate) -> list[str]:  # predicate: ast node -> bool
    return [
        f"{name}:{node.lineno}"
        for name, tree in modules()
        for node in ast.walk(tree)
        if predicate(node)
    ]


def files(found: list[str]) -> set[str]:
    return {place.split(":")[0] for place in found}


def polars_type(node: ast.AST) -> bool:
    """``pl.String``, ``pl.Int64()``: a Polars dtype in a schema."""
    node = node.func if isinstance(node, ast.Call) else node
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "pl"
    )


def test_the_qrels_schema_is_written_once() -> None:
    def qrels_schema(node: ast.AST) -> bool:
        if not isinstance(node, ast.Dict):
            return False
        keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
        return (
            len(node.keys) == 3
            and keys == {"query_id", "doc_id", "grade"}
            and all(polars_type(v) for v in node.values)
        )

    found = places(qrels_schema)
    assert len(found) == 1 and files(found) == {"io/trec.py"}, found


def constant(value: str):
    return lambda node: isinstance(node, ast.Constant) and node.value == value


def test_the_stratum_less_groups_label_is_written_once() -> None:
    assert files(places(constant("(no stratum)"))) == {"model.py"}
    # sampling/sample.py's "(none)" says that a file names no strata at all: not a group label.
    assert files(places(constant("(none)"))) == {"model.py", "sampling/sample.py"}


def test_the_reports_measure_is_written_once() -> None:
    # The registry's Success entry lists the spellings --help shows; Success@10 is one of them.
    assert files(places(constant("Success@10"))) == {"eval/defaults.py", "measures/trec.py"}


# `goldset sample` writes the strata and traffic files `goldset report` reads: a column name
# spelt in both would let one side be renamed and the other not, and the report would quietly
# drop its design-weighted headline or its design-effect floor.
SAMPLE_COLUMNS = (
    "inclusion_probability",
    "design_effect_per_search",
    "design_effect_per_query",
    "head_count",
    "head_share",
    "design_effect_head",
    "design_effect_tail",
)


def test_the_sample_files_column_names_are_written_once() -> None:
    found = {name: places(constant(name)) for name in SAMPLE_COLUMNS}
    assert {name: (len(at), files(at)) for name, at in found.items()} == {
        name: (1, {"io/strata_and_traffic.py"}) for name in SAMPLE_COLUMNS
    }, found


# Counts that are deliberately not a command's default, each with its reason at its definition.
OWN_COUNTS = {
    "ui/screens/history.py",  # SAMPLES: the history screen's quicker tests
    "app/query_view.py",  # samples=200: the query view shows no interval
}
RESAMPLE_NAMES = ("samples", "replicates")


def resample_literals(tree: ast.AST) -> Iterator[ast.AST]:
    """Whole numbers given as a resample count: a ``samples``/``replicates`` parameter's default
    or keyword argument, a ``--samples``/``--replicates`` option's default, or a module constant
    named ``...SAMPLES``/``...REPLICATES``."""

    def number(node: ast.AST | None) -> bool:  # 0 is not a count: it turns resampling off
        return isinstance(node, ast.Constant) and type(node.value) is int and node.value > 0

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            with_default = positional[len(positional) - len(args.defaults) :]
            pairs = list(zip(with_default, args.defaults, strict=True))
            pairs += [
                (a, d)
                for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                if d is not None
            ]
            yield from (d for a, d in pairs if a.arg in RESAMPLE_NAMES and number(d))
        elif isinstance(node, ast.Call):
            option = (
                node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
            )
            for keyword in node.keywords:
                is_count = keyword.arg in RESAMPLE_NAMES or (
                    keyword.arg == "default" and option in ("--samples", "--replicates")
                )
                if is_count and number(keyword.value):
                    yield keyword.value
        elif isinstance(node, ast.Assign) and number(node.value):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if any(n.endswith(("SAMPLES", "REPLICATES")) for n in names):
                yield node.value


def test_each_resample_count_is_written_once() -> None:
    from goldset_tui.eval import defaults

    found = {
        f"{name}:{getattr(node, 'lineno', '?')}"
        for name, tree in modules()
        if name not in OWN_COUNTS
        for node in resample_literals(tree)
    }
    assert files(sorted(found)) == {"eval/defaults.py"}, sorted(found)
    counts = (defaults.REPORT_SAMPLES, defaults.COMPARE_SAMPLES, defaults.AGREEMENT_REPLICATES)
    assert len(found) == len(counts), sorted(found)


def test_the_resample_check_finds_each_form_of_copy() -> None:
    # The check above can fail: each way a copy was written before is found.
    copies = """
SAMPLES = 10_000
def interval(x, *, samples: int = 2_000): ...
def report(x, samples=2000, replicates=0): ...
parser.add_argument("--replicates", type=int, default=1000)
AgreementScreen(data, seed=0, replicates=1000)
"""
    assert len(list(resample_literals(ast.parse(copies)))) == 5


ISO_MILLISECONDS_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def test_one_timestamp_format_written_in_one_place() -> None:
    from goldset_tui.judging import JudgingSession
    from goldset_tui.judging.state import SessionState
    from goldset_tui.store.files import now_iso

    def formats_time(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("isoformat", "strftime")
        )

    assert files(places(formats_time)) == {"store/files.py"}
    assert ISO_MILLISECONDS_UTC.fullmatch(now_iso())
    # Judgments are stamped by the same function (docs/store.md shows their time in this form).
    for judging in (JudgingSession, SessionState):
        assert inspect.signature(judging).parameters["now"].default is now_iso
    documented = (PACKAGE.parent / "docs" / "store.md").read_text(encoding="utf-8")
    journal_time = re.search(r'"time":"([^"]+)"', documented)
    assert journal_time and ISO_MILLISECONDS_UTC.fullmatch(journal_time.group(1))
