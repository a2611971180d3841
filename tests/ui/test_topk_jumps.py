"""Jumps between the agreement, adjudication and history screens and the review's top k view.

The example store with ``runs=True`` has two systems' ranks in its pool (agreement/example.py):
bm25's top k of q3 holds the most disputed pair (errors/conn-reset: ann 3, bob 0, cy 1) beside
changelog/2024 (0 to everyone) only, dense's holds it under sdk/retries (2 to everyone). So under
the consensus the pair is a hole in both top k lists, deciding it decides whether bm25 fails q3,
and dense passes q3 whatever it is graded.
"""

from __future__ import annotations

import polars as pl
import pytest
from test_judge_support import run_async_tests
from textual.widgets import DataTable, Static

from goldset_tui.adjudication.consensus import UMA
from goldset_tui.adjudication.decisions import AdjudicationWriter
from goldset_tui.agreement.example import build_example_store
from goldset_tui.agreement.sources import from_store
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.adjudicate import AdjudicateScreen
from goldset_tui.ui.screens.agreement import AgreementScreen
from goldset_tui.ui.widgets.agreement_detail import PairDetailScreen
from goldset_tui.ui.widgets.report_bar import SYSTEM_KEY
from goldset_tui.ui.widgets.report_topk import TopKScreen


@pytest.fixture
def store(tmp_path):
    return build_example_store(tmp_path / "demo", runs=True)


def plain(widget: Static) -> str:
    content = widget.content
    return getattr(content, "plain", str(content))


async def until(pilot, ready, what: str) -> None:
    """Wait for the worker that evaluates the runs, on a condition, never a clock."""
    for _ in range(400):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if ready():
            return
    raise AssertionError(f"never: {what}")


def on_cell(screen: TopKScreen, system: str, doc_id: str):
    """Move the top k view's cursor onto ``doc_id`` in ``system``'s column."""
    table = screen.query_one(DataTable)
    for (s, rank), row in screen.grid.items():
        if s == system and row["doc_id"] == doc_id:
            keys = [c.value for c in table.columns]
            table.move_cursor(row=rank - 1, column=keys.index(SYSTEM_KEY + s), animate=False)
            return
    raise AssertionError(f"{doc_id} not in {system}'s top k")


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_agreement_t_opens_the_disagreements_query_top_k_and_a_comes_back(store) -> None:
    app = GoldsetApp(lambda: AgreementScreen(from_store(store), replicates=0))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.screen.report is not None, "agreement computed")
        agreement = app.screen
        first = agreement.ranked.row(0, named=True)
        assert (first["query_id"], first["doc_id"]) == ("q3", "errors/conn-reset")
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TopKScreen), "the top k view")
        topk = app.screen
        assert topk.query_id == "q3"
        assert set(topk.context.report.all_systems) == {"bm25", "dense", "rrf"}
        # Under the consensus the undecided pair is a hole: [?] in bm25's rank 1.
        assert topk.grid["bm25", 1]["doc_id"] == "errors/conn-reset"
        assert topk.grid["bm25", 1]["grade"] is None
        assert topk.grid["dense", 1]["doc_id"] == "sdk/retries"
        assert topk.grid["dense", 1]["grade"] == 2
        assert "consensus" in (topk.context.source or "")
        # n/p step through the queries of the disagreements, biggest first: q3, q1, q2.
        assert "(1 of 3, n/p)" in plain(topk.query_one("#drill-title", Static))
        await pilot.press("n")
        await pilot.pause()
        assert topk.query_id == "q1"
        await pilot.press("p")
        await pilot.pause()
        assert topk.query_id == "q3"
        # a on the pair: back on the agreement screen, that disagreement's detail open.
        on_cell(topk, "bm25", "errors/conn-reset")
        await pilot.pause()
        said = plain(topk.query_one("#drill-notes", Static))
        assert "ann 3 · bob 0 · cy 1 ≠ labellers disagree (a: the disagreement)" in said
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, PairDetailScreen)
        assert app.screen_stack[-2] is agreement
        assert app.screen._details.doc_id == "errors/conn-reset"


async def test_agreement_t_without_runs_says_so_in_one_line(tmp_path) -> None:
    plain_store = build_example_store(tmp_path / "demo")  # a pool with no systems or ranks
    app = GoldsetApp(lambda: AgreementScreen(from_store(plain_store), replicates=0))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.screen.report is not None, "agreement computed")
        await pilot.press("t")
        await until(pilot, lambda: any("No runs known" in n for n in notes(app)), "a notice")
        assert isinstance(app.screen, AgreementScreen)
        said = [n for n in notes(app) if "No runs known" in n]
        assert "--run NAME=PATH" in said[0] and "\n" not in said[0]


