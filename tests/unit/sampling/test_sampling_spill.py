"""A plain-text log larger than memory is labelled through spill files: the same labels, order,
counts and bytes as the in-memory path, each part labelled alone, and the spill folder gone
afterwards, also after an error or Ctrl-C. The limits are made tiny here so a small log spills."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.cli import main
from goldset_tui.sampling import classify, spill
from goldset_tui.sampling.classify import classify_log, classify_to_file
from goldset_tui.sampling.normalise import pick_spellings

VOCAB = frozenset({"api", "key", "rotate", "how", "do", "i", "an", "sso", "login"})


@pytest.fixture
def tiny_spill(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spill, "SPILL_ABOVE", 0)
    monkeypatch.setattr(spill, "CHUNK_BYTES", 64)
    monkeypatch.setattr(spill, "PART_BYTES", 200)
    monkeypatch.setattr(spill, "SAMPLE_BYTES", 256)
    monkeypatch.setattr(spill, "HOLD_ROWS", 5)
    monkeypatch.setattr(spill, "BATCH_ROWS", 3)  # a slice may start and end inside a batch


def log_text(n: int) -> str:
    """Repeats, case and whitespace variants of one query, ties between spellings, blanks,
    identifiers, negations, misspellings, entities and non-ASCII text."""
    lines = []
    for i in range(n):
        lines += [
            f"How do I rotate an API key {i % 7}",
            f"  how do i   rotate an api key {i % 7} ",
            f"HOW\u00a0DO I ROTATE AN API KEY {i % 7}",
            f"ERR_{4000 + i % 13} on webhook delivery",
            f"sso login without saml {i}",
            f"paginaton parameters {i % 5}",
            f"Sync Stripe and Salesforce contacts {i % 3}",
            "",
            "   ",
            f"Ünïcödé ΣΑΣ straße {i % 4}",
            f"tie {i % 2}" if i % 2 else f"Tie {i % 2}",
        ]
    return "\n".join(lines) + "\n"


def test_spill_path_writes_the_in_memory_labels(tmp_path: Path, tiny_spill: None) -> None:
    log = tmp_path / "log.txt"
    log.write_bytes(b"\xef\xbb\xbf" + log_text(60).encode())
    assert spill.spills(log) and spill.part_count(log.stat().st_size) > 10
    want = classify_log(log, VOCAB)
    for suffix in (".csv", ".tsv", ".parquet"):
        out = tmp_path / f"labels{suffix}"
        done = classify_to_file(log, out, VOCAB)
        expected = tmp_path / f"expected{suffix}"
        classify.write_frame(want.labels, expected)
        if suffix == ".parquet":
            assert pl.read_parquet(out).equals(want.labels)
        else:
            assert out.read_bytes() == expected.read_bytes()
        assert done.distinct == want.labels.height
        assert (done.occurrences, done.blank) == (want.occurrences, want.blank)
        assert done.strata.equals(classify.stratum_table(want.labels))


def test_parts_stop_multiplying_past_the_cap_and_the_labels_stay(
    tmp_path: Path, tiny_spill: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Files = chunks x parts: parts of a fixed size made that grow with the square of the log.
    log = tmp_path / "log.txt"
    log.write_bytes(log_text(60).encode())
    size = log.stat().st_size
    assert spill.part_count(size) > 4
    monkeypatch.setattr(spill, "MAX_PARTS", 4)
    assert spill.part_count(size) == 4 and spill.part_count(10 * size) == 4
    out = tmp_path / "labels.csv"
    classify_to_file(log, out, VOCAB)
    expected = tmp_path / "expected.csv"
    classify.write_frame(classify_log(log, VOCAB).labels, expected)
    assert out.read_bytes() == expected.read_bytes()


def test_each_part_is_labelled_alone(
    tmp_path: Path, tiny_spill: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Memory follows one part: the rules never see the whole log's distinct queries at once.
    log = tmp_path / "log.txt"
    log.write_text(log_text(80), encoding="utf-8")
    seen: list[int] = []
    label = classify.label

    def counting(distinct: pl.DataFrame, *args: object) -> pl.DataFrame:
        seen.append(distinct.height)
        return label(distinct, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(classify, "label", counting)
    done = classify_to_file(log, tmp_path / "labels.csv", VOCAB)
    assert sum(seen) == done.distinct
    assert len(seen) > 10 and max(seen) < done.distinct / 3


LINE = st.text(
    st.characters(codec="utf-8", exclude_characters="\n\r", exclude_categories=("Cs",)),
    max_size=10,
)


@settings(max_examples=30, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=60), st.booleans(), st.booleans(), st.integers(0, 50))
def test_any_text_log_spills_to_the_same_labels(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], crlf: bool, vocab: bool, hold: int
) -> None:
    folder = tmp_path_factory.mktemp("log")
    log = folder / "log.txt"
    log.write_bytes((("\r\n" if crlf else "\n").join(lines) + "\n").encode())
    words = VOCAB if vocab else None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spill, "SPILL_ABOVE", 0)
        patch.setattr(spill, "CHUNK_BYTES", 16)
        patch.setattr(spill, "PART_BYTES", 40)
        patch.setattr(spill, "SAMPLE_BYTES", 32)
        patch.setattr(spill, "SAMPLE_WINDOWS", 8)
        patch.setattr(spill, "HOLD_ROWS", hold)
        patch.setattr(spill, "BATCH_ROWS", 2)
        try:
            want = classify_log(log, words)
        except Exception as exc:  # every line blank: both paths refuse the same way
            with pytest.raises(type(exc), match="no queries"):
                classify_to_file(log, folder / "labels.csv", words)
            return
        classify_to_file(log, folder / "labels.csv", words)
    classify.write_frame(want.labels, folder / "expected.csv")
    assert (folder / "labels.csv").read_bytes() == (folder / "expected.csv").read_bytes()


@pytest.mark.parametrize("stop", [RuntimeError("disk on fire"), KeyboardInterrupt()])
def test_the_spill_folder_is_removed_on_error(
    tmp_path: Path, tiny_spill: None, monkeypatch: pytest.MonkeyPatch, stop: BaseException
) -> None:
    log = tmp_path / "log.txt"
    log.write_text(log_text(20), encoding="utf-8")
    spills = tmp_path / "spills"
    spills.mkdir()
    made: list[Path] = []
    original = spill.partition

    def watched(path: Path, folder: Path, cuts: pl.Series) -> tuple[int, int]:
        made.append(folder)
        return original(path, folder, cuts)

    def failing(distinct: pl.DataFrame) -> pl.DataFrame:
        assert any(made[0].iterdir())  # the spill files were there
        raise stop

    monkeypatch.setattr(spill, "partition", watched)
    with pytest.raises(type(stop)):
        spill.classify_spilled(log, tmp_path / "o.csv", classify.stream_frame, failing, spills)
    assert made and not made[0].exists() and list(spills.iterdir()) == []
    assert not (tmp_path / "o.csv").exists()


def test_the_command_prints_and_writes_what_it_did_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.txt"
    log.write_text(log_text(30), encoding="utf-8")
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(sorted(VOCAB)) + "\n", encoding="utf-8")
    outputs = {}
    for name, above in (("memory", 1 << 40), ("spilled", 0)):
        monkeypatch.setattr(spill, "SPILL_ABOVE", above)
        monkeypatch.setattr(spill, "CHUNK_BYTES", 128)
        monkeypatch.setattr(spill, "PART_BYTES", 300)
        out = tmp_path / f"{name}.csv"
        assert main(["classify", str(log), "-o", str(out), "--vocab", str(vocab)]) == 0
        printed = capsys.readouterr()
        manifest = (tmp_path / f"{name}.manifest.toml").read_text().replace(name, "LABELS")
        outputs[name] = (out.read_bytes(), printed.out.replace(name, "LABELS"), printed.err)
        outputs[name] += (manifest,)
    assert outputs["spilled"] == outputs["memory"]
    assert "note: skipped" in outputs["memory"][2]


def python_pick(rows: list[tuple[str, int]]) -> dict[str, tuple[int, str]]:
    """Each query's total and its most frequent spelling, ties to the smallest: plain Python."""
    per: dict[str, dict[str, int]] = {}
    for spelling, count in rows:
        forms = per.setdefault(spelling.lower(), {})
        forms[spelling] = forms.get(spelling, 0) + count
    return {
        query: (sum(forms.values()), min(forms, key=lambda s: (-forms[s], s.encode())))
        for query, forms in per.items()
    }


