"""The fault sweep's workloads for the commands whose output is files outside the store (`qrels
-o`, `classify -o`, `sample draw -o`, `fuse -o`): each runs over an earlier run's outputs, which
a failure must leave as they were and a success must replace whole (``FileOutput`` in
workloads.py says how that is checked).
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from faults.workloads import RELEASE, SAMPLE, FileOutput, _store_from


class QrelsOut(FileOutput):
    """`qrels -o`: a labeller's judgments exported over an earlier export."""

    name = "qrels -o"

    def setup(self, root: Path) -> None:
        _store_from(root, "alice", "bob")
        super().setup(root)

    def earlier(self, root: Path) -> list[str]:
        return ["qrels", "--store", str(root / "store"), "--labeller", "alice",
                "--format", "csv", "-o", str(root / "out" / "alice.csv")]  # fmt: skip

    def argv(self, root: Path) -> list[str]:  # another person's grades, to the same file
        return ["qrels", "--store", str(root / "store"), "--labeller", "bob",
                "--format", "csv", "-o", str(root / "out" / "alice.csv")]  # fmt: skip


class ClassifyOut(FileOutput):
    """`classify -o LABELS`: labels and their manifest, over an earlier run's pair."""

    name = "classify -o"

    def earlier(self, root: Path) -> list[str]:
        head = root / "head.csv"
        lines = (SAMPLE / "query_log.csv").read_text().splitlines()
        head.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
        return ["classify", str(head), "-o", str(root / "out" / "labels.csv")]

    def argv(self, root: Path) -> list[str]:
        return ["classify", str(SAMPLE / "query_log.csv"), "-o", str(root / "out" / "labels.csv")]


class SampleDrawOut(FileOutput):
    """`sample draw -o`: the sample, its manifest, strata and traffic files, over an earlier draw."""

    name = "sample draw -o"

    def setup(self, root: Path) -> None:
        from goldset_tui.cli import main

        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            labels = ["classify", str(SAMPLE / "query_log.csv"), "-o", str(root / "labels.csv")]
            assert main(labels) == 0
        super().setup(root)

    def _draw(self, root: Path, seed: str) -> list[str]:
        return ["sample", "draw", str(root / "labels.csv"), "-o", str(root / "out" / "golden.csv"),
                "--seed", seed, "--total", "80"]  # fmt: skip

    def earlier(self, root: Path) -> list[str]:
        return self._draw(root, "1")

    def argv(self, root: Path) -> list[str]:
        return self._draw(root, "2")


class FuseOut(FileOutput):
    """`fuse -o`: a fused run over an earlier fusion."""

    name = "fuse -o"

    def _fuse(self, root: Path, method: str) -> list[str]:
        return ["fuse", "--method", method, "-o", str(root / "out" / "fused.run"),
                str(RELEASE / "bm25.run"), str(RELEASE / "minilm.run")]  # fmt: skip

    def earlier(self, root: Path) -> list[str]:
        return self._fuse(root, "combsum")

    def argv(self, root: Path) -> list[str]:
        return self._fuse(root, "rrf")
