"""The home screen lists projects in the default store folder with each labeller's progress, and
opens the judging screen from there; `goldset judge` validates before any screen opens."""

from __future__ import annotations

import json
from pathlib import Path

from test_judge_support import run_async_tests, tiny_pool

from goldset_tui import locations
from goldset_tui.cli import main
from goldset_tui.model import Judgment
from goldset_tui.store import Project, default_store_for, now_iso
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.home import HomeScreen, scan
from goldset_tui.ui.screens.judge import JudgeScreen


def make_project(
    tmp_path: Path, judged: dict[str, int], *, systems: bool = False, per_query: int = 4
) -> Path:
    pool = tmp_path / "docs-pool.jsonl"
    with pool.open("w", encoding="utf-8") as fh:
        for row in tiny_pool(per_query, systems=systems).to_dicts():
            fh.write(json.dumps(row) + "\n")
    from goldset_tui.io.pools import load_pool

    loaded = load_pool(pool)
    project = Project.open_or_create(
        default_store_for(pool), pool_path=pool, pool_sha256=loaded.sha256
    )
    docs = loaded.frame.select("query_id", "doc_id").rows()
    for name, count in judged.items():
        with project.writer(name) as writer:
            for q, d in docs[:count]:
                writer.record(Judgment(name, q, d, 1, now_iso()))
    return pool


def test_scan_lists_each_labeller_with_judged_counts(tmp_path: Path) -> None:
    make_project(tmp_path, {"alice": 5, "bob": 2})
    rows = scan()
    assert [(r.project, r.labeller, r.judged) for r in rows] == [
        ("docs-pool", "alice", 5),
        ("docs-pool", "bob", 2),
    ]
    assert all(r.store.parent == locations.projects_dir() for r in rows)


def test_scan_of_an_empty_folder_is_empty() -> None:
    assert scan() == []


