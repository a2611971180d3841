"""The spot-check screen: is the stratum classifier right? One query at a time.

``y`` agrees with the classifier, a digit (or, past nine strata, a letter) names the right stratum,
``s`` skips, ``u`` takes back the last answer. Each answer is fsynced to the labeller's journal by
the session before the screen says "saved"; a failed write says NOT SAVED and does not move on.
The numbers underneath update as the labeller goes: agreement with its Wilson interval (continuity-corrected), precision
per stratum, the verdict (does the classifier's error matter, stratum by stratum) and the
confusion between strata.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from goldset_tui.sampling.plan import DEFAULT_RATE
from goldset_tui.sampling.spotcheck import SpotCheckSession
from goldset_tui.ui.safe import literal
from goldset_tui.ui.screens.help import HelpScreen, keys_table
from goldset_tui.ui.widgets import spotcheck_parts as parts

GUIDELINES = (
    "Spot-check the stratum classifier: it only has to be roughly right.\n\n"
    "Read the query and the stratum the classifier filed it under. If that stratum is right, press y. "
    "If it is wrong, press the key of the right stratum. Skip (s) only when you cannot tell. "
    "u takes back your last answer. Every answer is saved on disk before the next query shows; "
    "quit any time and run the same command to resume.\n\n"
    "The verdict underneath compares each stratum's own misfile rate with that stratum's sampling "
    "band in the golden set: when the error is inside the band, improving the classifier changes "
    "nothing you could observe. A stratum with too few checks to tell is named as such."
)


def _pick_bindings() -> list[Binding]:
    # All pick keys exist always; check_action disables those beyond the number of strata.
    return [
        Binding(
            key,
            f"pick({i})",
            f"stratum {key}",
            show=False,
            id=f"spotcheck.pick_{key}",
            tooltip=f"The right stratum is number {key}",
        )
        for i, key in enumerate(parts.PICK_KEYS)
    ]


class SpotCheckScreen(Screen[None]):
    CSS_PATH = "spotcheck.tcss"

    BINDINGS = [
        Binding(
            "y", "agree", "agree", id="spotcheck.agree", tooltip="The classifier's stratum is right"
        ),
        *_pick_bindings(),
        Binding("s", "skip", "skip", id="spotcheck.skip", tooltip="Cannot tell: skip this query"),
        Binding(
            "u",
            "undo",
            "undo",
            id="undo",
            tooltip="Take back the last answer (the journal records it)",
        ),
        Binding("question_mark", "help", "help", id="help", tooltip="What to do, and every key"),
        Binding("q", "app.quit", "quit", id="quit", tooltip="Quit (every answer is already saved)"),
        Binding(
            "pagedown,space",
            "scroll_stats(1)",
            "page down",
            id="page_down",
            show=False,
            tooltip="Scroll the numbers down",
        ),
        Binding(
            "pageup",
            "scroll_stats(-1)",
            "page up",
            id="page_up",
            show=False,
            tooltip="Scroll the numbers up",
        ),
    ]

    def __init__(
        self,
        session: SpotCheckSession,
        *,
        sizes: dict[str, int] | None,
        rate: float = DEFAULT_RATE,
    ) -> None:
        super().__init__()
        self.session = session
        self.sizes = sizes
        self.rate = rate
        self._status = Text("")

    def compose(self) -> ComposeResult:
        yield Static(Text(""), id="sc-query")
        yield Static(Text(""), id="sc-choices")
        with VerticalScroll(id="sc-stats-scroll") as scroll:
            scroll.can_focus = False
            yield Static(Text(""), id="sc-stats")
        yield Static(Text(""), id="sc-status")
        yield Footer()

    def on_mount(self) -> None:
        for warning in self.session.warnings:
            self.notify(warning, severity="warning", markup=False)
        done = len(self.session.answered())
        self._status = Text(
            f"resumed: {done} answers already saved" if done else "ready", style="dim"
        )
        self.refresh_view()

    def key_for(self, binding_id: str, default: str) -> str:
        """The key a binding has now, after the user's keymap (the screen shows it, not the default)."""
        for active in self.active_bindings.values():
            if active.binding.id == binding_id:
                return self.app.get_key_display(active.binding)
        return default

    def refresh_view(self) -> None:
        keys = {
            name: self.key_for(f"spotcheck.{name}" if name != "undo" else "undo", default)
            for name, default in parts.DEFAULT_KEYS.items()
        }
        picks = [
            self.key_for(f"spotcheck.pick_{key}", key)
            for key in parts.PICK_KEYS[: len(self.session.strata)]
        ]
        self.query_one("#sc-query", Static).update(parts.query_panel(self.session))
        self.query_one("#sc-choices", Static).update(parts.choices_line(self.session, keys, picks))
        self.query_one("#sc-stats", Static).update(
            parts.stats_panel(self.session, self.sizes, self.rate, picks)
        )
        status = literal(f"{self.session.labeller}  ", style="bold", keep_newlines=False)
        status.append_text(self._status)
        self.query_one("#sc-status", Static).update(status)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pick":
            pick = parameters[0] if parameters else None
            return isinstance(pick, int) and pick < len(self.session.strata)
        return True

    # ----- actions ----------------------------------------------------------------------------
    def _record(self, write) -> None:  # a session call
        try:
            changed = write()
        except OSError as exc:
            self._status = literal(f"NOT SAVED: {exc}", style="bold red")
            self.refresh_view()
            return
        if changed:
            self._status = Text(
                f"saved ({len(self.session.answered())} of {self.session.items.height})",
                style="green",
            )
        else:
            self._status = Text("nothing left to answer", style="dim")
        self.refresh_view()

    def action_agree(self) -> None:
        self._record(self.session.agree)

    def action_pick(self, index: int) -> None:
        if index < len(self.session.strata):
            stratum = self.session.strata[index]
            self._record(lambda: self.session.answer(stratum))

    def action_skip(self) -> None:
        self._record(lambda: self.session.answer(None))

    def action_undo(self) -> None:
        try:
            undone = self.session.undo()
        except OSError as exc:
            self._status = literal(f"NOT SAVED: {exc}", style="bold red")
        else:
            if undone is None:
                self._status = Text("nothing to undo", style="dim")
            else:
                self._status = Text("undone: ", style="green")
                self._status.append_text(literal(undone.query, keep_newlines=False))
        self.refresh_view()

    def action_scroll_stats(self, direction: int) -> None:
        scroll = self.query_one("#sc-stats-scroll", VerticalScroll)
        if direction > 0:
            scroll.scroll_page_down(animate=False)
        else:
            scroll.scroll_page_up(animate=False)

    def action_help(self) -> None:
        self.app.push_screen(
            HelpScreen(GUIDELINES, keys_table(self), title="Spot-checking the classifier")
        )

    def flush(self) -> None:
        # Answers are durable as they are given; closing only releases the writer lock.
        self.session.close()
