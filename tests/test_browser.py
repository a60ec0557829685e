"""The page in a real browser: headless Chromium (Playwright) against ``companion run`` on the
simulated table, as players use it: a whole round from the page alone, phones as bid pads, and
a restart in the middle of a round.

Skips (saying why) only when /usr/bin/chromium is not installed. Set ``COMPANION_SCREENSHOT=1``
to refresh ``companion/web/static/screenshot.png`` (the README's picture of the table page).
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = ROOT / "companion" / "web" / "static" / "screenshot.png"
PIN = "135790"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}
WAIT = 20_000  # ms; a working build is far quicker

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Chromium at /usr/bin/chromium (apt install chromium)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Companion:
    """``companion run`` in its own process, on a free port, with its own journal."""

    def __init__(self, db: Path, port: int | None = None, *extra: str) -> None:
        self.db = db
        self.extra = list(extra)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> Companion:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "run", "--host", "127.0.0.1", "--port",
             str(self.port), "--db", str(self.db), "--pin", PIN, "--quiet", *self.extra],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines = []
        for line in self.proc.stdout:
            lines.append(line)
            if "Ctrl-C" in line:
                return self
        raise AssertionError("companion run did not start:\n" + "".join(lines))

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str]:
        assert self.proc is not None
        self.proc.send_signal(sig)
        out, _ = self.proc.communicate(timeout=20)
        return self.proc.returncode, out


class Api:
    """A scripted client of the same server (cookies and CSRF like a browser)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = self.opener.open(base + "/").read().decode()
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)

    def post(self, path: str, body: dict, headers: dict | None = None) -> dict:
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              "X-CSRF-Token": self.csrf, **(headers or {})})
        return json.loads(self.opener.open(req).read())

    def get(self, path: str) -> dict:
        return json.loads(self.opener.open(self.base + path).read())


@pytest.fixture
def companion(tmp_path):
    c = Companion(tmp_path / "journal.db").start()
    yield c
    if c.proc and c.proc.poll() is None:
        c.stop()


def solve_state(state: dict) -> list[tuple[str, str]]:
    """The optimal route of the round on the page, worked out here (the page keeps it hidden
    until the round is over)."""
    from companion.rules import Position
    from companion.solver import solve

    t = state["target"]
    pos = Position.from_dict({"board": {"tiles": state["board"]["tiles"]},
                              "robots": state["robots"],
                              "target": {"color": t["color"], "shape": t["shape"]},
                              "rules": state["rules"]})
    return [(m.robot, m.direction.word) for m in solve(pos).moves]


def unlock(page) -> None:
    """Unlock the table's own screen with the PIN it shows."""
    page.fill("#pin-input", page.locator("#pin").inner_text())
    page.click("#unlock button[type=submit]")
    page.wait_for_selector("#unlock.hidden", state="attached")


def players(page, *names: str) -> None:
    """Open Setup and name the players, in seat order."""
    page.click("nav >> text=Setup")
    page.wait_for_selector("#players input")
    inputs = page.locator('#players input[name="player"]')
    for i, name in enumerate(names):
        inputs.nth(i).fill(name)


def join_phones(browser, page, errors: list[str], pad: str, *names: str) -> list:
    """Each named player's phone opens its seat's join link from the table page and shows
    its pad (``"{name}'s " + pad``); the join code leaves the address bar."""
    links = [page.locator(f'.join-link[data-seat="{i}"]').get_attribute("href")
             for i in range(len(names))]
    pads = []
    for link, name in zip(links, names, strict=True):
        phone = browser.new_context(**PHONE).new_page()
        phone.on("pageerror", lambda e: errors.append(str(e)))
        phone.goto(link)
        phone.wait_for_selector(f"#who:has-text(\"{name}'s {pad}\")", timeout=WAIT)
        assert phone.url.endswith("/pad")
        pads.append(phone)
    return pads