async def test_home_shows_progress_and_opens_judging(tmp_path: Path) -> None:
    make_project(tmp_path, {"alice": 6})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#projects")
        cells = [str(c) for c in table.get_row_at(0)]
        assert cells[1] == "alice" and cells[2] == "6" and cells[3] == "12" and cells[4] == "50%"
        await pilot.press("enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        judge = app.screen
        assert isinstance(judge, JudgeScreen)
        assert judge.session is not None and judge.session.overall_progress() == (6, 12)
        await pilot.press("2", "q")  # q goes back home, after closing the writer
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        cells = [str(c) for c in app.screen.query_one("#projects").get_row_at(0)]
        assert cells[2] == "7"


async def test_judge_as_another_labeller_and_palette_entries(tmp_path: Path) -> None:
    make_project(tmp_path, {"alice": 2})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert (
            "Judge docs-pool as alice" in titles and "Agreement of the selected project" in titles
        )
        await pilot.press("a", *"dan", "enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("escape")  # dan's first open: the guidelines come first
        judge = app.screen
        assert isinstance(judge, JudgeScreen) and judge.session.labeller == "dan"
        assert judge.session.overall_progress() == (0, 12)  # alice's grades are not dan's


async def test_home_with_no_projects_says_how_to_start() -> None:
    app = GoldsetApp(HomeScreen)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "goldset demo" in str(app.screen.query_one("#home-hint").render())


def test_judge_rejects_a_bad_pool_before_any_screen(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "pool.csv"
    bad.write_text("query_id,query,doc_id,text\nq1,x,d1,\n", encoding="utf-8")
    assert main(["judge", str(bad), "--labeller", "alice", "--store", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pool.csv" in err and "Traceback" not in err
    assert not (tmp_path / "s").exists()  # nothing written to a store


def test_judge_refuses_a_labeller_already_judging(tmp_path: Path, capsys) -> None:
    pool = make_project(tmp_path, {})
    project = Project.open(default_store_for(pool))
    with project.writer("alice"):
        assert main(["judge", str(pool), "--labeller", "alice"]) == 2
    assert "already open" in capsys.readouterr().err


def test_judge_bad_assign_spec(tmp_path: Path, capsys) -> None:
    pool = make_project(tmp_path, {})
    assert main(["judge", str(pool), "--labeller", "a", "--assign", "overlap=2"]) == 2
    assert "--assign" in capsys.readouterr().err


def test_assignment_serves_this_labellers_share(tmp_path: Path) -> None:
    from goldset_tui.agreement.assignment import assigned_query_ids
    from goldset_tui.commands.judge import prepare

    pool = make_project(tmp_path, {})
    prepared = prepare(pool, "bob", assign="overlap=0.34", team="alice,bob")
    expected = assigned_query_ids(["q1", "q2", "q3"], "bob", ["alice", "bob"], 0.34, 0)
    assert prepared.query_ids == expected
    # Remembered: the next labeller needs no --team.
    again = prepare(pool, "alice", assign="overlap=0.34")
    assert again.project.manifest["assignment"]["labellers"] == ["alice", "bob"]


async def test_home_opens_the_agreement_screen_of_a_project(tmp_path: Path) -> None:
    from goldset_tui.ui.screens.agreement import AgreementScreen

    make_project(tmp_path, {"alice": 6, "bob": 6})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, AgreementScreen)


async def test_home_agreement_leaves_an_imported_machine_out_of_the_humans(tmp_path: Path) -> None:
    from goldset_tui.ui.screens.agreement import AgreementScreen

    pool = make_project(tmp_path, {"alice": 6, "bob": 6})
    store = default_store_for(pool)
    labels = tmp_path / "llm.qrels"
    rows = [json.loads(line) for line in pool.read_text(encoding="utf-8").splitlines()]
    labels.write_text(
        "".join(f"{r['query_id']} 0 {r['doc_id']} 3\n" for r in rows), encoding="utf-8"
    )
    assert (
        main(["import", "--store", str(store), "--labeller", "llm", "--machine", str(labels)]) == 0
    )
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, AgreementScreen)
        labellers = set(app.screen.data.ratings.get_column("labeller").unique())
        assert labellers == {"alice", "bob"}


async def test_agreement_with_one_labeller_is_a_notice(tmp_path: Path) -> None:
    make_project(tmp_path, {"alice": 6})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


# ----- the report and closure screens of the selected project -----------------------------------
# Twelve candidates per query; bm25 ranks d at d+1 and dense at 12-d, so the top 10 differ.
# alice: bm25 finds both her relevant queries (1.0), dense only q3 (0.5); q2 has nothing relevant.
# bob: bm25 finds q2 only (1/3), dense q1 and q3 (2/3).
GRADES = {
    "alice": [
        ("q1", "q1-d0", 1),
        ("q1", "q1-d1", 0),
        ("q2", "q2-d0", 0),
        ("q3", "q3-d11", 2),
        ("q3", "q3-d5", 1),
    ],
    "bob": [("q2", "q2-d0", 3), ("q1", "q1-d11", 1), ("q3", "q3-d10", 1)],
}


def make_graded_project(tmp_path: Path, *, systems: bool = True) -> Path:
    pool = make_project(tmp_path, {}, systems=systems, per_query=12)
    project = Project.open(default_store_for(pool))
    for name, grades in GRADES.items():
        with project.writer(name) as writer:
            for q, d, g in grades:
                writer.record(Judgment(name, q, d, g, now_iso()))
    return pool


def success_at_10_by_pytrec_eval(pool: Path, labeller: str) -> dict[str, float]:
    """Mean success@10 per system, by pytrec_eval on the pool's recorded ranks and the grades above,
    over the queries with a relevant document (the report's documented population)."""
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in GRADES[labeller]:
        qrels.setdefault(q, {})[d] = g
    qrels = {q: docs for q, docs in qrels.items() if max(docs.values()) >= 1}
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for line in pool.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for system, rank in zip(row["systems"], row["ranks"], strict=True):
            runs.setdefault(system, {}).setdefault(row["query_id"], {})[row["doc_id"]] = -float(
                rank
            )
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"success"})
    out = {}
    for system, run in runs.items():
        per_query = evaluator.evaluate(run)
        out[system] = sum(v["success_10"] for v in per_query.values()) / len(per_query)
    return out


async def settle(app: GoldsetApp, pilot) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_v_opens_the_report_of_the_selected_labeller_and_escape_comes_back(
    tmp_path: Path,
) -> None:
    from goldset_tui.ui.screens.report import ReportScreen

    pool = make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        for index, labeller in enumerate(["alice", "bob"]):
            if index:
                await pilot.press("down")
            await pilot.press("v")
            await settle(app, pilot)
            report = app.screen
            assert isinstance(report, ReportScreen), labeller
            expected = success_at_10_by_pytrec_eval(pool, labeller)
            means = dict(report.report.overall.select("system", "mean").iter_rows())
            assert report.report.n == {"alice": 2, "bob": 3}[labeller]
            for system, value in expected.items():
                assert abs(means[system] - value) < 1e-12, (labeller, system)
            await pilot.press("escape" if index else "q")  # both go home, neither quits
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen)
        assert app.is_running


async def test_v_pressed_twice_opens_one_report(tmp_path: Path) -> None:
    make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("v", "v")
        await settle(app, pilot)
        await pilot.pause()
        assert [type(s).__name__ for s in app.screen_stack[1:]] == ["HomeScreen", "ReportScreen"]


