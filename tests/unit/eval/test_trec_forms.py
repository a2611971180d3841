"""trec_eval's `-m` forms in `goldset eval`: `runid`, a bare family (`P`: its default cut-offs),
a parameter list (`P.5,10`), the groups `official` and `all_trec`.

Every expected line is trec_eval 10.0's own output, read from the peer files, never computed
here: `out.test` (`trec_eval qrels.test results.test`), `out.test.a` (`-m all_trec`),
`out.test.aq` (`-m all_trec -q`), `out.test.meas_params` (parameter lists, -q) and the ties
fixture's `generated/ties.out.all_trec_q*.txt` (`-m all_trec -m ndcg_cut.1,2,3,5 -m P.1,2,3
-m recall.1,2,3 -m success.1,3 ...`; the commands are in quicktest_commands.txt and
generated/README.txt). Each of these forms was an "unknown measure" error before.
"""

from __future__ import annotations

import json

import pytest

from goldset_tui.cli import main

# trec_eval's all_trec measures goldset does not have (docs/eval.md says why for each).
LACKING = [
    *["relstring", "unj", "rbp", "rbp_resid", "gm_bpref", "utility", "relative_P", "Rprec_mult"],
    *["ndcg_rel", "Rndcg", "binG", "G", "set_relative_P", "set_map", "num_nonrel_judged_ret"],
]


def _lines(text: str) -> list[tuple[str, str, str]]:
    return [tuple(part.strip() for part in line.split("\t")) for line in text.splitlines()]


def _family(name: str) -> str:
    """trec_eval's measure a printed name belongs to: `P_10` -> `P`, `map` -> `map`."""
    for lacking in sorted(LACKING, key=len, reverse=True):
        if name == lacking or name.startswith(lacking + "_"):
            return lacking
    return name


def _same(got: list[tuple[str, str, str]], expected: list[tuple[str, str, str]]) -> None:
    """Line by line: the same names and queries in the same order; numbers to 1e-4."""
    assert [line[:2] for line in got] == [line[:2] for line in expected]
    for (name, qid, value), (_, _, want) in zip(got, expected, strict=True):
        if name == "runid":
            assert value == want
        else:
            assert float(value) == pytest.approx(float(want), abs=1e-4), (name, qid)


