"""Server-Sent Events: one broker fans the table's events out to every open page.

Each client gets a bounded queue, so one stalled phone can never hold up the table loop or the
other clients: when its queue is full it is dropped and its browser reconnects. Every event has a
sequence id; a browser reconnecting with ``Last-Event-ID`` gets what it missed from a short
backlog, or a fresh snapshot when it has been away too long. A comment line every
``heartbeat`` seconds keeps proxies and phones from closing an idle stream and lets the server
notice a client that has gone.

Streams are a scarce resource (each holds a server thread), so they are shared out: a page of
this table (its session came from one of our pages, or it holds the PIN or a player token) is a
*known* client; a stream opened by anything else is *anonymous*. Anonymous streams get a few
slots only, one address gets at most ``per_client`` streams (the table's own screen, on
loopback, is not counted), and when every slot is taken a known page takes the place of the
oldest anonymous stream: a flood of anonymous connections never blanks the players' pages.
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from . import i18n
from .errors import CompanionError

_CLOSED = object()


@dataclass(frozen=True)
class Event:
    """One published event: ``name`` is the SSE event type, ``data`` its JSON payload."""

    id: int
    name: str
    data: dict[str, Any]

    def encode(self) -> bytes:
        body = json.dumps(i18n.jsonable(self.data), separators=(",", ":"))
        return f"id: {self.id}\nevent: {self.name}\ndata: {body}\n\n".encode()


class Subscription:
    """A client's place in the broker: iterate :meth:`stream` to get encoded SSE chunks."""

    def __init__(self, broker: Broker, maxsize: int, client: str | None = None,
                 known: bool = True) -> None:
        self._broker = broker
        self._queue: queue.Queue[Any] = queue.Queue(maxsize)
        self.dropped = False
        self.client = client  # the address it came from (None: not counted per client)
        self.known = known

    def _offer(self, item: Any) -> bool:
        try:
            self._queue.put_nowait(item)
            return True
        except queue.Full:
            self.dropped = True
            return False

    def stream(self, first: list[bytes], heartbeat: float) -> Iterator[bytes]:
        """Yield ``first``, then each event as it comes, a heartbeat comment when idle; end when
        the broker closes or this client fell too far behind (its browser reconnects)."""
        try:
            # Tell the browser to retry quickly after a drop, and send something at once so
            # the headers leave now.
            yield b"retry: 1000\n\n"
            yield from first
            while True:
                try:
                    item = self._queue.get(timeout=heartbeat)
                except queue.Empty:
                    yield b": ping\n\n"
                    continue
                if item is _CLOSED:
                    return
                yield item
        finally:
            self._broker.unsubscribe(self)

    def close(self) -> None:
        # Always make room for the sentinel, dropping the oldest chunk if need be.
        while True:
            try:
                self._queue.put_nowait(_CLOSED)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    pass


class Broker:
    """Publish events to every subscriber; keep a backlog for reconnects.

    >>> b = Broker(snapshot=lambda: {"phase": "idle"})
    >>> e = b.publish("state", {"phase": "bidding"})
    >>> e.id
    1
    """

    def __init__(
        self,
        snapshot: Callable[[], dict[str, Any]] | None = None,
        backlog: int = 256,
        client_queue: int = 64,
        max_clients: int = 64,
        max_anonymous: int = 4,
        per_client: int = 6,
    ) -> None:
        self._snapshot = snapshot or dict
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._backlog: deque[Event] = deque(maxlen=backlog)
        self._subs: set[Subscription] = set()
        self._client_queue = client_queue
        self.max_clients = max_clients
        self.max_anonymous = max_anonymous
        self.per_client = per_client
        self._order: list[Subscription] = []  # oldest first
        self.closed = False
        self.last_id = 0

    def set_snapshot(self, snapshot: Callable[[], dict[str, Any]]) -> None:
        self._snapshot = snapshot

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, name: str, data: dict[str, Any]) -> Event:
        """Send an event to every client now; never blocks on a slow client."""
        with self._lock:
            event = Event(next(self._ids), name, data)
            self.last_id = event.id
            self._backlog.append(event)
            chunk = event.encode()
            slow = [s for s in self._subs if not s._offer(chunk)]
            for s in slow:
                self._subs.discard(s)
        for s in slow:
            s.close()
        return event

    def subscribe(self, last_event_id: str | None = None, *, client: str | None = None,
                  known: bool = True) -> tuple[Subscription, list[bytes]]:
        """A new subscription and what to send first: the missed events after
        ``last_event_id`` when the backlog still has them all, else a fresh snapshot.

        ``client``: the address it comes from (``None``: not limited per client); ``known``:
        a page of this table rather than an anonymous stream (see the module docstring).
        :class:`BrokerBusy` when this client or the anonymous streams have their share,
        :class:`BrokerFull` when every slot holds a known page."""
        evicted: Subscription | None = None
        with self._lock:
            if self.closed:
                raise BrokerClosed("the table is shutting down")
            live = [s for s in self._order if s in self._subs]
            self._order = live
            if client is not None and sum(s.client == client for s in live) >= self.per_client:
                raise BrokerBusy(f"too many live pages from {client} (at most "
                                 f"{self.per_client}): close one and reload")
            if not known and sum(not s.known for s in live) >= self.max_anonymous:
                raise BrokerBusy(f"too many anonymous live connections (at most "
                                 f"{self.max_anonymous}); open the page from the table's "
                                 "address instead")
            if len(live) >= self.max_clients:
                evicted = next((s for s in live if not s.known), None) if known else None
                if evicted is None:
                    raise BrokerFull(f"too many open pages (at most {self.max_clients}): "
                                     "close one on another phone or screen")
                self._subs.discard(evicted)
                self._order.remove(evicted)
            sub = Subscription(self, self._client_queue, client, known)
            self._order.append(sub)
            first: list[bytes] | None = None
            since = _parse_id(last_event_id)
            if since is not None and since <= self.last_id:
                missed = [e for e in self._backlog if e.id > since]
                oldest = self._backlog[0].id if self._backlog else self.last_id + 1
                if since >= oldest - 1 and len(missed) < self._client_queue:
                    first = [e.encode() for e in missed]
            if first is None:
                snap = Event(self.last_id, "snapshot", self._snapshot())
                first = [snap.encode()]
            self._subs.add(sub)
        if evicted is not None:
            evicted.close()  # an anonymous stream makes room for a page of this table
        return sub, first

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    def close(self) -> None:
        """End every stream (shutdown): their generators return and free their threads."""
        with self._lock:
            self.closed = True
            subs = list(self._subs)
            self._subs.clear()
        for s in subs:
            s.close()


class BrokerClosed(CompanionError, RuntimeError):
    """The broker no longer takes subscribers."""


class BrokerFull(CompanionError, RuntimeError):
    """Every client slot is taken."""


class BrokerBusy(CompanionError, RuntimeError):
    """This client (or the anonymous streams together) has its share of the slots."""


def _parse_id(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    if not text.isdigit() or len(text) > 18:
        return None
    return int(text)