async def test_c_opens_the_closure_screen_and_escape_comes_back(tmp_path: Path) -> None:
    from goldset_tui.ui.screens.closure import ClosureScreen

    make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("c")
        await settle(app, pilot)
        closure = app.screen
        assert isinstance(closure, ClosureScreen)
        names = [r["name"] for r in closure.report_rows]
        # alice graded q2's one document 0: a golden-set query with no relevant document, so the
        # table leaves it out and closure against the golden set fails, naming it.
        golden = [r for r in closure.report_rows if "golden set" in r["name"]]
        assert len(names) >= 3 and all(r["ok"] for r in closure.report_rows if r not in golden)
        assert [r["ok"] for r in golden] == [False]
        assert [r["name"].split(" ")[0] for r in closure.dropped_rows] == ["q2"]
        rows = len(names) + len(closure.dropped_rows)
        assert closure.query_one("#closure-table").row_count == rows
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_review_of_a_pool_without_systems_is_a_notice(tmp_path: Path) -> None:
    make_graded_project(tmp_path, systems=False)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        for key in ("v", "c"):
            await pilot.press(key)
            await settle(app, pilot)
            assert isinstance(app.screen, HomeScreen)
        warnings = [str(n.message) for n in app._notifications if n.severity == "warning"]
        assert len(warnings) == 2 and all("no systems" in w and "\n" not in w for w in warnings)


async def test_review_of_a_project_nobody_judged_is_a_notice(tmp_path: Path) -> None:
    make_project(tmp_path, {}, systems=True)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("v")
        await settle(app, pilot)
        assert isinstance(app.screen, HomeScreen)
        assert any("Nobody has judged" in str(n.message) for n in app._notifications)


async def test_palette_reviews_a_row_other_than_the_selected_one(tmp_path: Path) -> None:
    from goldset_tui.ui.screens.report import ReportScreen

    pool = make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        for title in (
            "review",
            "closure",
            "Review docs-pool with bob's judgments",
            "Closure checks of docs-pool with alice's judgments",
        ):
            assert title in commands, title
        commands["Review docs-pool with bob's judgments"].callback()  # the cursor is on alice's row
        await settle(app, pilot)
        assert isinstance(app.screen, ReportScreen)
        means = dict(app.screen.report.overall.select("system", "mean").iter_rows())
        assert abs(means["bm25"] - success_at_10_by_pytrec_eval(pool, "bob")["bm25"]) < 1e-12


async def test_every_home_key_is_in_the_footer_at_80x24(tmp_path: Path) -> None:
    from textual.widgets._footer import FooterKey

    make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        shown = {k.description: k.region for k in app.screen.query(FooterKey)}
        for binding in HomeScreen.BINDINGS:
            assert binding.id, binding.key
            if not binding.show:  # kept out for room on purpose: under ? and in the palette
                continue
            region = shown[binding.description]
            assert region.width > 0 and region.right <= 80 and region.y == 23, binding.description
        regions = sorted(
            shown.values(), key=lambda r: r.x
        )  # the keys and the palette's: none covered
        assert all(left.right <= right.x for left, right in zip(regions, regions[1:], strict=False))


async def test_h_is_in_the_home_footer_at_80x24(tmp_path: Path) -> None:
    from textual.widgets._footer import FooterKey

    make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        keys = {k.key: k.region for k in app.screen.query(FooterKey)}
        assert "h" in keys and keys["h"].right <= 80 and keys["h"].width > 0


async def test_computing_the_report_covers_nothing_of_its_first_frame(tmp_path: Path) -> None:
    """The wait is said in the hint line; no toast is left over the report's cells at 80x24."""
    from goldset_tui.ui.screens.report import ReportScreen

    make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("v")
        await settle(app, pilot)
        assert isinstance(app.screen, ReportScreen)
        assert not [n for n in app._notifications if "Computing" in str(n.message)]
        await pilot.press("escape")
        await pilot.pause()
        assert "Computing" not in str(app.screen.query_one("#home-hint").render())


async def palette_entries(app: GoldsetApp, pilot, query: str) -> list[str]:
    """What the command palette shows for ``query``: each entry's title and help, as drawn."""
    from textual.command import CommandList, CommandPalette

    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*query)
    for _ in range(50):  # the palette searches in the background
        await pilot.pause(0.05)
        palette = app.screen
        if isinstance(palette, CommandPalette) and palette.query_one(CommandList).option_count:
            break
    options = app.screen.query_one(CommandList)
    await pilot.pause(0.2)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_palette_shows_names_literally_never_as_markup(tmp_path: Path) -> None:
    make_project(tmp_path, {"Bob [red]X": 2, "[@click=app.quit]q": 1})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        shown = await palette_entries(app, pilot, "closure")
        assert (
            "Closure checks of docs-pool with Bob [red]X's judgments\nclosure screen (c)" in shown
        )
        assert (
            "Closure checks of docs-pool with [@click=app.quit]q's judgments\nclosure screen (c)"
            in shown
        )
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)  # nothing clicked itself


