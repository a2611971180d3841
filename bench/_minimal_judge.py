"""The reference for ``judge_keys.py``: the least a Textual app can do to answer a grade key.

It reads the same Parquet pool with Polars, shows one candidate (query, id, title, text) in four
``Static`` lines, and on a digit key appends the grade to a list and shows the next row: no
store, no fsync, no blind order, no near-duplicates, no status, no footer. What a key costs here
is Textual's own share (the key's event, the compositor, the terminal driver) plus a row read:
goldset's judging screen is measured against it. Run by ``judge_keys.py --reference`` on the same
pty, with the same TEXTUAL_FPS; it draws "Guidelines" first so the harness's open step is shared.

    python bench/_minimal_judge.py POOL.parquet
"""

from __future__ import annotations

import sys

import polars as pl
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static


class MinimalJudge(App[None]):
    CSS = "#text { height: 1fr; }"

    def __init__(self, frame: pl.DataFrame) -> None:
        super().__init__()
        self.frame = frame
        self.row = 0
        self.grades: list[int] = []
        self.query = Static(Text("Guidelines: press a grade key"))
        self.candidate = Static(Text(""))
        self.title_line = Static(Text(""))
        self.text = Static(Text(""), id="text")

    def compose(self) -> ComposeResult:
        yield self.query
        yield self.candidate
        yield self.title_line
        yield self.text

    def show(self) -> None:
        row = self.frame.row(self.row, named=True)
        self.query.update(Text(f"{row['query_id']}: {row['query']}"))
        self.candidate.update(Text(f"#{self.row + 1} {row['doc_id']}"))
        self.title_line.update(Text(str(row["title"])))
        self.text.update(Text(str(row["text"])))

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        if key == "q":
            self.exit()
        elif key == "escape":
            self.show()
        elif key.isdigit():
            self.grades.append(int(key))
            self.row = (self.row + 1) % self.frame.height
            self.show()


if __name__ == "__main__":
    MinimalJudge(pl.read_parquet(sys.argv[1])).run()
