"""What a new user reads first names things by what they are: no strata or verdict named after a
numbered text outside the repository ("seed" and three digits) in any command's --help or in the
README's first screen (the reasoning is in docs/background.md), and examples use values the
commands really produce."""

from __future__ import annotations

import re
from pathlib import Path

from goldset_tui.cli import build_parser, command_modules
from goldset_tui.sampling.rules import STRATA

ROOT = Path(__file__).resolve().parents[2]
SEED = re.compile(r"\bseeds? 0\d\d", re.IGNORECASE)


def test_no_command_help_cites_a_seed() -> None:
    parser = build_parser()
    texts = {"goldset": parser.format_help()}
    sub = next(a for a in parser._actions if a.dest == "command")  # argparse has no public accessor
    for name, sp in sub.choices.items():
        texts[name] = sp.format_help()
    cited = {name: SEED.findall(text) for name, text in texts.items() if SEED.search(text)}
    assert cited == {}


def test_readme_first_screen_names_things_plainly() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_screen = readme[: readme.index("## File formats")]
    assert SEED.findall(first_screen) == []
    assert "goldset demo" in readme.splitlines()[3]  # the first command is the one used elsewhere


def test_sample_help_example_uses_strata_that_classify_produces() -> None:
    (sample,) = [m for m in command_modules() if m.NAME == "sample"]
    targets = re.findall(r"--targets (\S+)", sample.DESCRIPTION)
    assert targets
    for spec in targets:
        names = {pair.split("=")[0] for pair in spec.split(",")}
        assert names <= set(STRATA), names - set(STRATA)


def test_help_examples_have_no_runs_of_spaces_inside_a_command() -> None:
    # A backslash at the end of a line in a non-raw DESCRIPTION joins it with the next line's
    # indentation: `--format json       --targets ...`. Shown as typed, it continues.
    joined = {
        m.NAME: [line for line in m.DESCRIPTION.splitlines() if re.search(r"\S {4,}--", line)]
        for m in command_modules()
    }
    assert {name: lines for name, lines in joined.items() if lines} == {}
    (spotcheck,) = [m for m in command_modules() if m.NAME == "spotcheck"]
    assert "--format json \\\n      --targets" in spotcheck.DESCRIPTION


def test_classify_manifest_names_the_rules_plainly(tmp_path: Path) -> None:
    # The manifest `goldset classify` writes beside LABELS is read by users too: it called the
    # default rules by the number of a text outside the repository.
    from goldset_tui.cli import main

    log = tmp_path / "log.txt"
    log.write_text("ERR_4021 on checkout\nhow do i rotate a key\n", encoding="utf-8")
    assert main(["classify", str(log), "-o", str(tmp_path / "labels.csv")]) == 0
    manifest = (tmp_path / "labels.manifest.toml").read_text(encoding="utf-8")
    assert SEED.findall(manifest) == []
    assert "six query-shape strata" in manifest
