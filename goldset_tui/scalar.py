"""Python numbers out of Polars scalars, typed.

Polars' stubs give ``Series.sum()``, ``.max()``, ``.item()`` and ``.arg_max()`` the union of every
Python literal (and ``None``), whatever the column holds; the caller knows the dtype. These say so
once, instead of a ``cast`` at every call. The conversion is the plain ``int()``/``float()`` it
replaces: a ``None`` still raises ``TypeError``.
"""

from __future__ import annotations

from typing import Any


def as_int(value: object) -> int:
    """``int(value)`` for a Polars scalar known to be a whole number."""
    number: Any = value
    return int(number)


def as_float(value: object) -> float:
    """``float(value)`` for a Polars scalar known to be a number."""
    number: Any = value
    return float(number)
