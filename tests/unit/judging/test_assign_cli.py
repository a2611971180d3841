"""`goldset judge --assign`: the split remembered in the store changes only on purpose (--team)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldset_tui.cli import main
from goldset_tui.commands.judge import prepare
from goldset_tui.store.manifest import manifest_path


@pytest.fixture
def pool(tmp_path: Path) -> Path:
    path = tmp_path / "pool.csv"
    rows = [f"q{i:02d},query {i},d{j},text {i} {j}" for i in range(1, 11) for j in range(2)]
    path.write_text("query_id,query,doc_id,text\n" + "\n".join(rows) + "\n")
    return path


def assignment(store: Path) -> dict:
    import tomllib

    return tomllib.loads(manifest_path(store).read_text())["assignment"]


@pytest.fixture(autouse=True)
def no_screen(monkeypatch):
    """A judge command that gets past the checks must fail here, never open a screen and wait."""

    def refuse(*args, **kwargs):
        raise AssertionError("the judging screen would open")

    monkeypatch.setattr("goldset_tui.commands.judge.make_screen", refuse)


def judge(pool: Path, store: Path, *extra: str) -> int:
    return main(["judge", str(pool), "--store", str(store), *extra])


def test_unknown_labeller_is_refused_not_added_to_the_team(pool, tmp_path, capsys) -> None:
    store = tmp_path / "js"
    prepare(pool, "alice", store=store, assign="overlap=0.2", team="alice,bob")
    before = manifest_path(store).read_bytes()
    assert judge(pool, store, "--labeller", "zed", "--assign", "overlap=0.2") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert (
        "'zed' is not in the team" in err
        and "'alice', 'bob'" in err
        and "--team alice,bob,zed" in err
    )
    assert manifest_path(store).read_bytes() == before  # nothing rewritten


def test_a_different_overlap_is_refused_not_overwritten(pool, tmp_path, capsys) -> None:
    store = tmp_path / "js"
    prepare(pool, "alice", store=store, assign="overlap=0.2", team="alice,bob")
    assert judge(pool, store, "--labeller", "bob", "--assign", "overlap=0.5") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "overlap=0.2 remembered" in err and "--team alice,bob" in err
    assert assignment(store)["overlap"] == 0.2
    assert judge(pool, store, "--labeller", "bob", "--assign", "overlap=0.2", "--seed", "9") == 2
    assert "seed 0 remembered" in capsys.readouterr().err
    assert assignment(store)["seed"] == 0


def test_team_given_again_changes_the_plan_on_purpose(pool, tmp_path) -> None:
    from goldset_tui.agreement.assignment import assigned_query_ids

    store = tmp_path / "js"
    prepare(pool, "alice", store=store, assign="overlap=0.2", team="alice,bob")
    same = prepare(pool, "bob", store=store, assign="overlap=0.2")  # the remembered plan: fine
    queries = [f"q{i:02d}" for i in range(1, 11)]
    assert same.query_ids == assigned_query_ids(queries, "bob", ["alice", "bob"], 0.2, 0)
    changed = prepare(pool, "zed", store=store, assign="overlap=0.5", team="alice,bob,zed")
    assert assignment(store) == {"overlap": 0.5, "labellers": ["alice", "bob", "zed"], "seed": 0}
    assert changed.query_ids == assigned_query_ids(queries, "zed", ["alice", "bob", "zed"], 0.5, 0)


def test_an_assignment_that_gives_this_labeller_no_query_is_refused(tmp_path: Path) -> None:
    # One query, overlap 0.2 (round(0.2) = 0 shared) dealt over alice, bob and zed: zed's share
    # is empty. The screen opened on no query and died with IndexError; now one line, exit 2,
    # and no store is made.
    from goldset_tui.commands.judge import prepare
    from goldset_tui.errors import InputError

    path = tmp_path / "pool.jsonl"
    path.write_text(
        "".join(
            json.dumps({"query_id": "q1", "query": "q", "doc_id": f"d{i}", "text": "t"}) + "\n"
            for i in range(3)
        )
    )
    store = tmp_path / "store"
    shares = {}
    for name in ("alice", "bob", "zed"):
        try:
            shares[name] = prepare(
                path, name, store=tmp_path / f"s-{name}", assign="overlap=0.2", team="alice,bob,zed"
            ).query_ids
        except InputError:
            shares[name] = []
    assert sorted(len(v) for v in shares.values()) == [0, 0, 1]
    empty = next(name for name, ids in shares.items() if not ids)
    with pytest.raises(InputError, match="no query falls to"):
        prepare(path, empty, store=store, assign="overlap=0.2", team="alice,bob,zed")
    assert not store.exists()
