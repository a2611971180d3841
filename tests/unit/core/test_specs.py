"""NAME=PATH: the one parser (goldset_tui.specs), and every command that takes NAME=PATH using it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import goldset_tui
from goldset_tui.errors import InputError
from goldset_tui.specs import name_from_path, parse_named_path, parse_named_paths

PACKAGE = Path(goldset_tui.__file__).parent


def test_name_and_path() -> None:
    assert parse_named_path("bm25=runs/bm25.run", "--run") == ("bm25", Path("runs/bm25.run"))
    # the name is trimmed; the path is taken as written, '=' and all
    assert parse_named_path(" a =runs/k1=0.9.run", "--run") == ("a", Path("runs/k1=0.9.run"))


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("bm25", "expected NAME=PATH"),
        ("=runs/x.run", "the name before '=' is empty"),
        ("   =runs/x.run", "the name before '=' is empty"),
        ("bm25=", "the path after '=' is empty"),
        ("bm25=  ", "the path after '=' is empty"),
    ],
)
def test_malformed_specs(spec: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_named_path(spec, "--run")
    assert caught.value.path is None
    message = caught.value.message
    assert message.startswith(f"--run {spec!r}: ") and words in message


def test_a_name_given_twice_after_trimming_in_either_order(tmp_path: Path) -> None:
    for specs in (["a=x.run", "a =y.run"], ["a =y.run", "a=x.run"]):
        with pytest.raises(InputError, match="the name 'a' is given twice") as caught:
            parse_named_paths(specs, "--qrels")
        assert caught.value.path == Path(specs[1].partition("=")[2])


def test_a_path_alone_is_named_by_its_stem_and_an_existing_file_wins(tmp_path: Path) -> None:
    odd = tmp_path / "k1=0.9.run"
    odd.write_text("q1 Q0 d1 1 1.0 t\n")
    got = parse_named_paths([str(tmp_path / "bm25.run.gz"), str(odd)], "run", path_alone=True)
    assert got == {"bm25": tmp_path / "bm25.run.gz", "k1=0.9": odd}
    assert name_from_path(Path("dense.tsv")) == "dense"
    with pytest.raises(InputError, match=r"name before .=. is empty \(PATH or NAME=PATH\)"):
        parse_named_path("=x.run", "run", path_alone=True)


def test_where_a_name_is_required_an_existing_file_is_refused_with_the_fix(
    tmp_path: Path,
) -> None:
    odd = tmp_path / "k1=0.9.run"
    odd.write_text("q1 Q0 d1 1 1.0 t\n")
    with pytest.raises(InputError) as caught:
        parse_named_path(str(odd), "--run")
    assert caught.value.path == odd
    assert f"give it as NAME={odd}" in str(caught.value)
    assert parse_named_path(f"k1={odd}", "--run") == ("k1", odd)


# --- every command that takes NAME=PATH goes through the parser -------------------------------

USERS = [
    "app/runs.py",  # eval, compare, fuse, report, review and validate through its open_runs
    "app/pooling.py",  # pool --run, through its parse_runs
    "agreement/sources.py",  # agreement --qrels
    "ranking/runs.py",  # agreement --run
]


@pytest.mark.parametrize("module", USERS)
def test_the_command_imports_the_parser(module: str) -> None:
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    names = {
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert any(m == "goldset_tui.specs" or (m, n) == ("goldset_tui", "specs") for m, n in names)


def test_no_other_module_splits_name_equals_path_itself() -> None:
    """A second parser would be a `.partition("=")` next to the words NAME=PATH."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name != "specs.py" and '.partition("=")' in text and "NAME=PATH" in text:
            offenders.append(path.relative_to(PACKAGE).as_posix())
    assert offenders == []


def _error(call) -> str:  # any of the commands' parse functions
    with pytest.raises(InputError) as caught:
        call()
    return str(caught.value)


def test_the_commands_say_the_same_thing_about_the_same_mistake(tmp_path: Path) -> None:
    from goldset_tui.agreement.sources import from_qrels
    from goldset_tui.app.pooling import parse_runs
    from goldset_tui.app.runs import parse_run_specs

    twice = [f"a={tmp_path / 'x'}", f"a ={tmp_path / 'y'}"]
    expected = _error(lambda: parse_named_paths(twice, "--run"))
    assert _error(lambda: parse_runs(twice)) == expected
    assert _error(lambda: parse_run_specs(twice)) == expected.replace("--run", "run")
    assert _error(lambda: from_qrels(twice)) == expected.replace("--run", "--qrels")
    empty = "a="
    assert _error(lambda: parse_runs([empty])) == _error(lambda: parse_named_path(empty, "--run"))
