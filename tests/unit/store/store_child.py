"""A writer in its own process, for the crash tests (run as a script, not collected by pytest).

    python store_child.py STORE LABELLER MODE [N]

MODE ``stream``: save judgments forever, printing ``ack QID DOCID GRADE`` after each durable save
(N, if given, is where the numbering of documents starts). MODE ``stream-compact`` is the same
with a compaction every 5 saves, so that a kill often lands inside one.
MODE ``stream-batch``: save judgments forever in batches of 50 (``record_many``, one fsync each),
printing an ``ack`` line for each judgment of a batch once the batch returned.
MODE ``hold``: open the writer, print ``locked``, then sleep (lock tests).
MODE ``hold-session``: as a judging session: open the writer, print ``locked``, wait; on SIGHUP save
one judgment (doc ``saved-on-hangup``), close the writer (compact, unlock) and exit.
MODE ``hold-manifest``: take the manifest's lock, print ``locked``, then sleep (the parent stops it).
MODE ``die-in-replace`` / ``die-in-truncate`` / ``die-in-merge``: save N judgments with compaction
every 5 and SIGKILL itself at that exact step of the first compaction that reaches it.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import goldset_tui.store.files as files
import goldset_tui.store.journal as journal
import goldset_tui.store.parts as parts
import goldset_tui.store.writer as writer_module
from goldset_tui.model import Judgment
from goldset_tui.store import Project


def die(*_args, **_kwargs):
    os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    store, labeller, mode = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    project = Project.open(store)
    if mode == "hold-manifest":
        from goldset_tui.store.manifest import manifest_lock

        with manifest_lock(project.path):
            print("locked", flush=True)
            time.sleep(600)
        return
    if mode == "hold-session":
        session = project.writer(labeller)

        def hang_up(*_args):  # what a judging session does on SIGHUP: save, close, leave
            session.record(
                Judgment(labeller, "q1", "saved-on-hangup", 1, "2026-01-01T00:00:00Z", seconds=1.0)
            )
            session.close()
            os._exit(0)

        signal.signal(signal.SIGHUP, hang_up)
        print("locked", flush=True)
        while True:
            signal.pause()
    if mode == "hold":
        project.writer(labeller)
        print("locked", flush=True)
        time.sleep(600)
        return
    writer_module.COMPACT_EVERY = 37 if mode == "stream" else 5
    w = project.writer(labeller)  # before the patches: opening rewrites the manifest
    if mode == "die-in-replace":
        files.os.replace = die  # the part's temporary file is written and fsynced, not renamed
    elif mode == "die-in-truncate":
        journal.Journal.truncate = die  # the part is durable, the journal still holds its records
    elif mode == "die-in-merge":
        original = parts.merge_parts

        def merge_then_die(folder, chosen):
            # the merged part is written; the parts it replaces are still there
            parts.write_part(folder, parts.pl.concat([parts._read_part(p) for _, _, p in chosen]))
            die()

        parts.merge_parts = merge_then_die
        assert original
    streaming = mode.startswith("stream")
    i = count if streaming else 0
    if mode == "stream-batch":
        while True:
            batch = [
                Judgment(labeller, f"q{k % 97}", f"d{k}", k % 4, files.now_iso(), position=k % 40)
                for k in range(i, i + 50)
            ]
            w.record_many(batch)
            print(
                "".join(f"ack {j.query_id} {j.doc_id} {j.grade}\n" for j in batch),
                end="",
                flush=True,
            )
            i += 50
    while streaming or i < count:
        qid, did, grade = f"q{i % 97}", f"d{i}", i % 4
        w.record(Judgment(labeller, qid, did, grade, files.now_iso(), seconds=1.5, position=i % 40))
        print(f"ack {qid} {did} {grade}", flush=True)
        i += 1
    w.close()
    print("closed", flush=True)


if __name__ == "__main__":
    main()
