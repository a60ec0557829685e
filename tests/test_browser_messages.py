"""What the server says to players, on a German page: a phone's refused bid and the Layouts
check's problems come as catalogue keys and values and show in German (headless Chromium
against ``companion run`` on the simulated table). Screenshots go to ``screenshots/``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_browser import CHROMIUM, PHONE, PIN, WAIT, Api, Companion
from test_browser_words import OVERFLOW_JS

from companion import i18n

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "screenshots"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Chromium at /usr/bin/chromium (apt install chromium)")


def test_a_refusal_and_the_layout_problems_show_in_german(browser, tmp_path):
    server = Companion(tmp_path / "journal.db").start()
    try:
        api = Api(server.url)
        api.post("/api/unlock", {"pin": PIN})
        api.post("/api/setup", {"players": ["Anna", "Ben"], "rules": {"timer_seconds": 600}})
        api.post("/api/settings", {"language": "de"})
        api.post("/api/command", {"type": "reveal"})
        link = api.get("/api/join-links")[0]["url"]

        phone = browser.new_context(**PHONE, locale="de-DE", bypass_csp=True).new_page()
        phone.goto(link)
        phone.wait_for_selector('#keys button[data-moves="5"]:enabled', timeout=WAIT)
        phone.click('#keys button[data-moves="5"]')
        phone.wait_for_selector('#mybid[data-moves="5"]', timeout=WAIT)
        # the headline's time reads as the hourglass does (10:00, not 600 s)
        phone.wait_for_function("document.getElementById('phase').dataset.phase === 'timer'",
                                timeout=WAIT)
        head = phone.locator("#phase").inner_text()
        assert re.fullmatch(r"Anna bietet 5 Züge — noch (10:00|9:[0-5]\d), um weniger zu bieten",
                            head), head
        assert re.fullmatch(r"(10:00|9:[0-5]\d)", phone.locator("#timer-text").inner_text())
        # the page's times are the table's (i18n.clock), in every language
        values = [600, 60.4, 59.2, 37.5, 0.3]
        shown = phone.evaluate("(vs) => ['en', 'de', 'fr'].map((l) => vs.map((v) => "
                               "I18n.clock(v, l)))", values)
        assert shown == [[i18n.clock(lang, v) for v in values] for lang in ("en", "de", "fr")]
        # keys at and above her own bid do nothing now: disabled, and they look it
        assert phone.locator("#keys button:enabled").count() == 4
        # a key above her own bid, forced on, is refused by the game: in German, and on her own
        # phone in her own terms
        phone.evaluate("""() => { const k = document.querySelector('#keys button[data-moves="7"]');
            k.disabled = false; k.click(); }""")
        phone.wait_for_function("document.getElementById('pad-err').textContent !== ''",
                                timeout=WAIT)
        said = phone.locator("#pad-err").inner_text()
        assert said == "Du kannst nur weniger als 5 bieten", said
        # the forced key is set back: disabled and dimmed, while the refusal stays readable
        phone.wait_for_selector('#keys button[data-moves="7"]:disabled', timeout=WAIT)
        # the same bid again: the game's own words, in German
        phone.evaluate("""() => { const k = document.querySelector('#keys button[data-moves="5"]');
            k.disabled = false; k.click(); }""")
        phone.wait_for_function(
            "document.getElementById('pad-err').textContent === 'Anna hat schon 5 geboten'",
            timeout=WAIT)
        phone.wait_for_selector('#keys button[data-moves="5"]:disabled', timeout=WAIT)
        looks = phone.evaluate("""() => Array.from(document.querySelectorAll('#keys button'),
            (k) => [k.dataset.moves, k.disabled, k.getAttribute('aria-disabled'),
                    Number(getComputedStyle(k).opacity)])""")
        for moves, disabled, aria, opacity in looks:
            off = int(moves) >= 5
            assert (disabled, aria == "true", opacity < 0.5) == (off, off, off), looks
        refusal = phone.locator("#pad-err")
        assert refusal.is_visible() and float(refusal.evaluate(
            "(n) => getComputedStyle(n).opacity")) == 1.0
        SHOTS.mkdir(exist_ok=True)
        phone.screenshot(path=str(SHOTS / "de-phone-refused.png"), full_page=True)

        # the Layouts check of a Micro Robots board with a space twice and one still empty
        page = browser.new_context(viewport={"width": 1280, "height": 800},
                                   locale="de-DE", bypass_csp=True).new_page()
        page.goto(server.url + "/layouts")
        page.fill("#pin-input", PIN)
        page.click("#unlock button[type=submit]")
        page.wait_for_selector("#unlock.hidden", state="attached", timeout=WAIT)
        page.wait_for_function("document.documentElement.lang === 'de'", timeout=WAIT)
        shown = page.evaluate("""async () => {
            const rows = [["pink1", "pink1", "pink3", "pink4", "pink5", "pink6"]];
            for (let i = 0; i < 5; i++) rows.push(["", "", "", "", "", ""]);
            const r = await Companion.api("/api/layouts/check", {rows});
            const list = document.getElementById("problems");
            list.replaceChildren(...r.problems.map((p, i) => Companion.el("li",
                {text: I18n.say(r.problems_msg[i], p)})));
            return Array.from(list.children, (n) => n.textContent); }""")
        assert shown[0] == "Rosa 1 kommt doppelt vor (Zeile 1 Spalte 1, Zeile 1 Spalte 2)", shown
        assert shown[-1] == "30 Felder sind noch leer", shown
        # entered on the grid, the same space twice: the two spaces the problem names are
        # ringed on the grid, and no other
        page.click('#whole .space[data-row="0"][data-col="0"]')
        for _ in range(2):
            page.click('#colours button[data-color="pink"]')
            page.click('#numbers button[data-number="1"]')
        page.wait_for_function("""() => [...document.querySelectorAll('#problems li')].some(
            (n) => n.textContent.startsWith('Rosa 1 kommt doppelt vor'))""", timeout=WAIT)
        ringed = page.evaluate("""() => Array.from(
            document.querySelectorAll('#whole .space[data-named="1"]'),
            (b) => [Number(b.dataset.row), Number(b.dataset.col)])""")
        assert ringed == [[0, 0], [0, 1]], ringed
        page.screenshot(path=str(SHOTS / "de-layouts-problems.png"), full_page=True)
    finally:
        server.stop()


def test_the_cameras_question_shows_in_german_on_the_table_page(browser, served_table):
    # the table in this process, so that the test gives the camera's looks: during a
    # demonstration a robot that stood still is seen on a cell no legal move reaches, and
    # the page asks about it in the table's language
    from conftest import ask, demonstrating

    table, url = served_table()
    table.speaker.set_language("de")
    ready = demonstrating(table)
    page = browser.new_context(viewport={"width": 1280, "height": 800},
                               locale="en-GB", bypass_csp=True).new_page()
    page.goto(url + "/")
    page.wait_for_function("document.documentElement.lang === 'de'", timeout=WAIT)

    asked = ask(table, ready=ready)
    still, wrong = asked["still"], asked["wrong"]

    colour = i18n.text("de", f"color.{still}")
    question = f"{colour.capitalize()} auf {wrong} gesehen — stimmt das?"
    page.wait_for_function(
        "(q) => document.getElementById('message').textContent.startsWith(q)", arg=question,
        timeout=WAIT)
    shown = page.locator("#message").inner_text()
    assert shown == (f"{question} (kein erlaubter Zug erklärt das: es wird weitergezählt, "
                     "als hätte er sich nicht bewegt)"), shown
    # the board names its cells along its edges, and rings the cell the question names,
    # its column letter and row number picked out
    page.wait_for_selector(f'#board .named-cell[data-cell="{wrong}"]', state="attached",
                           timeout=WAIT)
    assert page.locator("#board .named-cell").count() == 1
    cols = page.locator("#board .label-col").all_text_contents()
    rows = page.locator("#board .label-row").all_text_contents()
    assert cols == list("abcdefghijklmnop") and rows == [str(n) for n in range(1, 17)]
    picked = page.locator("#board .label.picked-out").all_text_contents()
    assert sorted(picked) == sorted([wrong[0], wrong[1:]]), picked
    # drawn where the board's own cell of that name is: over the cell's squares
    ring = page.locator(f'#board .named-cell[data-cell="{wrong}"] .named-tint').bounding_box()
    col = page.locator(f'#board .label-col[data-col="{wrong[0]}"]').bounding_box()
    row = page.locator(f'#board .label-row[data-row="{wrong[1:]}"]').bounding_box()
    assert ring["x"] < col["x"] + col["width"] / 2 < ring["x"] + ring["width"]
    assert ring["y"] < row["y"] + row["height"] / 2 < ring["y"] + ring["height"]
    assert page.evaluate(OVERFLOW_JS, 1280) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "de-table-camera-question.png"), full_page=True)
    # on a 360 px phone too: the labels fit, nothing is wider than the screen
    small = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=2,
                                is_mobile=True, has_touch=True, locale="de-DE").new_page()
    small.goto(url + "/")
    small.wait_for_selector(f'#board .named-cell[data-cell="{wrong}"]', state="attached",
                            timeout=WAIT)
    assert small.evaluate(OVERFLOW_JS, 360) == []
    small.screenshot(path=str(SHOTS / "de-phone360-camera-question.png"))


def test_why_a_demonstration_failed_shows_in_french_with_its_colours(browser, served_table):
    # a route that ends without the target's robot on it: the verdict's reason, made by the
    # rules as a message, is shown in French with the robot's colour and the chip in French
    from conftest import set_up, wait_state

    table, url = served_table(solve=None)
    table.speaker.set_language("fr")
    set_up(table, timer=0.2, players=("Anna", "Ben"))
    assert table.submit({"type": "reveal", "chip": "green triangle"}).ok
    assert table.submit({"type": "bid", "seat": 0, "value": 9}).ok
    wait_state(table, lambda s: s["phase"] == "demonstrating")
    # the red robot moves (the first direction it can go): the green one never arrives
    assert any(table.submit({"type": "move", "move": f"red {d}"}).ok
               for d in ("up", "down", "left", "right"))
    assert table.submit({"type": "done"}).ok
    v = wait_state(table, lambda s: s["verdict"] is not None)["verdict"]
    assert v["result"] == "incomplete" and v["reason"].key == "fail.route"

    page = browser.new_context(viewport={"width": 1280, "height": 800},
                               locale="en-GB", bypass_csp=True).new_page()
    page.goto(url + "/")
    page.wait_for_function("document.getElementById('verdict-why').textContent !== ''",
                           timeout=WAIT)
    shown = page.locator("#verdict-why").inner_text()
    assert shown == ("Pourquoi : Échec pour Anna : le trajet finit sans le robot vert sur "
                     "la cible triangle vert"), shown
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "fr-table-why-failed.png"), full_page=True)