def test_pools_with_one_name_are_told_apart_by_their_folders(tmp_path: Path) -> None:
    for folder in ("runs-a", "runs-b"):
        (tmp_path / folder).mkdir()
        make_project(tmp_path / folder, {"alice": 1})
    names = sorted(r.project for r in scan())
    assert names == ["runs-a/docs-pool", "runs-b/docs-pool"]


def test_distinct_names_when_folders_do_not_tell() -> None:
    from goldset_tui.ui.screens.home import distinct_names

    same_folder = {
        Path("/s/p1"): ("pool", Path("/w/pool.jsonl")),
        Path("/s/p2"): ("pool", Path("/w/pool.csv")),
    }
    assert distinct_names(same_folder) == {Path("/s/p1"): "pool.jsonl", Path("/s/p2"): "pool.csv"}
    same_file = {
        Path("/s/p1"): ("pool", Path("/w/pool.jsonl")),
        Path("/s/p2"): ("pool", Path("/w/pool.jsonl")),
    }
    assert distinct_names(same_file) == {Path("/s/p1"): "pool (p1)", Path("/s/p2"): "pool (p2)"}
    unique = {
        Path("/s/p1"): ("pool", Path("/w/pool.jsonl")),
        Path("/s/p2"): ("other", Path("/w/other.jsonl")),
    }
    assert distinct_names(unique) == {Path("/s/p1"): "pool", Path("/s/p2"): "other"}


async def test_home_table_shows_the_distinct_names(tmp_path: Path) -> None:
    for folder in ("2024/runs-a", "2025/runs-b"):
        (tmp_path / folder).mkdir(parents=True)
        make_project(tmp_path / folder, {"alice": 1})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects")
        assert sorted(str(table.get_row_at(i)[0]) for i in range(2)) == [
            "runs-a/docs-pool",
            "runs-b/docs-pool",
        ]


async def test_alike_long_names_stay_apart_and_the_selected_pool_is_named(tmp_path: Path) -> None:
    # Two projects from two different pool files looked alike on the home screen. Cut
    # at the start to 22 cells, both names read "…h-long-name/docs-pool".
    folders = ("experiment-alpha-with-long-name", "experiment-omega-with-long-name")
    for folder in folders:
        (tmp_path / folder).mkdir()
        make_project(tmp_path / folder, {"alice": 1}, per_query=3 if "alpha" in folder else 4)
    names = sorted(r.project for r in scan())
    assert names == [f"{f}/docs-pool" for f in folders]
    assert len({"…" + n[-21:] for n in names}) == 1  # what cutting the start showed
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects")
        shown = [str(table.get_row_at(i)[0]) for i in range(2)]
        assert len(set(shown)) == 2 and all(len(x) <= 22 and "…" in x for x in shown)
        assert any("alpha" in x or "-a" in x for x in shown), shown
        rows = app.screen._rows
        for i in range(2):
            table.move_cursor(row=i)
            await pilot.pause()
            detail = str(app.screen.query_one("#home-detail").render())
            row = rows[i]
            assert row.created
            first, store, second = detail.split("\n")  # stores from anywhere: folder named
            assert first.startswith("pool: ") and len(first) <= 78
            assert store.startswith("store: ") and len(store) <= 78
            assert ("alpha" if "alpha" in str(row.pool) else "omega") in first
            assert second == f"created {row.created} · pool sha256 {row.pool_sha[:12]}"
        # The two pools differ in content, so their sha256 prefixes differ too.
        assert rows[0].pool_sha[:12] != rows[1].pool_sha[:12]


async def test_last_session_fits_its_column_at_80_columns(tmp_path: Path) -> None:
    # The full "2026-11-30 19:41" was cut to "2026-11-30 19:" at 80 columns: the minutes lost.
    from datetime import datetime

    make_project(tmp_path, {"alice": 1})
    last = datetime.fromisoformat(scan()[0].last).astimezone()  # just judged: today, local time
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        svg = app.export_screenshot()
    assert f"today&#160;{last:%H:%M}" in svg


async def test_question_mark_lists_every_key_of_home_history_included(tmp_path: Path) -> None:
    # `h` (history) is kept out of the full 80-column footer "because it is listed under ?", but
    # home had no ? at all: the history screen could only be found in the palette.
    from goldset_tui.ui.screens.help import HelpScreen

    make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert "? lists every key" in str(app.screen.query_one("#home-hint").render())
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        keys = app.screen._keys  # the table the dialog shows
        from rich.console import Console

        console = Console(width=80, record=True)
        console.print(keys)
        listed = console.export_text()
        assert "Recorded releases of the selected project" in listed and "h" in listed
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, HomeScreen)


run_async_tests(globals())
