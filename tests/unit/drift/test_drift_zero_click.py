"""`goldset classify --clicks`: the zero_click column, the share per stratum, the recurring
queries and the candidate strata, each against a hand count of docs/drift.md's log; the rule
snippet runs and files each candidate's queries under it; bad clicks are one line, exit 2."""

from __future__ import annotations

import tomllib
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.drift.clusters import candidates, rule_snippet
from goldset_tui.drift.zero_click import read_labels_with_clicks, recurring, shares_by_stratum
from goldset_tui.store.files import sha256_file

LOG = """\
query,count,clicks
where is my refund for last month,9,0
how long does a refund take to arrive,6,0
refund still pending after two weeks,5,0
Refund Policy for annual plans,3,2
export all invoices as a spreadsheet,4,0
export invoices for the whole year,3,0
how do i rotate an api key,30,25
pricing,40,30
dark mode for the settings page,2,0
change the settings of my account,8,6
"""


@pytest.fixture
def labelled(tmp_path: Path, capsys) -> tuple[Path, str]:
    log = tmp_path / "searches.csv"
    log.write_text(LOG)
    out = tmp_path / "labels.csv"
    assert main(["classify", str(log), "-o", str(out), "--clicks", "clicks"]) == 0
    return out, capsys.readouterr().out


def test_the_labels_gain_zero_click_and_the_manifest_its_sha(labelled) -> None:
    path, _ = labelled
    labels = read_labels_with_clicks(path)
    assert labels is not None
    zero = dict(labels.select("query", "zero_click").iter_rows())
    assert zero["where is my refund for last month"] == 9
    assert zero["refund policy for annual plans"] == 0  # clicked twice
    assert zero["pricing"] == 0
    manifest = tomllib.loads(path.with_suffix(".manifest.toml").read_text())
    assert manifest["output"]["sha256"] == sha256_file(path)
    assert manifest["clicks"] == {"column": "clicks", "zero_click_occurrences": 29}


def test_shares_recurring_and_candidates_by_hand(labelled) -> None:
    path, out = labelled
    labels = read_labels_with_clicks(path)
    assert labels is not None
    shares = {s.stratum: (s.zero_click, s.occurrences) for s in shares_by_stratum(labels)}
    # paraphrase: 9 + 6 + 5 + 4 + 3 + 2 = 29 zero-click of 70 searches; pricing 0 of 40.
    assert shares == {"paraphrase": (29, 70), "short_keyword": (0, 40), "(all)": (29, 110)}
    assert recurring(labels)["query"].to_list()[:2] == [
        "where is my refund for last month",
        "how long does a refund take to arrive",
    ]
    found = candidates(labels)
    assert [c.name for c in found] == ["refund", "export"]
    refund, export = found
    assert (len(refund.queries), refund.occurrences, refund.zero_click) == (3, 20, 20)
    # "refund" is in four queries: 9 + 6 + 5 + 3 = 23 searches, 20 of them with no click.
    assert refund.failure_rate == pytest.approx(20 / 23)
    # export and invoices tie at 7 zero-click searches in 2 queries: the word decides.
    assert (export.queries, export.zero_click, export.words) == (
        ["export all invoices as a spreadsheet", "export invoices for the whole year"],
        7,
        ["export", "invoices"],
    )
    # "settings": 2 queries, but 2 zero-click of 10 searches, under the half: no candidate.
    assert "29 of         70   41.4%" in out
    assert "refund: 3 queries, 20 searches, 20 zero-click, from paraphrase" in out


def test_the_rule_snippet_runs_and_files_each_candidate(labelled, tmp_path: Path) -> None:
    path, _ = labelled
    labels = read_labels_with_clicks(path)
    assert labels is not None
    found = candidates(labels)
    space: dict[str, object] = {}
    exec(rule_snippet(found), space)  # the snippet as printed, run as a rules function
    rules = space["rules"]
    for c in found:
        for q in c.queries:
            assert rules(q, None) == c.name  # type: ignore[operator]
    assert rules("pricing", None) == "short_keyword"  # type: ignore[operator]
    # As a user's --rules file, classify takes it.
    (tmp_path / "mine.py").write_text(rule_snippet(found))
    log = tmp_path / "again.csv"
    log.write_text(LOG)
    out = tmp_path / "again_labels.csv"
    assert (
        main(["classify", str(log), "-o", str(out), "--rules", f"{tmp_path / 'mine.py'}:rules"])
        == 0
    )
    strata = dict(pl.read_csv(out).select("query", "stratum").iter_rows())
    assert strata["refund still pending after two weeks"] == "refund"


