"""Data in Markdown renders literally: checked by rendering with a CommonMark parser (markdown-it-py,
which Rich brings) and reading back the text of the table cell or list item, and by rendering the
real report and agreement Markdown with hostile names in them."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from goldset_tui.markdown_text import md_literal
from goldset_tui.text import visible

# GitHub's flavour as far as markdown-it-py's core has it: CommonMark plus tables and strikethrough.
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
HOSTILE = [
    "*bold*",
    "_under_",
    "__init__",
    "<b>x</b>",
    "`code`",
    "[a](http://x)",
    "![i](y.png)",
    "&amp; &copy;",
    "a|b",
    "~~gone~~",
    "# heading",
    "- item",
    "+ item",
    "1. first",
    "1.",
    "2) second",
    "## two",
    "###",
    "- - -",
    "+",
    "> quote",
    "---",
    "===",
    "\\*",
    "back\\",
    "<http://auto.link>",
    "x  ",
    "exact_identifier",
]


def _leaf_text(tokens) -> str:
    """The text a reader sees: every text/code_inline leaf, entities decoded, nothing else."""
    out = []
    for tok in tokens:
        if tok.type == "inline":
            out.append(_leaf_text(tok.children))
        elif tok.type in ("text", "code_inline"):
            out.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif tok.type in ("html_inline", "html_block", "image", "link_open", "code_block", "fence"):
            out.append(f"<<{tok.type}>>")  # any of these means the data was interpreted
    return "".join(out)


def _markup_tokens(tokens) -> set[str]:
    kinds = set()
    for tok in tokens:
        kinds.add(tok.type)
        if tok.children:
            kinds |= _markup_tokens(tok.children)
    return kinds - {"text", "inline", "paragraph_open", "paragraph_close", "softbreak"}


def _emphasised(tokens) -> list[str]:
    out, depth = [], 0
    for tok in tokens:
        if tok.children:
            out += _emphasised(tok.children)
        elif tok.type in ("em_open", "strong_open"):
            depth += 1
            out.append("")
        elif tok.type in ("em_close", "strong_close"):
            depth -= 1
        elif depth and tok.type == "text":
            out[-1] += tok.content
    return out


def _cell(value: str) -> tuple[str, set[str]]:
    doc = f"| h | v |\n|---|---|\n| x | {md_literal(value)} |\n"
    tokens = MD.parse(doc)
    cells = [i for i, t in enumerate(tokens) if t.type == "td_open"]
    inline = tokens[cells[1] + 1]
    assert inline.type == "inline"
    return _leaf_text([inline]), _markup_tokens([inline])


def _item(value: str) -> tuple[str, set[str]]:
    tokens = MD.parse(f"- {md_literal(value)}\n")
    kinds = {t.type for t in tokens}
    inner = [t for t in tokens if t.type == "inline"]
    return _leaf_text(inner), _markup_tokens(inner) | (
        kinds
        - {"bullet_list_open", "bullet_list_close", "list_item_open", "list_item_close"}
        - {"paragraph_open", "paragraph_close", "inline"}
    )


def _expected(value: str) -> str:
    return visible(value, keep_newlines=False).strip()


def test_hostile_values_render_as_their_own_text_in_a_cell_and_in_a_list_item() -> None:
    for value in HOSTILE:
        for where in (_cell, _item):
            text, markup = where(value)
            assert (text, markup) == (_expected(value), set()), (value, where.__name__)


def test_snake_case_stays_readable_in_the_raw_markdown() -> None:
    # Intraword underscores are never emphasis in CommonMark: no backslashes to clutter a terminal.
    assert md_literal("exact_identifier") == "exact_identifier"
    assert md_literal("_x_") == "\\_x\\_"


def test_the_old_pipe_only_escaping_let_markup_through() -> None:
    # What the report used before: pipes escaped, nothing else. The parser shows emphasis and HTML.
    old = visible("*x* <b>", keep_newlines=False).replace("|", "\\|")
    kinds = _markup_tokens(MD.parse(f"| h |\n|---|\n| {old} |\n"))
    assert {"em_open", "html_inline"} <= kinds


# Printable text with every ASCII punctuation mark over-represented, plus some controls/unicode.
VALUES = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("\\`*_[]<>&|~!#+-=.()1{}:/ \"'")),
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
    ),
    max_size=30,
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(VALUES)
def test_any_value_renders_literally(value: str) -> None:
    expected = " ".join(_expected(value).split())
    for where in (_cell, _item):
        text, markup = where(value)
        # Whitespace inside a value may be normalised by the renderer (a tab, an nbsp); the
        # characters themselves must all come back, and no markup may appear.
        assert " ".join(text.split()) == expected, (value, where.__name__)
        assert markup == set(), (value, where.__name__)


def test_report_markdown_shows_hostile_names_literally() -> None:
    from goldset_tui.report.pipeline import assemble_report, to_markdown

    names = ["*bm25*", "<b>dense</b>"]
    stratum = "_neg_ [x](y)"
    scores = pl.DataFrame(
        {
            "system": [names[0]] * 4 + [names[1]] * 4,
            "query_id": ["q1", "q2", "q3", "q4"] * 2,
            "value": [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0],
        }
    )
    strata = pl.DataFrame({"query_id": ["q1", "q2", "q3", "q4"], "stratum": [stratum] * 4})
    md = to_markdown(assemble_report(scores, strata, metric="Success@3", samples=50))
    tokens = MD.parse(md)
    assert not {"html_inline", "html_block", "link_open", "image"} & _markup_tokens(tokens)
    # The report's own emphasis (*Unweighted*, **all**) is fine; no data may end up emphasised.
    assert not any(x in e for e in _emphasised(tokens) for x in ("bm25", "dense", "neg"))
    shown = _leaf_text(tokens)
    for value in [*names, stratum]:
        assert value in shown


def test_agreement_markdown_shows_hostile_labellers_literally() -> None:
    from goldset_tui.agreement.markdown import solo_markdown

    report = {"labellers": ["**ana**"], "units": 3, "scale": [0, 3]}
    tokens = MD.parse(solo_markdown(report))
    assert "strong_open" not in _markup_tokens(tokens)
    assert "**ana**" in _leaf_text(tokens)


def test_history_markdown_shows_hostile_names_literally() -> None:
    # The history report (goldset history --format md) escaped pipes only before.
    from goldset_tui.history.format import to_markdown
    from goldset_tui.history.timeline import History

    history = History(
        metric="Success@10",
        releases=[
            {
                "system": "*bm25*",
                "release": "<b>2026.1</b>",
                "version": 1,
                "n": 3,
                "mean": 0.5,
                "ci95": [0.1, 0.9],
            }
        ],
        changes=[],
        recurring=[],
    )
    tokens = MD.parse(to_markdown(history, recurring=(3, 5)))
    assert not {"html_inline", "html_block", "em_open", "strong_open"} & _markup_tokens(tokens)
    shown = _leaf_text(tokens)
    assert "*bm25*" in shown and "<b>2026.1</b>" in shown


def test_text_that_only_looks_like_a_block_marker_is_written_as_it_is() -> None:
    # "2026.1" was written 2026\.1 (a release name in `history --format md`), "#5" as \#5:
    # CommonMark reads a list marker or a heading only with a space or the end after it.
    for plain in ("2026.1", "#5", "-x", "+1", "3)x", "=x"):
        assert md_literal(plain) == plain
        tokens = MD.parse(md_literal(plain))
        assert _leaf_text(tokens) == plain and not _markup_tokens(tokens)