async def test_agreement_runs_given_are_the_views_systems(store) -> None:
    # --run's runs take the place of the pool's: one system, "lex", retrieving the pair first.
    lex = pl.DataFrame(
        {"query_id": ["q3"], "doc_id": ["errors/conn-reset"], "score": [1.0], "rank": [1]}
    )
    screen = AgreementScreen(from_store(store), replicates=0, runs={"lex": lex})
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.screen.report is not None, "agreement computed")
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TopKScreen), "the top k view")
        assert app.screen.context.report.systems == ["lex"]


async def test_agreement_of_qrels_files_with_runs_opens_their_consensus_top_k(tmp_path) -> None:
    # `goldset agreement --qrels ann=... --qrels bob=... --qrels cy=... --run ... --screen`.
    from goldset_tui.agreement.example import DOCS, GRADES, RANKS
    from goldset_tui.agreement.sources import from_qrels
    from goldset_tui.app.agreement import named_runs

    specs = []
    for name, per_query in GRADES.items():
        lines = [
            f"{q} 0 {DOCS[q][i]} {g}"
            for q, grades in per_query.items()
            for i, g in enumerate(grades)
            if g is not None
        ]
        path = tmp_path / f"{name}.qrels"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        specs.append(f"{name}={path}")
    runs = []
    for system in ("bm25", "dense"):
        lines = [
            f"{q} Q0 {d} {ranks[system]} {10 - ranks[system]} {system}"
            for (q, d), ranks in RANKS.items()
            if system in ranks
        ]
        path = tmp_path / f"{system}.run"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        runs.append(f"{system}={path}")
    data = from_qrels(specs, None)
    given = named_runs(runs)  # as `goldset agreement --run` gives them to the screen
    app = GoldsetApp(lambda: AgreementScreen(data, replicates=0, runs=given))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.screen.report is not None, "agreement computed")
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TopKScreen), "the top k view")
        view = app.screen
        assert view.query_id == "q3" and set(view.context.report.systems) == {"bm25", "dense"}
        # The files' consensus: conn-reset undecided (a hole), sdk/retries 2 (all three said 2).
        assert view.grid["bm25", 1]["grade"] is None
        assert view.grid["dense", 1]["grade"] == 2
        assert view.context.store is None


async def adjudicating(store, keys, check) -> None:
    data = from_store(store)
    writer = AdjudicationWriter(store, "dee", UMA)
    app = GoldsetApp(lambda: AdjudicateScreen(data, writer, store=store, rule=UMA))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.screen.view is not None, "the runs evaluated")
            await check(app, pilot)
    finally:
        writer.close()


async def test_adjudicate_says_what_deciding_decides(store) -> None:
    async def check(app, pilot) -> None:
        screen = app.screen
        assert screen.pairs[screen.index] == ("q3", "errors/conn-reset")
        said = plain(screen.query_one("#adjudicate-decision", Static))
        assert "bm25 fails q3 unless this is graded >= 1" in said
        assert "dense passes q3 either way" in said
        # The second disagreement (q1, sdk/auth#refreshing-keys): bm25 has billing/invoices (0)
        # beside it, dense has api-keys/rotation (3 to everyone) above it.
        await pilot.press("j")
        await pilot.pause()
        said = plain(screen.query_one("#adjudicate-decision", Static))
        assert "bm25 fails q1 unless this is graded >= 1" in said
        assert "dense passes q1 either way" in said

    await adjudicating(store, [], check)


async def test_adjudicate_runs_given_decide_the_sentence(tmp_path) -> None:
    # `goldset adjudicate --run lex=...` on a store whose pool records no ranks.
    plain_store = build_example_store(tmp_path / "demo")
    lex = pl.DataFrame(
        {
            "query_id": ["q3", "q3"],
            "doc_id": ["errors/conn-reset", "changelog/2024"],
            "score": [2.0, 1.0],
            "rank": [1, 2],
        }
    )
    data = from_store(plain_store)
    writer = AdjudicationWriter(plain_store, "dee", UMA)
    screen = AdjudicateScreen(data, writer, store=plain_store, rule=UMA, runs={"lex": lex})
    app = GoldsetApp(lambda: screen)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: screen.view is not None, "the runs evaluated")
            said = plain(screen.query_one("#adjudicate-decision", Static))
            assert "Deciding it: lex fails q3 unless this is graded >= 1" in said
    finally:
        writer.close()


async def test_adjudicate_t_opens_the_top_k_and_a_comes_back_to_the_pair(store) -> None:
    async def check(app, pilot) -> None:
        screen = app.screen
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TopKScreen), "the top k view")
        topk = app.screen
        assert topk.query_id == "q3"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("j")  # on to q1's pair, then its top k, then back to the pair
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TopKScreen), "the top k view")
        assert app.screen.query_id == "q1"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("k")  # back on q3's pair, its top k
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TopKScreen), "the top k view")
        # The screen below moved on meanwhile (as after deciding a pair): `a` on q3's pair
        # brings that pair back, not whichever one the screen was left on.
        screen.index = 1
        on_cell(app.screen, "dense", "errors/conn-reset")
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert app.screen is screen
        assert screen.pairs[screen.index] == ("q3", "errors/conn-reset")

    await adjudicating(store, [], check)


