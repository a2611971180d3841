"""One disputed pair, shown in full: query, every labeller's grade, note and time, then the candidate.

``PairDetailView`` is embedded by the adjudication screen; ``PairDetailScreen`` opens it as a modal
from the agreement screen's disagreement list. All data goes through ``literal`` (never markup).
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from goldset_tui.adjudication.details import PairDetails, seconds_text
from goldset_tui.ui.safe import literal
from goldset_tui.ui.text.reflow import reflow


def grades_table(details: PairDetails, labels: dict[int, str] | None = None) -> Table:
    table = Table(expand=True, show_edge=False, pad_edge=False)
    table.add_column("labeller", no_wrap=True)
    table.add_column("grade", justify="right", no_wrap=True)
    table.add_column("time", justify="right", no_wrap=True)
    table.add_column("note", ratio=1)
    for g in details.grades:
        label = f" {labels[g.grade]}" if labels and g.grade in labels else ""
        table.add_row(
            literal(g.labeller, keep_newlines=False),
            literal(f"{g.grade}{label}", keep_newlines=False),  # labels come from the manifest
            Text(seconds_text(g.seconds)),
            literal(g.note or "", keep_newlines=False),
        )
    return table


def details_renderable(details: PairDetails, labels: dict[int, str] | None = None) -> Group:
    heading = Text.assemble(("query ", "bold"), literal(details.query_id, keep_newlines=False))
    parts: list = [heading]
    if details.query is not None:
        parts.append(literal(details.query, reading=True))
    # The grades before the document: a long text would push them below the fold, and they are
    # what the reader (an adjudicator deciding) came for; the text scrolls under them.
    parts += [
        Text(f"\ngrades (spread {details.spread})", style="bold"),
        grades_table(details, labels),
    ]
    doc = Text.assemble(("\ncandidate ", "bold"), literal(details.doc_id, keep_newlines=False))
    if details.title:
        doc.append("  ")
        doc.append_text(literal(details.title, style="italic", keep_newlines=False))
    parts.append(doc)
    if details.text is not None:
        parts.append(
            literal(reflow(details.text), reading=True)
        )  # hard-wrapped documents fill the width
    else:
        parts.append(Text("(no text: the pool file is not available)", style="dim"))
    return Group(*parts)


class PairDetailView(VerticalScroll):
    """Scrollable view of one pair; ``show`` replaces what it displays."""

    DEFAULT_CSS = """
    PairDetailView { height: 1fr; padding: 0 1; }
    """

    def __init__(self, labels: dict[int, str] | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self._labels = labels
        self._body = Static("", id="pair-detail-body")

    def compose(self) -> ComposeResult:
        yield self._body

    def show(self, details: PairDetails) -> None:
        self._body.update(details_renderable(details, self._labels))
        self.scroll_home(animate=False)


class PairDetailScreen(ModalScreen[None]):
    BINDINGS = [
        Binding(
            "escape,enter",
            "close",
            "close",
            id="agreement_detail.close",
            tooltip="Back to the list",
        ),
        # q keeps its meaning everywhere (ui/leaving.py): home, or quit without one.
        Binding("q", "app.go_home", "home", id="agreement_detail.home", tooltip="Back to home"),
    ]

    DEFAULT_CSS = """
    PairDetailScreen #pair-detail { width: 90%; height: 90%; border: thick $primary; background: $surface; }
    """

    def __init__(self, details: PairDetails, labels: dict[int, str] | None = None) -> None:
        super().__init__()
        self._details = details
        self._labels = labels

    def compose(self) -> ComposeResult:
        with Vertical(id="pair-detail"):
            view = PairDetailView(self._labels)
            yield view

    def on_mount(self) -> None:
        self.query_one(PairDetailView).show(self._details)

    def action_close(self) -> None:
        self.dismiss(None)
