"""Every reference a newcomer meets can be followed.

A comment that says "(issue 12, item 10)" or "seed 004's strata" points at a tracker or a text that
is not in the repository: the reader cannot open it, so the reasoning is lost. The code says the
reasoning itself, or cites a page of docs/, and the reasoning shared by many places lives in
docs/background.md under stable anchors. This test fails on a citation of a tracker number or of a
numbered domain text, and on a ``background.md#anchor`` that the page does not have.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BACKGROUND = ROOT / "docs" / "background.md"

# What is scanned: the code, the tests, the benches, the docs and the sample data's notes.
SCANNED_DIRS = ("goldset_tui", "tests", "bench", "docs", "sample_data", ".ci")
SCANNED_FILES = ("README.md",)
TEXT_SUFFIXES = {".py", ".md", ".tcss", ".txt", ".toml", ".sh", ".cfg", ".ini"}
SKIPPED_PARTS = {"__pycache__", ".venv", "node_modules", "__snapshots__"}

# "issue 12", "issues 5 and 10", "Issue #4": a tracker number.
ISSUE = re.compile(r"\bissues?\s+#?\d+|\bissue\s*#\d+", re.IGNORECASE)
# "seed 000", "Seeds 000 and 004", "seed 001's": a numbered domain text. Three digits exactly, so
# an RNG seed written as a number ("seed 0", "seed 20240301", "seed 4021") is not one, nor is an
# option or a key ("--seed 123", "seed = 123").
SEED = re.compile(r"(?<![-\w])seeds?\s+\d{3}(?!\d)", re.IGNORECASE)
# "the seeds' arithmetic" and a path into the folder those texts were kept in.
SEEDS_PLURAL = re.compile(r"\bthe\s+seeds'", re.IGNORECASE)
SEEDS_PATH = re.compile(r"shared/seeds\b")
# The same citation folded into a name: ``test_seed_004_negation``, ``SEED_000_TARGETS``,
# ``seed000``. A name says what the data is (``TWO_RETRIEVERS``, ``test_sampled_log_...``).
# Three digits from 0 and no gap but an underscore, so ``seed=0``, ``rng_seed=3`` and
# ``seed_stratified_sample`` are not caught.
SEED_NAME = re.compile(r"(?<![A-Za-z0-9])seed_?0\d{2}(?!\d)", re.IGNORECASE)
FORBIDDEN = (ISSUE, SEED, SEEDS_PLURAL, SEEDS_PATH, SEED_NAME)

ANCHOR_REF = re.compile(r"background\.md#([A-Za-z0-9_-]+)")
LOCAL_ANCHOR_REF = re.compile(r"\]\(#([A-Za-z0-9_-]+)\)")


def scanned_files() -> list[Path]:
    files = [ROOT / name for name in SCANNED_FILES]
    for folder in SCANNED_DIRS:
        base = ROOT / folder
        if base.is_file():
            files.append(base)
            continue
        for path in sorted(base.rglob("*")):
            if SKIPPED_PARTS & set(path.parts) or not path.is_file():
                continue
            if path.suffix in TEXT_SUFFIXES or path.name == "run":
                files.append(path)
    return [f for f in files if f.is_file()]


def citations(text: str) -> list[tuple[int, str]]:
    """(line number, matched text) of every forbidden citation in ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern in FORBIDDEN:
            found += [(number, m.group(0)) for m in pattern.finditer(line)]
    return found


def slug(heading: str) -> str:
    """The anchor GitHub (and most Markdown renderers) give a heading."""
    text = re.sub(r"[`*_\[\]()]", "", heading.strip().lower())
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"\s", "-", text)


def background_anchors() -> set[str]:
    lines = BACKGROUND.read_text(encoding="utf-8").splitlines()
    return {slug(line.lstrip("#")) for line in lines if re.match(r"#{1,6}\s", line)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# why (issue 12, item 10): the fsync", ["issue 12"]),
        ('"""Weighted headlines (issues 5 and 10)."""', ["issues 5"]),
        ("See Issue #4.", ["Issue #4"]),
        ("# seed 000: weights = min(count, 50)", ["seed 000"]),
        ("Seeds 000 and 004 check every table", ["Seeds 000"]),
        ("as seed 004's negation row shows", ["seed 004"]),
        ("the seeds' arithmetic", ["the seeds'"]),
        ("read /work/shared/seeds/000.txt", ["shared/seeds"]),
        ("def test_seed_004_negation_row() -> None:", ["seed_004"]),
        ("from .data import SEED_000_TARGETS, seed_004_frames", ["SEED_000", "seed_004"]),
        ("def seed000_answers():", ["seed000"]),
        # Innocent text: RNG seeds, options, keys, a tracker word without a number.
        ("the same seed gives the same split", []),
        ("goldset sample labels.csv --seed 20240301 --total 160", []),
        ("--seed 123 is remembered", []),
        ('m.write_text("seed = 123")', []),
        ("seed 0 remembered; seeded (seed 4021)", []),
        ("rng_seed=3, seed=0, seed_stratified_sample, seed_like_labels()", []),
        ("sample(seed=4021); --seed 004; SEED = 2017; seed_1234 = 5", []),
        ("an issue with the journal", []),
    ],
)
def test_the_patterns_catch_citations_and_leave_innocent_text(
    text: str, expected: list[str]
) -> None:
    assert [m for _, m in citations(text)] == expected


def test_no_file_cites_a_tracker_number_or_a_numbered_domain_text() -> None:
    found = {}
    for path in scanned_files():
        if path == Path(__file__).resolve():
            continue  # this file spells the forbidden forms out as test data
        hits = citations(path.read_text(encoding="utf-8", errors="replace"))
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}, (
        "say the reasoning itself, or cite docs/background.md#anchor or another docs page, "
        "instead of these (an RNG seed reads as '--seed N' or 'seed=N'):\n"
        + "\n".join(f"{p}:{n}: {m}" for p, hits in found.items() for n, m in hits)
    )


def test_every_cited_background_anchor_exists() -> None:
    anchors = background_anchors()
    missing = {}
    for path in scanned_files():
        if path == Path(__file__).resolve():
            continue  # "background.md#anchor" above is a placeholder
        text = path.read_text(encoding="utf-8", errors="replace")
        refs = set(ANCHOR_REF.findall(text))
        if path == BACKGROUND:
            refs |= set(LOCAL_ANCHOR_REF.findall(text))
        if refs - anchors:
            missing[str(path.relative_to(ROOT))] = sorted(refs - anchors)
    assert missing == {}, f"no such section in docs/background.md: {missing}"


def test_background_is_cited() -> None:
    # The page exists to be pointed at: if nothing cites it, the reasoning went back into
    # comments or was lost. (A guard for the anchor test above, which passes on zero citations.)
    cited = sum(
        len(ANCHOR_REF.findall(p.read_text(encoding="utf-8", errors="replace")))
        for p in scanned_files()
    )
    assert cited >= 20
    assert {"pooling-depth", "unjudged-fraction", "table-closure"} <= background_anchors()


def test_slug_follows_the_renderers() -> None:
    assert slug("Pooling depth") == "pooling-depth"
    assert slug("Two retrievers on 300 queries") == "two-retrievers-on-300-queries"
    assert slug("What a golden set cannot tell") == "what-a-golden-set-cannot-tell"
    assert slug("`goldset merge` (the rest)") == "goldset-merge-the-rest"
