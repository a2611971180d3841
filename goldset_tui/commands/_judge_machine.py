"""`goldset judge --machine MODEL`: its options, mapped onto ``goldset_tui.app.machine_judge``,
and what it prints (a progress line on stderr, a summary on stdout)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from goldset_tui.errors import InputError
from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.app.machine_judge import JudgeProgress, MachineJudgeResult

# The judging screen's options, which mean nothing to a model (refused with --machine), and the
# machine judge's, which mean nothing to the screen (refused without it).
SCREEN_ONLY = {
    "reveal": "--reveal",
    "assign": "--assign",
    "team": "--team",
    "only_new": "--only-new",
    "render": "--render",
    "text_width": "--text-width",
    "take_over": "--take-over",
}
MACHINE_ONLY = {
    "provider": "--provider",
    "base_url": "--base-url",
    "api_key_file": "--api-key-file",
    "prompt": "--prompt",
    "max_pairs": "--max-pairs",
    "max_cost": "--max-cost",
    "price": "--price",
    "concurrency": "--concurrency",
}


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {minimum}, got {text!r}"
            )
        return value

    return parse


def _usd(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected an amount in USD, 0 or more, got {text!r}")
    return value


def add_machine_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "a model as the judge (--machine; docs/agreement.md, 'A model as a judge')"
    )
    group.add_argument(
        "--machine",
        metavar="MODEL",
        help="judge the pool with this model instead of opening the screen: its grades go to "
        "--store as machine labeller --labeller, like goldset import --machine",
    )
    group.add_argument(
        "--provider",
        choices=("anthropic", "openai"),
        default=None,
        help="anthropic (ANTHROPIC_API_KEY; the default) or openai: any OpenAI-compatible "
        "endpoint (OPENAI_API_KEY; vLLM, llama.cpp's server, Ollama with --base-url)",
    )
    group.add_argument(
        "--base-url", metavar="URL", help="the provider's endpoint (a local server, a proxy)"
    )
    group.add_argument(
        "--api-key-file",
        metavar="FILE",
        help="read the key from FILE instead of the provider's variable (never a key on the "
        "command line)",
    )
    # Without this, argparse would take `--api-key VALUE` as an abbreviation of --api-key-file
    # and name the key, as a file it cannot read, in its error.
    group.add_argument("--api-key", action=_RefuseKey, help=argparse.SUPPRESS)
    group.add_argument(
        "--prompt",
        metavar="FILE",
        help="the prompt template, with {query} and {passage} (default: the built-in "
        "UMBRELA-style 0-3 prompt)",
    )
    group.add_argument(
        "--max-pairs", metavar="N", type=_count(0), help="ask the model about N pairs at most"
    )
    group.add_argument(
        "--max-cost", metavar="USD", type=_usd, help="stop before the cost passes USD dollars"
    )
    group.add_argument(
        "--price",
        metavar="IN,OUT",
        help="USD per million input and output tokens (default: the built-in table; a local "
        "model: 0,0)",
    )
    group.add_argument(
        "--concurrency",
        metavar="K",
        type=_count(1),
        default=None,
        help="requests at once (default 4)",
    )


class _RefuseKey(argparse.Action):
    """A key typed on the command line is refused, without repeating it: it would stay in the
    shell's history and in every process listing."""

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(
            "--api-key: a key is never taken on the command line (the shell keeps it, `ps` shows "
            "it): set ANTHROPIC_API_KEY or OPENAI_API_KEY, or give --api-key-file FILE"
        )


def check_mode(args: argparse.Namespace) -> None:
    """Options of the other mode are refused, one line, rather than silently ignored."""
    machine = args.machine is not None
    wrong = MACHINE_ONLY if not machine else SCREEN_ONLY
    for dest, option in wrong.items():
        value = getattr(args, dest, None)
        if value not in (None, False):
            where = "--machine" if not machine else "the judging screen (without --machine)"
            raise InputError(None, f"{option} is an option of {where}")
    if machine and args.repeat:
        raise InputError(None, "--repeat is an option of the judging screen (without --machine)")
    if machine and args.order != "blind":
        raise InputError(None, "--order is an option of the judging screen (without --machine)")