SPELLING = st.sampled_from(["Tie me", "tie Me", "TIE ME", "tie me", "ΟΔΟΣ", "οδος", "Σ", "σ", "a"])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(SPELLING, st.integers(1, 3)), min_size=1, max_size=30))
def test_the_most_frequent_spelling_is_picked_ties_to_the_smallest(
    rows: list[tuple[str, int]],
) -> None:
    frame = pl.DataFrame(rows, schema={"spelling": pl.String, "count": pl.Int64}, orient="row")
    got = {q: (c, s) for q, c, s in pick_spellings(frame).iter_rows()}
    assert got == python_pick(rows)


def test_a_users_rules_run_once_per_distinct_query(tmp_path: Path, tiny_spill: None) -> None:
    log = tmp_path / "log.txt"
    log.write_text(log_text(40), encoding="utf-8")
    calls: list[str] = []

    def shape(spelling: str, vocab: frozenset[str] | None) -> str:
        calls.append(spelling)
        return "long" if len(spelling.split()) > 3 else "short"

    out = tmp_path / "labels.csv"
    done = classify_to_file(log, out, VOCAB, shape)
    labels = pl.read_csv(out)
    assert sorted(calls) == sorted(labels.get_column("spelling").to_list())
    assert len(calls) == done.distinct
    want = classify_log(log, VOCAB, shape).labels
    assert labels.equals(pl.read_csv(want.write_csv().encode()))


