"""The address phones reach the page at, for the join QR codes and the printed link.

Worked out afresh each time it is asked for, so it follows the network as interfaces come and
go (the service may start before DHCP, a hotspot may come up later):

1. a route's source address: the interface a packet to the outside would leave by (no packet
   is sent);
2. with no such route (a NetworkManager hotspot at 10.42.0.1 has none), the machine's own
   addresses from the kernel's table (``/proc/net/fib_trie``), the first not on loopback;
3. still nothing but loopback: the host the request came to (a phone that reached the page
   knows a good address), unless that too is loopback (the table's own screen);
4. last, ``<hostname>.local`` (mDNS: Raspberry Pi OS answers it with avahi).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from pathlib import Path

FIB_TRIE = Path("/proc/net/fib_trie")
WILDCARDS = ("0.0.0.0", "::", "")


def route_address() -> str | None:
    """The source address of the route to the outside, or ``None`` without one."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # TEST-NET: routing only, nothing leaves the machine
        return s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()


def local_addresses(fib_trie: str | None = None) -> list[str]:
    """This machine's IPv4 addresses, loopback left out, from ``/proc/net/fib_trie`` text
    (default: read it); ``[]`` where it cannot be read."""
    if fib_trie is None:
        try:
            fib_trie = FIB_TRIE.read_text()
        except OSError:
            return []
    found: list[str] = []
    last = None
    for line in fib_trie.splitlines():
        text = line.strip()
        if text.startswith("|-- "):
            last = text[4:].strip()
        elif text == "/32 host LOCAL" and last is not None:
            if not is_loopback(last) and last not in found:
                found.append(last)
    return found


def is_loopback(host: str) -> bool:
    """``localhost``, ``127.x.x.x``, ``::1`` (a host name or an address, no port)."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _split(hostport: str) -> str:
    """The host of ``host:port`` (``[v6]:port`` too)."""
    if hostport.startswith("["):
        return hostport[1:].split("]", 1)[0]
    return hostport.rsplit(":", 1)[0] if hostport.count(":") == 1 else hostport


class PublicAddress:
    """Call it (with the request's ``Host``, when there is one) for the page's base URL.

    ``host`` is what the server listens on: a fixed address is used as it is; a wildcard
    (``0.0.0.0``) means "work it out" (see the module's docstring)."""

    def __init__(self, host: str, port: int, *,
                 route: Callable[[], str | None] = route_address,
                 addresses: Callable[[], list[str]] = local_addresses,
                 hostname: Callable[[], str] = socket.gethostname) -> None:
        self.host = host
        self.port = port
        self._route = route
        self._addresses = addresses
        self._hostname = hostname

    def guess(self) -> str | None:
        """The machine's address on the network now, ``None`` if it has only loopback."""
        if self.host not in WILDCARDS:
            return self.host
        addr = self._route()
        if addr and not is_loopback(addr):
            return addr
        others = self._addresses()
        return others[0] if others else None

    def __call__(self, request_host: str | None = None) -> str:
        addr = self.guess()
        if addr is not None:
            return f"http://{_bracket(addr)}:{self.port}/"
        if request_host and not is_loopback(_split(request_host)):
            return f"http://{request_host}/"
        return f"http://{self._hostname().split('.')[0]}.local:{self.port}/"


def _bracket(addr: str) -> str:
    return f"[{addr}]" if ":" in addr else addr
