"""The login state of `goldset serve`: who may have a token checked now, and who already has.

A token check costs scrypt's 16 MiB and about 50 ms of CPU. Unbounded, a flood of wrong tokens
queued behind the checks (about 26 s per 1,000 requests on two cores) and locked real labellers
out. So, answered before any scrypt work:

- :class:`FailureLimit`: per client address, a token bucket of tries (``burst`` at once, then one
  more every ``refill_seconds``). A check takes a try first and gives it back when the token was
  right, so only wrong tokens use the bucket, and a burst of wrong tokens sent at once cannot all
  pass it before the first is found wrong. An empty bucket: 429 with Retry-After.
- A token whose id is not in USERS.toml is answered 403 by the server before it asks for a place
  here: made-up tokens, from any number of addresses, cost no scrypt work and take no place.
  So does a wrong token for a known id whose entry has a quick ``check`` (``serve.users``).
- :class:`CheckSlots`: at most ``at_once`` checks run and ``waiting`` more wait; anything beyond is
  answered 503 with Retry-After at once instead of queueing without bound. One address may have
  only ``per_address`` checks under way, and one labeller's id only ``per_id`` (429 beyond): a
  burst from one client cannot take every place in the queue, and neither can a flood from many
  addresses that knows one labeller's id, so the other labellers always find a place. That id's
  own labeller is kept apart from such a flood too: an address no wrong token has come from
  lately (its bucket is full) has an id's share of its own, so a flood holds the labeller back
  only until each of its addresses has had one wrong token checked (about 25 ms per address).
- :class:`Sessions`: a passed check opens a session, kept in a cookie (random, HttpOnly,
  SameSite=Strict, Secure under https), so the token leaves the address bar and the history, and
  a reload needs no token and no scrypt check.

Every clock is injectable (tests advance it instead of sleeping). Nothing here imports aiohttp.
"""

from __future__ import annotations

import asyncio
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

# Ten wrong tokens at once, then one every 6 s (ten a minute) per address.
# A labeller mistyping a pasted link a few times never meets it; a guesser gets 14,400 tries a day
# against 256-bit tokens.
BURST = 10
REFILL_SECONDS = 6.0
# Checks running at once (each holds scrypt's 16 MiB) and checks allowed to wait for them.
CHECKS_AT_ONCE = 2
CHECKS_WAITING = 8
CHECKS_PER_ADDRESS = 2
# Checks under way for one labeller's id, whatever the addresses they come from: a flood that
# knows one id (from a seen link) holds four places, never all ten. More than one address's share,
# so a flood from one address on a labeller's own id still leaves that labeller a place. Clean
# addresses (no wrong token lately) have four more of their own.
CHECKS_PER_ID = 4
# How long a login lasts without a new token: a working day, whatever the tab does.
SESSION_SECONDS = 12 * 3600.0
# Addresses and sessions kept at most: bounded memory whatever the number of clients.
MAX_ADDRESSES = 10_000
MAX_SESSIONS = 1_000


@dataclass
class _Bucket:
    tries: float
    at: float


class FailureLimit:
    """Tries per client address: ``take`` before a check, ``give_back`` when it passed."""

    def __init__(
        self,
        *,
        burst: int = BURST,
        refill_seconds: float = REFILL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        max_addresses: int = MAX_ADDRESSES,
    ) -> None:
        self.burst = burst
        self.refill_seconds = refill_seconds
        self.clock = clock
        self.max_addresses = max_addresses
        self._buckets: dict[str, _Bucket] = {}

    def _now(self, address: str) -> _Bucket:
        now = self.clock()
        bucket = self._buckets.pop(address, None)  # popped: re-inserted last, the newest
        if bucket is None:
            return _Bucket(float(self.burst), now)
        refilled = bucket.tries + max(0.0, now - bucket.at) / self.refill_seconds
        return _Bucket(min(float(self.burst), refilled), now)

    def take(self, address: str) -> int | None:
        """Take one try: None when taken, else the whole seconds to wait for the next one."""
        bucket = self._now(address)
        if bucket.tries >= 1.0:
            bucket.tries -= 1.0
            wait = None
        else:
            wait = max(1, math.ceil((1.0 - bucket.tries) * self.refill_seconds))
        self._buckets[address] = bucket
        self._bound()
        return wait

    def clean(self, address: str) -> bool:
        """Whether no wrong token from ``address`` has been counted lately (a full bucket)."""
        bucket = self._buckets.get(address)
        if bucket is None:
            return True
        refilled = bucket.tries + max(0.0, self.clock() - bucket.at) / self.refill_seconds
        return refilled >= self.burst

    def give_back(self, address: str) -> None:
        bucket = self._now(address)
        bucket.tries = min(float(self.burst), bucket.tries + 1.0)
        self._buckets[address] = bucket

    def _bound(self) -> None:
        if len(self._buckets) <= self.max_addresses:
            return
        now = self.clock()
        full = [
            a
            for a, b in self._buckets.items()
            if b.tries + (now - b.at) / self.refill_seconds >= self.burst
        ]
        for address in full:  # a full bucket is the same as none
            del self._buckets[address]
        while len(self._buckets) > self.max_addresses:  # then the least recently used
            del self._buckets[next(iter(self._buckets))]


