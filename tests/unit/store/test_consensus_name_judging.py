"""A person judging under the name `consensus`: `goldset import` refused the name (it is what
`goldset agreement` and `qrels --consensus` call the human consensus), but `goldset judge
--labeller consensus` and the home screen's "judge as" opened a screen and wrote a journal under
it; `goldset qrels --labeller consensus` then refused the store's own labeller. Judging (and
`goldset serve`'s labellers) now refuse the name too, before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldset_tui.commands.judge import prepare
from goldset_tui.errors import InputError
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.machine import refuse_machine


def pool_file(tmp_path: Path) -> Path:
    pool = tmp_path / "pool.jsonl"
    rows = [{"query_id": "q1", "query": "a query", "doc_id": d, "text": d} for d in ("d1", "d2")]
    pool.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return pool


def test_judge_refuses_the_consensus_name_and_makes_no_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with pytest.raises(InputError) as caught:
        prepare(pool_file(tmp_path), "consensus", store=store)
    assert caught.value.column == "labeller"
    assert "consensus" in caught.value.message
    assert not store.exists()


def test_judge_refuses_it_in_an_existing_store(tmp_path: Path) -> None:
    pool = pool_file(tmp_path)
    Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    with pytest.raises(InputError):
        prepare(pool, "consensus", store=tmp_path / "store")
    assert not (tmp_path / "store" / "journal" / "consensus.jsonl").exists()


def test_a_served_labeller_may_not_be_called_consensus(tmp_path: Path) -> None:
    # `goldset serve` checks each labeller of USERS.toml with refuse_machine at start-up.
    pool = pool_file(tmp_path)
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    with pytest.raises(InputError) as caught:
        refuse_machine(project, "consensus")
    assert caught.value.column == "labeller"
    refuse_machine(project, "Consensus team")  # another name: fine


@pytest.mark.parametrize("name", ["consensus", " "])
def test_import_with_pool_refuses_the_name_before_making_the_store(
    tmp_path: Path, capsys, name: str
) -> None:
    # It made the store (and said so), then refused the name: an empty store was left behind.
    from goldset_tui.cli import main

    qrels = tmp_path / "old.qrels"
    qrels.write_text("q1 0 d1 2\n")
    store = tmp_path / "store"
    argv = ["import", "--pool", str(pool_file(tmp_path)), "--store", str(store)]
    assert main([*argv, "--labeller", name, "--human", str(qrels)]) == 2
    assert "made the store" not in capsys.readouterr().err
    assert not store.exists()


def test_serve_add_user_refuses_the_consensus_name(tmp_path: Path) -> None:
    # It added the user, and then the server (which checks every labeller) refused to start.
    from goldset_tui.serve.users import add_labeller

    with pytest.raises(InputError) as caught:
        add_labeller(tmp_path / "team.toml", "consensus")
    assert "consensus" in caught.value.message
    assert not (tmp_path / "team.toml").exists()


def test_a_users_file_written_before_the_rule_is_refused_naming_the_file(tmp_path: Path) -> None:
    # A USERS.toml from before the rule: serve stopped at start-up with a message about the
    # labeller that named neither the file nor its line.
    from goldset_tui.serve.users import add_labeller, read_labellers

    users = tmp_path / "team.toml"
    add_labeller(users, "ana")
    text = users.read_text(encoding="utf-8").replace("[labellers.ana]", "[labellers.consensus]")
    users.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_labellers(users)
    assert caught.value.path == users and caught.value.line is not None
    assert "'consensus' is the name goldset gives the human consensus" in caught.value.message