def _eval(capsys, te, *args: str, qrels="qrels.test", run="results.test"):
    code = main(["eval", str(te / qrels), str(te / run), *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def te(peers):
    return peers / "trec_eval"


def test_runid_alone_prints_trec_eval_s_runid_line(te, capsys):
    code, out, _ = _eval(capsys, te, "--trec-eval-compat", "-m", "runid")
    assert code == 0
    assert out.splitlines() == (te / "out.test").read_text().splitlines()[:1]  # runid all STANDARD


def test_runid_with_other_measures_comes_first_among_the_all_lines(te, capsys):
    # trec_eval -q -m runid -m map: the per-query map lines, then runid, then map's `all`.
    code, out, _ = _eval(capsys, te, "--trec-eval-compat", "-q", "-m", "map", "-m", "runid")
    assert code == 0
    got = _lines(out)
    expected = [
        line for line in _lines((te / "out.test.aq").read_text()) if line[0] in {"map", "runid"}
    ]
    _same(got, expected)
    assert [name for name, qid, _ in got if qid == "all"] == ["runid", "map"]


def test_runid_in_json_is_the_run_s_tag_and_no_number(te, capsys):
    code, out, _ = _eval(capsys, te, "-m", "runid", "-m", "P.5", "--format", "json")
    assert code == 0
    run = json.loads(out)["runs"]["STANDARD"]
    assert run["runid"] == "STANDARD"
    assert set(run["mean"]) == {"P@5"}  # runid is the run's tag, recorded once, not a measure


@pytest.mark.parametrize(
    ("family", "prefix"),
    [
        ("P", "P_"),
        ("recall", "recall_"),
        ("ndcg_cut", "ndcg_cut_"),
        ("map_cut", "map_cut_"),
        ("success", "success_"),
        ("iprec_at_recall", "iprec_at_recall_"),
    ],
)
def test_a_bare_family_is_its_default_cutoffs_as_trec_eval_prints_them(te, capsys, family, prefix):
    # --verbose: compat mode keeps its notes off stderr unless asked.
    code, out, err = _eval(capsys, te, "--trec-eval-compat", "--verbose", "-m", family)
    assert code == 0
    expected = [
        line for line in _lines((te / "out.test.a").read_text()) if line[0].startswith(prefix)
    ]
    assert len(expected) in (3, 9, 11)  # success 1,5,10; the cut-offs 5 ... 1000; 0.00 ... 1.00
    _same(_lines(out), expected)
    notes = [line for line in err.splitlines() if line.startswith("goldset: note:")]
    assert len(notes) == 1 and f"measure {family!r} read as" in notes[0]  # one note, not nine


def test_bare_p_without_compat_keeps_ir_measures_meaning(te, capsys):
    # ir_measures' P requires its cut-off (ir_measures/measures/p.py: required=True): outside
    # --trec-eval-compat, `P` stays the error it was, with the suggestion.
    import ir_measures

    with pytest.raises(AssertionError, match="invalid param cutoff"):
        list(
            ir_measures.iter_calc(
                [ir_measures.parse_measure("P")], {"q": {"a": 1}}, {"q": {"a": 1.0}}
            )
        )
    code, out, err = _eval(capsys, te, "-m", "P")
    assert code == 2 and out == ""
    assert "P needs a cutoff; did you mean 'P@10'?" in err and err.count("\n") == 1


def test_a_family_only_trec_eval_names_expands_without_compat_in_goldset_s_names(te, capsys):
    code, out, _ = _eval(capsys, te, "-m", "success")
    assert code == 0
    names = [name for name, _, _ in _lines(out)]
    assert names == ["Success@1", "Success@5", "Success@10"]
    expected = [
        line for line in _lines((te / "out.test.a").read_text()) if line[0].startswith("success_")
    ]
    assert [v for _, _, v in _lines(out)] == [v for _, _, v in expected]


@pytest.mark.parametrize(
    ("form", "names"),
    [
        ("P.5,10", ["P_5", "P_10"]),
        ("P.10,5", ["P_5", "P_10"]),  # trec_eval sorts a list (meas_init.c)
        ("ndcg_cut.10,20", ["ndcg_cut_10", "ndcg_cut_20"]),
        ("recall.100", ["recall_100"]),
        ("success.1,5", ["success_1", "success_5"]),
    ],
)
def test_parameter_lists_as_trec_eval(te, capsys, form, names):
    code, out, _ = _eval(capsys, te, "--trec-eval-compat", "-m", form)
    assert code == 0
    expected = [line for line in _lines((te / "out.test.a").read_text()) if line[0] in names]
    assert [line[0] for line in expected] == names
    _same(_lines(out), expected)


def test_a_list_replaces_the_family_s_defaults(te, capsys):
    # trec_eval -m recall -m recall.100 prints recall_100 alone: the list is recall's parameters.
    code, out, _ = _eval(capsys, te, "--trec-eval-compat", "-m", "recall", "-m", "recall.100")
    assert code == 0
    assert [name for name, _, _ in _lines(out)] == ["recall_100"]


def test_trec_eval_s_own_parameter_list_command(te, capsys):
    # quicktest: trec_eval -q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000
    # ... -mndcg_cut.10,20,23.4 -msuccess.2,5,20: the lists goldset has, as given there (23.4 is
    # written 23: trec_eval's atol truncates it, goldset refuses a cut-off that is not whole).
    args = ["--trec-eval-compat", "-q", "-m", "iprec_at_recall..10,.20,.25,.75,.50"]
    args += ["-m", "P.5,7,3", "-m", "recall.20,2000", "-m", "ndcg_cut.10,20,23"]
    code, out, _ = _eval(capsys, te, *args, "-m", "success.2,5,20")
    assert code == 0
    ours = ("iprec_at_recall_", "P_", "recall_", "ndcg_cut_", "success_")
    expected = [
        line
        for line in _lines((te / "out.test.meas_params").read_text())
        if line[0].startswith(ours)
    ]
    assert len(expected) == 16 * 4  # 5 + 3 + 2 + 3 + 3 measures; 3 queries and all
    _same(_lines(out), expected)


def test_official_is_trec_eval_s_default_output_byte_for_byte(te, capsys):
    code, out, err = _eval(capsys, te, "--trec-eval-compat", "-m", "official")
    assert code == 0 and out == (te / "out.test").read_text()
    assert "note" not in err and "warning" not in err  # nothing read differently, nothing lacking


def test_all_trec_prints_every_measure_goldset_has_as_trec_eval_did(te, capsys):
    code, out, err = _eval(capsys, te, "--trec-eval-compat", "-m", "all_trec")
    assert code == 0
    expected = _lines((te / "out.test.a").read_text())
    got = _lines(out)
    _same(got, [line for line in expected if _family(line[0]) not in LACKING])
    assert len(got) == 66  # of trec_eval's 99 lines there
    # The rest are trec_eval's measures goldset lacks, named on ONE stderr line, never dropped
    # silently; the line names exactly those (in trec_eval's order).
    missing = {_family(line[0]) for line in expected} - {_family(line[0]) for line in got}
    assert missing <= set(LACKING)
    said = [line for line in err.splitlines() if "not in goldset" in line]
    assert len(said) == 1
    assert said[0].endswith("left out: " + ", ".join(LACKING))


def test_set_group_as_trec_eval(te, capsys):
    # measures.c: set = runid num_q num_ret num_rel num_rel_ret utility set_P set_recall
    # set_relative_P set_map set_F; trec_eval prints all of them in out.test.a.
    code, out, err = _eval(capsys, te, "--trec-eval-compat", "-m", "set")
    assert code == 0
    names = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "set_P", "set_recall", "set_F"}
    _same(
        _lines(out), [line for line in _lines((te / "out.test.a").read_text()) if line[0] in names]
    )
    said = [line for line in err.splitlines() if "not in goldset" in line]
    assert len(said) == 1 and said[0].endswith("left out: utility, set_relative_P, set_map")


@pytest.mark.parametrize(
    ("expected", "qrels", "run", "extra"),
    [
        # quicktest_commands.txt: trec_eval -m all_trec -q [-c [-M100]] [-l2] QRELS RUN
        ("out.test.aq", "qrels.test", "results.test", []),
        ("out.test.aqc", "qrels.test", "results.trunc", ["-c"]),
        ("out.test.aqcM", "qrels.test", "results.trunc", ["-c", "-M", "100"]),
        ("out.test.aql", "qrels.rel_level", "results.test", ["-l", "2"]),
    ],
)
def test_all_trec_per_query_as_trec_eval(te, capsys, expected, qrels, run, extra):
    args = ["--trec-eval-compat", "-q", "-m", "all_trec", *extra]
    code, out, _ = _eval(capsys, te, *args, qrels=qrels, run=run)
    assert code == 0
    lines = _lines((te / expected).read_text())
    _same(_lines(out), [line for line in lines if _family(line[0]) not in LACKING])


@pytest.mark.parametrize("extra", [[], ["-c"]])
def test_all_trec_with_lists_on_the_ties_fixture(te, capsys, extra):
    # generated/README.txt: trec_eval -q [-c] -m all_trec -m ndcg_cut.1,2,3,5 -m P.1,2,3
    # -m recall.1,2,3 -m success.1,3 -m unj.1,2,3 -m relstring.5 ties.qrels ties.run: the lists
    # replace the group's defaults for those families (unj and relstring goldset lacks).
    lists = ["-m", "ndcg_cut.1,2,3,5", "-m", "P.1,2,3", "-m", "recall.1,2,3", "-m", "success.1,3"]
    code, out, _ = _eval(
        capsys,
        te,
        "--trec-eval-compat",
        "-q",
        *extra,
        "-m",
        "all_trec",
        *lists,
        qrels="generated/ties.qrels",
        run="generated/ties.run",
    )
    assert code == 0
    name = "ties.out.all_trec_qc.txt" if extra else "ties.out.all_trec_q.txt"
    expected = _lines((te / "generated" / name).read_text())
    _same(_lines(out), [line for line in expected if _family(line[0]) not in LACKING])


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ("P.5,5", "the same parameter twice"),  # trec_eval: "duplicate cutoffs detected"
        ("ndcg_cut.10,20,23.4", "cut-off '23.4' is not a positive integer"),
        ("P.0", "cut-off '0' is not a positive integer"),  # trec_eval: "Negative cutoff"
        ("P.", "cut-off '' is not a positive integer"),  # trec_eval: "improper measure"
        ("iprec_at_recall.0.5,1.5", "recall level '1.5' is not a number in [0, 1]"),
    ],
)
def test_a_bad_list_is_one_line_exit_2(te, capsys, form, words):
    code, out, err = _eval(capsys, te, "--trec-eval-compat", "-m", form)
    assert code == 2 and out == ""
    assert words in err and err.count("\n") == 1 and f"measure {form!r}" in err


def test_one_measure_from_two_forms_is_printed_once(te, capsys):
    code, out, _ = _eval(
        capsys, te, "--trec-eval-compat", "-m", "P@10", "-m", "P.5,10", "-m", "P_10"
    )
    assert code == 0
    assert [name for name, _, _ in _lines(out)] == ["P_5", "P_10"]


def test_an_error_after_measure_notes_is_the_only_line(tmp_path, capsys) -> None:
    # The notes on how -m forms were read wait for the inputs: a missing qrels file is one line.
    from goldset_tui.cli import main

    missing = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    args = ["eval", str(missing), str(run), "--trec-eval-compat", "-m", "all_trec", "-m", "P.5,10"]
    assert main(args) == 2
    assert capsys.readouterr().err == f"goldset: error: {missing}: no such file\n"
