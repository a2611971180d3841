"""`goldset judge POOL` without --store opens the store that holds this pool's grades, wherever it
was made; the list of known stores behind it never stops a command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import goldset_tui.ui.app as app_module
from goldset_tui import locations
from goldset_tui.cli import main
from goldset_tui.store import Project, default_store_for
from goldset_tui.store.registry import known_stores, remember

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
ALICE = SAMPLE / "judgments" / "alice.qrels"


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list:
    """Stands in for run_app: builds the judging screen's session as the screen would (no
    terminal), and keeps it for the test to look at."""
    sessions: list = []

    def build(make_screen) -> int:
        sessions.append(make_screen()._make_session())
        return 0

    monkeypatch.setattr(app_module, "run_app", build)
    return sessions


def a_few_grades(tmp_path: Path, n: int = 112) -> Path:
    path = tmp_path / "ana.qrels"
    path.write_text("".join(ALICE.read_text().splitlines(keepends=True)[:n]))
    return path


def test_judge_without_store_opens_the_store_holding_her_grades(
    tmp_path: Path, opened: list, capsys: pytest.CaptureFixture[str]
) -> None:
    pool, store = SAMPLE / "pool.jsonl", tmp_path / "S"
    grades = a_few_grades(tmp_path)
    argv = ["import", "--pool", str(pool), "--store", str(store), "--labeller", "ana"]
    assert main([*argv, "--human", str(grades)]) == 0
    capsys.readouterr()
    assert main(["judge", str(pool), "--labeller", "ana"]) == 0  # --store forgotten
    (session,) = opened
    assert session.overall_progress() == (112, 1285)  # not 0 of 1,285 in a new store
    assert not default_store_for(pool).exists()  # no empty project made on the side
    warning, exit_line = capsys.readouterr().err.splitlines()  # then judge's line on leaving
    assert f"opening {store.resolve()}" in warning and "112 judgments" in warning
    assert exit_line.startswith("goldset judge: ") and f"kept in {store.resolve()}" in exit_line


def test_her_assign_share_comes_with_the_store(tmp_path: Path, opened: list) -> None:
    pool, store = SAMPLE / "pool.jsonl", tmp_path / "S"
    first = ["judge", str(pool), "--labeller", "ana", "--store", str(store)]
    assert main([*first, "--assign", "overlap=0.2", "--team", "ana,bob"]) == 0
    assert main(["judge", str(pool), "--labeller", "ana"]) == 0
    shared, alone = opened
    assert shared.query_ids == alone.query_ids
    assert len(alone.query_ids) < len({json.loads(x)["query_id"] for x in pool.open()})


def test_several_stores_are_named_and_nothing_opens(
    tmp_path: Path, opened: list, capsys: pytest.CaptureFixture[str]
) -> None:
    pool, grades = SAMPLE / "pool.jsonl", a_few_grades(tmp_path, 5)
    for name in ("S1", "S2"):
        argv = ["import", "--pool", str(pool), "--store", str(tmp_path / name)]
        assert main([*argv, "--labeller", "ana", "--human", str(grades)]) == 0
    capsys.readouterr()
    assert main(["judge", str(pool), "--labeller", "ana"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--store DIR" in err
    assert str((tmp_path / "S1").resolve()) in err and str((tmp_path / "S2").resolve()) in err
    assert opened == [] and not default_store_for(pool).exists()


def test_a_new_labeller_joins_the_only_store_of_the_pool(
    tmp_path: Path, opened: list, capsys: pytest.CaptureFixture[str]
) -> None:
    pool, store = SAMPLE / "pool.jsonl", tmp_path / "S"
    argv = ["import", "--pool", str(pool), "--store", str(store), "--labeller", "ana"]
    assert main([*argv, "--human", str(a_few_grades(tmp_path))]) == 0
    assert main(["judge", str(pool), "--labeller", "bob"]) == 0
    assert "bob" in Project.open(store).labellers()
    assert "the one store that holds this pool" in capsys.readouterr().err


def test_the_default_store_is_still_opened_quietly(
    tmp_path: Path, opened: list, capsys: pytest.CaptureFixture[str]
) -> None:
    pool = SAMPLE / "pool.jsonl"
    assert main(["judge", str(pool), "--labeller", "ana"]) == 0
    assert main(["judge", str(pool), "--labeller", "ana"]) == 0
    said = capsys.readouterr().err.splitlines()  # no warning: only judge's line on leaving, twice
    assert len(said) == 2 and all(line.startswith("goldset judge: ") for line in said)
    assert default_store_for(pool).resolve() in known_stores()


def test_stale_and_damaged_lists_are_tolerated(tmp_path: Path) -> None:
    pool = SAMPLE / "pool.jsonl"
    gone = tmp_path / "gone"
    Project.create(gone, pool_path=pool, pool_sha256="x")
    kept = tmp_path / "kept"
    Project.create(kept, pool_path=pool, pool_sha256="x")
    (gone / "manifest.toml").unlink()
    assert known_stores() == [kept.resolve()]  # the stale entry is skipped
    remember(tmp_path / "third-not-a-store")
    listed = json.loads(locations.known_stores_file().read_text())["stores"]
    assert str(gone.resolve()) not in listed  # and dropped at the next write
    locations.known_stores_file().write_text("{not json")
    assert known_stores() == []
    remember(kept)  # a damaged list is replaced, not a failure
    assert known_stores() == [kept.resolve()]


def test_an_unwritable_data_folder_never_stops_a_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A data folder under a file cannot be written, even by root (read-only bits would not stop it).
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GOLDSET_DATA_DIR", str(blocker / "data"))
    store = tmp_path / "S"
    Project.create(store, pool_path=SAMPLE / "pool.jsonl", pool_sha256="x")
    assert Project.open(store).path == store
    assert known_stores() == []


def test_the_demo_store_is_never_joined(
    tmp_path: Path, opened: list, capsys: pytest.CaptureFixture[str]
) -> None:
    # `goldset demo` judges a copy of the sample pool, byte for byte the same file.
    assert main(["demo"]) == 0
    assert main(["judge", str(SAMPLE / "pool.jsonl"), "--labeller", "ana"]) == 0
    demo, mine = opened
    assert mine.overall_progress()[0] == 0
    assert default_store_for(SAMPLE / "pool.jsonl").exists()  # her own store, as before
    assert "opening" not in capsys.readouterr().err


def test_a_copy_of_the_pool_elsewhere_does_not_join_a_strangers_store(
    tmp_path: Path, opened: list
) -> None:
    copy = tmp_path / "copy" / "pool.jsonl"
    copy.parent.mkdir()
    copy.write_bytes((SAMPLE / "pool.jsonl").read_bytes())
    argv = ["import", "--pool", str(copy), "--store", str(tmp_path / "S"), "--labeller", "ana"]
    assert main([*argv, "--human", str(a_few_grades(tmp_path))]) == 0
    assert main(["judge", str(SAMPLE / "pool.jsonl"), "--labeller", "bob"]) == 0
    assert "bob" not in Project.open(tmp_path / "S").labellers()
    assert main(["judge", str(SAMPLE / "pool.jsonl"), "--labeller", "ana"]) == 0
    bob, ana = opened
    assert ana.overall_progress()[0] == 112  # her own grades are found from any copy


def test_a_store_where_she_has_no_judgment_does_not_make_her_choose(
    tmp_path: Path, opened: list, capsys: pytest.CaptureFixture[str]
) -> None:
    # Her grades are in S; a teammate's --team names her in T, where she has judged nothing.
    pool, store, team = SAMPLE / "pool.jsonl", tmp_path / "S", tmp_path / "T"
    argv = ["import", "--pool", str(pool), "--store", str(store), "--labeller", "ana"]
    assert main([*argv, "--human", str(a_few_grades(tmp_path))]) == 0
    plan = ["--assign", "overlap=0.2", "--team", "ana,cy"]
    assert main(["judge", str(pool), "--labeller", "cy", "--store", str(team), *plan]) == 0
    capsys.readouterr()
    assert main(["judge", str(pool), "--labeller", "ana"]) == 0
    assert opened[-1].overall_progress()[0] == 112
    warning = capsys.readouterr().err.splitlines()[0]
    assert f"opening {store.resolve()}" in warning and "112 judgments" in warning


def test_on_two_teams_and_judged_in_neither_she_still_chooses(
    tmp_path: Path, opened: list, capsys: pytest.CaptureFixture[str]
) -> None:
    pool, plan = SAMPLE / "pool.jsonl", ["--assign", "overlap=0.2", "--team", "ana,cy"]
    for name in ("T1", "T2"):
        argv = ["judge", str(pool), "--labeller", "cy", "--store", str(tmp_path / name)]
        assert main([*argv, *plan]) == 0
    capsys.readouterr()
    assert main(["judge", str(pool), "--labeller", "ana"]) == 2
    err = capsys.readouterr().err
    assert "in 2 stores" in err and err.count("(0 judgments)") == 2 and "--store DIR" in err
    assert "ana is on the team of this pool in 2 stores" in err  # not "has judged": she has not
    assert len(opened) == 2  # cy's two sittings; nothing opened for ana


def test_opening_a_listed_store_removes_what_a_killed_writer_of_the_list_left(tmp_path) -> None:
    # A kill between the list's rename and its folder's fsync leaves the link kept to the old
    # list; every later open found its store listed already and wrote nothing, so it stayed.
    import subprocess
    import sys

    store = tmp_path / "s"
    store.mkdir()
    (store / "manifest.toml").write_text("")
    remember(store)
    listing = locations.known_stores_file()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True
    )
    stray = listing.with_name(f".tmp-{listing.name}.{int(dead.stdout)}.0badf00d")
    stray.write_text("{}")
    remember(store)
    assert not stray.exists() and known_stores() == [store.resolve()]