@pytest.mark.parametrize(
    ("text", "name", "said"),
    [
        ("query,count,clicks\na,1,-1\n", "log.csv", "clicks must be a whole number of at least 0"),
        ("query,count,clicks\na,1,0.5\n", "log.csv", "log.csv:2:"),
        ("query,count\na,1\n", "log.csv", "clicks"),
        ("a\nb\n", "log.txt", "a plain-text log has no columns"),
    ],
)
def test_bad_clicks_are_one_line_and_exit_2(tmp_path: Path, capsys, text, name, said) -> None:
    log = tmp_path / name
    log.write_text(text)
    assert main(["classify", str(log), "-o", str(tmp_path / "l.csv"), "--clicks", "clicks"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err


def test_drift_tracks_the_zero_click_share_from_one_log_to_the_next(
    labelled, tmp_path: Path, capsys
) -> None:
    import json

    from statsmodels.stats.proportion import confint_proportions_2indep

    old, _ = labelled
    log = tmp_path / "next.csv"
    log.write_text(
        "query,count,clicks\nwhere is my refund for last month,12,0\n"
        "refund still pending after two weeks,7,0\nexport all invoices as a spreadsheet,1,1\n"
        "how do i rotate an api key,30,20\npricing,50,45\n"
    )
    new = tmp_path / "next_labels.csv"
    assert main(["classify", str(log), "-o", str(new), "--clicks", "clicks"]) == 0
    capsys.readouterr()
    assert main(["drift", "--labels", str(old), "--labels", str(new), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    para = out["zero_click"][0]
    # Old: 29 zero-click of 70 paraphrase searches; new: 12 + 7 = 19 of 30 + 12 + 7 + 1 = 50.
    assert (para["old"]["zero_click"], para["old"]["occurrences"]) == (29, 70)
    assert (para["new"]["zero_click"], para["new"]["occurrences"]) == (19, 50)
    assert para["change"] == pytest.approx(19 / 50 - 29 / 70)
    ref = confint_proportions_2indep(19, 50, 29, 70, method="newcomb", compare="diff")
    assert para["ci95"] == pytest.approx([float(ref[0]), float(ref[1])])
    assert [r["query"] for r in out["zero_click_recurring"]] == [
        "where is my refund for last month",
        "refund still pending after two weeks",
    ]


def test_a_spotcheck_adds_the_strata_it_corrects_and_the_queries_it_refiled(
    tmp_path: Path, capsys
) -> None:
    import json

    from goldset_tui.drift.clusters import often_corrected

    # By hand: short_keyword checked 5 times, 1 corrected (1 in 5: often); negation 5, 0.
    confusion = {
        "short_keyword": {"short_keyword": 4, "paraphrase": 1},
        "negation": {"negation": 5},
    }
    assert often_corrected(confusion) == ["short_keyword"]
    assert (
        often_corrected({"negation": {"negation": 3, "paraphrase": 1}}) == []
    )  # 4 checks: too few

    log = tmp_path / "log.csv"
    log.write_text(
        "query,count,clicks\nrefund status,9,0\nrefund pending,6,0\n"
        "invoice pdf,5,0\ninvoice csv export,4,0\npricing,40,30\n"
    )
    out = tmp_path / "labels.csv"
    assert main(["classify", str(log), "-o", str(out), "--clicks", "clicks"]) == 0
    assert "No candidate stratum" in capsys.readouterr().out  # all short_keyword: no fallback
    journal = tmp_path / "alice.jsonl"
    checks = [("pricing", "short_keyword", "short_keyword")] * 3 + [
        ("refund status", "short_keyword", "paraphrase"),
        ("invoice pdf", "short_keyword", "short_keyword"),
    ]
    journal.write_text(
        "".join(
            json.dumps({"kind": "spotcheck", "action": "check", "query": q, "assigned": a,
                        "correct": c, "seq": i}) + "\n"
            for i, (q, a, c) in enumerate(checks)
        )
    )  # fmt: skip
    argv = ["classify", str(log), "-o", str(out), "--clicks", "clicks", "--spotcheck", str(journal)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    # short_keyword: the latest answers are pricing (agree), refund status (corrected), invoice
    # pdf (agree): 3 checks, too few for "often"; refund status itself was corrected, so it
    # joins the pool; refund pending is no misfit and short_keyword is no fallback: one query.
    assert "No candidate stratum" in printed
    checks += [(f"x{i}", "short_keyword", "short_keyword") for i in range(2)]
    journal.write_text(
        "".join(
            json.dumps({"kind": "spotcheck", "action": "check", "query": q, "assigned": a,
                        "correct": c, "seq": i}) + "\n"
            for i, (q, a, c) in enumerate(checks)
        )
    )  # fmt: skip
    assert main(argv) == 0  # now 5 checks, 1 corrected: short_keyword is often corrected
    printed = capsys.readouterr().out
    assert "refund: 2 queries, 15 searches, 15 zero-click, from short_keyword" in printed
    assert "invoice: 2 queries, 9 searches, 9 zero-click, from short_keyword" in printed
    assert main([*argv[:-1], str(tmp_path / "none.jsonl")]) == 2
    assert "no such spot-check journal" in capsys.readouterr().err
