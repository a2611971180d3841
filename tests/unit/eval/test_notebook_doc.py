"""docs/notebook.md's Python blocks run as written (the doc runner runs only its shell blocks).

The page shows each task three times: goldset, ir_measures, ranx. Each library's blocks run in
order in one namespace, after the page's first block (the file names), from the checkout's root
where ``sample_data/`` is. ranx's blocks are left out here: ranx compiles its measures with numba
on first use (about 20 s on two busy cores, more than the rest of this folder's tests together);
they were run by hand with the same split of blocks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "notebook.md"


def blocks_by_library() -> dict[str, list[str]]:
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    out: dict[str, list[str]] = {"goldset": [], "ir_measures": [], "ranx": []}
    for block in blocks[1:]:
        if "ranx" in block or "Run.from_file" in block or "return_mean" in block:
            out["ranx"].append(block)
        elif "ir_measures" in block:
            out["ir_measures"].append(block)
        else:
            out["goldset"].append(block)
    return {name: [blocks[0], *found] for name, found in out.items()}


def test_the_page_shows_each_library_s_blocks():
    found = blocks_by_library()
    assert [len(found[name]) - 1 for name in ("goldset", "ir_measures", "ranx")] == [8, 3, 4]


@pytest.mark.parametrize("library", ["goldset", "ir_measures"])
def test_the_blocks_run(library, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    ns: dict = {}
    for block in blocks_by_library()[library]:
        exec(compile(block, f"{PAGE.name} ({library})", "exec"), ns)  # the page's own code
    capsys.readouterr()
    if library == "goldset":  # the numbers the page quotes, from what its blocks left behind
        assert round(ns["aggregate"](ns["per_query"])["nDCG@10"], 4) == 0.9534
        assert round(ns["mean_scores"](ns["QRELS"], ns["fused"], "nDCG@10")["nDCG@10"], 4) == 0.7993
        result = ns["paired_comparison"](ns["a"], ns["b"], seed=0, samples=10_000)
        assert (result.n, result.wins, result.losses, result.ties) == (42, 34, 0, 8)
        binary = ns["compare"](ns["QRELS"], ns["BM25"], ns["MINILM"], "Success@3")
        assert binary.discordant == (6, 0) and binary.mcnemar_p == 0.03125
        assert [round(x, 4) for x in binary.ci95] == [0.0417, 0.2833]
        kappa = ns["cohen_kappa_score"](
            ns["both"]["grade"], ns["both"]["grade_bob"], labels=[0, 1, 2, 3], weights="quadratic"
        )
        assert round(kappa, 4) == 0.8898
