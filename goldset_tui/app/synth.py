"""`goldset synth CORPUS -o QUERIES --model M`: a model writes queries for each document.

The steps, each before anything costs money: the outputs' paths (a known table extension, an
existing folder), the provider and its key (``goldset_tui.llm``), the corpus and its sha256, the
documents (all of them in corpus order, or ``--documents K --seed S``: the K with the smallest
seeded hash of their id, kept in corpus order), the prompt (``goldset_tui.machine.synth_prompt``)
and the budget. Then every document the cache has no answer for is asked, at most
``concurrency`` at a time; each answer is durable in the cache (``goldset_tui.store.answers``,
the judge's crash-safe log, kept in ``QUERIES``'s stem + ``.synth/``) before it counts. The cache
is keyed by the setup (prompt sha256, temperature, seed, tokens, model) and the exact text sent,
so a killed run resumes where it stopped and a rerun of a finished one makes no request.

When every document has been asked, the answers are read (``parse_queries``: a refusal is
counted per document, never an error), near-duplicate queries across the whole set are dropped
(``goldset_tui.pooling.neardup`` at its threshold, which the manifest records: two documents that
gave the same query would each claim to be its one relevant answer), and three files are
written by ``goldset_tui.app.synth_output``: QUERIES (``query_id, query, doc_id, origin``), the
expected-relevant qrels and the manifest. With ``log`` the queries are compared with real traffic
(``classify --compare``) and the verdict goes into the manifest.

The API key never reaches this module: nothing it writes can hold it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldset_tui.app.model_asking import Key, ModelRun
from goldset_tui.errors import InputError
from goldset_tui.llm.cost import Progress

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.app.classifying import QuerySetComparison
    from goldset_tui.llm.base import Provider
    from goldset_tui.llm.cost import Price
    from goldset_tui.llm.provider import ProviderConfig
    from goldset_tui.machine.synth_prompt import SynthPrompt

# A key: "synth", the document's id, the sha256 of the text sent (app.model_asking.Key).


@dataclass(frozen=True)
class SynthRequest:
    corpus: str
    output: str
    provider: ProviderConfig
    per_doc: int = 3
    prompt: str | None = None
    sample: int | None = None
    seed: int | None = None
    log: str | None = None
    vocab: str | None = None
    store: str | None = None  # record the setup in this store (goldset_tui.app.synth_store)
    temperature: float = 1.0
    max_tokens: int = 256
    max_cost: float | None = None
    price: Price | None = None
    concurrency: int = 4


@dataclass
class SynthProgress(Progress):
    """What the progress line shows."""


@dataclass
class SynthResult:
    output: Path
    model: str
    progress: SynthProgress
    refusals: Counter[str] = field(default_factory=Counter)
    queries: int = 0
    near_duplicates: int = 0
    stopped: str | None = None  # a budget stop: nothing written, run again to go on
    fatal: str | None = None  # the provider error that stopped the run: nothing written
    written: dict[str, Path] = field(default_factory=dict)
    comparison: QuerySetComparison | None = None
    in_store: int | None = None  # with a store: how many of its pool's queries are these
    warnings: list[str] = field(default_factory=list)


def setup_digest(prompt: SynthPrompt, request: SynthRequest) -> str:
    """What, beside the model and the text sent, makes an answer reusable."""
    text = f"{prompt.sha256}\0{request.temperature!r}\0{request.seed}\0{request.max_tokens}"
    return hashlib.sha256(text.encode()).hexdigest()


def choose_documents(docs: pl.DataFrame, sample: int | None, seed: int | None) -> pl.DataFrame:
    """All documents, or the ``sample`` with the smallest seeded hash of their id (corpus order
    kept): the same corpus, K and seed always give the same documents, whatever the machine."""
    import polars as pl

    from goldset_tui.sampling.sample import hash_uniforms

    if sample is None:
        return docs
    if seed is None:
        raise InputError(None, "--documents needs --seed (the same seed draws the same documents)")
    if sample < 1:
        raise InputError(None, "--documents must be 1 or more", column="sample")
    keys = pl.Series("_u", hash_uniforms(docs.get_column("doc_id").to_list(), seed))
    chosen = docs.with_columns(keys).with_row_index("_i").sort("_u", "_i").head(sample)
    return chosen.sort("_i").drop("_i", "_u")


@dataclass(frozen=True)
class SynthPlan:
    """What a run would do (``--dry-run``): no key read, nothing sent, nothing written."""

    documents: int
    cached: int  # of them, answered already under this setup (they would cost nothing)
    first_prompt: str  # the text the first document would be sent
    model: str
    prompt_sha256: str


def plan_synth(request: SynthRequest) -> SynthPlan:
    from goldset_tui.app.synth_output import check_outputs, outputs_for
    from goldset_tui.io.corpus import read_corpus
    from goldset_tui.llm.provider import resolve_model
    from goldset_tui.machine.synth_prompt import load_synth_prompt
    from goldset_tui.store.answers import cache_path, input_digest, read_answers

    paths = outputs_for(request.output)
    check_outputs(paths)
    prompt = load_synth_prompt(request.prompt)
    model = resolve_model(request.provider)
    docs = choose_documents(read_corpus(request.corpus), request.sample, request.seed)
    if docs.height == 0:
        raise InputError(request.corpus, "has no documents")
    texts = [
        prompt.render(document=str(text or ""), title=str(title or ""), n=request.per_doc)
        for text, title in docs.select("text", "title").iter_rows()
    ]
    log = cache_path(paths.cache, setup_digest(prompt, request), model)
    known = read_answers(log)[0] if log.exists() else {}
    keys = {
        ("synth", str(d), input_digest("", t))
        for d, t in zip(docs.get_column("doc_id"), texts, strict=True)
    }
    return SynthPlan(docs.height, len(keys & set(known)), texts[0], model, prompt.sha256)


def run_synth(
    request: SynthRequest,
    *,
    on_progress: Callable[[SynthProgress], None] = lambda progress: None,
    provider: Provider | None = None,
) -> SynthResult:
    from goldset_tui.app.synth_output import check_outputs, outputs_for
    from goldset_tui.io.corpus import read_corpus
    from goldset_tui.llm.cost import Budget, Meter, price_for
    from goldset_tui.llm.provider import check_provider
    from goldset_tui.machine.synth_prompt import load_synth_prompt
    from goldset_tui.store.answers import keep_prompt
    from goldset_tui.store.files import sha256_file

    if request.per_doc < 1:
        raise InputError(None, "--per-doc must be 1 or more", column="per-doc")
    if request.concurrency < 1:
        raise InputError(None, "--concurrency must be 1 or more", column="concurrency")
    paths = outputs_for(request.output)
    check_outputs(paths)
    prompt = load_synth_prompt(request.prompt)
    # Checked, not opened: a rerun the cache answers whole never imports the SDK.
    model = provider.model if provider is not None else check_provider(request.provider)
    docs = choose_documents(read_corpus(request.corpus), request.sample, request.seed)
    if docs.height == 0:
        raise InputError(request.corpus, "has no documents")
    price = price_for(model, request.price)
    Budget(None, request.max_cost).check(price, model)
    keep_prompt(paths.cache, prompt.template, prompt.sha256)
    run = _Run(request, docs, prompt, model, provider, Meter(price), on_progress, paths.cache)
    result = run.run()
    if result.fatal is not None or result.stopped is not None:
        return result
    corpus_sha = sha256_file(request.corpus)
    return run.finish(paths, corpus_sha)


class _Run(ModelRun):
    request: SynthRequest
    progress: SynthProgress
    result: SynthResult

    def __init__(
        self,
        request: SynthRequest,
        docs: pl.DataFrame,
        prompt: SynthPrompt,
        model: str,
        provider: Provider | None,
        meter: Any,
        on_progress: Callable[[SynthProgress], None],
        cache: Path,
    ) -> None:
        from goldset_tui.llm.cost import Budget
        from goldset_tui.store.answers import cache_path, input_digest

        super().__init__()
        self.request = request
        self.prompt = prompt
        self.prompt_sha256 = prompt.sha256
        self.model = model
        self._provider = provider
        self.meter = meter
        self.on_progress = on_progress
        self.budget = Budget(None, request.max_cost)
        self.log_path = cache_path(cache, setup_digest(prompt, request), model)
        self.keys: list[Key] = []
        self.texts: dict[Key, str] = {}
        for doc_id, text, title in docs.select("doc_id", "text", "title").iter_rows():
            rendered = prompt.render(
                document=str(text or ""), title=str(title or ""), n=request.per_doc
            )
            key = ("synth", str(doc_id), input_digest("", rendered))
            self.keys.append(key)
            self.texts[key] = rendered
        self.known: dict[Key, dict[str, Any]] = {}
        self.progress = SynthProgress(total=len(self.keys))
        self.result = SynthResult(Path(request.output), model, self.progress)

    def run(self) -> SynthResult:
        from goldset_tui.store.answers import AnswerLog, read_answers

        with AnswerLog(self.log_path) as log:
            self.result.warnings += log.warnings
            self.known, _ = read_answers(self.log_path)
            asks = [k for k in self.keys if k not in self.known]
            self.progress.cached = len(self.keys) - len(asks)
            self.on_progress(self.progress)
            self._ask(asks, log)
        if self.result.fatal is None and self.progress.done + self.progress.failed < len(self.keys):
            self.result.stopped = "--max-cost"
        return self.result

    def finish(self, paths: Any, corpus_sha256: str) -> SynthResult:
        """Read every answer, drop near-duplicates, write the three files, compare."""
        from goldset_tui.app.synth_output import SynthSetup, collect_queries, write_outputs

        reported: Counter[str] = Counter()
        fingerprints: set[str] = set()
        sent: list[set[str]] = []
        answers: list[tuple[str, str]] = []
        for key in self.keys:
            record = self.known.get(key)
            if record is None:
                continue
            reported[str(record.get("model") or "")] += 1
            if record.get("fingerprint"):
                fingerprints.add(str(record["fingerprint"]))
            answers.append((key[1], str(record.get("text", ""))))
            sampling = record.get("sampling")
            sent.append(set(sampling) if isinstance(sampling, dict) else set())
        collected = collect_queries(answers, self.request.per_doc)
        self.result.refusals.update(collected.refusals)
        self.result.queries = collected.frame.height
        self.result.near_duplicates = collected.near_duplicates
        setup = SynthSetup(
            request=self.request,
            prompt=self.prompt,
            provider=self.request.provider.provider,
            model=self.model,
            model_version=reported.most_common(1)[0][0] if reported else self.model,
            # What every answer used was sent with (recorded per answer, so a rerun from the
            # cache, which opens no provider, says the same).
            sends=frozenset(set.intersection(*sent)) if sent else frozenset(),
            fingerprints=sorted(fingerprints)[:20],
            corpus_sha256=corpus_sha256,
            documents=len(self.keys),
            answered=len(answers),
        )
        written, comparison, manifest = write_outputs(paths, collected, setup)
        self.result.written, self.result.comparison = written, comparison
        if self.request.store is not None:
            from goldset_tui.app.synth_store import record_synthetic

            self.result.in_store = record_synthetic(
                self.request.store, manifest, paths.manifest, collected.frame
            )
        return self.result
