"""The live page: a Flask app over the table loop.

``create_app(table, config)`` builds the app; the table (``companion.table.Table``) is the only
thing it changes state through. Blueprints: ``pages`` (HTML) and ``api`` (JSON and the event
stream). Every POST is CSRF-checked; every error is JSON with a reason and a 4xx status.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from .. import i18n
from . import api, guard, pages

# Bids and setup are tiny; a large body is a mistake or an attack.
MAX_BODY = 64 * 1024


class _Json(DefaultJSONProvider):
    """JSON for the pages: words the server made for players (:class:`companion.i18n.Message`)
    go out as their English text and, beside it under ``FIELD_msg``, as their key and values
    for each page to render in its own language."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return super().dumps(i18n.jsonable(obj), **kwargs)


def create_app(table: Any, config: dict[str, Any] | None = None) -> Flask:
    """The page for ``table``. ``config`` may set ``PUBLIC_URL`` (the address phones reach,
    used in the join QR codes), ``SSE_HEARTBEAT`` (seconds), and any Flask setting."""
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=table.secret,
        MAX_CONTENT_LENGTH=MAX_BODY,
        MAX_FORM_MEMORY_SIZE=MAX_BODY,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_NAME="companion",
        PERMANENT_SESSION_LIFETIME=7 * 24 * 3600,
        SSE_HEARTBEAT=5.0,
        PUBLIC_URL=None,
        TEMPLATES_AUTO_RELOAD=False,
    )
    app.config.update(config or {})
    app.debug = False
    app.json = _Json(app)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["companion.table"] = table
    app.extensions["companion.pin"] = guard.PinGate(table.pages.pin)

    app.before_request(guard.check_csrf)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    from . import practice

    app.register_blueprint(practice.bp)

    @app.after_request
    def _headers(resp):  # type: ignore[no-untyped-def]
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
        return resp

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException):  # type: ignore[no-untyped-def]
        reason = e.description or e.name
        if e.code == 413:
            reason = f"request body too large (at most {MAX_BODY // 1024} KB)"
        elif e.code == 404 and not request.path.startswith("/api/") and reason.startswith(
                "The requested URL"):
            reason = f"no page at {request.path}"
        elif e.code == 405:
            reason = f"{request.method} is not allowed on {request.path}"
        resp = jsonify({"error": reason, "status": e.code})
        resp.status_code = e.code or 400
        if e.code == 405 and getattr(e, "valid_methods", None):
            resp.headers["Allow"] = ", ".join(e.valid_methods)
        return resp

    @app.errorhandler(Exception)
    def _unexpected(e: Exception):  # type: ignore[no-untyped-def]
        app.logger.exception("unexpected error on %s %s", request.method, request.path)
        return jsonify({"error": f"internal error: {type(e).__name__}", "status": 500}), 500

    return app
