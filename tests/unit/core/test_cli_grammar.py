"""Every command follows docs/cli.md's table: the real parsers (goldset_tui.cli.build_parser, every
command and sample's modes) are walked and held against the table read from the page, so the page
and the parsers cannot drift apart. Each old spelling still parses to what the new one gives, is
hidden from --help, and says so once on stderr; sample refuses what a mode would ignore."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from goldset_tui.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[3]
CLI_MD = ROOT / "docs" / "cli.md"


def _rows() -> list[dict[str, object]]:
    """The grammar table of docs/cli.md, one dict per row."""
    text = CLI_MD.read_text(encoding="utf-8")
    table = text[text.index("| concept | spelling |") :].split("\n\n")[0].splitlines()[2:]
    rows = []
    for line in table:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        concept, spelling, value, _meaning, commands, old = cells
        olds = []
        for part in filter(None, (p.strip() for p in old.split(";"))):
            m = re.fullmatch(r"`([^`]+)` \(([^)]*)\)", part)
            assert m, part
            olds += [(name.strip(), m.group(1)) for name in m.group(2).split(",")]
        rows.append(
            {
                "concept": concept,
                "spelling": re.findall(r"`([^`]+)`", spelling),
                "value": value or None,
                "commands": [c.strip() for c in commands.split(",")],
                "old": olds,
            }
        )
    return rows


ROWS = _rows()


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Every command's parser, loaded, by name; sample's modes as "sample MODE"."""
    top = build_parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    found: dict[str, argparse.ArgumentParser] = {}
    for name, parser in sub.choices.items():
        parser.format_usage()  # loads the command's module and adds its arguments
        found[name] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                found.update({f"{name} {mode}": p for mode, p in action.choices.items()})
    return found


PARSERS = _parsers()


def _visible(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if a.help != argparse.SUPPRESS and not isinstance(a, argparse._SubParsersAction)
    ]


def test_the_table_names_real_commands_and_has_rows() -> None:
    assert len(ROWS) >= 25
    for row in ROWS:
        for command in row["commands"]:
            assert command in PARSERS, (row["concept"], command)


@pytest.mark.parametrize("row", ROWS, ids=[str(r["concept"]) for r in ROWS])
def test_every_command_the_table_lists_spells_the_concept_as_the_table_does(row) -> None:
    spelling, value = row["spelling"], row["value"]
    for command in row["commands"]:
        actions = _visible(PARSERS[command])
        if spelling[0].startswith("-"):
            match = [a for a in actions if sorted(a.option_strings) == sorted(spelling)]
            assert match, f"goldset {command}: no option spelled {' '.join(spelling)}"
            if value:
                assert match[0].metavar == value, (command, spelling, match[0].metavar)
        else:
            operands = [a.metavar for a in actions if not a.option_strings]
            assert set(spelling) <= set(operands), (command, spelling, operands)


def test_no_other_command_uses_a_spelling_of_the_table() -> None:
    # Grouped by option string: --qrels is three rows (operand-free commands, labellers' qrels).
    owners: dict[str, set[str]] = {}
    for row in ROWS:
        for option in row["spelling"]:
            if option.startswith("-"):
                owners.setdefault(option, set()).update(row["commands"])
    strays = [
        (command, option)
        for command, parser in PARSERS.items()
        for action in _visible(parser)
        for option in action.option_strings
        if option in owners and command not in owners[option]
    ]
    assert strays == []


def test_a_visible_option_of_a_concept_is_spelled_wholly_as_the_table_says() -> None:
    # `-m/--metric` would share `-m` with the measure row yet spell it otherwise.
    spellings = [set(r["spelling"]) for r in ROWS if r["spelling"][0].startswith("-")]
    wrong = [
        (command, action.option_strings)
        for command, parser in PARSERS.items()
        for action in _visible(parser)
        if any(set(action.option_strings) & s for s in spellings)
        and set(action.option_strings) not in spellings
    ]
    assert wrong == []


OLD = sorted({(command, old) for row in ROWS for command, old in row["old"]})


def test_every_old_spelling_is_hidden_and_no_new_one_is_an_old_one() -> None:
    from goldset_tui.commands._grammar import is_old_spelling

    new = {o for r in ROWS for o in r["spelling"]}
    for command, old in OLD:
        (action,) = [a for a in PARSERS[command]._actions if old in a.option_strings]
        assert action.help == argparse.SUPPRESS and is_old_spelling(action), (command, old)
        assert old not in PARSERS[command].format_help()
        if old not in new:  # --format is check's old input format and everyone's output format
            assert not [
                c for c, p in PARSERS.items() for a in _visible(p) if old in a.option_strings
            ]
    # Every alias any parser carries is in the table's old-spellings column.
    carried = {
        (command, a.option_strings[0])
        for command, parser in PARSERS.items()
        for a in parser._actions
        if is_old_spelling(a)
    }
    assert carried == set(OLD)


