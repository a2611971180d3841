"""`goldset classify --compare REAL SYNTHETIC` counts each log as classify does: streamed, and a
large log through the spill files (it read every line of both into memory). Its output is byte
for byte the one of the whole-log read. The spill threshold is made tiny so that a small log
spills, in parts of a few lines."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.sampling import classify, spill
from goldset_tui.sampling.compare import compare_frames, compare_logs
from goldset_tui.sampling.normalise import count_distinct, read_log

REAL = (
    [f"how do i rotate key {i % 37}" for i in range(400)]
    + [f"ERR_{4000 + i % 11} webhook" for i in range(90)]
    + ["", "  ", "Rotate  API key", " rotate api key ", "sso login not working"]
    + [f"regions not covered {i % 5}" for i in range(60)]
    + ["rotaet api kee", "webhok retries", "café menü", "tab\there"] * 3
)
SYNTHETIC = [
    "How can I rotate an API key without downtime?",
    "What does error ERR_4021 mean when a webhook fails?",
    "Which regions are not covered by the EU plan?",
    "How do I sync Stripe and Salesforce accounts?",
] * 20 + ["rotate api key", "Rotate API Key"]


@pytest.mark.parametrize("suffix", [".txt", ".csv"])
def test_compare_counts_large_logs_through_the_spill_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], suffix
) -> None:
    real, synthetic = tmp_path / f"real{suffix}", tmp_path / "synthetic.txt"
    if suffix == ".csv":
        pl.DataFrame({"query": REAL}).write_csv(real)
    else:
        real.write_text("\n".join(REAL) + "\n")
    synthetic.write_text("\n".join(SYNTHETIC) + "\n")
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("how do i rotate api key webhook retries sso login not working\n")
    # The reference: every line read into memory, as compare counted before.
    whole = [count_distinct(read_log(p))[0] for p in (real, synthetic)]
    words = classify.read_vocab(vocab)
    want = [r.to_dict() for r in compare_frames(whole[0], whole[1], words)]
    argv = ["classify", "--compare", str(real), str(synthetic), "--vocab", str(vocab)]
    argv += ["--format", "json"]
    real_spill = spill.classify_spilled
    taken: list[Path] = []

    def watched(path: Path, *args: object, **kwargs: object) -> object:
        taken.append(path)
        return real_spill(path, *args, **kwargs)

    outputs = {}
    for name, above in (("memory", 1 << 40), ("spilled", 0)):
        taken.clear()
        with monkeypatch.context() as patch:
            patch.setattr(spill, "SPILL_ABOVE", above)
            patch.setattr(spill, "CHUNK_BYTES", 256)
            patch.setattr(spill, "PART_BYTES", 300)
            patch.setattr(spill, "classify_spilled", watched)
            if name == "spilled":

                def in_memory(*args: object, **kwargs: object) -> None:
                    raise AssertionError("a large log was counted in memory")

                patch.setattr(classify, "classify_log", in_memory)
            got = [r.to_dict() for r in compare_logs(real, synthetic, words)]
            assert main(argv) == 0
        assert got == want
        assert taken == ([real, synthetic] * 2 if name == "spilled" else [])
        printed = capsys.readouterr()
        outputs[name] = (printed.out, printed.err)
    assert outputs["spilled"] == outputs["memory"]
    assert '"verdict"' in outputs["memory"][0]
