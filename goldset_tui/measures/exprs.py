"""What the registry's Polars expressions share, without importing Polars until one is built.

The registry is read by the small path and by ``--help``, which must not pay for importing
Polars (about 0.3 s): ``pl`` here is the module for the type checker, and at run time a stand-in
that imports Polars at its first use, which only the Polars engine (``eval.metrics``) reaches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl
else:

    class _Polars:
        def __getattr__(self, name: str) -> Any:
            import polars

            return getattr(polars, name)

    pl = _Polars()

__all__ = ["discount", "gain", "idcg_name", "pl", "safe_div"]


def safe_div(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    return pl.when(den > 0).then(num / den).otherwise(0.0)


def gain(grade: pl.Expr, dcg: str) -> pl.Expr:
    g = pl.when(grade > 0).then(grade).otherwise(0).cast(pl.Float64)
    return (2.0**g - 1.0) if dcg == "exp-log2" else g


def discount(rank: pl.Expr) -> pl.Expr:
    return (rank.cast(pl.Float64) + 1.0).log(2.0)


def idcg_name(dcg: str, k: int | None) -> str:
    """The column of the query statistics holding the ideal DCG for this gain and cutoff."""
    return f"idcg_{dcg}_{k}"
