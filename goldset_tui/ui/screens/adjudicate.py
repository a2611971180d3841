"""The adjudication screen: walk the disagreements the consensus rule cannot settle, biggest first,
then the pairs a labeller flagged "unsure / needs discussion" (each with its flags' reasons).

A digit key decides the pair; the decision is in the adjudicator's journal, fsynced, before the
screen says "saved" and moves on to the next undecided pair. Reopening the screen resumes at the
first pair still undecided; decisions can be changed (another digit) or withdrawn (``x``).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from goldset_tui.adjudication.consensus import open_pairs
from goldset_tui.adjudication.decisions import AdjudicationWriter, load_adjudications
from goldset_tui.adjudication.details import pair_details
from goldset_tui.agreement.sources import AgreementData
from goldset_tui.text import visible
from goldset_tui.ui.safe import literal
from goldset_tui.ui.widgets.agreement_detail import PairDetailView
from goldset_tui.ui.widgets.topk_jump import TopKJump


class AdjudicateScreen(TopKJump, Screen[None]):
    BINDINGS = [
        *[
            # Hidden from the footer: the decision line names the keys of the store's scale.
            Binding(
                str(g),
                f"decide({g})",
                f"grade {g}",
                id=f"adjudicate.grade_{g}",
                show=False,
                tooltip=f"Decide grade {g} and go on",
            )
            for g in range(10)
        ],
        Binding("j,down", "move(1)", "next", id="adjudicate.next", tooltip="Next disagreement"),
        Binding("k,up", "move(-1)", "prev", id="adjudicate.prev", tooltip="Previous disagreement"),
        Binding(
            "t",
            "topk",
            "top k",
            id="adjudicate.topk",
            tooltip="Every system's top k for this query, on the consensus grades (needs a pool "
            "that records systems and ranks)",
        ),
        Binding(
            "x",
            "withdraw",
            "withdraw",
            id="adjudicate.withdraw",
            tooltip="Withdraw this pair's decision",
        ),
        Binding(
            "q",
            "app.quit",
            "quit",
            id="adjudicate.quit",
            tooltip="Quit (every decision is already saved)",
        ),
    ]

    DEFAULT_CSS = """
    AdjudicateScreen #adjudicate-status { padding: 0 1; background: $boost; }
    AdjudicateScreen #adjudicate-decision { padding: 0 1; height: auto; }
    """

    def __init__(
        self,
        data: AgreementData,
        writer: AdjudicationWriter,
        *,
        store: Path,
        rule: str,
        runs: dict[str, pl.DataFrame] | None = None,
        flagged: dict[tuple[str, str], str] | None = None,
    ) -> None:
        super().__init__()
        self.data = data
        self.topk_runs = runs  # --run: the systems whose failures a decision may decide
        self.writer = writer
        self.store = Path(store)
        self.rule = rule
        self.pairs = open_pairs(data.ratings, rule).select("query_id", "doc_id").rows()
        self.open_count = len(self.pairs)
        # Flagged pairs come after the disagreements (a flagged disagreement stays among them).
        self.flagged = dict(flagged or {})
        seen = set(self.pairs)
        self.pairs += [pair for pair in self.flagged if pair not in seen]
        decided = load_adjudications(self.store)
        self.decisions: dict[tuple[str, str], tuple[int, str]] = {
            (q, d): (g, who)
            for q, d, g, who in decided.select(
                "query_id", "doc_id", "grade", "adjudicator"
            ).iter_rows()
        }
        self.index = self.first_undecided(0)
        self.saved_message = ""

    # --- state --------------------------------------------------------------------------------
    def first_undecided(self, start: int) -> int:
        for offset in range(len(self.pairs)):
            i = (start + offset) % len(self.pairs)
            if self.pairs[i] not in self.decisions:
                return i
        return min(start, max(0, len(self.pairs) - 1))

    @property
    def decided_count(self) -> int:
        return sum(1 for p in self.pairs if p in self.decisions)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "decide":
            # Every digit reaches action_decide, which explains one off the scale (not silence).
            return bool(self.pairs)
        return True

    # --- layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="adjudicate-status")
        yield PairDetailView(self.data.scale.labels, id="adjudicate-detail")
        yield Static("", id="adjudicate-decision")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Adjudicate"
        self.sub_title = f"{self.writer.adjudicator} · rule {self.rule}"
        self.refresh_view()
        if self.pairs:
            self.load_view()  # what each decision decides: said once the runs are evaluated

    def view_ready(self) -> None:
        if self.pairs:
            self.refresh_view()

    def refresh_view(self) -> None:
        status = self.query_one("#adjudicate-status", Static)
        decision = self.query_one("#adjudicate-decision", Static)
        detail = self.query_one(PairDetailView)
        if not self.pairs:
            status.update(
                Text(
                    f"Nothing to adjudicate: the rule {self.rule} settles every pair, none is flagged."
                )
            )
            decision.update(Text(self.export_hint()))
            detail.display = False
            return
        query_id, doc_id = self.pairs[self.index]
        line = Text(
            f"Disagreement {self.index + 1} of {len(self.pairs)} · {self.decided_count} decided, biggest first"
        )
        if self.flagged:
            line = Text(
                f"Pair {self.index + 1} of {len(self.pairs)} ({self.open_count} disagreements, "
                f"{len(self.flagged)} flagged) · {self.decided_count} decided"
            )
        flag = self.flagged.get((query_id, doc_id))
        if flag:
            line.append("\n\u2691 flagged: ", style="bold red")
            line.append_text(literal(flag, keep_newlines=False))
        status.update(line)
        detail.show(pair_details(self.data.ratings, self.data.pool, query_id, doc_id))
        decision.update(self.decision_text(query_id, doc_id))

    def decision_text(self, query_id: str, doc_id: str) -> Text:
        out = Text()
        current = self.decisions.get((query_id, doc_id))
        if current is None:
            lo, hi = self.data.scale.min, self.data.scale.max
            out.append(f"Undecided: press {lo}-{hi} to decide", style="bold")
            out.append(
                f" ({', '.join(f'{g} {label}' for g, label in sorted(self.data.scale.labels.items()))})."
            )
        else:
            grade, who = current
            out.append(
                f"Decision: {grade} {self.data.scale.labels.get(grade, '')} by ", style="bold"
            )
            out.append_text(literal(who, keep_newlines=False))
        out.append_text(self.stakes_text(query_id, doc_id))
        if self.saved_message:
            out.append_text(
                literal(f"  {self.saved_message}", style="green", keep_newlines=False)
            )  # names the pair
        if self.decided_count == len(self.pairs):
            out.append("\n")
            out.append(self.export_hint())
        return out

    def stakes_text(self, query_id: str, doc_id: str) -> Text:
        """Whether deciding the pair decides a system's failure on the query (with runs known)."""
        if self.view is None:
            return Text()
        from goldset_tui.eval.measures import parse_measure
        from goldset_tui.report.decides import stake_lines, stakes

        report = self.view.report
        if report.topk is None:
            return Text()
        threshold = max(1, parse_measure(report.metric).rel)
        lines = stake_lines(
            stakes(report.topk, query_id, doc_id, threshold),
            query_id,
            threshold,
            report.k,
            len(report.all_systems),
        )
        out = Text("\nDeciding it: ", style="bold")
        out.append_text(literal("; ".join(lines), keep_newlines=False))
        out.append(" (t: the top k)", style="dim")
        return out

    def topk_queue(self) -> list[str]:
        return list(dict.fromkeys(q for q, _ in self.pairs))

    def has_pair(self, query_id: str, doc_id: str) -> bool:
        return (query_id, doc_id) in self.pairs

    def show_pair(self, query_id: str, doc_id: str) -> None:
        """Back from the top k view: this disagreement on screen, to decide."""
        self.index = self.pairs.index((query_id, doc_id))
        self.saved_message = ""
        self.refresh_view()

    def action_topk(self) -> None:
        if not self.pairs:
            self.notify("No disagreement to open.", timeout=3)
            return
        self.open_topk(self.pairs[self.index][0])

    def export_hint(self) -> str:
        return (
            f"All {len(self.pairs)} {'pairs' if self.flagged else 'disagreements'} decided. "
            "Export the consensus with: "
            f"goldset qrels --store {self.store} --consensus -o consensus.qrels"
        )

    # --- actions ------------------------------------------------------------------------------
    def action_decide(self, grade: int) -> None:
        if not self.pairs:
            return
        if grade not in self.data.scale:
            lo, hi = self.data.scale.min, self.data.scale.max
            self.notify(
                f"{grade} is not a grade on this scale: press {lo}-{hi}", severity="warning"
            )
            return
        pair = self.pairs[self.index]
        try:
            self.writer.decide(pair[0], pair[1], grade)  # fsynced before it returns
        except OSError as exc:
            self.notify(
                visible(f"not saved: {exc}", keep_newlines=False),
                severity="error",
                markup=False,
                timeout=10,
            )
            return
        self.decisions[pair] = (grade, self.writer.adjudicator)
        self.saved_message = f"saved {pair[0]} / {pair[1]} = {grade}"
        self.consensus_changed()
        if self.decided_count < len(self.pairs):
            self.index = self.first_undecided(self.index + 1)
        self.refresh_view()

    def action_withdraw(self) -> None:
        if not self.pairs:
            return
        pair = self.pairs[self.index]
        if pair not in self.decisions:
            return
        try:
            self.writer.decide(*pair, None)
        except OSError as exc:
            self.notify(
                visible(f"not saved: {exc}", keep_newlines=False),
                severity="error",
                markup=False,
                timeout=10,
            )
            return
        del self.decisions[pair]
        self.saved_message = "decision withdrawn (saved)"
        self.consensus_changed()
        self.refresh_view()

    def consensus_changed(self) -> None:
        """A decision changed the consensus the top k view shows: built again (in a worker)."""
        if self.view is not None:
            self.load_view()

    def action_move(self, step: int) -> None:
        if not self.pairs:
            return
        self.index = max(0, min(len(self.pairs) - 1, self.index + step))
        self.saved_message = ""
        self.refresh_view()
