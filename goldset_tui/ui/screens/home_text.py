"""What the home screen says about its list, as ``rich.text.Text`` built from home_scan.py's rows:
the hint line under the table and the detail lines of the selected project. No Textual here;
every name and path from the data goes through ``safe.literal``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text

from goldset_tui import locations
from goldset_tui.text import visible
from goldset_tui.ui.safe import literal
from goldset_tui.ui.screens.home_scan import Row
from goldset_tui.ui.text.shorten import middle


def hint_text(rows: Sequence[Row], *, root: Path | None, stores: Sequence[Path] | None) -> Text:
    """Where the listed projects are (``root``: that folder; ``stores``: exactly those), or how
    to start one when there are none, and the keys that matter first."""
    where = root or locations.projects_dir()
    hint = Text()
    if not rows:
        hint.append("No projects yet in ")
        hint.append_text(literal(str(where)))
        hint.append(". Start one with `goldset judge POOL --labeller NAME`, or try `goldset demo`.")
        return hint
    count = len({r.store for r in rows})
    if root is not None:
        hint.append(f"{count} project(s) in ")
        hint.append_text(literal(str(where)))
    elif stores is not None:
        hint.append_text(literal(str(stores[0]) if count == 1 else f"{count} stores"))
    else:  # wherever they are: the detail line names the selected one's folder
        hint.append(f"{count} project(s) goldset has made or opened")
    hint.append(". Enter judges the selected row; v reviews it; ? lists every key.")
    return hint


def detail_text(row: Row, *, assigned: int | None, with_store: bool, width: int) -> Text:
    """What tells the selected project apart from one alike: its pool's path (cut in the
    middle to ``width``), its store's folder ``with_store`` (stores from anywhere), the
    labeller's planned share when ``assigned`` is known, when the store was made, and the pool
    file's sha256 prefix."""
    detail = Text()
    room = max(12, width - 2 - len("pool: "))
    detail.append("pool: ", style="dim")
    detail.append_text(literal(middle(visible(row.pool, keep_newlines=False), room)))
    if with_store:
        detail.append("\nstore: ", style="dim")
        shown = middle(visible(row.store, keep_newlines=False), room - 1)
        detail.append_text(literal(shown))
    if row.plan is not None and assigned is not None:
        others = [n for n in row.plan.labellers if n != row.labeller]
        detail.append(
            f"\n{visible(row.labeller or '')} {row.judged:,} of {assigned:,} assigned "
            f"(overlap {row.plan.overlap:g} shared with {', '.join(others) or 'nobody'})",
            style="dim",
        )
    facts = [f"created {row.created}"] if row.created else []
    facts += [f"pool sha256 {row.pool_sha[:12]}"] if row.pool_sha else []
    if facts:
        detail.append("\n" + " · ".join(facts), style="dim")
    return detail
