"""Near-duplicate grouping: exact after normalisation, near by shingle Jaccard >= 0.9."""

from __future__ import annotations

import random

from goldset_tui.pooling import neardup

BASE = " ".join(f"word{i}" for i in range(200))


def _jaccard_reference(a: str, b: str, k: int = 5) -> float:
    # Independent: plain tuples of words, no hashing, no sampling.
    def sh(t: str) -> set[tuple[str, ...]]:
        w = "".join(c.lower() if c.isalnum() else " " for c in t).split()
        return {tuple(w[i : i + k]) for i in range(len(w) - k + 1)}

    x, y = sh(a), sh(b)
    return len(x & y) / len(x | y)


def test_exact_after_normalising_case_space_and_punctuation() -> None:
    texts = ["Rotate the API key.", "rotate  the api-key", "Something else", None, ""]
    labels = neardup.groups(texts)
    assert labels[0] == labels[1] == 0
    assert labels[2] == 2
    assert labels[3] == labels[4] == 3  # two empty texts are the same (empty) text


def test_one_word_changed_in_two_hundred_is_a_near_duplicate() -> None:
    words = BASE.split()
    words[100] = "changed"
    near = " ".join(words)
    assert _jaccard_reference(BASE, near) >= 0.9  # 5 shingles of 196 changed: J ~ 0.95
    assert neardup.groups([BASE, near]) == [0, 0]


def test_below_threshold_is_not_grouped() -> None:
    words = BASE.split()
    for i in range(0, 200, 20):  # ten edits spread out: J well below 0.9
        words[i] = f"edit{i}"
    far = " ".join(words)
    assert _jaccard_reference(BASE, far) < 0.9
    assert neardup.groups([BASE, far]) == [0, 1]


def test_grouping_agrees_with_reference_jaccard_on_random_edits() -> None:
    rng = random.Random(7)
    words = BASE.split()
    for _ in range(40):
        edited = list(words)
        for _ in range(rng.randint(0, 6)):
            edited[rng.randrange(200)] = f"x{rng.randrange(10**6)}"
        other = " ".join(edited)
        expected_same = _jaccard_reference(BASE, other) >= neardup.THRESHOLD
        assert (neardup.groups([BASE, other]) == [0, 0]) == expected_same


def test_groups_are_transitive() -> None:
    words = BASE.split()
    b = list(words)
    b[50] = "x"
    c = list(b)
    c[150] = "y"
    assert neardup.groups([BASE, " ".join(b), " ".join(c), "unrelated text here"]) == [0, 0, 0, 3]


def test_megabyte_document_is_sampled_and_still_matches_itself() -> None:
    # A long text keeps one shingle in SAMPLE_MOD, which bounds the self-join's work; the seconds
    # are measured in bench/big_documents.py, never asserted here.
    big = " ".join(f"w{i % 5000} v{i}" for i in range(100_000))  # ~1.2 MB
    words = len(big.split())
    kept = neardup.shingles(neardup.normalise([big])[0])
    assert words > neardup.SAMPLE_ABOVE_WORDS
    assert 0 < len(kept) < 2 * words / neardup.SAMPLE_MOD
    assert neardup.groups([big, big + " tail", "short text"]) == [0, 0, 2]


def test_between_is_called_once_a_distinct_text_and_changes_nothing() -> None:
    """The worker that loads the next query ahead hands the interpreter over between two texts'
    shingles (judging/duplicates.py); the groups are the same with or without it."""
    texts = [
        "rotate the api key then revoke the old one",
        "rotate the api key then revoke the old one!",  # equal once normalised
        "rotate the api key then revoke the old one today",
        "something else entirely about billing and invoices",
        None,
    ]
    calls: list[int] = []
    with_calls = neardup.groups(texts, between=lambda: calls.append(1))
    assert with_calls == neardup.groups(texts)
    assert len(calls) == len(set(neardup.normalise(texts)))  # once per distinct normalised text


def _sampled_jaccard(a: str, b: str) -> float:
    x, y = (neardup.shingles(t) for t in neardup.normalise([a, b]))
    return len(x & y) / len(x | y)


def test_a_long_texts_sample_estimates_the_jaccard_of_all_its_shingles() -> None:
    """Above SAMPLE_ABOVE_WORDS words a text keeps one shingle in SAMPLE_MOD (hashed in Polars):
    the Jaccard of two samples stays close to that of every shingle (the reference, with no
    hashing), and the grouping follows the reference wherever it is clear of the threshold."""
    rng = random.Random(11)
    words = [f"w{rng.randrange(3000)}" for _ in range(neardup.SAMPLE_ABOVE_WORDS + 1500)]
    base = " ".join(words)
    for edits in (0, 5, 20, 60, 150, 400, 1500):
        edited = list(words)
        for _ in range(edits):
            edited[rng.randrange(len(edited))] = f"x{rng.randrange(10**6)}"
        other = " ".join(edited)
        exact = _jaccard_reference(base, other)
        assert abs(_sampled_jaccard(base, other) - exact) < 0.06, (edits, exact)
        if abs(exact - neardup.THRESHOLD) > 0.06:
            assert (neardup.groups([base, other]) == [0, 0]) == (exact >= neardup.THRESHOLD)


def test_copies_either_side_of_the_sampling_limit_are_still_grouped() -> None:
    """A text just over SAMPLE_ABOVE_WORDS words was sampled and its copy just under it was not:
    a sixteenth of one's shingles against all of the other's, a Jaccard near 1/16, so the two
    were never grouped. Within a query every text near the limit is now sampled alike."""
    rng = random.Random(5)
    words = [f"w{rng.randrange(10**6)}" for _ in range(neardup.SAMPLE_ABOVE_WORDS + 1)]
    longer, shorter = " ".join(words), " ".join(words[:-2])
    assert len(longer.split()) > neardup.SAMPLE_ABOVE_WORDS >= len(shorter.split())
    assert _jaccard_reference(longer, shorter) > 0.99
    assert neardup.groups([longer, shorter, "a short unrelated text"]) == [0, 0, 2]
    # A short text beside a long one keeps every shingle: its near copy is still found exactly.
    note = "rotate the api key then revoke the old one and tell the team about it"
    assert neardup.groups([longer, note, note + " today"]) == [0, 1, 1]
