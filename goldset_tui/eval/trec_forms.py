"""trec_eval's ``-m`` forms that stand for several measures, or for none, turned into single ones.

trec_eval's ``-m`` takes more than one measure's name: a measure's base name alone (``P``: its
default cut-offs, 5 ... 1000), the base with a parameter list (``P.5,10``: exactly those), a
group (``official``, its default set; ``all_trec``, every measure; ``set``) and ``runid`` (the
run's tag, a line of text, not a number). :func:`expand` rewrites a ``-m`` list into single
measures written with trec_eval's own names (``P_5``, ``iprec_at_recall_0.10``), which
``measures.parse_measures`` reads as aliases: parsing stays in the registry, this module only
says what each form stands for. It guarantees the order of the list (each form replaced where it
stands) and leaves de-duplication to the parser. For callers past the parser:
:func:`expand_measures` gives the canonical names (the notebook's entry, exported by
``goldset_tui.eval``), :func:`one_measure` the single measure an option that takes one names
(``report --measure``), refusing a form that stands for several.

The rules are trec_eval 10's (``trec_eval.c`` mark_measure, ``meas_init.c``, ``measures.c``):
- defaults: P, recall, ndcg_cut and map_cut 5,10,15,20,30,100,200,500,1000; success 1,5,10;
  iprec_at_recall 0.00, 0.10, ..., 1.00;
- a parameter list replaces the defaults wherever its base is named, in a group too
  (``-m all_trec -m ndcg_cut.10`` prints ndcg_cut_10 alone, as trec_eval does);
- a list's cut-offs are sorted and must be distinct (trec_eval: "duplicate cutoffs detected").

Where goldset differs, on purpose: a cut-off must be a positive integer (trec_eval's atol reads
``23.4`` as 23 and ``x`` as 0: a typo would print a plausible number), and two lists for one base
are joined (trec_eval silently keeps only the first). ``P`` alone is ir_measures' name too, and
there the cut-off is required: it stands for trec_eval's defaults only under
``--trec-eval-compat``, and otherwise stays an error suggesting ``P@10``. The other bases are
trec_eval's names alone and expand in either mode.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from goldset_tui import measures as registry
from goldset_tui.errors import InputError
from goldset_tui.eval import aliases
from goldset_tui.eval.measures import parse_measures
from goldset_tui.measures.entry import TrecName

# measures.c: the groups (te_trec_measure_nicknames), in trec_eval's own order.
_OFFICIAL = (
    *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec"),
    *("bpref", "recip_rank", "iprec_at_recall", "P"),
)
GROUPS: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "all_trec": (
        *_OFFICIAL,
        *("relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility"),
        *("11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut"),
        *("ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map"),
        *("set_F", "num_nonrel_judged_ret"),
    ),
    "set": (
        *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P"),
        *("set_recall", "set_relative_P", "set_map", "set_F"),
    ),
}
RUNID = "runid"


class Forms:
    """What a ``-m`` list stands for: ``texts``, the single measures in order; ``runid``,
    whether the run's tag line is asked for; ``lacking``, trec_eval measures a group named that
    goldset does not have (in trec_eval's order); ``read_as``, each form that stood for
    several measures (a group too) and the texts it became (for the note saying so)."""

    __slots__ = ("lacking", "read_as", "runid", "texts")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.runid = False
        self.lacking: list[str] = []
        self.read_as: dict[str, list[str]] = {}


def expand(given: list[str], *, compat: bool) -> Forms:
    """The single measures ``given`` stands for (see the module's rules); ``compat``: trec_eval's
    meaning wins for a name it shares with ir_measures (``P``)."""
    lists = _parameter_lists(given)
    out = Forms()
    for raw in given:
        text = raw.strip()
        base = text.partition(".")[0]
        if text == RUNID:
            out.runid = True
        elif text in GROUPS:
            members: list[str] = []
            for name in GROUPS[text]:
                if name == RUNID:
                    out.runid = True
                elif _is_family(name):
                    members += _members(name, lists)
                elif _known(name):
                    members.append(name)
                elif name not in out.lacking:
                    out.lacking.append(name)
            out.read_as[text] = members
            out.texts += members
        elif _is_family(text) and (compat or not registry.known(text)):
            # A base that is also an ir_measures name (P) needs a cut-off there: trec_eval's
            # meaning only when asked for.
            out.read_as[text] = _members(text, lists)
            out.texts += out.read_as[text]
        elif "." in text and _is_family(base):
            members = _members(base, {base: _items(text)})
            if len(members) == 1:
                out.texts.append(text)  # `P.10`: an alias of one measure, said as before
            else:
                out.read_as[text] = members
                out.texts += members
        else:
            out.texts.append(text)  # a single measure: the registry parses it
    return out


def expand_measures(forms: str | Iterable[str], *, trec_eval_compat: bool = False) -> list[str]:
    """The measures a ``-m`` form (a string: ``"P.5,10"``) or list of forms (as ``-m`` given
    several times) stands for, as the canonical names ``evaluate`` and ``mean_scores`` take
    (``["P@5", "P@10"]``), in order, each once. ``runid`` is the run's tag, not a measure: it
    is never in the list. The measures of a group (``all_trec``) goldset lacks are left out
    with a ``UserWarning`` naming them, never silently; an unknown name raises ``InputError``.
    ``trec_eval_compat``: a name trec_eval shares with ir_measures (``P``) takes trec_eval's
    meaning, as ``goldset eval --trec-eval-compat`` does."""
    given = [forms] if isinstance(forms, str) else list(forms)
    found = expand(given, compat=trec_eval_compat)
    if found.lacking:
        warnings.warn(
            f"{len(found.lacking)} of trec_eval's measures are not in goldset and are left out: "
            + ", ".join(found.lacking),
            stacklevel=2,
        )
    return [str(m) for m in parse_measures(found.texts)]


def one_measure(text: str, *, option: str) -> str:
    """The canonical name of the one measure ``text`` names, for an option that takes exactly
    one (the report is about one number). A form standing for one measure (``ndcg_cut.10``) is
    that measure; one standing for several, or for the run's tag, is refused in one line naming
    the form and what it stands for (never a traceback, never silently the first)."""
    found = expand([text], compat=False)
    names = [str(m) for m in parse_measures(found.texts)]
    if len(names) == 1 and not found.runid and not found.lacking:
        return names[0]
    parts = [_listed(names)] if names else []
    if found.runid:
        parts.append("the run's tag (runid, a line of text, not a measure)")
    if found.lacking:
        parts.append(f"{len(found.lacking)} measures goldset lacks")
    example = f", e.g. {names[0]}" if names and text.strip() not in GROUPS else ""
    takes = f"; {option} takes one measure{example}"
    raise InputError(None, f"{option} {text.strip()!r} stands for {' and '.join(parts)}{takes}")


def _listed(names: list[str]) -> str:
    """``names`` for a one-line message: all of them up to 12, else the first 10 and a count."""
    shown = names if len(names) <= 12 else [*names[:10], f"... {len(names) - 10} more"]
    return f"{len(names)} measure{'s' * (len(names) != 1)} ({', '.join(shown)})"


def _family(base: str) -> TrecName | None:
    """trec_eval's name ``base`` when it stands for several measures alone (its defaults: the
    registry's, from measures.c and each m_*.c's default array), else None."""
    for entry in registry.entries():
        for name in entry.trec_eval:
            if name.base == base and name.defaults:
                return name
    return None


def _is_family(name: str) -> bool:
    return _family(name) is not None


def _is_level(base: str) -> bool:
    """Its parameters are recall levels (iprec_at_recall), not cut-offs."""
    family = _family(base)
    return family is not None and family.form == "recall"


def _known(name: str) -> bool:
    resolved = aliases.resolve(name)
    return resolved is not None and resolved[1] == "trec_eval"


def _members(base: str, lists: dict[str, list[str]]) -> list[str]:
    """``base``'s measures under trec_eval's names (``P_5``): the parameter lists given for it,
    else its defaults."""
    family = _family(base)
    assert family is not None  # only called for a family
    params = lists.get(base) or list(family.defaults)
    if family.form == "recall":
        return [f"{base}_{float(p):.2f}" for p in params]
    return [f"{base}_{p}" for p in params]


def _parameter_lists(given: list[str]) -> dict[str, list[str]]:
    """Base -> its parameters, from every ``base.p1,p2`` form: checked, joined, sorted."""
    found: dict[str, list[str]] = {}
    for raw in given:
        text = raw.strip()
        base, dot, _ = text.partition(".")
        if dot and _is_family(base):
            found.setdefault(base, []).extend(_items(text))
    # Sorted (meas_init.c sorts them), each once across the lists joined.
    return {base: sorted(set(params), key=float) for base, params in found.items()}


def _items(text: str) -> list[str]:
    """The checked parameters of one ``base.p1,p2`` form, sorted."""
    base, _, rest = text.partition(".")
    items = [item.strip() for item in rest.split(",")]
    check = _level if _is_level(base) else _cut
    values = [check(text, item) for item in items]
    if len(set(values)) != len(values):
        raise _bad(text, "the same parameter twice in the list")
    return [str(v) for v in sorted(values)]


def _cut(text: str, item: str) -> int:
    if not item.isdigit() or int(item) < 1:
        raise _bad(text, f"cut-off {item!r} is not a positive integer")
    return int(item)


def _level(text: str, item: str) -> float:
    try:
        level = float(item)
    except ValueError:
        level = -1.0
    if not 0.0 <= level <= 1.0:
        raise _bad(text, f"recall level {item!r} is not a number in [0, 1]")
    return level


def _bad(text: str, why: str) -> InputError:
    base = text.partition(".")[0]
    example = f"{base}.0.1,0.5" if _is_level(base) else f"{base}.5,10"
    return InputError(None, f"measure {text!r}: {why} (a list is written {example})")
