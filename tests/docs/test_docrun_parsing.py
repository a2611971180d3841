"""The runner's own reading of a page: what is a command, which marker governs which block, and
when printed JSON contradicts the page's excerpt. The runner is only as honest as these."""

from __future__ import annotations

from pathlib import Path

from docrun import blocks, help_examples, json_mismatches, not_run, page_json, screen_kind

PAGE = """# A page

<!-- doc-run: expect-exit 2 -->
<!-- doc-run: expect "no such file" -->
    goldset check missing.jsonl
    goldset: error: missing.jsonl: no such file

Some text.

    goldset eval q.txt r.run \\
        -m AP
    goldset demo: 12 of 1,285 judged
      goldset judge pool.jsonl --only-new
    PYTHONPATH=x python3 -c '
    print(1)'

<!-- doc-run: skip not this one -->

Text between: the marker above governs nothing.

```sh
cat > a.txt <<'EOF'
goldset inside a here-document
EOF
P=tests/data
```

```json
{"a": 1}
```
"""


def test_commands_output_and_markers(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    first, second, third = blocks(page)
    assert first.directives == ["expect-exit 2", 'expect "no such file"']
    assert [c.text for c in first.commands] == ["goldset check missing.jsonl"]
    assert first.commands[0].output == ["goldset: error: missing.jsonl: no such file"]
    texts = [c.text for c in second.commands]
    assert texts[0] == "goldset eval q.txt r.run \\\n    -m AP"
    assert texts[1] == "PYTHONPATH=x python3 -c '\nprint(1)'"  # the open quote continues it
    assert second.commands[0].output == [
        "goldset demo: 12 of 1,285 judged",  # output shaped like a command
        "goldset judge pool.jsonl --only-new",  # indented under a command: output
    ]
    assert second.directives == []  # a marker reaches only the block right below it
    assert third.directives == [] and third.tag == "sh"
    assert [c.text for c in third.commands] == [
        "cat > a.txt <<'EOF'\ngoldset inside a here-document\nEOF",
        "P=tests/data",
    ]


def test_usage_lines_benchmarks_and_screens() -> None:
    assert not_run("goldset import --store DIR --labeller NAME [--on-conflict refuse|keep]")
    assert not_run("goldset qrels (--store DIR | --pool POOL)")
    assert not_run(".venv/bin/python bench/judge_keys.py --presses 10")
    assert not_run("goldset eval qrels.txt run.txt -m AP") is None
    assert screen_kind("goldset judge pool.jsonl --labeller ana")
    assert screen_kind("goldset")
    assert screen_kind("goldset agreement --store s --screen")
    assert not screen_kind("goldset agreement --store s --format json > a.json")
    assert not screen_kind("goldset demo --where")
    assert not screen_kind("goldset spotcheck labels.csv --print --labeller ana")
    assert not screen_kind("goldset spotcheck labels.csv --report --labeller ana")  # old spelling
    assert screen_kind("goldset spotcheck labels.csv --screen --labeller ana")
    assert not screen_kind("goldset agreement --store s --print")


def test_help_examples_are_read_as_printed() -> None:
    description = (
        "Text.\n\nexamples:\n  goldset eval q r \\\n      -m AP\n  goldset fuse a b -o f\n"
    )
    assert [c.text for c in help_examples(description)] == [
        "goldset eval q r \\\n    -m AP",
        "goldset fuse a b -o f",
    ]


def test_stale_json_is_caught_at_the_page_rounding() -> None:
    shown = page_json('{"pairs": [{"kappa": 0.439, "kappa_ci95": [0.2, 0.62], "x": [...]}, "..."]}')
    printed = {"pairs": [{"kappa": 0.4391, "kappa_ci95": [0.327, 0.667], "x": [1]}, {"more": 1}]}
    assert json_mismatches(shown, printed) == [
        "$.pairs[0].kappa_ci95[0]: page shows 0.2, got 0.327",
        "$.pairs[0].kappa_ci95[1]: page shows 0.62, got 0.667",
    ]
    printed["pairs"][0]["kappa_ci95"] = [0.2, 0.624]  # within the page's two decimals
    assert json_mismatches(shown, printed) == []
    assert json_mismatches({"a": 1, "b": [1, 2]}, {"b": [1, 2, 3]}) == [
        "$.a: missing",
        "$.b: page shows 2 items, got 3",
    ]