class CheckSlots:
    """At most ``at_once`` token checks run and ``waiting`` wait, ``per_address`` of them from
    one client address and ``per_id`` for one labeller's id from clean addresses (no wrong token
    lately) and as many from the others; ``enter`` refuses the rest."""

    def __init__(
        self,
        *,
        at_once: int = CHECKS_AT_ONCE,
        waiting: int = CHECKS_WAITING,
        per_address: int = CHECKS_PER_ADDRESS,
        per_id: int = CHECKS_PER_ID,
    ) -> None:
        self._running = asyncio.Semaphore(at_once)
        self._limit = at_once + waiting
        self._per_address = per_address
        self._per_id = per_id
        # Checks under way per address and per id (only those with some).
        self._of: dict[tuple[str, str], int] = {}
        self.admitted = 0  # running or waiting (tests read it)

    def enter(self, address: str, ident: str, clean: bool = False) -> str | None:
        """Admit one check from ``address`` (``clean``: no wrong token from it lately) for the
        token id ``ident``; the caller then runs it with ``run`` and the same arguments. None,
        or why not: ``"address"`` (that client has its share under way), ``"id"`` (that id has
        its share under way) or ``"full"``."""
        if self._of.get(("address", address), 0) >= self._per_address:
            return "address"
        if self._of.get((f"id clean={clean}", ident), 0) >= self._per_id:
            return "id"
        if self.admitted >= self._limit:
            return "full"
        self.admitted += 1
        for key in (("address", address), (f"id clean={clean}", ident)):
            self._of[key] = self._of.get(key, 0) + 1
        return None

    async def run(
        self, address: str, ident: str, check: Callable[[], object], clean: bool = False
    ) -> object:
        """Run an admitted check in a thread once a slot is free; always frees the admission."""
        try:
            async with self._running:
                return await asyncio.to_thread(check)
        finally:
            self.admitted -= 1
            for key in (("address", address), (f"id clean={clean}", ident)):
                left = self._of.pop(key) - 1
                if left:
                    self._of[key] = left


@dataclass(frozen=True)
class Session:
    name: str
    id: str  # the labeller's id in USERS.toml when they logged in: removed or re-added, it ends
    expires: float


class Sessions:
    """Logged-in browsers, by the random key their cookie holds (kept in memory only: a restarted
    server asks every labeller for their link again)."""

    def __init__(
        self,
        *,
        seconds: float = SESSION_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        limit: int = MAX_SESSIONS,
    ) -> None:
        self.seconds = seconds
        self.clock = clock
        self.limit = limit
        self._sessions: dict[str, Session] = {}

    def open(self, name: str, ident: str) -> str:
        now = self.clock()
        self._sessions = {k: s for k, s in self._sessions.items() if s.expires > now}
        while len(self._sessions) >= self.limit:
            del self._sessions[next(iter(self._sessions))]  # the oldest login goes first
        key = secrets.token_urlsafe(32)
        self._sessions[key] = Session(name, ident, now + self.seconds)
        return key

    def find(self, key: str) -> Session | None:
        session = self._sessions.get(key)
        if session is None:
            return None
        if session.expires <= self.clock():
            del self._sessions[key]
            return None
        return session

    def end(self, key: str) -> None:
        self._sessions.pop(key, None)