# Each old spelling beside the new one, on a command line that parses: the namespaces must be
# equal (the command's code then cannot tell them apart) and stderr must hold one note.
Q, S = "q.qrels", "strata.csv"
SAME = [
    (["agreement", "--store", "s"], ["--replicates", "7"], ["--samples", "7"]),
    (["check", "pool.jsonl"], ["--grades", "1-5"], ["--scale", "1-5"]),
    (["check", "-"], ["--format", "csv"], ["--input-format", "csv"]),
    (["classify", "--compare", "a.txt", "b.txt"], ["--json"], ["--format", "json"]),
    (["report", "--qrels", Q, "--strata", S], ["--metric", "AP"], ["-m", "AP"]),
    (["report", "--qrels", Q, "--strata", S], ["--metric", "AP"], ["--measure", "AP"]),
    (["review"], ["--metric", "RR"], ["--measure", "RR"]),
    (["history", "--store", "s"], ["--metric", "P@5"], ["-m", "P@5"]),
    (["spotcheck", "labels.csv"], ["--sample", "50"], ["--queries", "50"]),
    (["spotcheck", "labels.csv"], ["--report"], ["--print"]),
]


def _parse(argv: list[str]) -> dict[str, object]:
    found = vars(build_parser().parse_args(argv))
    found.pop("_old_spellings_said", None)
    found.pop("_run", None)
    return found


@pytest.mark.parametrize(("base", "old", "new"), SAME, ids=[" ".join(c[1]) for c in SAME])
def test_an_old_spelling_parses_as_the_new_and_says_so_once(
    base: list[str], old: list[str], new: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _parse([*base, *new]) == _parse([*base, *old])
    assert capsys.readouterr().err.count("\n") == 1
    _parse([*base, *old, *old])  # given twice, said once
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"goldset: {old[0]} is now {new[0] if new[0] != '-m' else '--measure'}"
        + (" json" if old == ["--json"] else "")
        + " (the old spelling goes in the next release)"
    ]


def test_every_old_spelling_has_a_parse_case() -> None:
    assert {(base[0], old[0]) for base, old, _ in SAME} == set(OLD)