def test_a_whole_round_from_the_page_alone(browser, companion, tmp_path):
    # bypass_csp lets the test's own wait_for_function predicates run; the page is unchanged
    screen = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = screen.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(companion.url + "/")
    # The PIN is on the table's own screen; unlock with it.
    pin = page.locator("#pin").inner_text()
    assert pin == PIN
    page.fill("#pin-input", pin)
    page.click("#unlock button[type=submit]")
    page.wait_for_selector("#unlock.hidden", state="attached")

    # Setup: two players, a short hourglass.
    players(page, "Ann", "Ben")
    page.fill('#options input[name="timer_seconds"]', "4")
    page.click("#setup button[type=submit]")
    page.wait_for_selector("#setup-ok:has-text('New game started')")

    # Back on the table page: the QR codes and the join links of both seats.
    page.click("nav >> text=Ricochet Companion")
    page.wait_for_selector('.join-link[data-seat="1"][href]', timeout=WAIT)
    assert page.locator("img.qr").count() == 2

    # Two phones join by their QR codes' links.
    pads = join_phones(browser, page, errors, "bid pad", "Ann", "Ben")

    # Reveal a chip with the simulated start button (the gpio code on mock pins).
    page.click('[data-button="start"]')
    page.wait_for_selector('#phase[data-phase="bidding"]', timeout=WAIT)
    target = page.locator("#target").inner_text()
    assert "no chip" not in target
    for phone in pads:
        phone.wait_for_selector(f"#target:has-text(\"{target}\")", timeout=WAIT)
    page.wait_for_selector('#optimal[data-state="known"]', timeout=WAIT)
    state = Api(companion.url).get("/api/state")
    assert state["optimal"] is None  # hidden from every phone until the round is over
    route = solve_state(state)

    # Bids from the phones: Ann bids more, Ben the optimum; the hourglass starts and drains.
    ann, ben = pads
    ann.click(f'#keys button[data-moves="{len(route) + 3}"]')
    page.wait_for_selector("#bids li >> text=Ann", timeout=WAIT)
    # the hourglass shows the time left from its next animation frame on
    page.wait_for_function("(document.getElementById('hourglass').dataset.left || '') !== ''",
                           timeout=WAIT)
    left = float(page.locator("#hourglass").get_attribute("data-left"))
    ben.click(f'#keys button[data-moves="{len(route)}"]')
    page.wait_for_selector("#bids li.lead >> text=Ben", timeout=WAIT)
    ben.wait_for_selector(f'#mybid[data-moves="{len(route)}"]')
    # lower-only: Ben's higher keys are disabled on his pad
    assert ben.locator(f'#keys button[data-moves="{len(route) + 1}"]').is_disabled()
    page.wait_for_function(f"Number(document.getElementById('hourglass').dataset.left) < "
                           f"{left - 1}", timeout=WAIT)
    page.wait_for_selector('#phase[data-phase="demonstrating"]', timeout=WAIT)
    ben.wait_for_selector("#demo-actions:not(.hidden)")
    assert ann.locator("#demo-actions").is_hidden()

    # Ben demonstrates by sliding the robots on the simulated table, move by move.
    for i, (robot, direction) in enumerate(route, 1):
        page.click(f'g[data-robot="{robot}"]')
        page.click(f'[data-slide="{direction}"]')
        if i < len(route):
            page.wait_for_selector(f'#demo[data-moves="{i}"]', timeout=WAIT)
    page.wait_for_selector('#verdict[data-result="success"]', timeout=WAIT)
    assert "Ben" in page.locator("#verdict").inner_text()
    page.wait_for_selector('#scores tr[data-seat="1"] >> text=1')

    # After the round: the optimal solution, replayed on the board.
    page.wait_for_selector('#optimal[data-state="shown"]', timeout=WAIT)
    page.wait_for_selector("#replay-note:not(.hidden)", timeout=WAIT)
    page.evaluate("window.scrollTo(0, 0)")
    shot = tmp_path / "table.png"
    page.screenshot(path=str(shot))
    if os.environ.get("COMPANION_SCREENSHOT"):
        page.screenshot(path=str(SCREENSHOT))
    page.wait_for_function(f"document.body.dataset.replayed === '{len(route)}'", timeout=WAIT)
    assert shot.stat().st_size > 10_000
    assert errors == []
    screen.close()


