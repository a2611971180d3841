"""The project store: manifest, history and latest, undo, notes, scale checks, compaction, imports."""

from __future__ import annotations

import json
import string
import tomllib
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import goldset_tui.store.writer as writer_module
from goldset_tui.errors import InputError
from goldset_tui.locations import projects_dir
from goldset_tui.model import GradeScale, Judgment
from goldset_tui.store import Project, default_store_for, safe_name, sha256_file
from goldset_tui.store.parts import list_parts

COLUMNS = [
    "labeller",
    "query_id",
    "doc_id",
    "grade",
    "time",
    "seconds",
    "position",
    "note",
    "kind",
    "seq",
]
DTYPES = [
    pl.String,
    pl.String,
    pl.String,
    pl.Int64,
    pl.String,
    pl.Float64,
    pl.Int64,
    pl.String,
    pl.String,
    pl.Int64,
]


def make(tmp_path: Path, **kw) -> Project:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool), **kw)


def J(
    labeller: str, q: str, d: str, grade: int | None, t: str = "2026-01-01T00:00:00Z", **kw
) -> Judgment:
    return Judgment(labeller, q, d, grade, t, **kw)


# --- manifest -------------------------------------------------------------------------------------
def test_manifest_round_trip_read_by_tomllib(tmp_path: Path) -> None:
    scale = GradeScale({0: "no", 1: "partly", 2: "yes"})
    project = make(tmp_path, scale=scale, guidelines='Judge "all" of them.\nLine two', name="docs")
    raw = tomllib.loads((project.path / "manifest.toml").read_text(encoding="utf-8"))
    assert raw["name"] == "docs"
    assert raw["scale"] == {"0": "no", "1": "partly", "2": "yes"}
    assert raw["guidelines"] == 'Judge "all" of them.\nLine two'
    assert raw["pool"] == {
        "path": str((tmp_path / "pool.jsonl").resolve()),
        "sha256": sha256_file(tmp_path / "pool.jsonl"),
    }
    reopened = Project.open(project.path)
    assert reopened.scale == scale and reopened.guidelines == 'Judge "all" of them.\nLine two'


def test_default_scale_and_guidelines(tmp_path: Path) -> None:
    project = make(tmp_path)
    assert project.scale.labels == {
        0: "not relevant",
        1: "related",
        2: "highly relevant",
        3: "perfectly relevant",
    }
    assert "independently of the others" in project.guidelines


def test_update_manifest_keeps_unknown_tables_and_labellers(tmp_path: Path) -> None:
    project = make(tmp_path)
    project.update_manifest(custom={"keep": [1, 2]})
    with project.writer("alice"):
        pass
    other = Project.open(project.path)  # another process's view
    other.update_manifest(assignment={"overlap": 0.2, "seed": 7})
    raw = tomllib.loads((project.path / "manifest.toml").read_text())
    assert raw["assignment"] == {"overlap": 0.2, "seed": 7}
    assert raw["custom"] == {"keep": [1, 2]}
    assert raw["labellers"]["alice"]["name"] == "alice"
    with pytest.raises(ValueError):
        project.update_manifest(labellers={})
    assert not list(project.path.glob(".tmp-*"))


def test_sha256_file_matches_hashlib(tmp_path: Path) -> None:
    import hashlib

    data = bytes(range(256)) * 9000
    (tmp_path / "f").write_bytes(data)
    assert sha256_file(tmp_path / "f") == hashlib.sha256(data).hexdigest()


def test_pool_changed(tmp_path: Path) -> None:
    project = make(tmp_path)
    pool = tmp_path / "pool.jsonl"
    assert not project.pool_changed(sha256_file(pool))
    assert project.pool_warning(sha256_file(pool)) is None
    pool.write_text('{"query_id": "q2"}\n')
    assert project.pool_changed(sha256_file(pool))
    assert "changed since this store was made" in project.pool_warning(sha256_file(pool))


