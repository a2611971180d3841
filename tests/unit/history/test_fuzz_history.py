"""The history's readers under hostile files (the fuzzer's rule): a history record or
a regressions.toml is read, or refused in one line naming the file; never another exception, and
what is read can be shown (`goldset history` and the case list run on it)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parents[1] / "core"))

from fuzz_files import TEXT, VALUES, damaged

from goldset_tui.errors import InputError
from goldset_tui.history.records import load_records
from goldset_tui.history.regressions import load_cases
from goldset_tui.history.timeline import build_history
from goldset_tui.store import Project

EXAMPLES = int(os.environ.get("GOLDSET_FUZZ_EXAMPLES", "20"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=EXAMPLES <= 20,  # CI: the same files every run; a soak explores
)
GOOD = {
    "format": 1,
    "release": "r1",
    "system": "bm25",
    "measure": "P@1",
    "time": "2026-11-30T10:00:00.000Z",
    "version": {"id": "v", "judgments": 3, "pool_extensions": []},
    "binary": True,
    "k": 1,
    "scores": {"q1": 1.0, "q2": 0.0},
    "strata": {"q1": "a"},
    "topk": {"q1": [[1, "d1", 2]]},
    "traffic": {"a": 0.6, "b": 0.4},
    "strata_definition": {"rules": None, "strata": [{"name": "a", "mechanism": "m"}]},
}


def _store(folder: Path) -> Path:
    pool = folder / "pool.csv"
    pool.write_text("query_id,query,doc_id,text\nq1,a,d1,x\n", encoding="utf-8")
    Project.create(folder / "store", pool_path=pool, pool_sha256="0" * 64)
    return folder / "store"


def _refused_in_one_line(exc: InputError, path: Path) -> None:
    message = str(exc)
    assert "\n" not in message and str(path) in message, message


@FUZZ
@given(data=st.data())
def test_a_hostile_history_record_is_read_or_refused(data: st.DataObject) -> None:
    doc = dict(GOOD)
    for key in data.draw(st.lists(st.sampled_from(sorted(GOOD)), max_size=3), label="keys"):
        doc[key] = data.draw(VALUES, label=key)
    raw = data.draw(damaged(json.dumps(doc, default=str).encode("utf-8")), label="bytes")
    with tempfile.TemporaryDirectory() as folder:
        store = _store(Path(folder))
        path = store / "history" / "x.json"
        path.parent.mkdir()
        path.write_bytes(raw)
        try:
            records = load_records(store)
        except InputError as exc:
            _refused_in_one_line(exc, path)
            return
        history = build_history(records, samples=20)
        json.dumps(history.to_json(), allow_nan=False)


@FUZZ
@given(data=st.data())
def test_a_hostile_regressions_file_is_read_or_refused(data: st.DataObject) -> None:
    line = st.one_of(
        st.sampled_from(["[[case]]", 'name = "a"', 'query_id = "q1"', "case = 3", "x = ["]),
        TEXT.map(lambda t: f"note = {json.dumps(t)}"),
        TEXT,
    )
    text = "\n".join(data.draw(st.lists(line, max_size=6)))
    raw = data.draw(damaged(text.encode("utf-8", "surrogatepass")))
    with tempfile.TemporaryDirectory() as folder:
        store = _store(Path(folder))
        path = store / "regressions.toml"
        path.write_bytes(raw)
        try:
            load_cases(store)
        except InputError as exc:
            _refused_in_one_line(exc, path)
