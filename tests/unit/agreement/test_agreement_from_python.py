"""``from_qrels`` from a notebook takes a dict of labellers' qrels (docs/agreement.md, "From
Python"). Before, the dict's keys were read as ``NAME=PATH`` specs and refused, each as lacking
its path."""

from __future__ import annotations

from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from goldset_tui.agreement.report import agreement_report
from goldset_tui.agreement.sources import from_qrels

JUDGMENTS = Path(__file__).resolve().parents[3] / "sample_data" / "judgments"


def test_a_dict_of_paths_is_the_specs_data():
    paths = {"alice": JUDGMENTS / "alice.qrels", "bob": str(JUDGMENTS / "bob.qrels")}
    from_dict = from_qrels(paths)
    from_specs = from_qrels([f"{name}={path}" for name, path in paths.items()])
    assert from_dict.ratings.equals(from_specs.ratings)
    assert from_dict.scale == from_specs.scale
    pair = agreement_report(from_dict.ratings, from_dict.scale, seed=0)["pairs"][0]
    wide = from_dict.ratings.pivot(on="labeller", index="unit", values="grade").drop_nulls()
    expected = cohen_kappa_score(wide["alice"], wide["bob"], weights="quadratic")
    assert pair["kappa_quadratic"] == pytest.approx(expected)