def test_the_table_page_fits_a_phone_screen(browser, companion):
    page = browser.new_context(**PHONE).new_page()
    page.goto(companion.url + "/")
    page.wait_for_selector("#conn.up", timeout=WAIT)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    keys = browser.new_context(**PHONE).new_page()
    keys.goto(companion.url + "/pad")
    box = keys.locator('#keys button[data-moves="1"]').bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44  # a thumb-sized key


def test_a_phone_without_a_join_code_cannot_bid(browser, companion):
    pad = browser.new_context(**PHONE).new_page()
    pad.goto(companion.url + "/pad")
    pad.click('#keys button[data-moves="5"]')
    pad.wait_for_selector("#pad-err:has-text('join first')")


def _game_in_progress(base: str) -> dict:
    api = Api(base)
    api.post("/api/unlock", {"pin": PIN})
    api.post("/api/setup", {"players": ["Ann", "Ben"], "rules": {"timer_seconds": 600}})
    api.post("/api/command", {"type": "reveal"})
    links = api.get("/api/join-links")
    code = links[0]["url"].split("code=")[1]
    phone = Api(base)
    token = phone.post("/api/join", {"seat": 0, "code": code})["token"]
    phone.post("/api/bid", {"moves": 11}, {"X-Player-Token": token})
    return api.get("/api/state")


def test_killed_mid_round_it_comes_back_with_the_same_round(browser, tmp_path):
    db = tmp_path / "journal.db"
    first = Companion(db).start()
    before = _game_in_progress(first.url)
    assert before["phase"] == "timer"
    first.proc.kill()  # no chance to clean up: like pulling the plug
    first.proc.wait(10)

    again = Companion(db, port=first.port).start()
    try:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(again.url + "/")
        page.wait_for_selector('#phase[data-phase="timer"]', timeout=WAIT)
        t = before["target"]
        assert page.locator("#target").inner_text() == (
            f"Target chip: {t['color']} {t['shape']}" if t["shape"] != "vortex"
            else "Target chip: the vortex — any robot may go")
        page.wait_for_selector("#bids li.lead >> text=Ann", timeout=WAIT)
        assert page.locator("#bids .bid-moves").first.inner_text() == "11"
        after = Api(again.url).get("/api/state")
        assert after["robots"] == before["robots"] and after["round"] == before["round"]
    finally:
        code, out = again.stop()
    assert code == 0 and "stopped" in out


def test_ctrl_c_stops_cleanly_with_open_pages(browser, companion):
    pages = [browser.new_context().new_page() for _ in range(3)]
    for p in pages:
        p.goto(companion.url + "/")
        p.wait_for_selector("#conn.up", timeout=WAIT)
    t0 = time.monotonic()
    code, out = companion.stop(signal.SIGINT)
    assert code == 0 and "stopped; the journal is saved" in out
    assert time.monotonic() - t0 < 10


# ---------------------------------------------------------------- Micro Robots


def micro_rows() -> list[list[str]]:
    from companion.micro import example_layout

    return [[s.name for s in row] for row in example_layout().rows]


def micro_route(state: dict, moves: int | None = None) -> list[str]:
    """A route of the round on the page (the shortest, or of exactly ``moves``), worked out
    here: the page keeps the answer off every phone until the round is over."""
    from companion.micro import Layout, route_of_length, shortest_route

    layout = Layout.from_dict(state["layout"])
    if moves is None:
        route = shortest_route(layout, state["start"], state["target"], state["via"])
    else:
        route = route_of_length(layout, state["start"], state["target"], moves, state["via"])
    return [s.name for s in route.landings]


