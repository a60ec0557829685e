"""The JSON API and the event stream: what the page, the phones and the virtual buttons call.

Every answer is JSON; every refusal is a 4xx with ``{"error": reason}`` and changes nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import io
from typing import TYPE_CHECKING, Any

import segno
from flask import Blueprint, Response, abort, current_app, jsonify, request, session

from .. import i18n
from ..events import BrokerBusy, BrokerClosed, BrokerFull
from ..i18n import Message
from ..names import PlayerNameError, check_player_name, shown_history
from . import guard

if TYPE_CHECKING:
    from ..table import Table
    from ..table_pages import SimHand, TablePages
    from ..table_voice import TableVoice

bp = Blueprint("api", __name__, url_prefix="/api")

# Game commands a PIN holder may send from the page (the referee's hand); bids and the
# demonstrating player's own calls go through the player routes instead.
ADMIN_COMMANDS = frozenset({
    "reveal", "undo", "start_timer", "done", "give_up", "verdict", "correct", "move",
    # Micro Robots: the digital dice, the real dice's result, an agreed re-roll, a landing
    "roll", "reroll", "place", "land",
})
COMMAND_FIELDS = frozenset({
    "seat", "chip", "success", "reason", "move", "award", "revoke", "bid", "timer", "robots",
    "snapshot", "name", "board", "space", "spaces", "start", "target", "via",
})
# Fields that name a Micro Robots space: short text, checked here before the game sees them.
SPACE_FIELDS = frozenset({"space", "start", "target", "via"})
PLAYER_ACTIONS = frozenset({"done", "give_up", "land"})
MAX_SEATS = 8
MAX_SPACE_TEXT = 24


def _table() -> Table:
    """The table loop this app serves: commands go to it (``submit``), the state comes from
    it (``view``)."""
    table: Table = current_app.extensions["companion.table"]
    return table


def _pages() -> TablePages:
    """What the pages ask of the table beside commands (setup form, history, hints, PIN)."""
    return _table().pages


def _speaker() -> TableVoice:
    """The table's language and voice."""
    return _table().speaker


def body() -> dict[str, Any]:
    """The request's JSON object, or 400 naming what is wrong."""
    if not request.is_json:
        abort(415, description="send JSON (Content-Type: application/json)")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        abort(400, description="body: a JSON object")
    return data


