"""Which store `goldset judge POOL` opens when no ``--store`` is given.

Before, the answer was always the pool's default store (one folder per pool path under the data
folder), so a labeller whose grades were in a store made elsewhere (``goldset import --pool P
--store S``) and who forgot ``--store`` got a new, empty store: her grades looked lost and her
``--assign`` share was gone. Now every store goldset has made or opened is remembered
(``store.registry``), and the stores made from this very pool file (same sha256) are the
candidates, the default store among them when it exists:

- the one store the labeller has judged in (or is on the planned team of) is opened, and the
  command says which. When she is on several, those where she has no judgment yet are set aside:
  the one store holding her judgments is opened;
- with no such store, the only store made from this very file (same path, same sha256) is
  opened, and the command says which: a new labeller joins the team's store. A copy of the pool
  elsewhere is not enough to join a stranger's store: `goldset demo` keeps a copy of the sample
  pool, and `goldset judge sample_data/pool.jsonl` must not land in the demo's store (which is
  never a candidate);
- when several fit, nothing is opened: one line names them and says to choose with ``--store``;
- with none, the default store, as before (made on first use).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from goldset_tui.errors import InputError
from goldset_tui.text import visible


@dataclass(frozen=True)
class Choice:
    store: Path
    said: str | None  # what to tell the labeller (None: the default store, nothing to say)


def _holds(store: Path, sha: str) -> dict[str, Any] | None:
    """The store's manifest when it was made from (or switched to) the pool with ``sha``."""
    from goldset_tui.store.manifest import read_manifest

    try:
        manifest = read_manifest(store)
    except (InputError, OSError):
        return None  # a damaged or vanished store is no candidate
    pool = manifest.get("pool")
    return manifest if isinstance(pool, dict) and pool.get("sha256") == sha else None


def _members(manifest: dict[str, Any]) -> set[str]:
    names = {e.get("name") for e in manifest.get("labellers", {}).values() if isinstance(e, dict)}
    team = manifest.get("assignment", {}).get("labellers", [])
    return {n for n in [*names, *team] if isinstance(n, str)}


def _same_file(manifest: dict[str, Any], pool_path: str | Path) -> bool:
    recorded = Path(str(manifest.get("pool", {}).get("path", "")))
    try:
        return recorded.samefile(pool_path)
    except OSError:  # the recorded file moved: not this one
        return False


def _judged(store: Path, labeller: str) -> int:
    from goldset_tui.store import Project

    try:
        return Project.open(store).judgments(labeller).height
    except Exception:  # counted only to be said; a store that cannot tell is not refused here
        return 0


def choose_store(pool_path: str | Path, labeller: str | None) -> Choice:
    """The store to open for ``pool_path`` (see the module's docstring); InputError when several
    stores fit and the labeller must choose."""
    from goldset_tui.io.pools import file_sha256  # load_pool reuses this digest
    from goldset_tui.locations import projects_dir
    from goldset_tui.store import default_store_for
    from goldset_tui.store.registry import known_stores

    default = default_store_for(pool_path).resolve()
    try:
        sha = file_sha256(pool_path)
    except OSError:
        return Choice(default, None)  # the pool's reader says what is wrong with it
    demo = (projects_dir() / "demo").resolve()  # commands/demo.py: a practice store
    found = {s: m for s in known_stores() if s != demo and (m := _holds(s, sha)) is not None}
    mine = [s for s, m in found.items() if labeller is not None and labeller in _members(m)]
    if len(mine) > 1:
        # A store where she has no judgment yet (she opened it and left, or a teammate's --team
        # named her) does not compete with the one holding her work: only when several hold
        # judgments, or none does, is the choice hers to make.
        holding = [s for s in mine if _judged(s, labeller or "") > 0]
        mine = holding or mine
    if not mine:  # joining: only a store made from this very file
        found = {s: m for s, m in found.items() if _same_file(m, pool_path)}
    if not found:
        return Choice(default, None)
    who = visible(labeller or "", keep_newlines=False)
    if len(mine) == 1 or (not mine and len(found) == 1):
        (store,) = mine or list(found)
        if store == default:
            return Choice(store, None)
        if mine:
            n = _judged(store, labeller or "")
            why = (
                f"where {who} has judged this pool ({n:,} judgments)"
                if n
                else f"where {who} is on the team (no judgments yet)"
            )
        else:
            why = "the one store that holds this pool" + (
                f" ({who} has not judged in it yet)" if labeller else ""
            )
        said = f"no --store given: opening {store}, {why}; --store DIR opens another"
        return Choice(store, said)
    several = mine or list(found)
    listed = "; ".join(
        f"{s} ({_judged(s, labeller):,} judgments)" if labeller else str(s) for s in several
    )
    # Named on several teams but judged in none: saying she "has judged" it would be false.
    judged_any = labeller is not None and any(_judged(s, labeller) for s in several)
    whose = (
        (f"{who} has judged" if judged_any else f"{who} is on the team of")
        if mine
        else ("goldset knows")
    )
    raise InputError(
        Path(pool_path),
        f"{whose} this pool in {len(several)} stores: {listed}; say which with --store DIR",
    )


def remembered_overlap(manifest: dict[str, Any], labeller: str) -> float | None:
    """The planned overlap remembered in the store, for a labeller on its team who gave no
    ``--assign``: her share is the plan's, not the whole pool (None: no plan, or not on it)."""
    plan = manifest.get("assignment", {})
    if labeller not in plan.get("labellers", []) or "overlap" not in plan:
        return None
    try:
        return float(plan["overlap"])
    except (TypeError, ValueError):
        return None