def unreachable(state: dict) -> str:
    """A space the robot cannot reach in one move from where it stands."""
    from companion.micro import Layout, Space

    layout, here = Layout.from_dict(state["layout"]), Space.parse(state["robot"])
    return next(x.name for row in layout.rows for x in row if x != here
                and x.name != state["target"] and layout.why_not(here, x))


def test_a_micro_robots_game_played_from_the_page(browser, companion):
    screen = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = screen.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(companion.url + "/")
    unlock(page)

    # The board entered on the page, a tap at a time: a space, then its colour and number.
    page.click("nav >> text=Layouts")
    page.wait_for_selector("#whole .space")
    rows = micro_rows()
    page.click('#whole .space[data-row="0"][data-col="0"]')  # the next one is picked for us
    for r, row in enumerate(rows):
        for c, name in enumerate(row):
            if (r, c) == (5, 5):
                page.wait_for_selector("#problems li >> text=1 space still to fill")
            page.click(f'#colours [data-color="{name[:-1]}"]')
            page.click(f'#numbers [data-number="{name[-1]}"]')
    page.wait_for_selector('#problems[data-complete="1"]', timeout=WAIT)
    page.fill("#layout-name", "Kitchen table")
    page.click("#save")
    page.wait_for_selector("#layout-ok:has-text('Saved as Kitchen table')", timeout=WAIT)

    # Setup: Micro Robots, two players, the saved board.
    players(page, "Ann", "Ben")
    page.check('#game-choice input[value="micro-robots"]')
    page.select_option("#micro-layout", "Kitchen table")
    page.click("#setup button[type=submit]")
    page.wait_for_selector("#setup-ok:has-text('New game started')", timeout=WAIT)

    page.click("nav >> text=Ricochet Companion")
    page.wait_for_selector('.join-link[data-seat="1"][href]', timeout=WAIT)
    assert page.locator("#micro-board .space").count() == 36
    assert page.locator('#micro-board .space[data-space="pink1"]').inner_text() == "1"
    pads = join_phones(browser, page, errors, "pad", "Ann", "Ben")
    ann, ben = pads
    api = Api(companion.url)

    def roll() -> dict:
        before = api.get("/api/state")["seq"]
        page.click('[data-command="roll"]')
        page.wait_for_selector('#phase[data-phase="round"]', timeout=WAIT)
        state = api.get("/api/state")
        assert state["seq"] > before
        assert state["last_round"] is None  # nothing of the answer while the round is on
        page.wait_for_selector(f'#dice[data-space="{state["target"]}"]', timeout=WAIT)
        for phone in pads:
            phone.wait_for_selector(f'#pad-board .space[data-space="{state["target"]}"]'
                                    '[data-target="1"]', timeout=WAIT)
        return state

    def call(phone, n: int) -> None:
        phone.click(f'#keys button[data-moves="{n}"]')
        page.wait_for_selector('#phase[data-phase="demonstrating"]', timeout=WAIT)

    def tap(where, space: str, count: int | None) -> None:
        where.click(f'.space[data-space="{space}"]')
        if count is not None:
            page.wait_for_selector(f'#demo[data-moves="{count}"]', timeout=WAIT)

    vp = {"Ann": 0, "Ben": 0}
    # Round 1: Ann calls the shortest route and taps it on her phone.
    state = roll()
    route = micro_route(state)
    call(ann, len(route))
    ann.wait_for_selector("#demo-actions:not(.hidden)", timeout=WAIT)
    assert ben.locator("#demo-actions").is_hidden()
    for i, space in enumerate(route, 1):
        tap(ann, space, i if i < len(route) else None)
    page.wait_for_selector('#verdict[data-result="success"]', timeout=WAIT)
    vp["Ann"] += 1
    page.wait_for_selector('#scores tr[data-seat="0"] td.num >> text=1', timeout=WAIT)
    page.wait_for_selector('#answer[data-state="shown"]', timeout=WAIT)
    assert "Shortest:" in page.locator("#answer").inner_text()
    assert "Possible counts" in page.locator("#answer").inner_text()

    # Round 2: Ann calls again and lands where no move goes: illegal, her chip goes to Ben.
    state = roll()
    call(ann, 3)
    bad = unreachable(api.get("/api/state"))
    tap(page, bad, None)  # entered on the table screen
    page.wait_for_selector('#verdict[data-result="illegal"]', timeout=WAIT)
    assert "Ben" in page.locator("#verdict").inner_text()  # he got her chip
    vp["Ann"] -= 1
    vp["Ben"] += 1
    page.wait_for_selector('#scores tr[data-seat="1"] td.num >> text=1', timeout=WAIT)
    page.wait_for_selector('#scores tr[data-seat="0"] td.num >> text=0', timeout=WAIT)

    # Round 3: Ben demonstrates with the simulated hand; the simulated camera sees each landing.
    state = roll()
    route = micro_route(state)
    call(ben, len(route))
    page.check("#hand")
    for i, space in enumerate(route, 1):
        tap(page, space, i if i < len(route) else None)
    page.wait_for_selector('#verdict[data-result="success"]', timeout=WAIT)
    page.uncheck("#hand")
    vp["Ben"] += 1

    # On to the end: Ben wins rounds, calling one more than the shortest when he can.
    while vp["Ben"] < 5:
        state = roll()
        route = micro_route(state)
        padded = micro_route(state, len(route) + 2) if len(route) + 2 <= 24 else route
        call(ben, len(padded))
        for i, space in enumerate(padded, 1):
            tap(page, space, i if i < len(padded) else None)
        page.wait_for_selector('#verdict[data-result="success"]', timeout=WAIT)
        vp["Ben"] += 1
    page.wait_for_selector('#phase[data-phase="game_over"]', timeout=WAIT)
    assert "5 VP reached" in page.locator("#supply").inner_text()
    assert "🏆" in page.locator('#scores tr[data-seat="1"]').inner_text()
    for phone in pads:
        phone.wait_for_selector("#phase:has-text('Game over')", timeout=WAIT)
    assert errors == []
    history = api.get("/api/history")["games"]
    assert history[-1]["game"] == "micro-robots" and history[-1]["winners"] == ["Ben"]
    screen.close()


