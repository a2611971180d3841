"""The screen commands run Textual with goldset's frame-rate cap (``goldset_tui.ui.FRAME_RATE``),
not Textual's 60: at 60 a key's redraw could wait up to 16.7 ms for the next tick, the tail of
the keypress-to-screen latency. Textual reads ``TEXTUAL_FPS`` once, when it is imported, so the
check runs each program's imports in a fresh interpreter, in the order the program makes them,
and reads the value Textual took. A user's own ``TEXTUAL_FPS`` wins."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from goldset_tui.ui import FRAME_RATE

# What each program imports, in order, before its screen opens: the CLI, the command's module,
# then the app (inside the command's run); `goldset serve` starts goldset_tui.serve.child.
PROGRAMS = {
    "goldset judge": ["goldset_tui.cli", "goldset_tui.commands.judge", "goldset_tui.ui.app"],
    "goldset demo": ["goldset_tui.cli", "goldset_tui.commands.demo", "goldset_tui.ui.app"],
    "goldset review": ["goldset_tui.cli", "goldset_tui.commands.review", "goldset_tui.ui.app"],
    "goldset (home)": ["goldset_tui.cli", "goldset_tui.commands._home", "goldset_tui.ui.app"],
    "serve's judging process": [
        "goldset_tui.serve.child",
        "goldset_tui.commands.judge",
        "goldset_tui.ui.app",
    ],
}

PROBE = r"""
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
from textual import constants, screen
print(constants.MAX_FPS, round(1 / screen.UPDATE_PERIOD))
"""


def textual_rate(modules: list[str], fps: str | None) -> tuple[int, int]:
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    if fps is not None:
        env["TEXTUAL_FPS"] = fps
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *modules],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    cap, ticks = out.stdout.split()
    return int(cap), int(ticks)


def test_the_cap_is_above_textuals_default() -> None:
    assert FRAME_RATE > 60  # else there is nothing to test below


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_each_screen_program_runs_textual_at_goldsets_frame_rate(program: str) -> None:
    assert textual_rate(PROGRAMS[program], None) == (FRAME_RATE, FRAME_RATE)


def test_a_users_own_frame_rate_wins() -> None:
    assert textual_rate(PROGRAMS["goldset judge"], "75") == (75, 75)


def test_textual_imported_first_would_keep_60() -> None:
    # The same probe notices the default: proves the checks above can fail.
    assert textual_rate(["textual.app", "goldset_tui.ui.app"], None) == (60, 60)


def test_serve_gives_its_judging_processes_the_same_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    # textual-serve pins TEXTUAL_FPS=60 in the environment of the processes it starts.
    from goldset_tui.serve.server import JudgingProcess

    seen: list[dict[str, str]] = []

    async def spawn(*argv: str, env: dict[str, str], **kwargs: object) -> object:
        seen.append(env)
        raise RuntimeError("not started")

    monkeypatch.setattr(asyncio, "create_subprocess_exec", spawn)

    async def nothing(*args: object) -> None:
        return None

    def start(user_fps: str | None) -> str:
        if user_fps is None:
            monkeypatch.delenv("TEXTUAL_FPS", raising=False)
        else:
            monkeypatch.setenv("TEXTUAL_FPS", user_fps)
        process = JudgingProcess(
            ["true"],
            "ana",
            write_bytes=nothing,
            write_str=nothing,
            close=nothing,
            download_manager=None,
        )
        with pytest.raises(RuntimeError, match="not started"):
            asyncio.run(process._open_app_process())
        return seen[-1]["TEXTUAL_FPS"]

    assert start(None) == str(FRAME_RATE)
    assert start("90") == "90"