def test_old_spellings_still_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ROOT / "sample_data" / "judgments"
    pair = ["--qrels", f"a={data / 'alice.qrels'}", "--qrels", f"b={data / 'bob.qrels'}"]
    base = ["agreement", *pair, "--scale", "0-3", "--format", "json"]
    assert main([*base, "--samples", "30"]) == 0
    new = capsys.readouterr()
    assert main([*base, "--replicates", "30"]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and new.err == ""
    assert (
        old.err
        == "goldset: --replicates is now --samples (the old spelling goes in the next release)\n"
    )
    pool = ROOT / "sample_data" / "pool.jsonl"
    assert main(["check", str(pool), "--scale", "0-3"]) == 0
    new = capsys.readouterr()
    assert main(["check", str(pool), "--grades", "0-3"]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and old.err.count("\n") == 1 and "--grades is now --scale" in old.err


# --- sample's modes ----------------------------------------------------------------------------


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    path = tmp_path / "labels.csv"
    rows = [f"q{i},{i % 7 + 1},{'ab'[i % 2]}" for i in range(40)]
    path.write_text("query,count,stratum\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


EMIT = "sample emit-sql duckdb -o x.sql --seed 1 --targets a=2"
OLD_EMIT = "sample --emit-sql duckdb -o x.sql --seed 1 --targets a=2"
DRAW = "sample draw {labels} -o s.csv --seed 1"
REFUSED = [
    # an option of another mode, under the new spelling and under the old flags
    (f"{EMIT} --rate 0.5", "--rate"),
    (f"{OLD_EMIT} --rho 0.1", "--rho"),
    (f"{OLD_EMIT} --min-per-stratum 3", "--min-per-stratum"),
    ("sample finish x.sql --rows r.csv --weights w.csv -o s.csv --seed 3", "--seed"),
    ("sample plan {labels} --total 10 --seed 3", "--seed"),
    ("sample plan {labels} --total 10 --cap 3", "--cap"),
    # an option the mode has but would ignore without its partner
    (f"{DRAW} --total 10 --rate 0.5", "--rate"),
    (f"{DRAW} --total 10 --format json", "--format"),
    (f"{DRAW} --targets a=2 --min-per-stratum 1", "--min-per-stratum"),
    (f"{EMIT} --vocab-table v", "--vocab-table"),
    # two modes at once
    ("sample --emit-sql duckdb --finish x.sql", "--finish"),
    ("sample --finish x.sql --plan", "--plan"),
]


@pytest.mark.parametrize(("line", "named"), REFUSED, ids=[c[0][7:20] + c[1] for c in REFUSED])
def test_sample_refuses_what_the_mode_would_ignore_in_one_line(
    line: str,
    named: str,
    labels: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(labels.parent)  # where the outputs named would go, were anything written
    argv = line.format(labels=labels).split()
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("goldset: error: ") and named in err, err
    assert "Traceback" not in err
    assert not list(labels.parent.glob("s.*")) and not list(labels.parent.glob("x.*"))


DRAWN = "{labels} -o {out} --seed 3 --total 10 --min-per-stratum 4"
EMITTED = "-o {sql} --seed 3 --targets a=2"
OLD_SAMPLE = [
    ("{labels} --plan --total 40 --rho 0.2", "plan {labels} --total 40 --rho 0.2"),
    (DRAWN, f"draw {DRAWN}"),
    (f"{DRAWN} --plan", f"draw {DRAWN} --plan"),
    (f"--emit-sql spark {EMITTED}", f"emit-sql spark {EMITTED}"),
    (f"--emit-sql=spark {EMITTED}", f"emit-sql spark {EMITTED}"),
]


@pytest.mark.parametrize(("old", "new"), OLD_SAMPLE, ids=[c[0][:22] for c in OLD_SAMPLE])
def test_sample_old_flags_run_as_the_mode_and_say_so_once(
    old: str, new: str, labels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(line: str, where: str) -> tuple[str, str, dict[str, bytes]]:
        folder = labels.parent / where
        folder.mkdir()
        names = {"labels": labels, "out": folder / "s.csv", "sql": folder / "s.sql"}
        assert main(["sample", *line.format(**names).split()]) == 0
        done = capsys.readouterr()
        return (
            done.out.replace(str(folder), "@"),
            done.err,
            {p.name: p.read_bytes().replace(str(folder).encode(), b"@") for p in folder.iterdir()},
        )

    new_out, new_err, new_files = run(new, "new")
    old_out, old_err, old_files = run(old, "old")
    assert (old_out, old_files) == (new_out, new_files)
    assert "is now" not in new_err
    notes = [line for line in old_err.splitlines() if "is now" in line]
    assert len(notes) == 1 and f"`sample {new.split()[0]}" in notes[0], old_err
    assert old_err.replace(notes[0] + "\n", "") == new_err


def test_sample_help_lists_the_modes_and_each_mode_only_its_options() -> None:
    assert "{plan,draw,emit-sql,finish}" in PARSERS["sample"].format_help() or all(
        f"    {m} " in PARSERS["sample"].format_help()
        for m in ("plan", "draw", "emit-sql", "finish")
    )
    options = {
        m: set(PARSERS[f"sample {m}"]._option_string_actions)
        for m in ("plan", "draw", "emit-sql", "finish")
    }
    assert "--rate" in options["plan"] and "--rate" not in options["emit-sql"]
    assert "--seed" not in options["finish"] and "--seed" not in options["plan"]
    assert "--finish" not in options["emit-sql"] and "--emit-sql" not in options["draw"]


# --- print or screen (docs/cli.md, rule 3) -------------------------------------------------------
# Each command's code reads its own flag: spotcheck's args.report (print), agreement's args.screen.
SHOWN = [
    (["spotcheck", "labels.csv"], "report", {(): False, ("--print",): True, ("--screen",): False}),
    (
        ["agreement", "--store", "s"],
        "screen",
        {(): False, ("--print",): False, ("--screen",): True},
    ),
]


@pytest.mark.parametrize(("base", "dest", "cases"), SHOWN, ids=[c[0][0] for c in SHOWN])
def test_print_and_screen_mean_the_same_on_every_command(
    base: list[str], dest: str, cases: dict[tuple[str, ...], bool]
) -> None:
    for switch, value in cases.items():
        assert _parse([*base, *switch])[dest] is value, (base, switch)


@pytest.mark.parametrize("base", [c[0] for c in SHOWN], ids=[c[0][0] for c in SHOWN])
def test_print_and_screen_together_are_refused(
    base: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args([*base, "--print", "--screen"])
    assert info.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_spotchecks_old_report_runs_as_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("query,count,stratum\nq1,3,a\nq2,1,b\n", encoding="utf-8")
    base = ["spotcheck", str(labels), "--store", str(tmp_path / "st"), "--labeller", "ana"]
    assert main([*base, "--print", "--format", "json"]) == 0
    new = capsys.readouterr()
    assert main([*base, "--report", "--format", "json"]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and "--report is now --print" in old.err
    assert old.err.replace(old.err.splitlines()[0] + "\n", "", 1) == new.err
