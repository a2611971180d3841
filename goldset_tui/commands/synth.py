"""`goldset synth`: a model writes queries for a corpus's documents (goldset_tui.app.synth)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.app.synth import SynthProgress, SynthRequest, SynthResult

NAME = "synth"
HELP = "have a model write search queries for a corpus's documents (synthetic queries)"
DESCRIPTION = """\
A model writes --per-doc N search queries for each document of CORPUS (or for --documents K of
them, drawn with --seed S), through the provider of the llm extra (pip install 'goldset-tui[llm]'):
anthropic (ANTHROPIC_API_KEY, ANTHROPIC_MODEL) or any OpenAI-compatible endpoint (--provider
openai --base-url URL: vLLM, llama.cpp's server, Ollama). The built-in prompt asks for queries
from people who have NOT read the document (--prompt FILE replaces it: UTF-8 text with
{document}, optionally {title} and {n}); the answer is read one query per line, list marks and
quotes stripped, introductions, prose and repeats dropped; a document whose answer holds no query
is refused and counted. Near-duplicate queries across documents are dropped.

Written: QUERIES (query_id, query, doc_id, origin=synthetic: .csv, .tsv or .parquet), beside it
STEM.qrels (each query's source document, its expected relevant one: keep it in the index) and
STEM.manifest.toml (prompt text and sha256, provider, model and the version it reported,
temperature, seed, corpus sha256, near-duplicate threshold; never a key). Answers are cached in
STEM.synth/, each durable before it counts: a killed run resumes, a rerun costs nothing. With
--log REAL_LOG the queries are compared with real traffic (goldset classify --compare) at the end.
With --store DIR (a store whose pool was made from these queries, or a sample of them) the setup
goes into the store's manifest, so its [version] and history name the prompt and model.

--dry-run prints the prompt the first document would be sent and how many requests the run would
make (the cache counted), without a key, sending or writing anything.

examples:
  goldset synth sample_data/corpus.jsonl -o synth.csv --model claude-sonnet-4-5 \\
      --documents 40 --seed 7 --dry-run
  goldset synth sample_data/corpus.jsonl -o synth.csv --model claude-sonnet-4-5 \\
      --documents 40 --seed 7 --log sample_data/query_log.csv
  goldset synth corpus.jsonl -o synth.csv --provider openai --base-url http://localhost:11434/v1 \\
      --model llama3.1:8b --per-doc 5 --price 0,0
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from goldset_tui.commands._judge_machine import _count, _RefuseKey, _usd

    parser.add_argument(
        "corpus", metavar="CORPUS", help="the documents (BEIR corpus.jsonl, a table)"
    )
    parser.add_argument(
        "-o", "--output", metavar="QUERIES", required=True, help="the queries to write"
    )
    parser.add_argument("--model", metavar="MODEL", help="the model (anthropic: ANTHROPIC_MODEL)")
    parser.add_argument(
        "--provider",
        choices=("anthropic", "openai"),
        default="anthropic",
        help="anthropic (the default) or openai: any OpenAI-compatible endpoint",
    )
    parser.add_argument("--base-url", metavar="URL", help="the provider's endpoint")
    parser.add_argument(
        "--api-key-file", metavar="FILE", help="read the key from FILE (never one on the line)"
    )
    parser.add_argument("--api-key", action=_RefuseKey, help=argparse.SUPPRESS)
    parser.add_argument(
        "--per-doc", metavar="N", type=_count(1), default=3, help="queries per document (3)"
    )
    parser.add_argument(
        "--prompt", metavar="FILE", help="the prompt template, with {document} (and {title}, {n})"
    )
    parser.add_argument(
        "--documents",
        metavar="K",
        dest="sample",
        type=_count(1),
        help="ask about K documents drawn with --seed (default: every document)",
    )
    parser.add_argument(
        "--seed",
        metavar="N",
        type=int,
        help="the draw's seed (also sent where a provider takes one)",
    )
    parser.add_argument(
        "--temperature", metavar="T", type=float, default=1.0, help="sampling temperature (1.0)"
    )
    parser.add_argument(
        "--log",
        metavar="REAL_LOG",
        help="compare the queries with this real log at the end (as classify --compare)",
    )
    parser.add_argument("--vocab", metavar="FILE", help="with --log: the word list or corpus")
    parser.add_argument(
        "--store",
        metavar="DIR",
        help="record this setup in the store whose pool holds these queries (its [version] and "
        "history name the prompt and model; a rerun to do it costs nothing)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the prompt the first document would be sent and how many requests the run "
        "would make; no key read, nothing sent or written",
    )
    parser.add_argument(
        "--max-cost", metavar="USD", type=_usd, help="stop before the cost passes USD dollars"
    )
    parser.add_argument("--price", metavar="IN,OUT", help="USD per million input and output tokens")
    parser.add_argument(
        "--concurrency", metavar="K", type=_count(1), default=4, help="requests at once (4)"
    )


def _progress(p: SynthProgress) -> str:
    cost = "cost unknown" if p.cost is None else f"${p.cost:,.4f}"
    return (
        f"goldset: synth: {p.done}/{p.total} documents ({p.cached} from the cache), {p.failed} "
        f"not answered; tokens {p.input_tokens:,} in, {p.output_tokens:,} out; {cost}"
        + (f"; {p.retries} retries" if p.retries else "")
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.synth import SynthRequest, run_synth
    from goldset_tui.llm.cost import parse_price
    from goldset_tui.llm.provider import ProviderConfig

    request = SynthRequest(
        corpus=args.corpus,
        output=args.output,
        provider=ProviderConfig(
            provider=args.provider,
            model=args.model,
            base_url=args.base_url,
            api_key_file=args.api_key_file,
        ),
        per_doc=args.per_doc,
        prompt=args.prompt,
        sample=args.sample,
        seed=args.seed,
        log=args.log,
        vocab=args.vocab,
        store=args.store,
        temperature=args.temperature,
        max_cost=args.max_cost,
        price=parse_price(args.price) if args.price is not None else None,
        concurrency=args.concurrency,
    )
    if args.dry_run:
        return dry_run(request)
    result = run_synth(request)
    return report(result)


def dry_run(request: SynthRequest) -> int:
    from goldset_tui.app.synth import plan_synth

    plan = plan_synth(request)
    print(visible(plan.first_prompt, keep_newlines=True).rstrip("\n"))
    print()
    print(
        f"dry run: {plan.documents} documents for {visible(plan.model)} "
        f"({plan.cached} answered already under this setup, {plan.documents - plan.cached} "
        f"to ask); prompt sha256 {plan.prompt_sha256[:12]}; nothing sent or written"
    )
    return 0


def report(result: SynthResult) -> int:
    p = result.progress
    for warning in result.warnings:
        print(f"goldset: warning: {warning}", file=sys.stderr)
    print(_progress(p), file=sys.stderr)
    again = "run the same command again to go on (answers so far are kept and cost nothing)"
    if result.fatal is not None:
        print(f"goldset: error: {result.fatal}; {again}", file=sys.stderr)
        return 2
    if result.stopped is not None:
        print(f"stopped at {result.stopped}: {p.total - p.done} documents left; {again}")
        return 0
    print(
        f"{result.queries} synthetic queries from {p.total} documents by {visible(result.model)}"
        f" ({result.near_duplicates} near-duplicates dropped): "
        + ", ".join(visible(str(path)) for path in result.written.values())
    )
    if result.refusals:
        shown = "; ".join(f"{n} {why}" for why, n in result.refusals.most_common(5))
        print(f"documents refused or not answered: {visible(shown)}")
    if result.in_store is not None:
        print(
            f"recorded in the store: {result.in_store} of its pool's queries are these synthetic "
            "ones (its version and history name this prompt and model)"
        )
    if result.comparison is not None:
        from goldset_tui.commands._classify_compare import print_comparison

        print()
        print_comparison(result.comparison)
    return 0
