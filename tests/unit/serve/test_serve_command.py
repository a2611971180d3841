"""`goldset serve`'s arguments: this machine only unless asked, every mistake one line and exit 2
before anything listens."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from goldset_tui.cli import main
from goldset_tui.commands.serve import check_host, is_this_machine
from goldset_tui.errors import InputError
from goldset_tui.serve.users import add_labeller

POOL = Path(__file__).resolve().parents[3] / "goldset_tui" / "sample" / "pool.jsonl"


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("judging.example.org", False),  # a name may resolve anywhere
    ],
)
def test_only_loopback_counts_as_this_machine(host: str, local: bool) -> None:
    assert is_this_machine(host) is local


def test_another_host_needs_the_flag_and_then_gets_a_warning() -> None:
    assert check_host("127.0.0.1", False) is None
    with pytest.raises(InputError, match="--allow-remote"):
        check_host("0.0.0.0", False)
    warning = check_host("0.0.0.0", True)
    assert warning is not None and "not encrypted" in warning


def _serve(tmp_path: Path, *extra: str) -> list[str]:
    users = tmp_path / "team.toml"
    if not users.exists():
        add_labeller(users, "alice")
    return ["serve", str(POOL), "--store", str(tmp_path / "store"), "--users", str(users), *extra]


def test_mistakes_are_one_line_and_exit_2_before_listening(tmp_path: Path, capsys) -> None:
    cases = {
        "--allow-remote": _serve(tmp_path, "--host", "0.0.0.0"),
        "--port 70000": _serve(tmp_path, "--port", "70000"),
        "give the POOL": ["serve", "--users", str(tmp_path / "team.toml")],
        "take no POOL": ["serve", str(POOL), "--add-user", "bob", "--users", str(tmp_path / "x")],
        "no such file": ["serve", str(POOL), "--store", "s", "--users", str(tmp_path / "none")],
    }
    for expected, argv in cases.items():
        assert main(argv) == 2, expected
        err = capsys.readouterr().err
        assert expected in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "store").exists()  # nothing was created for a refused command
    assert not (tmp_path / "x").exists()


def test_a_port_in_use_is_one_line_naming_the_address(tmp_path: Path, capsys) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(_serve(tmp_path, "--port", str(port))) == 2
    err = capsys.readouterr().err.strip().splitlines()
    # The store is checked (and its lines said) before listening; the failure is the last line.
    assert err[-1].startswith(f"goldset: error: --host 127.0.0.1 --port {port}: cannot listen")


def test_an_empty_labellers_file_is_refused(tmp_path: Path, capsys) -> None:
    users = tmp_path / "team.toml"
    users.write_text("", encoding="utf-8")
    argv = ["serve", str(POOL), "--store", str(tmp_path / "store"), "--users", str(users)]
    assert main(argv) == 2
    assert "no labellers yet" in capsys.readouterr().err


def test_without_the_serve_extra_it_says_what_to_install(tmp_path: Path) -> None:
    # A fresh interpreter where textual-serve cannot be imported, as after a plain install.
    add_labeller(tmp_path / "team.toml", "alice")
    script = (
        "import sys; sys.modules['textual_serve'] = None\n"
        "from goldset_tui.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    argv = [sys.executable, "-c", script, *_serve(tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "goldset: error: goldset serve needs the web packages (textual_serve is missing):"
        " pip install 'goldset-tui[serve]'"
    ]


def test_a_judging_process_does_not_import_from_the_servers_working_folder(
    tmp_path: Path, monkeypatch
) -> None:
    # A `goldset_tui` package planted in the folder the server was started in must not be the
    # one every labeller's process imports: the child runs with -P.
    from goldset_tui.commands.serve import _child_argv

    planted = tmp_path / "goldset_tui"
    planted.mkdir()
    (planted / "__init__.py").write_text("raise SystemExit('planted module imported')\n")
    argv = _child_argv(tmp_path / "pool.jsonl", tmp_path / "store", None)("alice")
    probe = [argv[0], *argv[1:2], "-c", "import goldset_tui, sys; print(goldset_tui.__file__)"]
    assert argv[1] == "-P"
    done = subprocess.run(probe, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not done.stdout.strip().startswith(str(tmp_path))


def test_start_up_prepares_for_no_labeller_in_particular(tmp_path: Path, monkeypatch) -> None:
    # It ran `prepare` as the first labeller by name. That touched none of alice's files (no
    # lock, no position), but only by chance of what prepare did; now it is for nobody, and each
    # labeller's own checks are made for each.
    import argparse

    from goldset_tui.app import judging
    from goldset_tui.commands import serve
    from goldset_tui.store import Project

    users = tmp_path / "team.toml"
    for name in ("bob", "alice"):
        add_labeller(users, name)
    store = tmp_path / "store"
    seen: list[object] = []
    real = judging.open_judging

    def spy(pool, labeller, **kwargs):
        seen.append(labeller)
        return real(pool, labeller, **kwargs)

    monkeypatch.setattr(judging, "open_judging", spy)
    args = argparse.Namespace(
        pool=str(POOL),
        store=str(store),
        users=str(users),
        corpus=None,
        host="127.0.0.1",
        port=0,
        behind_proxy=False,
    )
    serve._prepare(args, lambda **kwargs: kwargs)  # makes the store
    # alice judges in a terminal (her lock held, a grade durable) while the server starts again.
    project = Project.open(store)
    journal, parts = project.labeller_paths("alice")
    with project.writer("alice"):
        before = journal.read_bytes(), sorted(parts.glob("*")) if parts.exists() else []
        server, labellers = serve._prepare(args, lambda **kwargs: kwargs)
        after = journal.read_bytes(), sorted(parts.glob("*")) if parts.exists() else []
        assert server["is_busy"]("alice") and not server["is_busy"]("bob")
    assert seen == [None, None] and labellers == ["alice", "bob"]
    assert before == after


def test_tokens_from_before_quick_checks_are_named_at_start(tmp_path: Path, capsys) -> None:
    import tomllib

    import tomli_w

    argv = _serve(tmp_path)
    users = tmp_path / "team.toml"
    add_labeller(users, "bob")
    data = tomllib.loads(users.read_text())
    del data["labellers"]["bob"]["check"]  # as goldset wrote entries before
    users.write_text(tomli_w.dumps(data))
    with socket.socket() as taken:  # stops it before it serves: the note comes before listening
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main([*argv, "--port", str(taken.getsockname()[1])]) == 2
    notes = [line for line in capsys.readouterr().err.splitlines() if "note:" in line]
    assert notes == [
        f"goldset serve: note: bob in {users} has a token from before quick checks: a flood of "
        "wrong tokens on such a link's id can delay that labeller's login; a new token "
        "(--remove-user, then --add-user) adds one"
    ]
