"""Recording a release: atomic, idempotent (same result: one record), refused when it differs;
named regression cases in the store's TOML."""

from __future__ import annotations

import polars as pl
import pytest

from goldset_tui.errors import InputError
from goldset_tui.history.records import load_records, make_record, record, record_path
from goldset_tui.history.regressions import case_status, load_cases, promote
from goldset_tui.history.version import describe_change, golden_set_version, qrels_digest
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.manifest import read_manifest

QRELS = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d2"], "grade": [2, 0]})


@pytest.fixture
def store(tmp_path):
    pool = tmp_path / "pool.csv"
    pool.write_text("query_id,query,doc_id,text\nq1,a,d1,x\n", encoding="utf-8")
    Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    return tmp_path / "store"


def _rec(store, release="r1", values=(1.0, 0.0), qrels=QRELS):
    version = golden_set_version(read_manifest(store), qrels)
    scores = pl.DataFrame({"query_id": ["q1", "q2"], "value": list(values)})
    strata = pl.DataFrame({"query_id": ["q1", "q2"], "stratum": ["howto", "error"]})
    return make_record(
        release=release, system="bm25", measure="P@1", version=version, scores=scores, strata=strata
    )


def test_recording_twice_is_one_record_and_a_different_result_is_refused(store):
    assert record(store, _rec(store)) is True
    assert record(store, _rec(store)) is False  # same scores, same set: nothing written
    files = list((store / "history").iterdir())
    assert len(files) == 1 and not any(f.name.startswith(".tmp-") for f in files)
    with pytest.raises(InputError) as err:
        record(store, _rec(store, values=(1.0, 1.0)))
    assert err.value.path == record_path(store, "r1", "bm25", "P@1")
    (only,) = load_records(store)
    assert only.scores == {"q1": 1.0, "q2": 0.0}
    assert only.failing == {"error": ["q2"]}
    assert read_manifest(store)["version"]["judgments"] == 2


def test_a_damaged_record_is_one_line_naming_it(store):
    record(store, _rec(store))
    (path,) = (store / "history").iterdir()
    path.write_text('{"format": 1, "release": "r1"', encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_records(store)
    assert err.value.path == path


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('"q1": 1.0', '"q1": NaN'),  # json writes and reads NaN: the change would be "+nan ... *"
        ('"q1": 1.0', '"q1": Infinity'),
        ('"release": "r1"', '"release": " "'),
    ],
)
def test_a_hand_edited_score_or_name_that_means_nothing_is_refused(store, before, after):
    record(store, _rec(store))
    (path,) = (store / "history").iterdir()
    text = path.read_text(encoding="utf-8")
    assert before in text
    path.write_text(text.replace(before, after), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_records(store)
    assert err.value.path == path


def test_the_version_follows_the_qrels_not_their_order():
    shuffled = QRELS.reverse()
    assert qrels_digest(shuffled) == qrels_digest(QRELS)
    more = pl.concat([QRELS, pl.DataFrame({"query_id": ["q3"], "doc_id": ["d3"], "grade": [1]})])
    manifest = {"pool": {"sha256": "p"}, "guidelines": "g"}
    old, new = golden_set_version(manifest, QRELS), golden_set_version(manifest, more)
    assert old["id"] != new["id"]
    assert describe_change(old, new) == ["1 judgment added"]
    regraded = QRELS.with_columns(pl.lit(3).alias("grade"))
    assert describe_change(old, golden_set_version(manifest, regraded)) == [
        "grades changed (as many judgments as before)"
    ]
    assert describe_change(old, golden_set_version(manifest | {"guidelines": "h"}, QRELS)) == [
        "guidelines changed"
    ]


def test_promoting_a_case_and_its_status(store):
    record(store, _rec(store))
    case, wrote = promote(store, "q2", "error-page", "keeps failing", load_records(store))
    assert wrote and case.stratum == "error"
    assert promote(store, "q2", "error-page", "", load_records(store))[1] is False
    with pytest.raises(InputError):  # the name is taken by another query
        promote(store, "q1", "error-page", "", load_records(store))
    with pytest.raises(InputError):  # not in any recorded evaluation: a typo
        promote(store, "q9", "typo", "", load_records(store))
    with pytest.raises(InputError, match="control characters"):  # an escape in the name
        promote(store, "q1", "stop\x1b[2J", "", load_records(store))
    assert [c.name for c in load_cases(store)] == ["error-page"]
    record(store, _rec(store, release="r2", values=(1.0, 0.5)))
    latest = [r for r in load_records(store) if r.release == "r2"]
    assert [row["status"] for row in case_status(load_cases(store), latest)] == ["passes"]
    assert "error-page" in (store / "regressions.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("edit", "column"),
    [
        ('pool_extensions = [{run = "x"}]', "pool_extensions"),
        ('near_duplicate_threshold = "high"', "near_duplicate_threshold"),
        ("near_duplicate_threshold = 1.5", "near_duplicate_threshold"),
        ('corpus = {path = "c.jsonl"}', "corpus"),
    ],
)
def test_a_hand_edited_history_table_is_refused_in_one_line(store, edit, column):
    path = store / "manifest.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(edit + "\n" + text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_manifest(store)
    assert err.value.path == path and err.value.column == column
