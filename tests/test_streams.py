"""The event stream shared out fairly: anonymous streams get a few slots, one address gets a
share, and a page of this table always gets in, taking the place of an anonymous stream. What
is refused says why, with a 429 (this client has its share) or a 503 (every slot holds a page)."""

from __future__ import annotations

import http.client
import re
import time
import urllib.request

import pytest

from companion.events import Broker, BrokerBusy, BrokerFull
from companion.table import Table
from companion.web import create_app
from companion.web.serve import serve_in_thread


def test_anonymous_streams_get_a_few_slots_and_a_known_page_displaces_them():
    b = Broker(max_clients=5, max_anonymous=3, per_client=2)
    anon = [b.subscribe(client=f"10.0.0.{i}", known=False)[0] for i in range(3)]
    with pytest.raises(BrokerBusy, match="anonymous"):
        b.subscribe(client="10.0.0.9", known=False)
    pages = [b.subscribe(client=f"10.0.1.{i}")[0] for i in range(2)]
    assert b.clients == 5
    page, _ = b.subscribe(client="10.0.1.7")  # full: the oldest anonymous stream makes room
    assert b.clients == 5
    assert list(anon[0].stream([], 0.01)) == [b"retry: 1000\n\n"]  # told to close: it ends
    b.subscribe(client="10.0.1.8")
    b.subscribe(client="10.0.1.9")
    with pytest.raises(BrokerFull, match="at most 5"):
        b.subscribe(client="10.0.2.1")  # every slot holds a page: nothing to displace
    assert pages and page


def test_one_address_gets_its_share_and_the_tables_own_screen_is_not_counted():
    b = Broker(max_clients=10, per_client=2)
    b.subscribe(client="192.168.1.5")
    b.subscribe(client="192.168.1.5")
    with pytest.raises(BrokerBusy, match="192.168.1.5"):
        b.subscribe(client="192.168.1.5")
    for _ in range(4):
        b.subscribe(client=None)  # loopback: the table's own screen
    assert b.clients == 6


def open_stream(port: int, cookie: str | None = None) -> tuple[http.client.HTTPConnection, int,
                                                                 bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/api/events", headers={"Cookie": cookie} if cookie else {})
    resp = conn.getresponse()
    body = resp.read() if resp.status != 200 else resp.fp.readline() + resp.fp.readline()
    return conn, resp.status, body


def test_a_flood_of_anonymous_streams_never_keeps_a_page_out():
    table = Table(solve=None, pin="1234", simulated=True)
    table.start()
    table.broker.max_clients = 16
    server, base = serve_in_thread(create_app(table, {"SSE_HEARTBEAT": 0.5}))
    port = server.effective_port
    held = []
    try:
        statuses = []
        for _ in range(16):
            conn, status, body = open_stream(port)
            statuses.append(status)
            held.append(conn)
            if status != 200:
                assert status == 429 and b"anonymous" in body, body
        assert statuses.count(200) == table.broker.max_anonymous
        # a page of the table: its session cookie came with the page
        page = urllib.request.urlopen(base + "/")
        cookie = page.headers["Set-Cookie"].split(";")[0]
        assert re.search(r'name="csrf-token"', page.read().decode())
        t0 = time.monotonic()
        conn, status, first = open_stream(port, cookie)
        held.append(conn)
        assert status == 200 and time.monotonic() - t0 < 2
        assert b"retry:" in first
    finally:
        for c in held:
            c.close()
        server.close()
        table.stop()
