"""Under `goldset serve`, ``w`` changes the reading width for that labeller's session only: the
config file is the server account's, shared by every web labeller, and is never written."""

from __future__ import annotations

from test_judge_reading import pool, text_lines
from test_judge_support import MemoryWriter, run_async_tests

from goldset_tui import locations
from goldset_tui.config import load_config
from goldset_tui.judging import JudgingSession
from goldset_tui.serve.child import labeller_config
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen

SERVER_CONFIG = '# the server account\'s\n[ui]\ntext_width = 100\n\n[keymap]\nmore = "m"\n'


def web_labeller_app() -> GoldsetApp:
    """A judging app as the serve child builds it: the server account's config, shared."""
    session = JudgingSession(pool(), "ana", writer=MemoryWriter())
    config = labeller_config(load_config())
    return GoldsetApp(lambda: JudgeScreen(session, show_guidelines=False), config=config)


async def test_w_under_serve_changes_the_width_for_the_session_and_writes_no_config() -> None:
    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(SERVER_CONFIG)
    before = config.stat().st_mtime_ns
    app = web_labeller_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert max(len(line) for line in text_lines(app)) <= 100  # the config is read
        await pilot.press("w")  # 100 -> 120, for this session
        await pilot.pause()
        assert 100 < max(len(line) for line in text_lines(app)) <= 120
        status = str(app.screen.query_one("#status").render())
        assert "Reading width: 120 columns (for this session)" in status
    assert config.read_text() == SERVER_CONFIG and config.stat().st_mtime_ns == before
    assert not config.with_name(config.name + ".part").exists()
    # The next labeller's session opens at the server's width, not at the first one's choice.
    app = web_labeller_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert max(len(line) for line in text_lines(app)) <= 100


run_async_tests(globals())
