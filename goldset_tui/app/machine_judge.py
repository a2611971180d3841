"""`goldset judge --machine MODEL`: a model judges the pool's pairs, as a machine labeller.

The steps, each before anything costs money: the store (the pool's, made from it if need be),
the labeller's name (a person's is refused), the prompt (``goldset_tui.machine.prompt``), the
provider and its key (``goldset_tui.llm``), the price and the budget. Then every pair the cache
has no answer for is asked, at most ``concurrency`` at a time, in pool order; each answer is
durable in the store's answer log (``goldset_tui.store.answers``) before it counts. Answers are
read by ``goldset_tui.machine.answer``: a grade, or a refusal counted per pair. At the end (also
after a budget stop, a fatal provider error or Ctrl-C) every grade read from this prompt and
model's answers is stored the way ``goldset import --machine`` stores a file
(``goldset_tui.store.machine.store_machine_labels``): one import record naming the provider, the
model asked for and the one that answered, the prompt's sha256; confidence and rationale beside.

Resuming is running the same command again: the cache answers every pair already asked (no
request, no cost), so a killed run continues where it stopped and a finished one costs nothing.
A new model or prompt under the same labeller name replaces the old labels (none are mixed).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldset_tui.app.model_asking import Key, ModelRun
from goldset_tui.errors import InputError
from goldset_tui.llm.cost import Budget, Meter, Price, Progress, price_for

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.llm.base import Provider
    from goldset_tui.llm.provider import ProviderConfig
    from goldset_tui.machine.prompt import JudgePrompt
    from goldset_tui.model import GradeScale
    from goldset_tui.store.machine import ImportResult
    from goldset_tui.store.project import Project

SOURCE = "goldset judge --machine"


@dataclass(frozen=True)
class MachineJudgeRequest:
    pool: str
    labeller: str
    provider: ProviderConfig
    store: str | None = None
    corpus: str | None = None
    scale: GradeScale | None = None  # of a store being made (an existing store keeps its own)
    prompt: str | None = None  # a prompt file; None: the built-in prompt
    max_pairs: int | None = None
    max_cost: float | None = None
    price: Price | None = None
    concurrency: int = 4
    max_tokens: int = 512
    temperature: float = 0.0
    seed: int | None = None


@dataclass
class JudgeProgress(Progress):
    """What the progress line shows; ``answered`` counts answers made durable in this run."""

    to_ask: int = 0
    refused: int = 0


@dataclass
class MachineJudgeResult:
    labeller: str
    store: Path
    model: str
    progress: JudgeProgress
    refusals: Counter[str] = field(default_factory=Counter)
    graded: int = 0  # pairs with a grade from this prompt and model
    stopped: str | None = None  # why the run stopped early (a budget, an error), None: finished
    fatal: str | None = None  # the provider error that stopped the run
    stored: ImportResult | None = None
    warnings: list[str] = field(default_factory=list)


def open_machine_store(request: MachineJudgeRequest) -> tuple[Project, pl.DataFrame]:
    """The store (``--store``, else the pool's own; made from the pool when it does not exist)
    and the pool's pairs with their texts: ``query_id, doc_id, query, text, title``."""
    from goldset_tui.app.scale import refuse_other_scale
    from goldset_tui.io.pools import load_pool
    from goldset_tui.io.tables import check_file
    from goldset_tui.store import Project, default_store_for, sha256_file
    from goldset_tui.store.manifest import manifest_path, new_store_fields, recorded_corpus
    from goldset_tui.store.project import refuse_busy_folder

    folder = Path(request.store) if request.store else default_store_for(request.pool)
    if manifest_path(folder).exists():
        project = Project.open(folder)
        refuse_other_scale(folder, project.scale, request.scale)
        if sha256_file(check_file(request.pool)) != project.pool_sha256:
            raise InputError(
                request.pool,
                f"is not the pool the store {folder} was made from ({project.pool_path})",
            )
        corpus = request.corpus or recorded_corpus(project.manifest)
        pool = load_pool(request.pool, corpus=corpus, scale=project.scale)
    else:
        refuse_busy_folder(folder)
        pool = load_pool(request.pool, corpus=request.corpus, scale=request.scale)
        project = Project.open_or_create(
            folder,
            pool_path=pool.path,
            pool_sha256=pool.sha256,
            **new_store_fields(request.scale, request.corpus),
        )
    pairs = pool.frame.unique(["query_id", "doc_id"], keep="first", maintain_order=True)
    return project, pairs.select("query_id", "doc_id", "query", "text", "title")


def _labels_digest(prompt_sha256: str, model: str, labels: pl.DataFrame) -> str:
    digest = hashlib.sha256(f"{SOURCE}\0{prompt_sha256}\0{model}\n".encode())
    for row in labels.sort("query_id", "doc_id").iter_rows():
        digest.update(("\t".join("" if v is None else str(v) for v in row) + "\n").encode())
    return digest.hexdigest()


def run_machine_judge(
    request: MachineJudgeRequest,
    *,
    on_progress: Callable[[JudgeProgress], None] = lambda progress: None,
    provider: Provider | None = None,
) -> MachineJudgeResult:
    """Judge the pool's pairs with the model (see the module's docstring). ``provider``: one
    already open (tests); else ``request.provider`` is checked first (the SDK installed, a key,
    a model) and opened only when a pair needs asking: a rerun the cache answers whole imports
    no SDK (a second of CPU for the Anthropic one)."""
    from goldset_tui.llm.provider import check_provider
    from goldset_tui.machine.prompt import load_prompt
    from goldset_tui.model import GradeScale
    from goldset_tui.store.answers import keep_prompt
    from goldset_tui.store.machine import check_machine_name, refuse_consensus

    if request.concurrency < 1:
        raise InputError(None, "--concurrency must be 1 or more", column="concurrency")
    # Everything that can be refused before a store is made: the provider (the SDK, the key,
    # the model), the budget, the name, and the prompt (on the scale a new store would get).
    model = provider.model if provider is not None else check_provider(request.provider)
    price = price_for(model, request.price)
    Budget(request.max_pairs, request.max_cost).check(price, model)
    if not request.labeller.strip():
        raise InputError(None, "--labeller must not be empty")
    refuse_consensus(request.labeller)
    load_prompt(request.prompt, request.scale or GradeScale())  # an existing store's: below
    project, pairs = open_machine_store(request)
    check_machine_name(project, request.labeller)
    prompt = load_prompt(request.prompt, project.scale)
    keep_prompt(project.path, prompt.template, prompt.sha256)
    run = _Run(request, project, pairs, prompt, model, provider, Meter(price), on_progress)
    return run.run()


class _Run(ModelRun):
    """One run's state: the pairs and their keys, the answers known, the counts."""

    request: MachineJudgeRequest
    progress: JudgeProgress
    result: MachineJudgeResult

    def __init__(
        self,
        request: MachineJudgeRequest,
        project: Project,
        pairs: pl.DataFrame,
        prompt: JudgePrompt,
        model: str,
        provider: Provider | None,
        meter: Meter,
        on_progress: Callable[[JudgeProgress], None],
    ) -> None:
        from goldset_tui.store.answers import cache_path, input_digest

        super().__init__()
        self.request = request
        self.project = project
        self.prompt = prompt
        self.prompt_sha256 = prompt.sha256
        self.model = model
        self._provider = provider
        self.provider_name = provider.name if provider is not None else request.provider.provider
        self.meter = meter
        self.on_progress = on_progress
        self.budget = Budget(request.max_pairs, request.max_cost)
        self.log_path = cache_path(project.path, prompt.sha256, model)
        self.keys: list[Key] = []
        self.texts: dict[Key, str] = {}
        for query_id, doc_id, query, text, title in pairs.iter_rows():
            rendered = prompt.render(
                query=str(query or ""),
                passage=str(text or ""),
                title=str(title or ""),
                scale=project.scale,
            )
            key = (str(query_id), str(doc_id), input_digest("", rendered))
            self.keys.append(key)
            self.texts[key] = rendered
        self.known: dict[Key, dict[str, Any]] = {}
        self.progress = JudgeProgress(total=len(self.keys))
        self.result = MachineJudgeResult(request.labeller, project.path, model, self.progress)

    def run(self) -> MachineJudgeResult:
        from goldset_tui.store.answers import AnswerLog, clear_run, mark_run, read_answers

        try:
            with AnswerLog(self.log_path) as log:
                self.result.warnings += log.warnings
                self.known, _ = read_answers(self.log_path)
                asks = [k for k in self.keys if k not in self.known]
                self.progress.to_ask = len(asks)
                self.progress.cached = len(self.keys) - len(asks)
                self._count_refused(k for k in self.keys if k in self.known)
                self.on_progress(self.progress)
                if asks:  # until the labels are stored, a reader of the store is told of them
                    mark_run(self.project.path, self.request.labeller, self.log_path, self.again())
                self._ask(asks, log)
        finally:
            # Whatever stopped the run (a budget, an error, Ctrl-C), every answer made durable
            # is stored as labels.
            self._store()
        clear_run(self.project.path, self.request.labeller)
        progress = self.progress
        unasked = progress.to_ask - progress.answered - progress.failed
        if self.result.fatal is None and unasked > 0:
            # Pairs never asked: the budget stopped the run (a pair that failed was asked).
            limit = self.request.max_pairs
            spent = limit is not None and progress.answered + progress.failed >= limit
            self.result.stopped = "--max-pairs" if spent else "--max-cost"
        return self.result

    def again(self) -> str:
        """The command that runs this judge again, for the notice a killed run leaves: what
        decides the answers and where they go (no key: it is never on a command line; the budget
        and the price are the user's to give again)."""
        import shlex

        request, config = self.request, self.request.provider
        words = ["goldset", "judge", "--machine", config.model or self.model, request.pool]
        words += ["--store", str(self.project.path), "--labeller", request.labeller]
        if config.provider != "anthropic":
            words += ["--provider", config.provider]
        for option, value in (
            ("--base-url", config.base_url),
            ("--api-key-file", config.api_key_file),
            ("--corpus", request.corpus),
            ("--prompt", request.prompt),
            ("--seed", request.seed),
        ):
            if value is not None:
                words += [option, str(value)]
        return shlex.join(words)

    def _count_refused(self, keys: Any) -> None:
        from goldset_tui.machine.answer import read_answer

        for key in keys:
            if read_answer(str(self.known[key].get("text", "")), self.project.scale).refusal:
                self.progress.refused += 1

    def _answered(self, key: Key) -> None:
        self._count_refused([key])

    def _store(self) -> None:
        """Every grade read from this prompt and model's answers, stored as the labeller's."""
        import polars as pl

        from goldset_tui.machine.answer import read_answer
        from goldset_tui.machine.prompt import BUILT_IN
        from goldset_tui.store.machine import recorded_path, store_machine_labels

        rows: list[tuple[str, str, int, float | None, str | None]] = []
        reported: Counter[str] = Counter()
        fingerprints: Counter[str] = Counter()
        samplings: set[str] = set()
        for key in self.keys:
            record = self.known.get(key)
            if record is None:
                continue
            reported[str(record.get("model") or "")] += 1
            if record.get("fingerprint"):
                fingerprints[str(record["fingerprint"])] += 1
            samplings.add(json.dumps(record.get("sampling") or {}, sort_keys=True))
            answer = read_answer(str(record.get("text", "")), self.project.scale)
            if answer.refusal is not None or answer.grade is None:
                self.result.refusals[answer.refusal or "no grade"] += 1
                continue
            rows.append((key[0], key[1], answer.grade, answer.confidence, answer.rationale))
        self.result.graded = len(rows)
        if not rows:
            return
        labels = pl.DataFrame(
            rows,
            schema={
                "query_id": pl.String,
                "doc_id": pl.String,
                "grade": pl.Int64,
                "confidence": pl.Float64,
                "rationale": pl.String,
            },
            orient="row",
        )
        model = self.model
        version = reported.most_common(1)[0][0] if reported else model
        setup: dict[str, Any] = {
            "provider": self.provider_name,
            "model": model,
            "model_version": version,
            "prompt_sha256": self.prompt.sha256,
        }
        stored: dict[str, Any] = {
            "source": SOURCE,
            **setup,
            "prompt": self.prompt.source
            if self.prompt.source == BUILT_IN
            else recorded_path(self.prompt.source),
            "answers": sum(reported.values()),
            "refused": sum(reported.values()) - len(rows),
        }
        if len(reported) > 1:
            stored["models_reported"] = sorted(reported)
        if fingerprints:
            stored["fingerprints"] = sorted(fingerprints)[:20]
        if len(samplings) == 1:  # what was sent with every answer used (none: the model's own)
            stored.update(json.loads(samplings.pop()))
        entry = self.project.manifest.get("labellers", {}).get(_safe(self.request.labeller), {})
        replaced = bool(entry) and (
            entry.get("model") != model or entry.get("prompt_sha256") != self.prompt.sha256
        )
        self.result.stored = store_machine_labels(
            self.project,
            self.request.labeller,
            labels,
            _labels_digest(self.prompt.sha256, model, labels),
            stored,
            setup,
            replace_all=replaced,
        )


def _safe(labeller: str) -> str:
    from goldset_tui.store.files import safe_name

    return safe_name(labeller)
