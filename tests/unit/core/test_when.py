"""Session times in at most 12 characters, in the user's zone, relative to today."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from goldset_tui.ui.text.when import WIDTH, short_time

NOW = datetime(2026, 11, 30, 19, 45, tzinfo=UTC)


@pytest.mark.parametrize(
    ("stamp", "shown"),
    [
        ("2026-11-30T19:41:07.123Z", "today 19:41"),
        ("2026-11-30 08:41", "today 08:41"),  # no zone: UTC, as the store writes
        ("2026-11-29T17:02:00.000Z", "Nov 29 17:02"),
        ("2026-01-03T09:05:00.000Z", "Jan 3 09:05"),
        ("2025-11-30T19:41:00.000Z", "2025-11-30"),
        ("", ""),
        ("not a time at all", "not a time a"),
    ],
)
def test_short_forms(stamp: str, shown: str) -> None:
    assert short_time(stamp, NOW) == shown
    assert len(short_time(stamp, NOW)) <= WIDTH


def test_shown_in_the_zone_of_now() -> None:
    # NOW is 04:45 on 1 December in Tokyo (UTC+9): 16:00 UTC on the 30th is 01:00 today there,
    # 10:00 UTC on the 30th is 19:00 yesterday there.
    tokyo = NOW.astimezone(timezone(timedelta(hours=9)))
    assert short_time("2026-11-30T16:00:00.000Z", tokyo) == "today 01:00"
    assert short_time("2026-11-30T10:00:00.000Z", tokyo) == "Nov 30 19:00"
    assert short_time("2026-11-30T10:00:00.000Z", NOW) == "today 10:00"
