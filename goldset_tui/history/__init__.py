"""Golden sets over time (docs/history.md): the set's version, every evaluation recorded per
release, paired changes between releases, recurring failures and the named regression cases.

The core of it: no Textual. ``version`` says what the golden set was when a run was scored;
``records`` keeps one JSON file per (release, system, measure) in ``STORE/history/``;
``timeline`` turns the records into the history table, the paired changes and the recurring
failures; ``regressions`` keeps the named cases in ``STORE/regressions.toml``.
"""
