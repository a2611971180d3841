"""The keys every review screen shares: what was found leaves the screen, and any query is a find
away.

- ``y`` copies the highlighted id, ``Y`` every id of the list on screen. Through OSC 52
  (``App.copy_to_clipboard`` writes ``ESC ] 52 ; c ; base64 BEL``): the terminal sets its own
  clipboard, so it works over SSH; under tmux, with ``set -g set-clipboard on``.
- ``e`` writes the table on screen as Markdown, ``E`` as CSV, into the review's ``-o`` folder (the
  current folder without one), under a name that says what it holds; an existing file is never
  overwritten: the next free ``-2``, ``-3``... is taken, and the screen says the full path.
- ``/`` and ``g`` find a query by id or text and open its top k.
- ``?`` lists the screen's keys, with the files ``goldset report -o`` writes.

A screen supplies ``highlighted_id()``, ``listed_ids()`` and ``export_table()`` (header, rows and
a file stem); the defaults read the screen's DataTable.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable

from goldset_tui.markdown_text import md_literal
from goldset_tui.report.model import REPORT_FILES
from goldset_tui.text import visible

REVIEW_BINDINGS: list[BindingType] = [
    Binding(
        "y",
        "copy_id",
        "copy id",
        id="review_copy_id",
        tooltip="Copy the highlighted id (OSC 52: over SSH too)",
        show=False,
    ),
    Binding(
        "Y",
        "copy_ids",
        "copy all",
        id="review_copy_ids",
        tooltip="Copy every id of this list",
        show=False,
    ),
    Binding(
        "e",
        "export('md')",
        "export",
        id="review_export",
        tooltip="Write this table as Markdown (E: as CSV) into the -o folder",
    ),
    Binding(
        "E",
        "export('csv')",
        "export csv",
        id="review_export_csv",
        tooltip="Write this table as CSV",
        show=False,
    ),
    Binding(
        "slash,g",
        "find",
        "find",
        id="review_find",
        tooltip="Find a query by id or text: its top k",
        show=False,
    ),
    Binding("question_mark", "help", "help", id="review_help", tooltip="Every key of this screen"),
    # The table's own Home/End scroll sideways; in these lists they go to the first/last row.
    Binding(
        "end",
        "last_row",
        "last row",
        id="review_last_row",
        tooltip="The last row of the table",
        show=False,
        priority=True,
    ),
    Binding(
        "home",
        "first_row",
        "first row",
        id="review_first_row",
        tooltip="The first row of the table",
        show=False,
        priority=True,
    ),
]


def free_path(folder: Path, stem: str, suffix: str) -> Path:
    """``folder/stem.suffix``, or ``stem-2.suffix``, ``-3``... when taken: never overwrite."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._") or "review"
    path = folder / f"{safe}{suffix}"
    n = 2
    while path.exists():
        path = folder / f"{safe}-{n}{suffix}"
        n += 1
    return path


