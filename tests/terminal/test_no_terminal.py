"""Without a terminal, every command that opens a screen refuses at once: exit 2, one line naming
what a script can use instead. (`goldset </dev/null >out.txt` used to spin on a core forever.)

Real subprocesses with real stdin/stdout, each with a timeout: a spin fails the test instead of
hanging it."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

SCREEN_COMMANDS = {
    "home": [],
    "judge": ["judge", "POOL", "--labeller", "ana", "--store", "STORE"],
    "demo": ["demo"],
    "review": ["review", "--store", "STORE", "--labeller", "ana"],
    "spotcheck": ["spotcheck", "LABELS"],
    "agreement --screen": ["agreement", "--store", "STORE", "--screen"],
    "adjudicate": ["adjudicate", "--store", "STORE", "--labeller", "dee"],
    "route --screen": ["route", "--qrels", "STORE", "--strata", "LABELS", "--screen"],
}


def _argv(args: list[str], tmp_path: Path) -> list[str]:
    pool = Path(__file__).resolve().parents[2] / "sample_data" / "pool.jsonl"
    names = {"POOL": str(pool), "STORE": str(tmp_path / "store"), "LABELS": str(tmp_path / "l")}
    return [sys.executable, "-m", "goldset_tui", *(names.get(a, a) for a in args)]


def test_every_screen_command_refuses_without_a_terminal(tmp_path: Path) -> None:
    env = {**os.environ, "GOLDSET_DATA_DIR": str(tmp_path / "data")}
    procs = {
        name: subprocess.Popen(
            _argv(args, tmp_path),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        for name, args in SCREEN_COMMANDS.items()
    }
    for name, proc in procs.items():
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"{name}: still running after 60 s without a terminal")
        assert proc.returncode == 2, (name, err)
        assert out == ""
        lines = err.splitlines()
        assert len(lines) == 1, (name, err)
        assert "needs a terminal" in lines[0] and "for scripts use" in lines[0], (name, err)
    assert not (tmp_path / "store").exists()  # refused before anything was created
    assert not (tmp_path / "data").exists()


def test_stdout_redirected_is_refused_too(tmp_path: Path) -> None:
    """A terminal on stdin but stdout into a file (`goldset > out.txt`) cannot draw either."""
    main, child = pty.openpty()
    try:
        done = subprocess.run(
            _argv([], tmp_path),
            stdin=child,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "GOLDSET_DATA_DIR": str(tmp_path / "data")},
        )
    finally:
        os.close(main)
        os.close(child)
    assert done.returncode == 2
    assert done.stderr.startswith("goldset: error: goldset opens a screen and needs a terminal")


def test_commands_without_a_screen_still_work_in_scripts(tmp_path: Path) -> None:
    pool = Path(__file__).resolve().parents[2] / "sample_data" / "pool.jsonl"
    done = subprocess.run(
        _argv(["check", str(pool)], tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_the_demo_refusal_points_at_a_pool_every_install_has(tmp_path: Path) -> None:
    # It used to say "sample_data/", which only a source checkout has. What it names now works
    # from any folder without a terminal: goldset demo --pool-path, then goldset check on it.
    env = {**os.environ, "GOLDSET_DATA_DIR": str(tmp_path / "data")}
    run = dict(capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    refused = subprocess.run(_argv(["demo"], tmp_path), stdin=subprocess.DEVNULL, **run)
    assert refused.returncode == 2
    assert "sample_data" not in refused.stderr
    assert 'goldset check "$(goldset demo --pool-path)"' in refused.stderr
    where = subprocess.run(
        _argv(["demo", "--pool-path"], tmp_path), stdin=subprocess.DEVNULL, **run
    )
    assert where.returncode == 0, where.stderr
    pool = Path(where.stdout.strip())
    assert pool.is_file() and pool.is_relative_to(tmp_path / "data")
    checked = subprocess.run(_argv(["check", str(pool)], tmp_path), **run)
    assert checked.returncode == 0, checked.stderr
    assert "42" in checked.stdout  # the sample's 42 queries
