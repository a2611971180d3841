"""Times shown in a narrow column: the shortest form that still says when.

The store records times in UTC as ISO 8601 (``2026-11-30T19:41:07.123Z``); 16 characters of that
(``2026-11-30 19:41``) do not fit a table at 80 columns and are cut to ``2026-11-30 19:``.
:func:`short_time` gives at most 12 characters, in the zone of ``now`` (the user's local time on
the screen): ``today 19:41`` on the same day, ``Nov 28 17:02`` within the same year, ``2025-11-28``
before. A time without a zone is taken as UTC, as the store writes it.
"""

from __future__ import annotations

from datetime import UTC, datetime

WIDTH = 12  # the longest form: "Nov 28 17:02"
# Month names fixed, not strftime("%b"): the locale must not change the width or the words.
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def local_now() -> datetime:
    """The current time in the machine's zone (tests replace this to fix the clock)."""
    return datetime.now().astimezone()


def short_time(stamp: str, now: datetime) -> str:
    """``stamp`` (ISO 8601) in at most :data:`WIDTH` characters, relative to the aware ``now``."""
    if not stamp:
        return ""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp[:WIDTH]  # not a time we wrote: shown as it is, cut to the column
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(now.tzinfo)
    if moment.date() == now.date():
        return f"today {moment:%H:%M}"
    if moment.year == now.year:
        return f"{MONTHS[moment.month - 1]} {moment.day} {moment:%H:%M}"
    return f"{moment:%Y-%m-%d}"