@pytest.mark.parametrize(
    "content, words",
    [
        (None, "not a goldset store"),
        (b"format = 1\nname = [", "not valid TOML"),
        (b"format = 99\n", "unsupported store format"),
        (
            b'format = 1\n[pool]\npath = "p"\nsha256 = "x"\n[scale]\n0 = "a"\n2 = "c"\n',
            "bad grade scale",
        ),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_open_refuses_what_is_not_a_store(
    tmp_path: Path, content: bytes | None, words: str
) -> None:
    store = tmp_path / "s"
    store.mkdir()
    if content is not None:
        (store / "manifest.toml").write_bytes(content)
    with pytest.raises(InputError, match=words):
        Project.open(store)


def test_create_refuses_an_existing_store_or_a_busy_folder(tmp_path: Path) -> None:
    project = make(tmp_path)
    with pytest.raises(InputError, match="already a goldset store"):
        Project.create(project.path, pool_path=tmp_path / "pool.jsonl", pool_sha256="x")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not empty"):
        Project.create(busy, pool_path=tmp_path / "pool.jsonl", pool_sha256="x")
    again = Project.open_or_create(
        project.path, pool_path=tmp_path / "pool.jsonl", pool_sha256="other"
    )
    assert again.pool_sha256 == project.pool_sha256


# --- names ----------------------------------------------------------------------------------------
def test_default_store_is_one_folder_per_pool_under_projects_dir(tmp_path: Path) -> None:
    a = default_store_for(tmp_path / "a" / "pool.parquet")
    b = default_store_for(tmp_path / "b" / "pool.parquet")
    assert a.parent == projects_dir() == b.parent and a != b
    assert a.name.startswith("pool-")
    assert default_store_for(tmp_path / "a" / "pool.parquet") == a


@given(
    st.lists(
        st.text(min_size=1, max_size=30).filter(str.strip), min_size=2, max_size=8, unique=True
    )
)
@settings(max_examples=200, deadline=None)
def test_safe_names_are_safe_and_never_collide_even_ignoring_case(names: list[str]) -> None:
    safe = [safe_name(n) for n in names]
    allowed = set(string.ascii_lowercase + string.digits + "-_")
    assert all(s and set(s) <= allowed and len(s) <= 64 and s[0] not in "-_" for s in safe)
    assert len({s.lower() for s in safe}) == len(names)


def test_safe_name_examples() -> None:
    assert safe_name("alice") == "alice"
    assert safe_name("Alice").startswith("alice-") and safe_name("Alice") != "alice"
    assert safe_name("../../etc/passwd").startswith("etc-passwd-")
    assert safe_name("nul") != "nul"
    with pytest.raises(ValueError):
        safe_name("  ")


# --- judging --------------------------------------------------------------------------------------
def test_latest_counts_history_keeps_everything(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("alice") as w:
        w.record(J("alice", "q1", "d1", 1, seconds=3.5, position=0))
        w.record(J("alice", "q1", "d1", 3, seconds=2.0, position=4))
        w.record(J("alice", "q1", "d2", 0))
        w.record(J("alice", "q1", "d2", 2, kind="repeat"))  # self-consistency repeat: history only
    history = project.judgments(history=True)
    assert history.columns == COLUMNS and history.dtypes == DTYPES
    assert history["grade"].to_list() == [1, 3, 0, 2] and history["seq"].to_list() == [1, 2, 3, 4]
    current = project.judgments()
    assert current.columns == COLUMNS and current.dtypes == DTYPES
    assert current.select("doc_id", "grade", "position", "seconds").rows() == [
        ("d1", 3, 4, 2.0),
        ("d2", 0, None, 0.0),
    ]


def test_undo_restores_the_previous_grade_and_then_unjudges(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("alice") as w:
        w.record(J("alice", "q1", "d1", 1))
        w.record(J("alice", "q1", "d1", 3))
        assert w.undo("q1", "d1") == 1
        assert project.qrels().rows() == [("q1", "d1", 1)]
        assert w.undo("q1", "d1") is None
        assert project.qrels().height == 0
        assert w.undo("q1", "d1") is None  # nothing left to undo: writes nothing
    history = project.judgments(history=True)
    assert history["kind"].to_list() == ["judge", "judge", "undo", "undo"]
    assert history["grade"].to_list() == [1, 3, None, None]


def test_undo_works_across_sessions_and_compaction(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("alice") as w:
        w.record(J("alice", "q1", "d1", 2))
        w.record(J("alice", "q1", "d1", 0))
    with project.writer("alice") as w:  # the earlier grades are now in Parquet
        assert w.current_grade("q1", "d1") == 0
        assert w.undo("q1", "d1") == 2
    assert Project.open(project.path).qrels().rows() == [("q1", "d1", 2)]


def test_notes_are_kept_literally_and_an_empty_note_clears(tmp_path: Path) -> None:
    project = make(tmp_path)
    hostile = "[bold]x[/bold] \x1b[2J [@click=app.quit]"
    with project.writer("alice") as w:
        w.record(J("alice", "q1", "d1", 2))
        w.note("q1", "d1", hostile)
        assert project.judgments()["note"].to_list() == [hostile]
        w.note("q1", "d1", "")
    assert project.judgments()["note"].to_list() == [None]
    assert project.judgments()["grade"].to_list() == [2]


@pytest.mark.parametrize("grade", [4, -1, None, True, "2", 2.0])
def test_grade_outside_the_scale_is_refused_and_nothing_written(
    tmp_path: Path, grade: object
) -> None:
    project = make(tmp_path)
    with project.writer("alice") as w:
        with pytest.raises(InputError) as info:
            w.record(J("alice", "q1", "d1", grade))  # type: ignore[arg-type]
        assert info.value.column == "grade"
    assert project.judgments(history=True).height == 0


def test_custom_scale_limits_grades(tmp_path: Path) -> None:
    project = make(tmp_path, scale=GradeScale.from_range(0, 1))
    with project.writer("bob") as w:
        w.record(J("bob", "q", "d", 1))
        with pytest.raises(InputError, match="outside the scale 0-1"):
            w.record(J("bob", "q", "d", 2))


def test_bad_ids_and_foreign_labeller_are_refused(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("alice") as w:
        with pytest.raises(InputError):
            w.record(J("alice", "", "d1", 1))
        with pytest.raises(ValueError):
            w.record(J("bob", "q1", "d1", 1))
        with pytest.raises(InputError):
            w.record(J("alice", "q1", "d1", 1, seconds=float("inf")))


def test_several_labellers_and_unknown_labeller(tmp_path: Path) -> None:
    project = make(tmp_path)
    for name, grade in [("alice", 1), ("Bob Ross", 2)]:
        with project.writer(name) as w:
            w.record(J(name, "q1", "d1", grade))
    assert project.labellers() == ["Bob Ross", "alice"]
    assert project.qrels("Bob Ross").rows() == [("q1", "d1", 2)]
    with pytest.raises(InputError, match="several labellers"):
        project.qrels()
    with pytest.raises(InputError, match="no labeller 'carol'.*'alice'"):
        project.judgments("carol")
    both = project.judgments()
    assert both.select("labeller", "grade").rows() == [("Bob Ross", 2), ("alice", 1)]


def test_qrels_sort_numeric_ids_numerically(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("a") as w:
        for q, d in [("10", "d2"), ("2", "d10"), ("2", "d9"), ("b", "x"), ("1", "z")]:
            w.record(J("a", q, d, 1))
    assert project.qrels().select("query_id", "doc_id").rows() == [
        ("1", "z"),
        ("2", "d10"),
        ("2", "d9"),
        ("10", "d2"),
        ("b", "x"),
    ]


# --- reference model ------------------------------------------------------------------------------
EVENT = st.tuples(
    st.sampled_from(["judge", "judge", "judge", "repeat", "undo", "note"]),
    st.sampled_from(["q1", "q2"]),
    st.sampled_from(["d1", "d2", "d3"]),
    st.integers(0, 3),
)
EVENTS = st.lists(EVENT, max_size=40)


def reference_latest(
    events: list[tuple[str, str, str, int]],
) -> dict[tuple[str, str], tuple[int, str | None]]:
    """The documented semantics, written plainly: a stack of grades per pair, undo pops."""
    stacks: dict[tuple[str, str], list[tuple[str, int]]] = {}
    notes: dict[tuple[str, str], str] = {}
    for kind, q, d, g in events:
        stack = stacks.setdefault((q, d), [])
        if kind == "undo":
            if stack:
                stack.pop()
        elif kind == "note":
            notes[(q, d)] = f"n{g}"
        else:
            stack.append((kind, g))
    out = {}
    for pair, stack in stacks.items():
        judged = [g for kind, g in stack if kind == "judge"]
        if judged:
            out[pair] = (judged[-1], notes.get(pair))
    return out


@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), EVENT), max_size=60))
@settings(max_examples=150, deadline=None)
def test_latest_function_matches_the_reference_model(tagged) -> None:
    from goldset_tui.store.frames import JUDGMENT_SCHEMA, latest

    rows = [
        {
            "labeller": who,
            "query_id": q,
            "doc_id": d,
            "grade": g if kind in ("judge", "repeat") else None,
            "time": "t",
            "seconds": 1.0,
            "position": 0,
            "note": f"n{g}" if kind == "note" else None,
            "kind": kind,
            "seq": i + 1,
        }
        for i, (who, (kind, q, d, g)) in enumerate(tagged)
    ]
    history = pl.DataFrame(rows, schema=JUDGMENT_SCHEMA).sort("labeller", "seq")
    got = {
        (r["labeller"], r["query_id"], r["doc_id"]): (r["grade"], r["note"])
        for r in latest(history).iter_rows(named=True)
    }
    want = {}
    for who in ("a", "b"):
        mine = [event for w, event in tagged if w == who]
        want.update({(who, *pair): value for pair, value in reference_latest(mine).items()})
    assert got == want


@given(EVENTS, st.integers(1, 7))
@settings(max_examples=8, deadline=None)
def test_the_store_matches_the_reference_model(tmp_path_factory, events, compact_every) -> None:
    tmp = tmp_path_factory.mktemp("model")
    project = make(tmp)
    old = writer_module.COMPACT_EVERY
    writer_module.COMPACT_EVERY = compact_every  # exercise parts + journal mixes
    try:
        w = project.writer("a")
        for i, (kind, q, d, g) in enumerate(events):
            if kind == "undo":
                prefix = reference_latest(events[: i + 1])
                assert w.undo(q, d) == (prefix[(q, d)][0] if (q, d) in prefix else None)
            elif kind == "note":
                w.note(q, d, f"n{g}")
            else:
                w.record(J("a", q, d, g, kind=kind, position=i))
            if i == len(events) // 2:  # a second session continues from the first
                w.close()
                w = project.writer("a")
        w.close()
    finally:
        writer_module.COMPACT_EVERY = old
    got = {
        (r["query_id"], r["doc_id"]): (r["grade"], r["note"])
        for r in project.judgments().iter_rows(named=True)
    }
    assert got == reference_latest(events)


# --- compaction -----------------------------------------------------------------------------------
def test_compaction_moves_the_journal_into_parquet_without_changing_anything(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(writer_module, "COMPACT_EVERY", 10)
    project = make(tmp_path)
    journal = project.path / "journal" / "alice.jsonl"
    with project.writer("alice") as w:
        for i in range(25):
            w.record(J("alice", f"q{i % 3}", f"d{i}", i % 4))
        # two compactions happened (at 10 and 20); five records wait in the journal
        assert len(journal.read_text().splitlines()) == 5
        assert len(list_parts(w.parts_dir)) == 2
        before = project.judgments(history=True)
    after = project.judgments(history=True)
    assert journal.read_text() == ""
    assert before.equals(after) and after["seq"].to_list() == list(range(1, 26))


def test_many_parts_are_merged(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(writer_module, "COMPACT_EVERY", 2)
    project = make(tmp_path)
    with project.writer("alice") as w:
        for i in range(60):
            w.record(J("alice", "q", f"d{i}", i % 4))
            assert len(list_parts(w.parts_dir)) <= 9
    history = project.judgments(history=True)
    assert history["seq"].to_list() == list(range(1, 61))


def test_project_compact_folds_a_leftover_journal(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("alice"):
        pass
    journal = project.path / "journal" / "alice.jsonl"
    record = {
        "kind": "judge",
        "labeller": "alice",
        "query_id": "q",
        "doc_id": "d",
        "grade": 2,
        "time": "t",
        "seconds": 1.0,
        "position": 0,
        "note": None,
        "seq": 1,
    }
    journal.write_text(json.dumps(record) + "\n")
    assert project.qrels().rows() == [("q", "d", 2)]  # visible before compaction
    project.compact()
    assert journal.read_text() == ""
    assert project.qrels().rows() == [("q", "d", 2)]


def test_a_corrupt_journal_record_is_an_error_naming_line_and_field(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("alice"):
        pass
    journal = project.path / "journal" / "alice.jsonl"
    good = {
        "kind": "judge",
        "labeller": "alice",
        "query_id": "q",
        "doc_id": "d",
        "grade": 2,
        "time": "t",
        "seconds": 1.0,
        "position": 0,
        "note": None,
        "seq": 1,
    }
    journal.write_text(
        json.dumps(good) + "\n" + json.dumps({**good, "grade": "high", "seq": 2}) + "\n"
    )
    with pytest.raises(InputError) as info:
        project.judgments()
    assert info.value.line == 2 and info.value.column == "grade"


# --- prior judgments ------------------------------------------------------------------------------
def test_import_prior_is_idempotent_and_checks_the_scale(tmp_path: Path) -> None:
    project = make(tmp_path)
    prior = pl.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"], "grade": [3, 2, 0]}
    )
    assert project.import_prior(prior) == 3
    assert project.import_prior(prior) == 0
    assert project.qrels("prior").rows() == [("q1", "a", 3), ("q1", "b", 2), ("q2", "a", 0)]
    changed = prior.with_columns(grade=pl.Series([3, 1, 0]))
    assert project.import_prior(changed) == 1
    bad = pl.DataFrame({"query_id": ["q1", "q9"], "doc_id": ["a", "z"], "grade": ["3", "7"]})
    with pytest.raises(InputError) as info:
        project.import_prior(bad)
    assert (
        info.value.row == 2
        and info.value.column == "grade"
        and "outside the scale 0-3" in info.value.message
    )
    clash = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "grade": [1, 2]})
    with pytest.raises(InputError, match="different grades"):
        project.import_prior(clash)
    assert project.qrels("prior").height == 3


def test_summary_and_find_stores(tmp_path: Path) -> None:
    from goldset_tui.store import find_stores

    project = make(tmp_path)
    with project.writer("alice") as w:
        w.record(J("alice", "q1", "d1", 1))
        w.record(J("alice", "q1", "d1", 2))
        w.record(J("alice", "q1", "d2", 0))
    with project.writer("bob"):
        pass
    summary = project.summary()
    assert summary.select("labeller", "judged", "events").rows() == [("alice", 2, 3), ("bob", 0, 0)]
    assert (
        summary["first"].null_count() == 0 and summary["last"].to_list()[1] is None
    )  # bob never saved
    assert find_stores(tmp_path) == [project.path]
    assert find_stores(tmp_path / "nothing") == []


def test_torn_tail_warns_only_without_a_live_writer(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("alice") as w:
        w.record(J("alice", "q", "d", 1))
        journal = project.path / "journal" / "alice.jsonl"
        with open(journal, "ab") as handle:
            handle.write(b'{"kind": "jud')  # what a reader may see while a save is in flight
        assert project.qrels().rows() == [("q", "d", 1)] and project.warnings == []
        w._journal.close()  # the writer "crashes": its lock is gone, the torn line stays
    reader = Project.open(project.path)
    assert reader.qrels().rows() == [("q", "d", 1)]
    assert len(reader.warnings) == 1 and "incomplete last line" in reader.warnings[0]
    with reader.writer("alice") as w2:  # the next session cuts the torn line and carries on
        assert len(w2.warnings) == 1
        w2.record(J("alice", "q", "d2", 2))
    assert Project.open(project.path).qrels().rows() == [("q", "d", 1), ("q", "d2", 2)]


def test_concurrent_saves_from_threads_are_serialised(tmp_path: Path) -> None:
    import threading

    project = make(tmp_path)
    with project.writer("alice") as w:

        def save(t: int) -> None:
            for i in range(40):
                w.record(J("alice", f"q{t}", f"d{i}", i % 4))

        threads = [threading.Thread(target=save, args=(t,)) for t in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    history = project.judgments(history=True)
    assert history["seq"].to_list() == list(range(1, 161))
    assert project.judgments().height == 160


def test_a_failed_compaction_does_not_fail_the_save(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(writer_module, "COMPACT_EVERY", 3)
    project = make(tmp_path)
    real = writer_module.write_part

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    with project.writer("alice") as w:
        monkeypatch.setattr(writer_module, "write_part", disk_full)
        for i in range(4):
            w.record(J("alice", "q", f"d{i}", 1))  # the third save tries to compact and fails
        assert any("compaction failed" in warning for warning in w.warnings)
        assert project.judgments().height == 4  # all in the journal
        monkeypatch.setattr(writer_module, "write_part", real)
    assert (project.path / "journal" / "alice.jsonl").read_text() == ""
    assert project.judgments(history=True)["seq"].to_list() == [1, 2, 3, 4]


def test_bad_time_or_note_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("alice") as w:
        with pytest.raises(InputError):
            w.record(Judgment("alice", "q", "d", 1, 12345))  # type: ignore[arg-type]
        with pytest.raises(InputError):
            w.record(Judgment("alice", "q", "d", 1, "t", note=7))  # type: ignore[arg-type]
    assert project.judgments(history=True).height == 0