# A figure or an empty mark as it is; anything else (queries, ids, documents' words) is data.
_PLAIN_CELL = re.compile(r"-?[\d.,]*%?|-|\u2013")


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    def esc(x: str) -> str:
        # Data escaped whole (md_literal): escaping only "|" and "\\" let a query such as
        # "[x](http://...)" or "<b>" render as a link or markup where the file is viewed.
        return x if _PLAIN_CELL.fullmatch(x) else md_literal(x)

    lines = ["| " + " | ".join(esc(h) for h in header) + " |"]
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def csv_table(header: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def table_cells(table: DataTable) -> tuple[list[str], list[list[str]]]:
    """The table's header and cells as plain text (marks such as ``[?]`` kept)."""
    header = [str(getattr(c.label, "plain", c.label)) for c in table.columns.values()]
    rows = []
    for r in range(table.row_count):
        row = table.get_row_at(r)
        rows.append([str(getattr(x, "plain", x)) for x in row])
    return header, rows


class ReviewKeys(Screen):  # a mixin: the screen's own Screen[...] base gives the result type
    BINDINGS = REVIEW_BINDINGS

    # ----- what a screen supplies -------------------------------------------------------------
    def highlighted_id(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def listed_ids(self) -> list[str]:
        table = self.query_one(DataTable)
        return [str(k.value) for k in table.rows]

    def export_table(self) -> tuple[list[str], list[list[str]], str]:
        header, rows = table_cells(self.query_one(DataTable))
        return header, rows, "review"

    def open_found(self, query_id: str) -> None:
        """Open ``query_id``'s top k. Each screen says how: the top k view's module sits above
        this one (it imports it), so it is named where that import is no cycle."""
        raise NotImplementedError

    def out_folder(self) -> Path:
        context = getattr(self, "context", None)
        out = getattr(context, "out_dir", None)
        return Path(out) if out else Path.cwd()

    def action_last_row(self) -> None:
        self._to_row(-1)

    def action_first_row(self) -> None:
        self._to_row(0)

    def _to_row(self, at: int) -> None:
        tables = self.query(DataTable)
        if not tables:  # a scrolling text (the whole report): its own top and end
            scroller = self.focused
            if scroller is not None:
                (scroller.scroll_end if at < 0 else scroller.scroll_home)(animate=False)
            return
        table = tables.first()
        if table.row_count:
            table.move_cursor(row=table.row_count - 1 if at < 0 else 0, animate=False)

    # ----- the keys ---------------------------------------------------------------------------
    def _copy(self, text: str, what: str) -> None:
        self.app.copy_to_clipboard(text)
        shown = visible(text if len(text) < 60 else text[:57] + "...", keep_newlines=False)
        self.notify(f"Copied {what}: {shown}", markup=False)

    def action_copy_id(self) -> None:
        found = self.highlighted_id()
        if not found:
            self.notify("Nothing highlighted to copy.")
            return
        self._copy(found, "1 id")

    def action_copy_ids(self) -> None:
        ids = self.listed_ids()
        if not ids:
            self.notify("No ids on this screen to copy.")
            return
        self._copy("\n".join(ids), f"{len(ids)} id(s)")

    def action_export(self, form: str = "md") -> None:
        header, rows, stem = self.export_table()
        text = markdown_table(header, rows) if form == "md" else csv_table(header, rows)
        folder = self.out_folder()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = free_path(folder, stem, f".{form}")
            with open(path, "x", encoding="utf-8", newline="") as f:  # "x": never overwrite
                f.write(text)
        except OSError as exc:
            self.notify(
                visible(f"Could not write {folder}: {exc.strerror or exc}"),
                severity="error",
                markup=False,
            )
            return
        self.notify(
            f"{len(rows)} row(s) written to {visible(str(path.resolve()))} (the whole report as files: "
            f"goldset report -o DIR writes {', '.join(REPORT_FILES)})",
            markup=False,
            timeout=10,
        )

    def action_find(self) -> None:
        from goldset_tui.ui.screens.prompts import QueryPicker

        context = getattr(self, "context", None)
        if context is None:
            return
        picker = QueryPicker(lambda needle: find_queries(context, needle), title="Find a query")

        def opened(query_id: str | None) -> None:
            if query_id:
                self.open_found(query_id)

        self.app.push_screen(picker, opened)

    def help_text(self) -> str:
        return (
            "y copies the highlighted id and Y every id of the list, through the terminal "
            "(OSC 52: over SSH too; under tmux set `set-clipboard on`). e writes this table "
            "as Markdown, E as CSV, into the review's -o folder (else the current folder); a "
            "file already there is never overwritten. / or g finds a query.\n\n"
            "`goldset report -o DIR` writes the whole report as files: " + ", ".join(REPORT_FILES)
        )

    def action_help(self) -> None:
        from goldset_tui.ui.screens.help import HelpScreen, keys_table

        self.app.push_screen(HelpScreen(self.help_text(), keys_table(self), title="Keys"))


def find_queries(context, needle: str, limit: int = 50) -> list[tuple[str, str]]:
    """(query_id, text) of the report's queries whose id or text holds ``needle``
    (case-insensitive), evaluated ones first, then the golden set's."""
    r = context.report
    ids = list(dict.fromkeys(r.scores.get_column("query_id").cast(str).to_list()))
    if r.strata_frame is not None:
        ids += [q for q in r.strata_frame.get_column("query_id").cast(str).to_list()]
    ids = list(dict.fromkeys(ids))
    low = needle.lower()
    out = []
    for q in ids:
        text = context.query_text(q) or ""
        if not low or low in q.lower() or low in text.lower():
            out.append((q, text))
            if len(out) >= limit:
                break
    return out