def test_bad_bytes_and_lone_carriage_returns_are_named_as_in_memory(
    tmp_path: Path, tiny_spill: None
) -> None:
    from goldset_tui.errors import InputError

    log = tmp_path / "log.txt"
    log.write_bytes(log_text(10).encode() + b"caf\xe9 latte\n" + log_text(3).encode())
    with pytest.raises(InputError, match="not UTF-8") as info:
        classify_to_file(log, tmp_path / "labels.csv", VOCAB)
    assert info.value.line == 111
    log.write_bytes(b"api key\r" * 200)
    with pytest.raises(InputError, match=r"\\r alone"):
        classify_to_file(log, tmp_path / "labels.csv", VOCAB)
    assert not (tmp_path / "labels.csv").exists()


@pytest.mark.parametrize("hold", [2, 1_000])
def test_repeated_lines_are_summed_before_spilling(
    tmp_path: Path, tiny_spill: None, monkeypatch: pytest.MonkeyPatch, hold: int
) -> None:
    monkeypatch.setattr(spill, "CHUNK_BYTES", 300)
    monkeypatch.setattr(spill, "HOLD_ROWS", hold)
    log = tmp_path / "log.txt"
    head = ["API key", "api  key", "sso login", "Sync Stripe and Salesforce now", "not this"]
    log.write_text("\n".join(head * 150 + [f"tail {i}" for i in range(40)]) + "\n")
    want = classify_log(log, VOCAB)
    classify_to_file(log, tmp_path / "labels.csv", VOCAB)
    classify.write_frame(want.labels, tmp_path / "expected.csv")
    assert (tmp_path / "labels.csv").read_bytes() == (tmp_path / "expected.csv").read_bytes()


def test_chunks_end_at_newlines_and_drop_the_bom(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_bytes(b"\xef\xbb\xbfab\n" + b"x" * 50 + b"\ncd\r\nlast")
    pieces = list(spill.chunks(log, 8))
    assert b"".join(pieces) == b"ab\n" + b"x" * 50 + b"\ncd\r\nlast"
    assert all(p.endswith(b"\n") for p in pieces[:-1]) and pieces[-1] == b"last"