def _int(data: dict[str, Any], key: str, low: int, high: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        abort(400, description=f"{key}: a whole number from {low} to {high}, not {value!r}")
    return value


def _outcome(out: Any) -> Response:
    """Turn the table's answer into a response: 200 with the state, or 409 with the game's
    reason (the command was refused, nothing changed)."""
    if not out.ok:
        return jsonify({"error": out.reason}), 409
    return jsonify({"ok": True, "result": out.result, "state": _table().view()})


# ---------------------------------------------------------------- seats and tokens


def _mac(kind: str, seat: int) -> str:
    table = _table()
    msg = f"{kind}:{table.epoch}:{seat}".encode()
    return hmac.new(table.secret, msg, hashlib.sha256).hexdigest()


def join_code(seat: int) -> str:
    """The code in a seat's QR: whoever scans it becomes that seat's bid pad."""
    return _mac("join", seat)[:12]


def player_token(seat: int) -> str:
    """The token a joined phone sends with its bids. Derived, so it survives a restart, and
    changes with each new game."""
    return _mac("player", seat)[:32]


def seat_of_token(token: str | None) -> int | None:
    if not token:
        return None
    for seat in range(MAX_SEATS):
        if guard.same(token, player_token(seat)):
            return seat
    return None


def join_url(seat: int) -> str:
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    if callable(base):  # worked out per request (web/address.py): the network may change
        base = base(request.host)
    return f"{base.rstrip('/')}/pad?seat={seat}&code={join_code(seat)}"


def _seats() -> list[dict[str, Any]]:
    return list(_table().view().get("players") or [])


def _player_seat() -> int:
    seat = seat_of_token(request.headers.get("X-Player-Token"))
    if seat is None:
        abort(403, description=Message("web.token_wrong"))
    return seat


def _own_seat(data: dict[str, Any], verb: str) -> int:
    """The phone's own seat; 403 when the body names another (a phone ``verb`` only for its
    own player)."""
    seat = _player_seat()
    if "seat" in data and data["seat"] != seat:
        abort(403, description=Message(f"web.own_player_only.{verb}"))
    return seat


# ---------------------------------------------------------------- reading


@bp.get("/state")
def state() -> Response:
    return jsonify(_table().view())


@bp.get("/events")
def events() -> Response:
    broker = _table().broker
    last = request.headers.get("Last-Event-ID") or request.args.get("last")
    # a page of this table (its session came from one of our pages, or it holds the PIN or
    # a player token) goes before anonymous streams; the table's own screen is not limited
    known = (isinstance(session.get("csrf"), str) or guard.is_admin()
             or seat_of_token(request.headers.get("X-Player-Token")) is not None)
    client = None if guard.is_loopback() else (request.remote_addr or "?")
    try:
        sub, first = broker.subscribe(last, client=client, known=known)
    except BrokerBusy as e:
        abort(429, description=i18n.said(e))
    except (BrokerFull, BrokerClosed) as e:
        resp = jsonify({"error": str(e), "status": 503})
        resp.status_code = 503
        resp.headers["Retry-After"] = "5"
        return resp
    heartbeat = float(current_app.config.get("SSE_HEARTBEAT", 5.0))
    resp = Response(sub.stream(first, heartbeat), mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache, no-transform"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp


@bp.get("/history")
def history() -> Response:
    return jsonify(shown_history(_pages().history()))


# ---------------------------------------------------------------- players


@bp.post("/join")
def join() -> Response:
    data = body()
    seat = _int(data, "seat", 0, MAX_SEATS - 1)
    code = data.get("code")
    if not guard.same(code, join_code(seat)):
        abort(403, description=Message("web.join_code_wrong"))
    seats = _seats()
    if seat >= len(seats):
        abort(409, description=Message("web.no_such_seat", seat=seat))
    return jsonify({"seat": seat, "token": player_token(seat), "name": seats[seat].get("name"),
                    "epoch": _table().view().get("epoch")})


def _phone_number(kind: str, key: str, verb: str) -> Response:
    """A phone's number of moves for its own player, as the game's ``kind`` command."""
    data = body()
    seat = _own_seat(data, verb)
    moves = _int(data, "moves", 1, 99)
    return _outcome(_table().submit({"type": kind, "seat": seat, key: moves}, "phone"))


@bp.post("/bid")
def bid() -> Response:
    return _phone_number("bid", "value", "bids")


@bp.post("/call")
def call() -> Response:
    """Micro Robots: a phone calls the number of moves its player has found."""
    return _phone_number("call", "number", "calls")


def _space_text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not 0 < len(value) <= MAX_SPACE_TEXT:
        abort(400, description=f"{key}: a space like 'pink6', not {value!r}")
    return value


@bp.post("/player/<action>")
def player_action(action: str) -> Response:
    if action not in PLAYER_ACTIONS:
        abort(404, description=f"unknown player action {action!r}")
    data = body()
    seat = _own_seat(data, "acts")
    cmd: dict[str, Any] = {"type": action, "seat": seat}
    if action == "land":  # Micro Robots: the demonstrator taps where the robot landed
        cmd["space"] = _space_text(data, "space")
    return _outcome(_table().submit(cmd, "phone"))


# How a refused answer to the camera's question is told: a body that is not an answer to the
# question asked is malformed; the demonstrator may not answer; no question may be open.
ANSWER_REFUSALS = {"answer.malformed": 400, "answer.not_asked": 400, "answer.not_bool": 400,
                   "answer.not_demonstrator": 403, "answer.none_open": 409}


@bp.post("/answer")
def answer() -> Response:
    """The players watching answer the camera's question (``{"robots": {"blue": true}}``:
    true, the camera saw it right; false, it stands where it stood): a seated player's phone
    (its token) other than the demonstrator's, or the main screen with the table PIN."""
    data = body()
    _only(data, ("robots",), "a field of an answer (robots: robot → true or false)")
    token = request.headers.get("X-Player-Token")
    seat: int | None
    if token is not None:
        seat = _player_seat()
    elif guard.is_admin():
        seat = None  # the host, at the main screen
    else:
        abort(403, description=Message("answer.who"))
    referee = _table().referee
    out = _table().call(lambda: referee.question.answer(data.get("robots"), seat))
    if not out.ok:
        abort(ANSWER_REFUSALS.get(getattr(out.reason, "key", ""), 409), description=out.reason)
    return jsonify({"ok": True, "result": out.result, "state": _table().view()})


# ---------------------------------------------------------------- the PIN holder


@bp.post("/unlock")
def unlock() -> Response:
    data = body()
    if not guard.unlock(data.get("pin")):
        abort(403, description=Message("unlock.wrong"))
    return jsonify({"ok": True})


@bp.post("/pin")
@guard.admin_required
def change_pin() -> Response:
    """A new table PIN (the old one, or the session unlocked with it, is needed): kept beside
    the journal, so it is the PIN after a restart too. Other pages unlocked with the old PIN
    must unlock again."""
    data = body()
    try:
        pin = _pages().set_pin(data.get("pin"))
    except ValueError as e:
        abort(400, description=i18n.said(e))
    guard.repin(pin)
    return jsonify({"ok": True})


@bp.post("/lock")
def lock() -> Response:
    session.pop("pin", None)
    return jsonify({"ok": True})


@bp.get("/qr/<int:seat>.svg")
def qr(seat: int) -> Response:
    if not (guard.is_loopback() or guard.is_admin()):
        abort(403, description="join codes are shown on the main screen only")
    if not 0 <= seat < MAX_SEATS:
        abort(404, description=f"seat {seat}: no such seat")
    out = io.BytesIO()
    segno.make(join_url(seat), error="m").save(out, kind="svg", scale=4, border=2,
                                                 xmldecl=False)
    return Response(out.getvalue(), mimetype="image/svg+xml")


@bp.get("/join-links")
@guard.admin_required
def join_links() -> Response:
    return jsonify([{"seat": i, "url": join_url(i)} for i in range(len(_seats()))])


@bp.post("/command")
@guard.admin_required
def command() -> Response:
    data = body()
    kind = data.get("type")
    if kind not in ADMIN_COMMANDS:
        abort(400, description=f"type: one of {', '.join(sorted(ADMIN_COMMANDS))}")
    cmd = {"type": kind}
    for key, value in data.items():
        if key == "type":
            continue
        if key not in COMMAND_FIELDS:
            abort(400, description=f"{key}: not a field of a {kind} command")
        if key in SPACE_FIELDS and value is not None:
            value = _space_text(data, key)
        if key == "spaces" and (not isinstance(value, list) or not 0 < len(value) <= 99
                                or not all(isinstance(x, str) and 0 < len(x) <= MAX_SPACE_TEXT
                                           for x in value)):
            abort(400, description="spaces: a list of spaces like ['pink6', 'white6']")
        if key == "name" and isinstance(value, dict) and "name" in value:
            try:
                value = {**value, "name": check_player_name(value["name"], "name")}
            except PlayerNameError as e:
                abort(400, description=i18n.said(e))
        cmd[key] = value
    if kind in ("verdict", "correct"):
        cmd["by"] = "referee"
    return _outcome(_table().submit(cmd, "page"))


# What the page is told when a new game would end one in play (it asks the user first).
def _game_in_play() -> str | None:
    """What a new game would end: a game with a round played or in play, not yet over."""
    state = _table().view()
    if state.get("phase") in (None, "setup", "game_over") or not state.get("round"):
        return None
    scores = ", ".join(f"{p.get('name')} {p.get('chips', p.get('vp', 0))}"
                       for p in state.get("players") or [])
    return Message("setup.game_in_play", round=state["round"], scores=scores)


@bp.post("/hint")
def hint() -> Response:
    """Solo play: a hint at the round in play, ``level`` 1 (the length) to 4 (the route),
    journaled so that the round counts as hinted; 409 with the reason when there is none."""
    level = _int(body(), "level", 1, 4)
    got = _pages().hint(level)
    if "error" in got:
        return jsonify(got), 409
    return jsonify({"ok": True, **got, "state": _table().view()})


def _only(data: dict[str, Any], fields: tuple[str, ...], what: str, *,
          listed: bool = False) -> None:
    """A 400 naming the first field of ``data`` that is not one of ``fields`` ("x: not
    ``what``", the fields listed after it with ``listed``)."""
    unknown = sorted(set(data) - set(fields))
    if unknown:
        tail = f" ({', '.join(fields)})" if listed else ""
        abort(400, description=f"{unknown[0]}: not {what}{tail}")


@bp.post("/setup")
@guard.admin_required
def setup() -> Response:
    data = body()
    replace = data.pop("replace", None)
    if replace is not None and not isinstance(replace, bool):
        abort(400, description="replace: true to end the game in play")
    players = data.get("players")
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_SEATS:
        abort(400, description=f"players: 1 to {MAX_SEATS} names of 1-24 characters")
    try:
        players = [check_player_name(p, f"players[{i}]") for i, p in enumerate(players)]
    except PlayerNameError as e:
        abort(400, description=i18n.said(e))
    if data.get("game", "ricochet-robots") == "micro-robots":
        return _micro_setup(data, players, replace)
    if data.get("game", "ricochet-robots") != "ricochet-robots":
        abort(400, description="game: ricochet-robots or micro-robots")
    _only(data, ("game", "players", "preset", "rules", "tiles"),
          "a field of a Ricochet Robots setup", listed=True)
    preset = data.get("preset", "abacus-2013")
    options = data.get("rules", {})
    tiles = data.get("tiles")
    if not isinstance(preset, str):
        abort(400, description="preset: a preset name")
    if not isinstance(options, dict):
        abort(400, description="rules: an object of rule options")
    if tiles is not None and (not isinstance(tiles, list) or len(tiles) != 4
                              or not all(isinstance(t, str) for t in tiles)):
        abort(400, description="tiles: four tile names like ['4B', '3B', '2B', '1A']")
    try:
        spec = _pages().check_setup(players, preset, options, tiles)
    except ValueError as e:
        abort(400, description=i18n.said(e))
    return _new_game(spec, replace)


def _new_game(spec: dict[str, Any], replace: bool | None) -> Response:
    """Start the game set up by ``spec``; one in play is ended only when the request says
    ``"replace": true`` (the page asks the user first, on this 409)."""
    running = _game_in_play()
    if running is not None and replace is not True:
        return jsonify({"error": running, "confirm": True, "status": 409}), 409
    return _outcome(_table().submit(spec, "page"))


def _micro_setup(data: dict[str, Any], players: list[str], replace: bool | None) -> Response:
    _only(data, ("game", "players", "layout", "options", "first_roller"),
          "a field of a Micro Robots setup")
    layout = data.get("layout")
    if layout is not None and not isinstance(layout, str | dict):
        abort(400, description="layout: the name of a saved layout, or a layout object")
    options = data.get("options", {})
    if not isinstance(options, dict):
        abort(400, description="options: an object like {\"expert\": true}")
    try:
        spec = _pages().check_micro_setup(players, layout, options,
                                          data.get("first_roller", 0))
    except ValueError as e:
        abort(400, description=i18n.said(e))
    return _new_game(spec, replace)


@bp.get("/setup-info")
@guard.admin_required
def setup_info() -> Response:
    return jsonify(_pages().setup_info())


@bp.get("/camera.jpg")
@guard.admin_required
def camera() -> Response:
    overlay = request.args.get("overlay", "1") != "0"
    jpeg = _table().eyes.jpeg(overlay=overlay)
    if jpeg is None:
        abort(409, description=Message("calibrate.no_picture"))
    resp = Response(jpeg, mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/detected")
@guard.admin_required
def detected() -> Response:
    return jsonify(_table().eyes.detected())


@bp.post("/calibrate")
@guard.admin_required
def calibrate() -> Response:
    data = body()
    corners = data.get("corners")
    ok = (isinstance(corners, list) and len(corners) == 4 and all(
        isinstance(c, list) and len(c) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 10000
                for v in c) for c in corners))
    if not ok:
        abort(400, description="corners: four [x, y] image points, north-west first, clockwise")
    try:
        result = _table().eyes.calibrate_corners([(float(x), float(y)) for x, y in corners])
    except ValueError as e:
        abort(400, description=i18n.said(e))
    return jsonify({"ok": True, "result": result})


@bp.post("/calibrate/colors")
@guard.admin_required
def calibrate_colors() -> Response:
    body()
    try:
        result = _pages().calibrate_colors()
    except ValueError as e:
        abort(409, description=i18n.said(e))
    return jsonify({"ok": True, "result": result})


# ---------------------------------------------------------------- the simulated table


def _sim() -> SimHand:
    """The simulated table's hand and buttons (404 on a real table)."""
    table = _table()
    if not table.simulated:
        abort(404, description="virtual buttons exist on the simulated table only")
    return table.hand


@bp.post("/buttons/<name>")
@guard.admin_required
def button(name: str) -> Response:
    data = body()
    action = data.get("action", "press")
    if action not in ("press", "hold", "release", "turn"):
        abort(400, description="action: press, hold, release or turn")
    steps = data.get("steps", 1)
    if isinstance(steps, bool) or not isinstance(steps, int) or not -20 <= steps <= 20:
        abort(400, description="steps: a whole number from -20 to 20")
    try:
        _sim().press(name, action, steps)
    except KeyError:
        abort(404, description=f"no button called {name!r}")
    except ValueError as e:
        abort(400, description=i18n.said(e))
    return jsonify({"ok": True})


@bp.post("/sim/move")
@guard.admin_required
def sim_move() -> Response:
    data = body()
    robot, direction = data.get("robot"), data.get("direction")
    if not isinstance(robot, str) or not isinstance(direction, str):
        abort(400, description="robot and direction: like {\"robot\": \"blue\", "
                               "\"direction\": \"up\"}")
    try:
        where = _sim().slide(robot, direction)
    except ValueError as e:
        abort(409, description=i18n.said(e))
    return jsonify({"ok": True, "robots": where})


@bp.post("/sim/micro")
@guard.admin_required
def sim_micro() -> Response:
    """The simulated hand sets the Micro Robots robot down on a space, or lifts it (null)."""
    data = body()
    space = data.get("space")
    if space is not None:
        space = _space_text(data, "space")
    try:
        where = _sim().put_micro(space)
    except ValueError as e:
        abort(409, description=i18n.said(e))
    return jsonify({"ok": True, "robot": where})


# ---------------------------------------------------------------- Micro Robots layouts


def _shelf() -> Any:
    shelf = _table().layouts
    if shelf is None:
        abort(409, description="this table keeps no saved layouts (it has no database)")
    return shelf


def _grid(data: dict[str, Any]) -> tuple[list[list[Any]], list[str]]:
    """The board a request enters: ``rows`` (six rows of six, null where empty) or
    ``sections`` with ``rotations``; the rows and every problem found."""
    from ..micro import check_rows, place_sections

    if ("rows" in data) == ("sections" in data):
        abort(400, description="give either rows (six rows of six spaces) or sections (four "
                               "3×3 sections with rotations)")
    if "rows" in data:
        rows, problems = data["rows"], []
    else:
        rows, problems = place_sections(data["sections"], data.get("rotations", [0, 0, 0, 0]))
    for row in rows if isinstance(rows, list) else []:
        for x in row if isinstance(row, list) else []:
            if x is not None and (not isinstance(x, str) or len(x) > MAX_SPACE_TEXT):
                abort(400, description=f"rows: {x!r} is not a space like 'pink6'")
    return rows, problems + check_rows(rows)


@bp.post("/layouts/check")
@guard.admin_required
def layout_check() -> Response:
    """Check a board being entered, a tap at a time: every problem, in words."""
    rows, problems = _grid(body())
    return jsonify({"rows": rows, "problems": problems, "complete": not problems})


@bp.get("/layouts")
@guard.admin_required
def layouts() -> Response:
    return jsonify({"layouts": _shelf().list(), "proposal": _pages().proposal() is not None})


@bp.get("/layouts/proposal")
@guard.admin_required
def layout_proposal() -> Response:
    p = _pages().proposal()
    if p is None:
        abort(404, description=Message("web.no_proposal"))
    return jsonify(p)


@bp.post("/layouts/read")
@guard.admin_required
def layout_read() -> Response:
    """Read the Micro Robots board in the camera's latest picture and propose it (as the
    camera proposes a layout on its own); the answer is the proposal to confirm or correct."""
    body()
    try:
        return jsonify(_pages().read_layout())
    except ValueError as e:
        abort(409, description=i18n.said(e))


@bp.post("/layouts/proposal/dismiss")
@guard.admin_required
def layout_proposal_dismiss() -> Response:
    body()
    _table().call(_pages().dismiss_proposal)
    return jsonify({"ok": True})


@bp.get("/layouts/<path:name>")  # a name may hold "/"
@guard.admin_required
def layout_get(name: str) -> Response:
    from ..micro import LayoutError

    try:
        return jsonify(_shelf().load(name).to_dict())
    except LayoutError as e:
        abort(404, description=i18n.said(e))


@bp.post("/layouts")
@guard.admin_required
def layout_save() -> Response:
    """Save a board by name (``replace``: overwrite a layout of that name)."""
    from ..micro import Layout, LayoutError

    data = body()
    _only(data, ("name", "rows", "sections", "rotations", "replace"), "a field of a layout")
    rows, problems = _grid(data)
    if problems:
        abort(400, description="; ".join(problems))
    _addressable(data.get("name"))
    try:
        layout = Layout.from_rows(rows, "")
        saved = _shelf().save(Layout(layout.rows, data.get("name")),  # type: ignore[arg-type]
                              replace=data.get("replace") is True)
    except LayoutError as e:
        abort(409 if "already saved" in str(e) else 400, description=i18n.said(e))
    return jsonify({"ok": True, "layout": saved.to_dict(), "layouts": _shelf().list()})


def _addressable(name: Any) -> None:
    """A layout is addressed as ``/api/layouts/NAME``; ``proposal`` there is the camera's."""
    if isinstance(name, str) and " ".join(name.split()) == "proposal":
        abort(400, description="name: 'proposal' is where the camera's proposal is kept; "
                               "choose another name")


@bp.post("/layouts/<path:name>/rename")
@guard.admin_required
def layout_rename(name: str) -> Response:
    from ..micro import LayoutError

    data = body()
    _addressable(data.get("to"))
    try:
        layout = _shelf().rename(name, data.get("to"))
    except LayoutError as e:
        abort(404 if "no layout called" in str(e) else 409 if "already saved" in str(e)
              else 400, description=i18n.said(e))
    return jsonify({"ok": True, "layout": layout.to_dict(), "layouts": _shelf().list()})


@bp.post("/layouts/<path:name>/delete")
@guard.admin_required
def layout_delete(name: str) -> Response:
    from ..micro import LayoutError

    body()
    try:
        _shelf().delete(name)
    except LayoutError as e:
        abort(404 if "no layout called" in str(e) else 400, description=i18n.said(e))
    return jsonify({"ok": True, "layouts": _shelf().list()})


@bp.post("/settings")
@guard.admin_required
def settings() -> Response:
    """The table's language (screen and voice) and the voice's on/off and volume."""
    data = body()
    _only(data, ("language", "voice_on", "volume"), "a setting", listed=True)
    speaker = _speaker()
    try:
        speaker.set_language(data.get("language", speaker.language), data.get("voice_on"),
                             data.get("volume"))
    except ValueError as e:
        abort(400, description=i18n.said(e))
    return jsonify({"language": speaker.language,
                    "voice": speaker.voice.status() if speaker.voice is not None else None})


@bp.post("/voice/test")
@guard.admin_required
def voice_test() -> Response:
    """Say the game's name, to try the volume."""
    from .. import i18n

    speaker = _speaker()
    voice = speaker.voice
    if voice is None:
        abort(409, description="this table has no voice")
    words = i18n.text(speaker.language, "say.test")
    voice.say(words)
    return jsonify({"said": words, "voice": voice.status()})
