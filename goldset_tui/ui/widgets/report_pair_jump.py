"""From the top k view to the disagreement on the highlighted pair.

Opened from the agreement or adjudication screen, the view goes back to that screen with the pair
on it (the screen answers ``has_pair``/``show_pair``; found by those names, so this module imports
neither screen). Otherwise the store's labellers are read and the pair's detail (every grade,
note and time) opens over the view. A pair the store's labellers agree on, or a view without a
store, is said in one line.
"""

from __future__ import annotations

from textual.screen import Screen

from goldset_tui.text import visible


def open_pair(screen: Screen, store: str | None, query_id: str, doc_id: str) -> None:
    app = screen.app
    stack = app.screen_stack
    for below in reversed(stack[:-1]):
        has = getattr(below, "has_pair", None)
        if callable(has) and has(query_id, doc_id):
            while app.screen is not below:
                app.pop_screen()
            below.show_pair(query_id, doc_id)  # type: ignore[attr-defined]
            return
    pair = visible(f"{query_id} / {doc_id}", keep_newlines=False)
    if store is None:
        screen.notify(
            f"No store here: the labellers' grades of {pair} are in one (goldset review --store).",
            markup=False,
        )
        return
    from goldset_tui.adjudication.details import pair_details
    from goldset_tui.agreement.report import disagreements
    from goldset_tui.agreement.sources import from_store
    from goldset_tui.ui.widgets.agreement_detail import PairDetailScreen

    data = from_store(store)
    ranked = disagreements(data.ratings)
    if (query_id, doc_id) not in set(ranked.select("query_id", "doc_id").iter_rows()):
        screen.notify(
            f"No disagreement on {pair} in the store: its labellers agree, or one graded it.",
            markup=False,
        )
        return
    details = pair_details(data.ratings, data.pool, query_id, doc_id)
    app.push_screen(PairDetailScreen(details, data.scale.labels))