async def test_adjudicate_a_on_a_pair_everyone_agrees_on_says_so(store) -> None:
    async def check(app, pilot) -> None:
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TopKScreen), "the top k view")
        on_cell(app.screen, "dense", "sdk/retries")
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, TopKScreen)
        assert any("No disagreement on q3 / sdk/retries" in n for n in notes(app))

    await adjudicating(store, [], check)


async def test_adjudicate_decision_rebuilds_the_view(store) -> None:
    async def check(app, pilot) -> None:
        screen = app.screen
        await pilot.press("2")  # q3's pair decided 2: the consensus now grades it
        await until(pilot, lambda: not screen._view_loading, "the view rebuilt")
        await pilot.press("k")
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TopKScreen), "the top k view")
        assert app.screen.grid["bm25", 1]["grade"] == 2

    await adjudicating(store, [], check)


async def test_review_top_k_a_opens_the_stores_disagreement_over_the_view(store) -> None:
    # Opened from the review (no agreement screen below): the pair's detail from the store.
    from goldset_tui.app.query_view import consensus_view
    from goldset_tui.ui.opening import review_context

    context = review_context(consensus_view(from_store(store)))
    app = GoldsetApp(lambda: TopKScreen(context, "q1"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        view = app.screen
        on_cell(view, "bm25", "sdk/auth#refreshing-keys")
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, PairDetailScreen)
        assert app.screen._details.doc_id == "sdk/auth#refreshing-keys"
        assert {g.labeller: g.grade for g in app.screen._details.grades} == {
            "ann": 2,
            "bob": 0,
            "cy": 1,
        }
        await pilot.press("escape")
        await pilot.pause()
        context.store = None  # a review of files: no labellers to ask
        await pilot.press("a")
        await pilot.pause()
        assert app.screen is view
        assert any(n.startswith("No store here") for n in notes(app))


async def test_history_enter_opens_the_latest_releases_top_k() -> None:
    from history_support import recorded_store

    from goldset_tui.history.records import load_records
    from goldset_tui.ui.screens.history import HistoryScreen

    store = recorded_store()
    app = GoldsetApp(lambda: HistoryScreen(store))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.screen.history is not None, "history read")
        history = app.screen
        recurring = history.query_one("#history-recurring", DataTable)
        recurring.focus()
        first = history.history.recurring[0]
        await pilot.press("enter")
        await pilot.pause()
        view = app.screen
        assert isinstance(view, TopKScreen) and view.query_id == first["query_id"]
        # Every system's top k as release 2026.3 recorded it (not the one system's releases).
        latest = [
            r
            for r in load_records(store)
            if r.release == "2026.3" and r.measure == history.history.metric
        ]
        assert sorted(view.context.report.systems) == sorted(r.system for r in latest)
        for rec in latest:
            for rank, doc, grade in rec.topk[first["query_id"]]:
                cell = view.grid[rec.system, rank]
                assert (cell["doc_id"], cell["grade"]) == (doc, grade)
        assert "2026.3" in (view.context.source or "")
        # The text of the highlighted document comes from the store's pool.
        shown = plain(view.query_one("#reading-text", Static))
        assert shown.strip()


async def test_history_enter_without_a_recorded_top_k_says_so(tmp_path) -> None:
    from goldset_tui.history.records import make_record, record
    from goldset_tui.store import Project, sha256_file
    from goldset_tui.ui.screens.history import HistoryScreen

    pool = tmp_path / "pool.csv"
    pool.write_text("query_id,query,doc_id,text\nq1,a,d1,x\nq2,b,d2,y\n", encoding="utf-8")
    store = tmp_path / "store"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    for i, release in enumerate(("r1", "r2", "r3")):  # q1 fails in all three; no top k kept
        scores = pl.DataFrame({"query_id": ["q1", "q2"], "value": [0.0, 1.0]})
        rec = make_record(
            release=release,
            system="bm25",
            measure="nDCG@10",
            version={"id": "v1"},
            scores=scores,
            time=f"2026-0{i + 1}-01T00:00:00Z",
        )
        record(store, rec)
    app = GoldsetApp(lambda: HistoryScreen(store))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.screen.history is not None, "history read")
        history = app.screen
        assert [r["query_id"] for r in history.history.recurring] == ["q1"]
        history.query_one("#history-recurring", DataTable).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is history
        said = [n for n in notes(app) if "recorded no top k" in n]
        assert said == [
            "Release r3 recorded no top k for q1 (no runs to show): d shows what "
            "every release recorded."
        ]


run_async_tests(globals())
