"""The HTML pages: the table (main screen), the phone's bid pad, setup, calibration, history,
and the Micro Robots layouts.

Pages are thin: they carry the CSRF token and who the viewer is; everything live comes from the
event stream and is drawn by the static scripts.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, render_template

from .. import i18n
from . import guard

bp = Blueprint("pages", __name__)


def _context(page: str) -> dict[str, Any]:
    table = current_app.extensions["companion.table"]
    screen = guard.is_loopback()
    return {
        "page": page,
        "csrf": guard.csrf_token(),
        "admin": guard.is_admin(),
        "screen": screen,
        # The PIN shows only on the table's own screen (and in the terminal), never on phones.
        "pin": table.pages.pin if screen else None,
        "simulated": table.simulated,
        # every catalogue: the page picks the phone's own language, or the table's
        "catalogues": i18n.catalogues(),
        "lang": table.speaker.language,
    }


@bp.get("/")
def table() -> str:
    return render_template("table.html", **_context("table"))


@bp.get("/pad")
def pad() -> str:
    return render_template("pad.html", **_context("pad"))


@bp.get("/setup")
def setup() -> str:
    return render_template("setup.html", **_context("setup"))


@bp.get("/calibrate")
def calibrate() -> str:
    return render_template("calibrate.html", **_context("calibrate"))


@bp.get("/history")
def history() -> str:
    return render_template("history.html", **_context("history"))


@bp.get("/layouts")
def layouts() -> str:
    return render_template("layouts.html", **_context("layouts"))
