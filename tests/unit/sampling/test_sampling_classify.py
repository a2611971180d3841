"""`goldset classify`: normalising, counting, the input formats, the vocabulary, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.sampling.classify import classify_log, read_vocab
from goldset_tui.sampling.labels import read_labels
from goldset_tui.sampling.normalise import WHITESPACE, collapse


def test_text_log_is_normalised_and_counted(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text(
        "How do I rotate an API key\n  how do i   rotate an api key \nHOW DO I ROTATE AN API KEY\n\n"
        "ERR_4021 on webhook delivery\nERR_4021 on webhook delivery\nerr_4021  on webhook delivery\n"
        "paginaton parameters\n",
        encoding="utf-8",
    )
    result = classify_log(log, frozenset({"pagination", "parameters"}))
    rows = {r["query"]: r for r in result.labels.iter_rows(named=True)}
    assert set(rows) == {
        "how do i rotate an api key",
        "err_4021 on webhook delivery",
        "paginaton parameters",
    }
    assert rows["how do i rotate an api key"]["count"] == 3
    # The most frequent original spelling is kept for the case-sensitive rules.
    assert rows["err_4021 on webhook delivery"]["spelling"] == "ERR_4021 on webhook delivery"
    assert rows["err_4021 on webhook delivery"]["stratum"] == "exact_identifier"
    assert rows["paginaton parameters"]["stratum"] == "misspelled"
    assert result.occurrences == 7 and result.blank == 1
    assert result.labels.columns[:3] == ["query", "count", "stratum"]


def test_unicode_whitespace_collapses(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("api\u00a0key\napi \t key\n", encoding="utf-8")
    labels = classify_log(log).labels
    assert labels.get_column("query").to_list() == ["api key"]
    assert labels.get_column("count").to_list() == [2]


SPACED = st.lists(
    st.one_of(
        st.sampled_from([" ", "  ", "\t", "\u00a0", "\u2028", "\u3000", "\x85", "\x1c", "\x1f"]),
        st.sampled_from(["a", "É", "_", "\u200b", "\u180e", "x y"]),
        st.characters(exclude_categories=("Cs",)),
    ),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(SPACED, min_size=1, max_size=20))
def test_whitespace_collapses_as_pythons_split_reads_it(texts: list[str]) -> None:
    # Every run of whitespace (Python's str.split() reading) is one space, the ends trimmed;
    # matching only the runs that change gives what replacing every run gives.
    plain = pl.col("t").str.replace_all(rf"{WHITESPACE}+", " ").str.strip_chars(" ")
    frame = pl.DataFrame({"t": texts}).select(collapse(pl.col("t")).alias("c"), plain.alias("p"))
    assert frame.get_column("c").to_list() == [" ".join(t.split()) for t in texts]
    assert frame.get_column("c").to_list() == frame.get_column("p").to_list()


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".parquet"])
def test_table_logs_with_counts(tmp_path: Path, suffix: str) -> None:
    df = pl.DataFrame(
        {"query": ["API key", "api  key", "which regions are not covered"], "count": [5, 2, 4]}
    )
    path = tmp_path / f"log{suffix}"
    if suffix == ".csv":
        df.write_csv(path)
    elif suffix == ".tsv":
        df.write_csv(path, separator="\t")
    elif suffix == ".jsonl":
        df.write_ndjson(path)
    else:
        df.write_parquet(path)
    labels = classify_log(path).labels
    assert dict(zip(labels["query"], labels["count"], strict=True)) == {
        "api key": 7,
        "which regions are not covered": 4,
    }


def test_bad_count_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_text("query,count\napi key,3\nsso,zero\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        classify_log(path)
    assert info.value.line == 3 and info.value.column == "count"
    path.write_text("query,count\napi key,0\n", encoding="utf-8")
    with pytest.raises(InputError, match="at least 1"):
        classify_log(path)


def test_blank_only_and_not_utf8_logs(tmp_path: Path) -> None:
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n", encoding="utf-8")
    with pytest.raises(InputError, match="no queries"):
        classify_log(blank)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\xfe\n")
    with pytest.raises(InputError) as info:
        classify_log(bad)
    assert info.value.line == 2


def test_vocabulary_from_word_list_and_corpus(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("Pagination\nparameters\n", encoding="utf-8")
    assert read_vocab(words) == {"pagination", "parameters"}
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        json.dumps({"doc_id": "d1", "text": "API-keys: rotation, pagination!"}) + "\n",
        encoding="utf-8",
    )
    assert read_vocab(corpus) == {"api", "keys", "rotation", "pagination"}
    nocol = tmp_path / "c.csv"
    nocol.write_text("doc_id\nd1\n", encoding="utf-8")
    with pytest.raises(InputError, match="'text' column"):
        read_vocab(nocol)


def test_cli_writes_labels_and_says_misspelling_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.txt"
    log.write_text("paginaton parameters\nwhich regions are not covered\n", encoding="utf-8")
    out = tmp_path / "labels.parquet"
    assert main(["classify", str(log), "-o", str(out)]) == 0
    assert "misspelled rule was skipped" in capsys.readouterr().err
    labels = read_labels(out)
    assert dict(zip(labels["query"], labels["stratum"], strict=True)) == {
        "paginaton parameters": "short_keyword",
        "which regions are not covered": "negation",
    }
    assert main(["classify", str(tmp_path / "missing.txt"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err


def test_blank_queries_are_reported_as_occurrences_not_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Audit: one empty query with count 4 was reported as "skipped 4 blank lines".
    log = tmp_path / "log.csv"
    log.write_text('query,count\napi key,2\n"  ",4\nsso,1\n', encoding="utf-8")
    assert main(["classify", str(log), "-o", str(tmp_path / "labels.csv")]) == 0
    err = capsys.readouterr().err
    assert "skipped 4 occurrences of blank or empty queries" in err and "lines" not in err


def test_output_into_a_missing_folder_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Audit: -o /nonexistent/dir/x.csv silently created the folders; cp, sort -o and tee refuse.
    log = tmp_path / "log.txt"
    log.write_text("api key\n", encoding="utf-8")
    out = tmp_path / "nope" / "dir" / "labels.csv"
    assert main(["classify", str(log), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("goldset: error:") and err.count("\n") == 1
    assert "cannot write here" in err and "does not exist" in err and "nope" in err
    assert not (tmp_path / "nope").exists()


def test_labels_with_a_repeated_query_are_rejected(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(
        "query,count,stratum\napi key,3,short_keyword\nsso,1,short_keyword\napi key,2,paraphrase\n"
    )
    with pytest.raises(InputError) as info:
        read_labels(path)
    assert info.value.line == 4 and "line 2" in str(info.value)


def test_whole_float_counts_are_accepted_and_fractions_are_not(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(
        '{"query": "api key", "count": 3.0}\n{"query": "sso", "count": 2}\n', encoding="utf-8"
    )
    assert dict(zip(*classify_log(path).labels.select("query", "count"), strict=True)) == {
        "api key": 3,
        "sso": 2,
    }
    path.write_text(
        '{"query": "api key", "count": 3.0}\n{"query": "sso", "count": 2.5}\n', encoding="utf-8"
    )
    with pytest.raises(InputError) as info:
        classify_log(path)
    assert info.value.line == 2


def test_classify_writes_a_manifest_of_its_inputs_rules_and_versions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import hashlib
    import platform
    import tomllib

    import goldset_tui
    from goldset_tui.sampling import rules as rules_module

    def sha(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    log = tmp_path / "log.txt"
    log.write_text("api key\nERR_4021 on webhook\napi key\n\n", encoding="utf-8")
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("api\nkey\non\nwebhook\n", encoding="utf-8")
    out = tmp_path / "labels.csv"
    assert main(["classify", str(log), "-o", str(out), "--vocab", str(vocab)]) == 0
    manifest = tomllib.loads((tmp_path / "labels.manifest.toml").read_text(encoding="utf-8"))
    assert manifest["kind"] == "classify"
    assert manifest["inputs"]["log"]["sha256"] == sha(log)
    assert manifest["inputs"]["vocab"]["sha256"] == sha(vocab)
    assert manifest["output"]["sha256"] == sha(out)
    assert manifest["rules"]["sha256"] == sha(Path(rules_module.__file__))
    assert manifest["versions"] == {
        "goldset": goldset_tui.__version__,
        "python": platform.python_version(),
        "polars": pl.__version__,
    }
    assert (manifest["occurrences"], manifest["blank_skipped"]) == (3, 1)
    assert sum(s["distinct"] for s in manifest["strata"]) == 2
    # Own rules: their file's hash, and the spec as given.
    mine = tmp_path / "my_rules.py"
    mine.write_text("def shape(q, vocab):\n    return 'x'\n", encoding="utf-8")
    where = tmp_path / "m.toml"
    spec = f"{mine}:shape"
    assert (
        main(["classify", str(log), "-o", str(out), "--rules", spec, "--manifest", str(where)]) == 0
    )
    manifest = tomllib.loads(where.read_text(encoding="utf-8"))
    assert manifest["rules"] == {"name": spec, "path": str(mine), "sha256": sha(mine)}
    assert "vocab" not in manifest["inputs"]
    # A labels file's manifest holds no golden-set sizes: the spot-check gives no verdict from it.
    capsys.readouterr()
    code = main(["spotcheck", str(out), "--print", "--format", "json", "--store", str(tmp_path)])
    assert code == 0 and json.loads(capsys.readouterr().out)["verdict"]["needs_sizes"]