class ProgressLine:
    """The tokens, cost and pairs so far on stderr: rewritten in place on a terminal (Rich,
    which Textual brings), a plain line now and then otherwise (a log, a pipe)."""

    def __init__(self, stream: TextIO | None = None, every: float = 5.0) -> None:
        self.stream = stream or sys.stderr
        self.live = _isatty(self.stream)
        self.every = every
        self._last = 0.0
        self._shown = ""

    def __call__(self, progress: JudgeProgress) -> None:
        # The last line is the summary's (report): here, only the lines on the way.
        now = time.monotonic()
        if progress.done >= progress.total or now - self._last < (0.1 if self.live else self.every):
            return
        if not self.live and self._last == 0.0:
            self._last = now  # a log's first line after `every` seconds, not at 0 pairs
            return
        self._last = now
        line = progress_text(progress)
        if self.live:
            self.stream.write("\r\x1b[K" + line)
        elif line != self._shown:
            self.stream.write(line + "\n")
        self._shown = line
        self.stream.flush()

    def done(self) -> None:
        if self.live and self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _cost(cost: float | None) -> str:
    return "cost unknown (no price: --price IN,OUT)" if cost is None else f"${cost:,.4f}"


def progress_text(p: JudgeProgress) -> str:
    return (
        f"goldset: judge: {p.done}/{p.total} pairs ({p.cached} from the cache), "
        f"{p.refused} refused, {p.failed} not answered; tokens {p.input_tokens:,} in, "
        f"{p.output_tokens:,} out; {_cost(p.cost)}"
        + (f"; {p.retries} retries" if p.retries else "")
    )


def run_machine(args: argparse.Namespace) -> int:
    from goldset_tui.app.machine_judge import MachineJudgeRequest, run_machine_judge
    from goldset_tui.commands._args import store_scale
    from goldset_tui.llm.cost import parse_price
    from goldset_tui.llm.provider import ProviderConfig

    check_mode(args)
    request = MachineJudgeRequest(
        pool=args.pool,
        labeller=args.labeller,
        provider=ProviderConfig(
            provider=args.provider or "anthropic",
            model=args.machine,
            base_url=args.base_url,
            api_key_file=args.api_key_file,
        ),
        store=args.store,
        corpus=args.corpus,
        scale=store_scale(args.scale) if args.scale is not None else None,
        prompt=args.prompt,
        max_pairs=args.max_pairs,
        max_cost=args.max_cost,
        price=parse_price(args.price) if args.price is not None else None,
        concurrency=args.concurrency or 4,
        seed=args.seed,
    )
    line = ProgressLine()
    try:
        result = run_machine_judge(request, on_progress=line)
    except OSError as exc:
        # A disk error part-way (the answer log, the labels): what was answered is kept, and the
        # user must learn that the same command goes on, not that the run was lost.
        where = exc.filename2 or exc.filename
        reason = exc.strerror or type(exc).__name__
        raise InputError(where, f"{reason}; {KEPT}") from None
    finally:
        line.done()
    return report(result, args)


KEPT = "every answer made durable so far is kept: run the same command again to go on"


def report(result: MachineJudgeResult, args: argparse.Namespace) -> int:
    p = result.progress
    for warning in result.warnings:
        print(f"goldset: warning: {warning}", file=sys.stderr)
    print(progress_text(p), file=sys.stderr)
    print(
        f"{visible(result.labeller)!r}: {result.graded} of {p.total} pairs graded by "
        f"{visible(result.model)} in {visible(str(result.store))}"
        + (f" ({result.stored.written} written)" if result.stored is not None else "")
    )
    if result.refusals:
        shown = "; ".join(f"{n} {why}" for why, n in result.refusals.most_common(5))
        print(f"refused or not answered: {shown}")
    again = "run the same command again to go on (answers so far are kept and cost nothing)"
    if result.fatal is not None:
        print(f"goldset: error: {result.fatal}; {again}", file=sys.stderr)
        return 2
    if result.stopped is not None:
        print(f"stopped at {result.stopped}: {p.total - p.done} pairs left; {again}")
    elif p.failed:
        print(f"{p.failed} pairs not answered; run the same command again to ask them again")
    return 0
