"""`goldset drift --log NEW_LOG` counts a large log through classify's spill files (it counted
every log in memory), and its output is byte for byte the in-memory one. The spill threshold is
made tiny so that a small log spills, in parts of a few lines."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.sampling import classify, spill

QUERIES = (
    [f"how do i rotate key {i % 37}" for i in range(400)]
    + [f"ERR_{4000 + i % 11} webhook" for i in range(90)]
    + ["", "  ", "Rotate  API key", " rotate api key ", "sso login not working"]
    + [f"regions not covered {i % 5}" for i in range(60)]
    + [f"Sync Stripe and Salesforce {i % 5}" for i in range(60)]
    + ["rotaet api kee", "webhok retries"] * 3
)


def _old_labels(path: Path) -> Path:
    rows = [
        ("err_4021", 6, "exact_identifier"),
        ("make retries safe", 7, "paraphrase"),
        ("regions not covered", 18, "negation"),
        ("sync stripe and salesforce", 4, "multi_entity"),
    ]
    pl.DataFrame(rows, schema=["query", "count", "stratum"], orient="row").write_csv(path)
    return path


@pytest.mark.parametrize("suffix", [".txt", ".csv"])
def test_drift_counts_a_large_log_through_the_spill_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], suffix
) -> None:
    log = tmp_path / f"log{suffix}"
    if suffix == ".csv":
        pl.DataFrame({"query": QUERIES}).write_csv(log)
    else:
        log.write_text("\n".join(QUERIES) + "\n")
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("how do i rotate api key webhook retries sso login not working\n")
    old = _old_labels(tmp_path / "old.csv")
    argv = ["drift", "--labels", str(old), "--log", str(log), "--vocab", str(vocab)]
    argv += ["--format", "json"]
    outputs = {}
    for name, above in (("memory", 1 << 40), ("spilled", 0)):
        with monkeypatch.context() as patch:
            patch.setattr(spill, "SPILL_ABOVE", above)
            patch.setattr(spill, "CHUNK_BYTES", 256)
            patch.setattr(spill, "PART_BYTES", 300)
            if name == "spilled":

                def in_memory(*args: object, **kwargs: object) -> None:
                    raise AssertionError("a large log was counted in memory")

                patch.setattr(classify, "classify_log", in_memory)
            assert main(argv) == 0
        printed = capsys.readouterr()
        outputs[name] = (printed.out, printed.err)
    assert outputs["spilled"] == outputs["memory"]
    assert '"new_share"' in outputs["memory"][0]
