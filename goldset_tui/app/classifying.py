"""Labelling a query log with query-shape strata (`goldset classify`), and holding a synthetic
query set against real traffic (`goldset classify --compare`): goldset_tui.sampling.classify and
goldset_tui.sampling.compare, with the files around them (labels, manifest, vocabulary)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.sampling.compare import Row


@dataclass(frozen=True)
class Classification:
    """What `goldset classify` wrote: the labels at ``output``, the manifest at ``manifest``."""

    output: Path
    manifest: Path
    occurrences: int  # queries in the log, blank ones included
    distinct: int  # distinct queries after normalising
    blank: int  # occurrences of blank or empty queries, skipped
    strata: pl.DataFrame  # stratum, distinct, occurrences, share
    misspelled_skipped: bool  # no vocabulary and no rules of one's own: the rule was not run


def classify_to_file(
    log: Path,
    output: Path,
    *,
    vocab: Path | None = None,
    rules: str | None = None,
    manifest: Path | None = None,
) -> Classification:
    """Label each distinct query of ``log``, write the labels to ``output`` and the manifest
    beside it (or to ``manifest``). The output's format and folders are checked before the work,
    so a wrong name fails at once, not after the log is read."""
    from goldset_tui.progress import working
    from goldset_tui.sampling.classify import classify_to_file as label_log
    from goldset_tui.sampling.classify import read_vocab
    from goldset_tui.sampling.files import check_folder, output_format
    from goldset_tui.sampling.manifest import build_classify_manifest, manifest_path, write_manifest
    from goldset_tui.sampling.rules import load_rules
    from goldset_tui.store.together import written_together

    output_format(output)  # fail before the work, not after
    where = manifest or manifest_path(output)
    check_folder(where)
    rule = load_rules(rules) if rules else None
    words = read_vocab(vocab) if vocab else None
    # The labels and the manifest vouching for them: a failure leaves the earlier pair whole.
    with written_together([output, where]):
        with working(f"classifying {log}"):
            result = label_log(log, output, words, rule)
        table = result.strata
        built = build_classify_manifest(
            log_path=log,
            labels_path=output,
            vocab_path=vocab,
            rules=rule,
            rules_spec=rules,
            occurrences=result.occurrences,
            blank=result.blank,
            strata=table.to_dicts(),
        )
        write_manifest(built, where)
    return Classification(
        output=output,
        manifest=where,
        occurrences=result.occurrences,
        distinct=result.distinct,
        blank=result.blank,
        strata=table,
        misspelled_skipped=words is None and rule is None,
    )


@dataclass(frozen=True)
class QuerySetComparison:
    """A synthetic query set against a real log, feature by feature, and the verdict in words."""

    rows: list[Row]
    verdict: str
    vocabulary_measured: bool  # a vocabulary was given, so its share was compared

    def to_dict(self) -> dict[str, Any]:
        """As `goldset classify --compare --format json` prints it."""
        return {"rows": [r.to_dict() for r in self.rows], "verdict": self.verdict}


def compare_query_sets(
    real: str | Path, synthetic: str | Path, vocab: Path | None = None
) -> QuerySetComparison:
    """How the queries of ``synthetic`` differ from the real traffic of ``real``."""
    from goldset_tui.sampling.classify import read_vocab
    from goldset_tui.sampling.compare import compare_logs, summary

    words = read_vocab(vocab) if vocab else None
    rows = compare_logs(real, synthetic, words)
    return QuerySetComparison(rows, summary(rows), words is not None)
