"""Who may do what on the page.

* Every POST carries the session's CSRF token (header ``X-CSRF-Token`` or form field
  ``csrf_token``), and a browser's ``Origin``, when sent, must be this server: another site
  cannot make a player's phone bid or a screen change the setup.
* A phone bids only for its own seat: it holds the player token it was given when it joined
  (header ``X-Player-Token``).
* Setup, calibration, undo, corrections and the virtual buttons need the table PIN, shown on
  the main screen and in the terminal: sent once to ``/api/unlock`` (the session remembers it)
  or with each request as ``X-Table-Pin``. Wrong PINs are rate limited.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from flask import abort, current_app, request, session

from ..i18n import Message

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LOOPBACK = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})


def same(sent: Any, expected: str) -> bool:
    """Constant-time equality of a secret sent by a client (any text: a header may hold
    any byte) and the one expected; anything but text is simply wrong."""
    if not isinstance(sent, str):
        return False
    return hmac.compare_digest(sent.encode("utf-8", "surrogatepass"),
                               expected.encode("utf-8", "surrogatepass"))


def csrf_token() -> str:
    """The session's CSRF token, made on first use."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """Abort 403 unless an unsafe request carries this session's token and a same-origin
    ``Origin`` (when the browser sends one)."""
    if request.method not in UNSAFE_METHODS:
        return
    origin = request.headers.get("Origin")
    if origin is not None and origin != "null":
        if urlsplit(origin).netloc != request.host:
            abort(403, description=f"cross-site request from {origin!r} refused")
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    expected = session.get("csrf")
    if not isinstance(expected, str) or not sent or not same(sent, expected):
        abort(403, description="missing or wrong CSRF token: reload the page")


def is_loopback() -> bool:
    """The request comes from this machine: the table's own screen."""
    return (request.remote_addr or "") in LOOPBACK


class PinGate:
    """Checks the table PIN and slows down guessing: after ``limit`` wrong tries from one
    address within ``window`` seconds, that address waits out the window."""

    def __init__(self, pin: str, limit: int = 5, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.pin = pin
        self.limit = limit
        self.window = window
        self._clock = clock
        self._fails: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def check(self, attempt: str, who: str) -> bool:
        """True for the right PIN; 429 when ``who`` has guessed wrong too often."""
        now = self._clock()
        with self._lock:
            recent = [t for t in self._fails.get(who, []) if now - t < self.window]
            if len(recent) >= self.limit:
                self._fails[who] = recent
                abort(429, description=Message("web.pin_wait"))
            if same(str(attempt), self.pin):
                self._fails.pop(who, None)
                return True
            recent.append(now)
            self._fails[who] = recent
            return False


def _gate() -> PinGate:
    return current_app.extensions["companion.pin"]


def is_admin() -> bool:
    """The session was unlocked with the table PIN (for this table's PIN), or the request
    carries it."""
    gate = _gate()
    if session.get("pin") is not None and same(str(session.get("pin")), _pin_mark(gate.pin)):
        return True
    sent = request.headers.get("X-Table-Pin")
    if sent is not None:
        return gate.check(sent, request.remote_addr or "?")
    return False


def unlock(pin: Any) -> bool:
    """Remember in the session that the PIN was given; False for a wrong PIN."""
    gate = _gate()
    if not isinstance(pin, str | int) or isinstance(pin, bool):
        abort(400, description="pin: the table PIN, as shown on the main screen")
    if not gate.check(str(pin), request.remote_addr or "?"):
        return False
    session["pin"] = _pin_mark(gate.pin)
    return True


def repin(pin: str) -> None:
    """The PIN changed: check the new one from now on; this session stays unlocked."""
    _gate().pin = pin
    session["pin"] = _pin_mark(pin)


def _pin_mark(pin: str) -> str:
    # The session cookie is signed but readable: keep a digest, not the PIN itself.
    key = current_app.config["SECRET_KEY"]
    key = key.encode() if isinstance(key, str) else key
    return hmac.new(key, b"pin:" + pin.encode(), "sha256").hexdigest()[:32]


def admin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """The view needs the table PIN (403 with a reason otherwise)."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not is_admin():
            abort(403, description=Message("web.pin_needed"))
        return view(*args, **kwargs)

    return wrapped
