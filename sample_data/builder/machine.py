"""ILLUSTRATIVE machine labels: a made-up "LLM judge" for the sample. No model produced these.

They exist so that the machine-judge flow (goldset import --machine, agreement, system ranking,
goldset validate) runs on the sample. Derived from alice's illustrative grades
(``builder/judgments.py``), with a seeded, deliberate flaw that validation should find:

- on the ``negation`` stratum the judge is lenient, the way a judge that misses "not" would be:
  a 0 or a 1 becomes one grade higher one time in two;
- elsewhere it keeps alice's grade, moving one grade up or down one time in twelve;
- its confidence is 0.95 minus up to 0.25 of seeded noise, minus 0.3 where it moved the grade,
  so low confidence points at the errors often but not always (a real judge's does no better);
- every label's rationale says it is illustrative.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl

SEED = 15
RATIONALE = "illustrative: made up by sample_data/builder/machine.py, not a model's output"


def llm(alice_qrels: pl.DataFrame, strata: pl.DataFrame) -> list[dict]:
    rng = random.Random(SEED)
    rows = alice_qrels.join(strata, on="query_id", how="left").sort("query_id", "doc_id")
    out = []
    for q, d, g, stratum in rows.select("query_id", "doc_id", "grade", "stratum").iter_rows():
        grade = g
        if stratum == "negation" and g <= 1 and rng.random() < 0.5:
            grade = g + 1
        elif stratum != "negation" and rng.random() < 1 / 12:
            grade = min(3, max(0, g + rng.choice((-1, 1))))
        confidence = 0.95 - 0.25 * rng.random() - (0.3 if grade != g else 0.0)
        out.append(
            {
                "query_id": q,
                "doc_id": d,
                "grade": grade,
                "confidence": round(confidence, 3),
                "rationale": RATIONALE,
            }
        )
    return out


def write_labels(rows: list[dict], path: Path) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