def test_a_micro_game_killed_mid_round_comes_back_with_nothing_lost(browser, tmp_path):
    db = tmp_path / "journal.db"
    first = Companion(db).start()
    api = Api(first.url)
    api.post("/api/unlock", {"pin": PIN})
    api.post("/api/layouts", {"name": "Kitchen table", "rows": micro_rows()})
    api.post("/api/setup", {"game": "micro-robots", "players": ["Ann", "Ben"],
                            "layout": "Kitchen table"})
    api.post("/api/command", {"type": "place", "start": "pink1", "target": "white2"})
    link = api.get("/api/join-links")[1]["url"]
    phone = Api(first.url)
    token = phone.post("/api/join", {"seat": 1, "code": link.split("code=")[1]})["token"]
    phone.post("/api/call", {"moves": 5}, {"X-Player-Token": token})
    api.post("/api/command", {"type": "land", "space": "pink6"})
    api.post("/api/command", {"type": "land", "space": "white6"})
    before = api.get("/api/state")
    first.proc.kill()  # like pulling the plug
    first.proc.wait(10)

    again = Companion(db, port=first.port).start()
    try:
        screen = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        screen.goto(again.url + "/")
        screen.wait_for_selector('#phase[data-phase="demonstrating"]', timeout=WAIT)
        screen.wait_for_selector('#demo[data-moves="2"]', timeout=WAIT)
        assert "Ben called 5" in screen.locator("#demo").inner_text()
        after = Api(again.url).get("/api/state")
        for key in ("demonstrating", "layout", "players", "start", "target", "robot"):
            assert after[key] == before[key], key
        assert after["timer"]["running"] is False
        unlock(screen)
        for i, space in enumerate(["red6", "red2", "white2"], 3):
            screen.click(f'.space[data-space="{space}"]')
            if i < 5:
                screen.wait_for_selector(f'#demo[data-moves="{i}"]', timeout=WAIT)
        screen.wait_for_selector('#verdict[data-result="success"]', timeout=WAIT)
        screen.wait_for_selector('#scores tr[data-seat="1"] td.num >> text=1', timeout=WAIT)
    finally:
        code, out = again.stop()
    assert code == 0 and "stopped" in out


