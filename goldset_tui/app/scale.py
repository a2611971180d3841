"""The grade scale a store keeps: set when the store is made, never changed by a later command."""

from __future__ import annotations

from typing import TYPE_CHECKING

from goldset_tui.errors import InputError

if TYPE_CHECKING:
    from pathlib import Path

    from goldset_tui.model import GradeScale


def refuse_other_scale(store: Path, have: GradeScale, wanted: GradeScale | None) -> None:
    """An existing store keeps the scale it was made with: --scale naming another is refused."""
    if wanted is not None and wanted.grades != have.grades:
        raise InputError(
            store,
            f"the store's grade scale is {have.min}-{have.max}, not {wanted.min}-{wanted.max}: "
            "a store keeps the scale it was made with (leave out --scale)",
        )
