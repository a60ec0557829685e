"""The page in the players' words, in English, German and French, from a 390×844 phone to a
1280×800 table screen (headless Chromium against ``companion run`` on the simulated table).

Each language plays one round: Setup in plain words, straight to the table, two phones
(one with a long name) bidding in their browser's language, a demonstration with the arrow
keys, and after it the verdict, the best route and the scores on every phone. On every page
no raw state word or option name shows, and no element is wider than the viewport. A
screenshot of each phase in each language is saved in ``screenshots/`` (git-ignored) for a
person to look at. ``COMPANION_SCREENSHOT=1`` also refreshes the README's pictures of the
table page and a phone (``companion/web/static/screenshot*.png``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from test_browser import CHROMIUM, PHONE, PIN, WAIT, Api, Companion, solve_state

from companion import i18n

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "screenshots"
STATIC = ROOT / "companion" / "web" / "static"
TABLE = {"viewport": {"width": 1280, "height": 800}, "bypass_csp": True}  # for wait_for_function
LOCALES = {"en": "en-GB", "de": "de-DE", "fr": "fr-FR"}
LONG = "Maximiliane Hohenzollern"  # 24 characters: the longest name Setup takes

# what must never show: the game's own state names and option names
RAW = re.compile(r"\b(idle|timer|bidding|demonstrating|round_over|game_over|at_most|exactly_bid|"
                 r"bid_order|fewer_chips\w*|tile sides|[a-z]+_[a-z_]+)\b")

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Chromium at /usr/bin/chromium (apt install chromium)")

# every element's right edge inside the viewport (fixed-size scrollers excepted: none here)
OVERFLOW_JS = """(w) => {
  const out = [];
  for (const n of document.querySelectorAll('body *')) {
    const r = n.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const cls = typeof n.className === 'string' ? n.className : '';
    const name = `${n.tagName.toLowerCase()}#${n.id}.${cls}`;
    const span = `${Math.round(r.left)}..${Math.round(r.right)}`;
    if (r.right > w + 1 || r.left < -1) out.push(`${name} ${span}`);
  }
  const page = document.documentElement.scrollWidth;
  if (page > w) out.push(`page ${page} > ${w}`);
  if (window.innerWidth > w) out.push(`the phone zoomed out to ${window.innerWidth} px`);
  return out;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    c = Companion(tmp_path_factory.mktemp("words") / "journal.db").start()
    yield c
    if c.proc and c.proc.poll() is None:
        c.stop()


def words(lang: str, key: str, **params) -> str:
    return i18n.text(lang, key, **params)


def check_page(page, where: str) -> None:
    """No raw state word and no element wider than the viewport."""
    text = page.evaluate("document.body.innerText")
    raw = RAW.findall(text)
    assert not raw, f"{where}: raw words {raw} in:\n{text}"
    wide = page.evaluate(OVERFLOW_JS, page.viewport_size["width"])
    assert not wide, f"{where}: wider than the viewport: {wide[:8]}"


def shot(page, lang: str, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{lang}-{name}.png"), full_page=True)


def join(browser, table, lang: str, names: list[str], errors: list[str]) -> list:
    pads = []
    for seat, name in enumerate(names):
        link = table.locator(f'.join-link[data-seat="{seat}"]').get_attribute("href")
        phone = browser.new_context(**PHONE, locale=LOCALES[lang], bypass_csp=True).new_page()
        phone.on("pageerror", lambda e: errors.append(str(e)))
        phone.goto(link)
        phone.wait_for_selector(f"#who:has-text(\"{words(lang, 'pad.who', name=name)}\")",
                                timeout=WAIT)
        pads.append(phone)
    return pads


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_a_round_in_each_language_on_a_phone_and_the_table(browser, server, lang):
    errors: list[str] = []
    # the table's screen is an English browser: its words follow the language chosen on Setup;
    # the phones follow their own browser's language
    screen = browser.new_context(**TABLE, locale="en-GB")
    table = screen.new_page()
    table.on("pageerror", lambda e: errors.append(str(e)))
    table.goto(server.url + "/")
    table.fill("#pin-input", PIN)
    table.click("#unlock button[type=submit]")
    table.wait_for_selector("#unlock.hidden", state="attached")

    # Setup in plain words, the table's language chosen there; then straight to the table.
    table.click('nav a[href="/setup"]')
    table.wait_for_selector("#options .option")
    table.select_option("#table-lang", lang)
    table.wait_for_function(f"document.documentElement.lang === '{lang}'")
    inputs = table.locator('#players input[name="player"]')
    inputs.nth(0).fill("Anna")
    inputs.nth(1).fill(LONG)
    table.fill('#options input[name="timer_seconds"]', "4")
    # every edition explained in one line, the chosen one first
    helps = table.locator("#preset-help li")
    assert helps.count() == 3
    assert helps.first.inner_text() == (words(lang, "preset.abacus-2013") + ": "
                                        + words(lang, "preset_help.abacus-2013"))
    check_page(table, f"{lang} setup")
    shot(table, lang, "table-setup")
    # the game of the language before is still in play on this server: the page asks first,
    # and the player says yes
    asked: list[str] = []
    table.on("dialog", lambda d: (asked.append(d.message), d.accept()))
    table.click("#setup button[type=submit]")
    table.wait_for_url(server.url + "/", timeout=WAIT)
    # (the question in the table's language)
    said = i18n.catalogue(lang)["setup.game_in_play"].split("{")[0]
    assert all(m.startswith(said) for m in asked), asked
    table.wait_for_selector('#phase[data-phase="idle"]', timeout=WAIT)
    assert table.locator("#phase").inner_text() == words(lang, "head.reveal_first")
    table.wait_for_selector('.join-link[data-seat="1"][href]', timeout=WAIT)

    anna, ben = join(browser, table, lang, ["Anna", LONG], errors)
    for phone in (anna, ben):
        assert phone.locator("#keys button:enabled").count() == 0  # no chip: no bid yet
    check_page(ben, f"{lang} phone idle")
    shot(ben, lang, "phone-idle")

    # A chip: "Find a route to the green circle" on every screen.
    table.click('[data-button="start"]')
    table.wait_for_selector('#phase[data-phase="bidding"]', timeout=WAIT)
    state = server_state(server)
    t = state["target"]
    to = words(lang, "to.vortex") if t["shape"] == "vortex" else \
        words(lang, f"to.{t['color']}.{t['shape']}")
    head = words(lang, "head.find", to=to)
    assert table.locator("#phase").inner_text() == head
    anna.wait_for_selector(f"#phase:has-text(\"{head}\")", timeout=WAIT)
    # the referee's buttons are live only when the game would take them
    assert table.locator('#controls [data-command="reveal"]').is_disabled()
    # the simulated table's controls beside the board, its arrows in view without scrolling
    board = table.locator("#board").bounding_box()
    up = table.locator('[data-slide="up"]').bounding_box()
    assert up["x"] > board["x"] + board["width"] and up["y"] + up["height"] <= 800
    check_page(table, f"{lang} table bidding")
    check_page(anna, f"{lang} phone bidding")
    shot(table, lang, "table-bidding")
    shot(anna, lang, "phone-bidding")

    route = solve_state(state)
    n = len(route)
    anna.click(f'#keys button[data-moves="{n + 2}"]')
    ben.click(f'#keys button[data-moves="{n}"]')
    ben.wait_for_selector(f'#mybid[data-moves="{n}"]', timeout=WAIT)
    lead = words(lang, "head.lead", name=LONG, moves=i18n.count(lang, "moves", n), time="")
    table.wait_for_selector(f"#phase:has-text(\"{lead.split('—')[0].strip()}\")", timeout=WAIT)
    # the time left in the headline reads as the hourglass does: "3 s" under a minute
    time_said = r"\d\u00a0s" + re.escape(i18n.catalogue(lang)["head.lead"].split("{time}")[1])
    ben.wait_for_function("(p) => new RegExp(p).test(document.getElementById('phase')"
                          ".textContent)", arg=time_said, timeout=WAIT)
    check_page(table, f"{lang} table hourglass")
    check_page(ben, f"{lang} phone hourglass")
    shot(table, lang, "table-hourglass")
    shot(ben, lang, "phone-hourglass")

    # The demonstration: the keys do nothing now, so they are off; Ben's phone says his turn.
    table.wait_for_selector('#phase[data-phase="demonstrating"]', timeout=WAIT)
    shows = i18n.count(lang, "head.shows", n, name=LONG)
    table.wait_for_selector(f"#phase:has-text(\"{shows}\")", timeout=WAIT)
    for phone in (anna, ben):
        phone.wait_for_selector('#phase[data-phase="demonstrating"]', timeout=WAIT)
        assert phone.locator("#keys button:enabled").count() == 0
    ben.wait_for_selector(f"#mybid:has-text(\"{i18n.count(lang, 'pad.your_turn', n)}\")")
    # a tap that slipped through (a key forced on) is refused, and the refusal does not
    # outlive the round
    anna.evaluate("""() => { document.getElementById('keys').classList.remove('resting');
        const k = document.querySelector('#keys button[data-moves="2"]');
        k.disabled = false; k.click(); }""")
    anna.wait_for_function("document.getElementById('pad-err').textContent !== ''",
                           timeout=WAIT)
    check_page(ben, f"{lang} phone demonstration")
    shot(ben, lang, "phone-demonstration")
    # the arrow keys slide the picked robot
    for i, (robot, direction) in enumerate(route, 1):
        table.click(f'g[data-robot="{robot}"]')
        table.keyboard.press({"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft",
                              "right": "ArrowRight"}[direction])
        if i == 1:
            check_page(table, f"{lang} table demonstration")
            shot(table, lang, "table-demonstration")
        if i < n:
            table.wait_for_selector(f'#demo[data-moves="{i}"]', timeout=WAIT)

    # After the round, on every phone: the verdict, the best route, the scores.
    verdict = words(lang, "verdict.success", name=LONG, moves=n)
    table.wait_for_selector('#verdict[data-result="success"]', timeout=WAIT)
    assert table.locator("#phase").inner_text() == verdict
    for phone in (anna, ben):
        phone.wait_for_selector('#pad-optimal[data-state="shown"]', timeout=WAIT)
        assert phone.locator("#phase").inner_text() == verdict
        assert phone.locator("#pad-optimal").inner_text().startswith(
            i18n.count(lang, "optimal.route", n, route="").rstrip(": "))
        assert phone.locator('#pad-scores tr[data-seat="1"] td.num').inner_text() == "1"
        assert phone.locator("#pad-err").inner_text() == ""
        assert phone.locator("#keys button:enabled").count() == 0
    check_page(anna, f"{lang} phone round over")
    shot(anna, lang, "phone-round-over")
    # the best route stays drawn on the board as numbered arrows once the replay is over
    table.wait_for_function(f"document.body.dataset.replayed === '{n}'", timeout=WAIT)
    table.wait_for_selector(f'.route-step[data-step="{n}"]', state="attached", timeout=WAIT)
    assert table.locator(".route-step").count() == n
    assert table.locator('#controls [data-command="reveal"]').is_enabled()
    check_page(table, f"{lang} table round over")
    shot(table, lang, "table-round-over")
    if os.environ.get("COMPANION_SCREENSHOT") and lang == "en":  # the README's pictures
        table.evaluate("window.scrollTo(0, 0)")
        table.screenshot(path=str(STATIC / "screenshot.png"))
        anna.evaluate("window.scrollTo(0, 0)")
        anna.screenshot(path=str(STATIC / "screenshot-phone.png"))

    # History, Layouts and Calibrate on a phone and the table screen.
    for ctx, size in ((screen, "table"), (anna.context, "phone")):
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + "/setup")
        if page.locator("#unlock:not(.hidden)").count():  # the phone unlocks the admin pages
            page.fill("#pin-input", PIN)
            page.click("#unlock button[type=submit]")
            page.wait_for_selector("#unlock.hidden", state="attached")
        for path in ("/history", "/layouts", "/calibrate", "/setup"):
            page.goto(server.url + path)
            page.evaluate(f"localStorage.setItem('companion.lang', '{lang}')")
            page.reload()
            page.wait_for_selector("#conn", state="attached")
            if path == "/history":
                page.wait_for_selector("body[data-loaded='1']", timeout=WAIT)
                assert page.locator(".games .chart").count() >= 2  # chips and bids, drawn
            if path == "/setup":
                page.wait_for_selector("#options .option", timeout=WAIT)
            check_page(page, f"{lang} {size} {path}")
            shot(page, lang, f"{size}-{path.strip('/')}")
    assert errors == []
    screen.close()


def server_state(server) -> dict:
    return Api(server.url).get("/api/state")


SIZES = {"phone360": {"width": 360, "height": 740}, "phone390": {"width": 390, "height": 844},
         "table1280": {"width": 1280, "height": 800},
         "screen1080p": {"width": 1920, "height": 1080}}
SIZE_LANG = {"phone360": "de", "phone390": "fr", "table1280": "en", "screen1080p": "de"}


def test_every_page_of_both_games_fits_from_a_360_px_phone_to_1080p(browser, server):
    """Both games, every page, unlocked (the referee's controls shown), in German and French
    where words are longest: nothing wider than the viewport; the Micro Robots layout grid as
    wide as its column, its numbers inside their spaces."""
    from test_browser import micro_rows

    api = Api(server.url)
    api.post("/api/unlock", {"pin": PIN})
    api.post("/api/layouts", {"name": "Kitchen table", "rows": micro_rows(), "replace": True})
    errors: list[str] = []
    for game in ("ricochet-robots", "micro-robots"):
        if game == "micro-robots":
            # (a game is in play: the scripted referee says yes to ending it, as the page asks)
            api.post("/api/setup", {"game": game, "players": ["Anna", LONG, "Cleo"],
                                    "layout": "Kitchen table", "replace": True})
            api.post("/api/command", {"type": "roll"})
        else:
            api.post("/api/setup", {"players": ["Anna", LONG], "rules": {"timer_seconds": 600},
                                    "replace": True})
            api.post("/api/command", {"type": "reveal"})
        for size, viewport in SIZES.items():
            phone = size.startswith("phone")
            ctx = browser.new_context(viewport=viewport, **({"device_scale_factor": 2,
                                      "is_mobile": True, "has_touch": True} if phone else {}))
            page = ctx.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url + "/setup")
            page.fill("#pin-input", PIN)
            page.click("#unlock button[type=submit]")
            page.wait_for_selector("#unlock.hidden", state="attached")
            page.evaluate(f"localStorage.setItem('companion.lang', '{SIZE_LANG[size]}')")
            for path in ("/", "/pad", "/setup", "/layouts", "/history", "/calibrate"):
                page.goto(server.url + path)
                page.wait_for_selector("#conn", state="attached")
                if path == "/":
                    page.wait_for_selector("#conn.up", timeout=WAIT)
                if path == "/setup":
                    page.wait_for_selector("#options .option", state="attached", timeout=WAIT)
                if path == "/layouts":
                    page.wait_for_selector("#saved option", state="attached", timeout=WAIT)
                    grid = page.locator("#whole .micro-grid").bounding_box()
                    column = page.locator("#whole").bounding_box()
                    assert grid["width"] > 0.9 * min(column["width"], 640)  # not 68 px wide
                    page.click("#load")
                    page.wait_for_selector('#whole .space[data-space="pink1"]', timeout=WAIT)
                    spill = page.evaluate("""() => [...document.querySelectorAll(
                        '#whole .space .num')].filter((n) => {
                          const s = n.parentElement.getBoundingClientRect();
                          const r = n.getBoundingClientRect();
                          return r.width && (r.right > s.right + 1 || r.bottom > s.bottom + 1);
                        }).length""")
                    assert spill == 0, f"{size}: numbers spill out of their spaces"
                check_page(page, f"{game} {size} {path}")
                if path in ("/", "/layouts", "/setup") and size in ("phone360", "screen1080p"):
                    shot(page, SIZE_LANG[size], f"{game}-{size}-{path.strip('/') or 'table'}")
            ctx.close()
    assert errors == []
