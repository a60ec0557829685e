"""The page's address for phones: worked out afresh each time, so a table that starts before
its network, or on a hotspot with no default route, still hands out an address phones reach."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.web.address import PublicAddress, is_loopback, local_addresses

ROOT = Path(__file__).resolve().parents[1]

# /proc/net/fib_trie of a Pi running a NetworkManager hotspot (wlan0 10.42.0.1/24), no uplink
HOTSPOT_FIB = """Main:
  +-- 0.0.0.0/1 2 0 2
     +-- 10.42.0.0/24 2 0 2
        +-- 10.42.0.0/31 1 0 0
           |-- 10.42.0.0
              /24 link UNICAST
           |-- 10.42.0.1
              /32 host LOCAL
        |-- 10.42.0.255
           /32 link BROADCAST
     +-- 127.0.0.0/8 2 0 2
        +-- 127.0.0.0/31 1 0 0
           |-- 127.0.0.0
              /8 host LOCAL
           |-- 127.0.0.1
              /32 host LOCAL
        |-- 127.255.255.255
           /32 link BROADCAST
Local:
  +-- 0.0.0.0/1 2 0 2
     +-- 10.42.0.0/24 2 0 2
           |-- 10.42.0.1
              /32 host LOCAL
"""


def public(route=None, addresses=(), host="0.0.0.0"):
    return PublicAddress(host, 8000, route=lambda: route, addresses=lambda: list(addresses),
                         hostname=lambda: "ricochet")


def test_the_kernels_table_gives_the_hotspot_address_and_leaves_out_loopback():
    assert local_addresses(HOTSPOT_FIB) == ["10.42.0.1"]
    assert local_addresses("Main:\n  +-- 0.0.0.0/0 3 0 5\n") == []


def test_the_route_comes_first_then_the_machines_own_addresses():
    assert public("192.168.1.20", ["10.42.0.1"])("127.0.0.1:8000") == "http://192.168.1.20:8000/"
    assert public(None, ["10.42.0.1"])("localhost:8000") == "http://10.42.0.1:8000/"
    assert public("127.0.0.1", ["10.42.0.1"])() == "http://10.42.0.1:8000/"


def test_with_only_loopback_a_phone_gets_its_own_host_and_the_screen_gets_the_mdns_name():
    assert public()("192.168.4.7:8000") == "http://192.168.4.7:8000/"
    assert public()("ricochet.local:8000") == "http://ricochet.local:8000/"
    for screen in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", None):
        assert public()(screen) == "http://ricochet.local:8000/"


def test_a_fixed_listening_address_is_used_as_it_is():
    assert public("192.168.1.20", host="10.0.0.5")() == "http://10.0.0.5:8000/"
    assert public(None, ["fd00::5"])("127.0.0.1") == "http://[fd00::5]:8000/"


def test_the_address_follows_the_network_without_a_restart():
    state = {"route": None, "addresses": []}
    p = PublicAddress("0.0.0.0", 8000, route=lambda: state["route"],
                      addresses=lambda: state["addresses"], hostname=lambda: "pi.lan")
    assert p("127.0.0.1:8000") == "http://pi.local:8000/"
    state["addresses"] = ["10.42.0.1"]  # the hotspot comes up
    assert p("127.0.0.1:8000") == "http://10.42.0.1:8000/"
    state["route"] = "192.168.1.20"  # then Wi-Fi with a router
    assert p("127.0.0.1:8000") == "http://192.168.1.20:8000/"


@given(st.ip_addresses(v=4))
def test_loopback_is_told_apart_from_every_other_address(addr):
    assert is_loopback(str(addr)) == (str(addr).startswith("127."))
    url = public(None, [] if addr.is_loopback else [str(addr)])("127.0.0.1:8000")
    assert url == ("http://ricochet.local:8000/" if addr.is_loopback else
                   f"http://{addr}:8000/")


NETNS_SCRIPT = textwrap.dedent('''
    import http.cookiejar, io, json, re, socket, subprocess, sys, urllib.request
    from companion.app import RunOptions, build
    from companion.web.serve import serve_in_thread

    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    table, app, printed = build(RunOptions(camera="sim", host="0.0.0.0", port=0,
                                           db=sys.argv[1], pin="2468", quiet=True),
                                out=io.StringIO())
    server, _ = serve_in_thread(app, host="0.0.0.0", port=0)
    port = server.effective_port
    app.config["PUBLIC_URL"].port = port
    table.start()
    jar = http.cookiejar.CookieJar()
    web = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    def call(host, path, body=None):
        page = web.open(f"http://{host}:{port}/").read().decode()
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
        req = urllib.request.Request(f"http://{host}:{port}{path}",
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"X-Table-Pin": "2468", "X-CSRF-Token": csrf,
                                              "Content-Type": "application/json"})
        return json.loads(web.open(req).read())

    call("127.0.0.1", "/api/setup", {"players": ["Ann", "Ben"]})
    out = {"printed": printed, "port": port, "hostname": socket.gethostname()}
    out["loopback_only"] = call("127.0.0.1", "/api/join-links")[0]["url"]
    # a hotspot-style address, and no default route (as a NetworkManager hotspot has)
    subprocess.run(["ip", "addr", "add", "10.42.0.1/24", "dev", "lo"], check=True)
    out["hotspot_screen"] = call("127.0.0.1", "/api/join-links")[1]["url"]
    out["hotspot_phone"] = call("10.42.0.1", "/api/join-links")[0]["url"]
    out["route"] = subprocess.run(["ip", "route", "get", "192.0.2.1"],
                                  capture_output=True, text=True).returncode
    server.close()
    table.stop()
    print(json.dumps(out))
''')


def _netns_works() -> bool:
    if not shutil.which("unshare") or not shutil.which("ip"):
        return False
    return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _netns_works(), reason="no unprivileged network namespaces here")
def test_in_a_network_namespace_with_only_a_hotspot_address_the_qr_codes_point_at_it(tmp_path):
    script = tmp_path / "netns.py"
    script.write_text(NETNS_SCRIPT)
    done = subprocess.run(["unshare", "-rn", sys.executable, str(script),
                           str(tmp_path / "journal.db")], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    name, port = out["hostname"].split(".")[0], out["port"]
    assert out["printed"] == f"http://{name}.local:0/"  # nothing but loopback at the start
    assert out["loopback_only"].startswith(f"http://{name}.local:{port}/pad?seat=0&code=")
    assert out["route"] != 0  # no route out: the old guess gave 127.0.0.1 here
    assert out["hotspot_screen"].startswith(f"http://10.42.0.1:{port}/pad?seat=1&code=")
    assert out["hotspot_phone"].startswith(f"http://10.42.0.1:{port}/pad?seat=0&code=")
