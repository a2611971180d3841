"""`goldset serve` in a real browser: headless Chromium (Debian's package; .ci/run installs it)
driven by Playwright, against the real server and the real judging processes.

A labeller opens the link with their token, grades with the keyboard, and the store holds the
grades; a second tab of the same labeller is refused; closing the browser mid-judgment closes the
screen as a dropped terminal would (SIGHUP: flushed, lock released) and the server goes on;
without a token no judging process starts and nothing of the pool is sent; SIGTERM of the server
flushes every open screen. The page's own Content-Security-Policy stays on: the tests read what
the page received by polling from Python, never by evaluating strings inside the page."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from goldset_tui.serve.users import add_labeller
from goldset_tui.store import Project
from goldset_tui.store.journal import is_locked

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Record what each websocket receives, as the browser decoded it (the terminal draws it on a
# canvas, so it is not in the DOM).
RECORD = """
window.__received = [];
window.__sockets = 0;
const Original = window.WebSocket;
window.WebSocket = class extends Original {
  constructor(...args) {
    super(...args);
    window.__sockets += 1;
    this.addEventListener("message", (event) => {
      if (typeof event.data !== "string") {
        window.__received.push(new TextDecoder().decode(event.data));
      }
    });
  }
};
"""
LISTENING = re.compile(r"labellers open (http://127\.0\.0\.1:\d+/)")
QUERY = "rotate the signing keys"


def write_pool(path: Path) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for q in range(2):
            for d in range(8):
                row = {
                    "query_id": f"q{q}",
                    "query": f"{QUERY} {q}",
                    "doc_id": f"d{q}-{d:02d}",
                    "text": f"Candidate {q}-{d}: paragraph {d * 7919 % 101} of the key manual.",
                }
                fh.write(json.dumps(row) + "\n")
    return path


def wait_until(check: Callable[[], object], what: str, seconds: float = 30.0) -> object:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class Served:
    """A real `goldset serve` on a free port, with labellers alice and bob."""

    def __init__(self, tmp_path: Path) -> None:
        pool = write_pool(tmp_path / "pool.jsonl")
        users = tmp_path / "team.toml"
        self.tokens = {name: add_labeller(users, name) for name in ("alice", "bob")}
        self.store = tmp_path / "store"
        self.log_path = tmp_path / "server.log"
        # The server account's config and data folders: this test's own (a module-scoped server
        # starts before the per-test isolation of tests/conftest.py would apply).
        self.config_file = tmp_path / "config" / "config.toml"
        environment = dict(os.environ)
        environment["GOLDSET_CONFIG_DIR"] = str(self.config_file.parent)
        environment["GOLDSET_DATA_DIR"] = str(tmp_path / "data")
        argv = [sys.executable, "-m", "goldset_tui", "serve", str(pool)]
        argv += ["--store", str(self.store), "--users", str(users), "--port", "0"]
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env=environment,
            )
        found = wait_until(lambda: LISTENING.search(self.log()), "the server to listen", 60)
        self.url = found.group(1)  # type: ignore[union-attr]

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def link(self, name: str) -> str:
        return f"{self.url}?token={self.tokens[name]}"

    def children(self) -> list[int]:
        """Live processes whose parent is the server (its judging screens)."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == self.process.pid and fields[0] != "Z":
                found.append(int(entry.name))
        return found

    def grades(self, name: str) -> list[int]:
        project = Project.open(self.store)
        if name not in project.labellers():
            return []
        return project.judgments(name).get_column("grade").to_list()

    def compacted(self, name: str) -> bool:
        """Closed by its own flush: the journal folded into a Parquet part and emptied."""
        journal, parts = Project.open(self.store).labeller_paths(name)
        return any(parts.glob("*.parquet")) and journal.stat().st_size == 0

    def locked(self, name: str) -> bool:
        return is_locked(Project.open(self.store).labeller_paths(name)[0])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        for pid in self.children():
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = Served(tmp_path)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One server for the tests that leave it running (each starts its own 2-5 s)."""
    server = Served(tmp_path_factory.mktemp("served"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("chromium not installed (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Tab:
    def __init__(self, browser, url: str) -> None:
        self.context = browser.new_context(viewport={"width": 1000, "height": 700})
        self.page = self.context.new_page()
        self.page.add_init_script(RECORD)
        self.response = self.page.goto(url)

    def received(self) -> str:
        return "".join(self.page.evaluate("window.__received"))

    def wait_for(self, text: str) -> None:
        wait_until(lambda: text in self.received(), repr(text))

    def press(self, key: str) -> None:
        # Keys go to the terminal's input, as when the labeller clicks into the page.
        self.page.focus(".xterm-helper-textarea")
        self.page.keyboard.press(key)

    def close(self) -> None:
        self.context.close()


def test_judge_with_the_keyboard_then_close_the_browser_mid_judgment(browser, shared) -> None:
    served = shared
    opened = served.log().count("opened a judging screen")
    tab = Tab(browser, served.link("alice"))
    assert tab.response.status == 200
    tab.wait_for("Guidelines")  # the first open shows the guidelines
    tab.press("Escape")
    tab.wait_for("query 0/8")
    for i, key in enumerate("2103", start=1):
        tab.press(key)
        wait_until(lambda i=i: len(served.grades("alice")) == i, f"grade {i} on disk")
    assert served.grades("alice") == [2, 1, 0, 3]
    tab.wait_for("saved #4=3")

    # A reload (the old page's websocket closes only once the new page has arrived) reopens the
    # screen where alice was, instead of refusing it as a second tab.
    assert tab.page.reload().status == 200
    tab.wait_for("query 4/8")
    assert served.log().count("opened a judging screen") == opened + 2

    # A second tab of the same labeller is refused, and starts nothing.
    second = Tab(browser, served.link("alice"))
    second.wait_for("already has a judging screen open")
    assert served.log().count("opened a judging screen") == opened + 2
    second.close()

    # The browser goes away mid-judgment: the screen closes as on a dropped terminal.
    hung_up = "alice's judging screen closed (exit status 129)"
    tab.close()
    wait_until(lambda: served.log().count(hung_up) == 2, "SIGHUP")  # the reload's, and this one
    assert served.compacted("alice") and not served.locked("alice")
    assert served.process.poll() is None and served.children() == []

    # The server went on: the same link opens the screen again where alice left off.
    again = Tab(browser, served.link("alice"))
    again.wait_for("query 4/8")
    again.press("1")
    wait_until(lambda: served.grades("alice") == [2, 1, 0, 3, 1], "the fifth grade on disk")
    # q quits as in the terminal: the app leaves on its own (exit status 0, not a hang-up).
    again.press("q")
    wait_until(lambda: "alice's judging screen closed (exit status 0)" in served.log(), "q")
    assert served.compacted("alice") and served.children() == []
    again.close()


def test_the_token_is_in_neither_the_address_bar_nor_the_history(browser, shared) -> None:
    served = shared
    tab = Tab(browser, served.link("bob"))
    tab.wait_for("Guidelines")
    # The sign-in step replaced its own URL (the token's) by the same address without the token;
    # the session's cookie opened the judging page there.
    assert tab.page.url == served.url
    assert served.tokens["bob"] not in tab.page.content()
    # w changes bob's reading width for his session: the server account's config, shared by
    # every web labeller, is not written.
    tab.press("Escape")
    tab.wait_for("query 0/8")
    tab.press("w")
    tab.wait_for("for this session")
    assert not served.config_file.exists()
    # Back leads to the new tab's blank page: the token's URL is no entry of the history.
    tab.page.go_back()
    assert tab.page.url == "about:blank"
    wait_until(lambda: "bob's judging screen closed" in served.log(), "the screen to close")
    # Forward (as a reload) opens the screen again from the cookie, without the token.
    tab.page.go_forward()
    assert tab.page.url == served.url
    tab.wait_for("Guidelines")  # bob has graded nothing yet: the guidelines again
    tab.close()
    wait_until(lambda: served.log().count("bob's judging screen closed") == 2, "it to close")


def test_without_a_token_no_judging_screen_starts_and_nothing_of_the_pool_is_sent(
    browser, shared
) -> None:
    served = shared
    opened = served.log().count("opened a judging screen")
    alice_id = served.tokens["alice"].split(".")[0]
    for url in (served.url, f"{served.url}?token={alice_id}.{'x' * 43}"):
        tab = Tab(browser, url)
        assert tab.response.status == 403
        html = tab.page.content()
        assert "a labeller" in html and QUERY not in html and "Candidate" not in html
        time.sleep(0.3)  # time for a websocket to open, if the page tried one
        assert tab.page.evaluate("window.__sockets") == 0
        tab.close()
    assert served.children() == []
    assert served.log().count("opened a judging screen") == opened


def test_sigterm_of_the_server_flushes_every_open_screen(browser, served) -> None:
    tabs = {name: Tab(browser, served.link(name)) for name in ("alice", "bob")}
    for name, key in (("alice", "3"), ("bob", "1")):
        tabs[name].wait_for("Guidelines")
        tabs[name].press(key)  # a grade key only closes the guidelines: the candidate was hidden
        tabs[name].wait_for("nothing graded")
        assert served.grades(name) == []
        tabs[name].press(key)
        wait_until(lambda name=name: served.grades(name) != [], f"{name}'s grade on disk")
    assert len(served.children()) == 2
    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(timeout=30) == 0
    log = served.log()
    for name in ("alice", "bob"):
        assert f"{name}'s judging screen closed (exit status 129)" in log
        assert served.compacted(name) and not served.locked(name)
    assert served.grades("alice") == [3] and served.grades("bob") == [1]
    for tab in tabs.values():
        tab.close()


def test_a_server_killed_outright_leaves_every_saved_grade_and_no_screen(browser, served) -> None:
    # SIGKILL: no shutdown runs in the server; the kernel's parent-death signal (SIGHUP) must
    # close the judging screen, so no process outlives the server holding alice's lock.
    tab = Tab(browser, served.link("alice"))
    tab.wait_for("Guidelines")
    tab.press("3")  # a grade key only closes the guidelines: the candidate was hidden
    tab.wait_for("nothing graded")
    for i, key in enumerate("32", start=1):
        tab.press(key)
        wait_until(lambda i=i: len(served.grades("alice")) == i, f"grade {i} on disk")
    tab.wait_for("saved #2=2")
    (child,) = served.children()
    served.process.kill()
    served.process.wait(timeout=30)
    try:
        wait_until(lambda: _gone(child), "the screen to go")
    finally:
        if not _gone(child):  # orphaned now, so the fixture would not find it
            os.kill(child, signal.SIGKILL)
    assert not served.locked("alice")
    assert served.grades("alice") == [3, 2]
    tab.close()


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