# ---------------------------------------------------------------- a real camera


def test_a_chip_laid_before_the_camera_starts_the_round_and_the_page_says_so(browser, tmp_path):
    import cv2

    from companion.store import Store
    from companion.table import Table
    from companion.vision.render import render

    tiles, robots = ["4B", "3B", "2B", "1A"], {"red": "c2", "green": "a13", "blue": "l14",
                                               "yellow": "c15"}
    db = tmp_path / "journal.db"
    table = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db))
    table.start()
    spec = table.pages.check_setup(["Ann", "Ben"], "abacus-2013", {"fifth_robot": "none"}, tiles)
    assert table.submit({**spec, "robots": robots}).ok
    table.stop()
    frames = tmp_path / "frames"  # the camera's recording: the chip lies on the centre piece
    frames.mkdir()
    shown = {"board": {"tiles": tiles}, "robots": robots,
             "target": {"color": "blue", "shape": "triangle"}}
    for i in range(4):
        cv2.imwrite(str(frames / f"{i}.png"), render(shown, seed=3, noise_seed=i, noise=2).image)
    companion = Companion(db, None, "--camera", str(frames)).start()
    try:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(companion.url + "/")
        page.wait_for_selector('#phase[data-phase="bidding"]', timeout=WAIT)
        page.wait_for_selector("#message:has-text('The camera read the chip: blue triangle')")
        assert "blue" in page.locator("#target").inner_text().lower()
        # the recording is over: the page says so, and the game goes on by hand
        page.wait_for_selector("#camera-status:has-text('the recording has ended')",
                               timeout=WAIT)
        assert errors == []
    finally:
        companion.stop()


def test_a_chip_picked_on_the_page_is_revealed(browser, companion):
    api = Api(companion.url)
    api.post("/api/unlock", {"pin": PIN})
    api.post("/api/setup", {"players": ["Ann", "Ben"]})
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(companion.url + "/")
    unlock(page)
    page.wait_for_selector("#pick:not(.hidden)", timeout=WAIT)
    assert page.locator("#pick-chip option").count() == 17
    page.select_option("#pick-chip", "yellow hexagon")
    page.click("#pick button[type=submit]")
    page.wait_for_selector('#phase[data-phase="bidding"]', timeout=WAIT)
    assert api.get("/api/state")["target"]["chip"] == "yellow hexagon"
    assert page.locator("#pick").is_hidden()  # a round is on: no chip is picked now


def test_the_layouts_page_reads_the_board_from_the_camera(browser, companion):
    api = Api(companion.url)
    api.post("/api/unlock", {"pin": PIN})
    api.post("/api/layouts", {"name": "Kitchen table", "rows": micro_rows()})
    api.post("/api/setup", {"game": "micro-robots", "players": ["Ann", "Ben"],
                            "layout": "Kitchen table"})
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(companion.url + "/")
    unlock(page)
    page.click("nav >> text=Layouts")
    page.click("#read-camera")
    page.wait_for_selector('#problems[data-complete="1"]', timeout=WAIT)
    page.wait_for_selector("#layout-ok:has-text('The camera read the whole board')")
    rows = micro_rows()
    for r, c in ((0, 0), (2, 3), (5, 5)):
        cell = page.locator(f'#whole .space[data-row="{r}"][data-col="{c}"]')
        assert cell.get_attribute("data-space") == rows[r][c]
    page.fill("#layout-name", "Read by the camera")
    page.click("#save")
    page.wait_for_selector("#layout-ok:has-text('Saved as Read by the camera')", timeout=WAIT)
    assert api.get("/api/layouts")["proposal"] is False  # saved: the proposal is settled
