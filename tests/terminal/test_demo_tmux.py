"""`goldset demo` after a plain install: build the wheel, install it (no -e) into a fresh venv,
and run its `goldset demo` in tmux from a folder far from the checkout. The sample pool must come
from the package; a `q` must keep the judgments, and the next `goldset demo` resumes them.

The fresh venv gets the wheel alone (`--no-deps`, offline); the dependencies come from this test
venv's site-packages through a .pth line, which Python adds after the venv's own site-packages, so
the installed wheel's goldset_tui is the one that runs (checked), not this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytestmark = [pytest.mark.terminal, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the built wheel installed; returns its bin folder."""
    base = tmp_path_factory.mktemp("wheel")
    # Build from a copy: building in the checkout reuses its build/ folder, so a module deleted
    # since the last build would still ship in the wheel (a stale import_machine.py did once).
    source = base / "source"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", "tests", "bench"
        ),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(base / "dist"),
            str(source),
        ],
        check=True,
        timeout=600,
    )
    (wheel,) = (base / "dist").glob("goldset_tui-*.whl")
    venv = base / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        timeout=300,
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    (Path(purelib) / "deps-from-test-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = subprocess.run(
        [str(python), "-c", "import goldset_tui; print(goldset_tui.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=base,
    ).stdout.strip()
    assert where.startswith(purelib), where  # the wheel's copy, not this checkout's
    return venv / "bin"


def test_demo_from_a_plain_install_keeps_its_judgments(
    tmux, installed: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: os.environ[k] for k in ("GOLDSET_DATA_DIR", "GOLDSET_CONFIG_DIR")}
    goldset = str(installed / "goldset")

    t = tmux(80, 24)
    t.start([goldset, "demo"], env=env, cwd=elsewhere)
    t.wait_for("Guidelines", timeout=60)
    t.send("Escape")
    screen = t.wait_for(lambda s: "Guidelines" not in s and "all 0/1,285" in s)
    assert "Query 1/42" in screen
    t.send("3")
    t.wait_for("saved #1=3")
    t.send("q")
    t.wait_dead()
    assert t.wait_exit_status() == 0
    last = t.capture(history=10).replace("\n", "")
    assert "1 of 1,285 judged, kept in" in last  # said on exit, and nothing was thrown away
    assert list(elsewhere.iterdir()) == []  # nothing written into the folder it ran from

    t2 = tmux(80, 24)
    t2.start([goldset, "demo"], env=env, cwd=elsewhere)  # the next demo resumes
    screen = t2.wait_for("all 1/1,285", timeout=60)
    assert "Guidelines" not in screen  # not a first open any more
    t2.send("q")
    t2.wait_dead()
    store = subprocess.run(
        [goldset, "demo", "--where"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
        check=True,
    ).stdout.strip()
    out = subprocess.run(
        [goldset, "qrels", "--store", store],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert out.returncode == 0, out.stderr
    ((qid, _, _doc, grade),) = [line.split() for line in out.stdout.splitlines()]
    assert (qid, grade) == ("q01", "3")
