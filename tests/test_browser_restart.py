"""In a real browser (headless Chromium) against ``companion run``: a phone page opened late
into the hourglass shows the same time as the table page, and a restart (``kill -9``, then
started again on its journal, without giving the PIN again) keeps the referee's page working.

Skips only when /usr/bin/chromium is missing (see test_browser)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys

import pytest
from test_browser import CHROMIUM, PHONE, PIN, ROOT, WAIT, Api, Companion, unlock

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Chromium at /usr/bin/chromium (apt install chromium)")


def seconds(text: str) -> int:
    m, s = re.fullmatch(r"(\d+):(\d\d)", text.strip()).groups()
    return int(m) * 60 + int(s)


def shown(page) -> int:
    page.wait_for_function("/^\\d+:\\d\\d$/.test(document.getElementById('timer-text')"
                           ".textContent)", timeout=WAIT)
    return seconds(page.locator("#timer-text").inner_text())


def test_a_phone_opened_late_into_the_hourglass_shows_the_tables_time(browser, tmp_path):
    c = Companion(tmp_path / "journal.db").start()
    try:
        api = Api(c.url)
        api.post("/api/unlock", {"pin": PIN})
        api.post("/api/setup", {"players": ["Ann", "Ben"], "rules": {"timer_seconds": 60}})
        api.post("/api/command", {"type": "reveal"})
        api.post("/api/command", {"type": "start_timer"})
        # bypass_csp lets the test's own wait_for_function predicates run; the page is unchanged
        table = browser.new_context(viewport={"width": 1280, "height": 900},
                                    bypass_csp=True).new_page()
        table.goto(c.url + "/")
        table.wait_for_selector('#phase[data-phase="timer"]', timeout=WAIT)
        # 20 s into the hourglass, by the referee's correction rather than 20 s of waiting;
        # then nothing is published while the phone comes late
        api.post("/api/command", {"type": "correct", "timer": 40})
        table.wait_for_function("Number(document.getElementById('hourglass').dataset.left)"
                                " < 40.5", timeout=WAIT)
        table.wait_for_timeout(3000)
        phone = browser.new_context(**PHONE, bypass_csp=True).new_page()
        phone.goto(c.url + "/pad")
        phone.wait_for_selector("#conn.up", timeout=WAIT)
        on_phone, on_table = shown(phone), shown(table)
        assert abs(on_phone - on_table) <= 1, (on_phone, on_table)
        assert 30 <= on_table <= 38, on_table
    finally:
        c.stop()


def test_a_restart_keeps_the_referees_page_working(browser, tmp_path):
    db = tmp_path / "journal.db"
    first = Companion(db).start()
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(first.url + "/")
    unlock(page)
    api = Api(first.url)
    api.post("/api/unlock", {"pin": PIN})
    api.post("/api/setup", {"players": ["Ann", "Ben"], "rules": {"timer_seconds": 600}})
    page.click('[data-command="reveal"]')
    page.wait_for_selector('#phase[data-phase="bidding"]', timeout=WAIT)
    first.proc.send_signal(signal.SIGKILL)  # a power cut
    first.proc.wait(10)
    page.wait_for_selector("#conn.down", timeout=WAIT)

    # started again on the same journal, without --pin: the PIN kept beside the journal holds
    again = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--host", "127.0.0.1", "--port",
         str(first.port), "--db", str(db), "--quiet"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        printed = []
        for line in again.stdout:
            printed.append(line)
            if "Ctrl-C" in line:
                break
        assert f"table PIN {PIN}" in "".join(printed), printed  # the same PIN as before
        page.wait_for_selector("#conn.up", timeout=WAIT)  # the page went live again by itself
        # the referee's controls still work, with no PIN asked again: undo the reveal
        page.click('[data-command="undo"]')
        page.wait_for_selector('#phase[data-phase="idle"]', timeout=WAIT)
        assert page.locator("#message").inner_text() == ""
        assert page.locator("#unlock").get_attribute("class").endswith("hidden")
        assert Api(first.url).get("/api/state")["phase"] == "idle"
        # the referee changes the PIN on the page; it is the PIN from now on
        page.fill("#new-pin", "24680")
        page.click("#pin-change button[type=submit]")
        page.wait_for_selector("#pin:has-text('24680')", timeout=WAIT)
        assert (db.parent / "journal.db.pin").read_text().strip() == "24680"
        page.click('[data-command="reveal"]')  # still unlocked
        page.wait_for_selector('#phase[data-phase="bidding"]', timeout=WAIT)
        assert errors == []
    finally:
        again.send_signal(signal.SIGINT)
        out, _ = again.communicate(timeout=20)


def test_a_new_game_asks_first_and_the_phones_are_told_to_join_again(browser, tmp_path):
    c = Companion(tmp_path / "journal.db").start()
    try:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(c.url + "/")
        unlock(page)
        api = Api(c.url)
        api.post("/api/unlock", {"pin": PIN})
        api.post("/api/setup", {"players": ["Ann", "Ben"]})
        api.post("/api/command", {"type": "reveal"})
        link = api.get("/api/join-links")[0]["url"]
        phone = browser.new_context(**PHONE).new_page()
        phone.goto(link)
        phone.wait_for_selector("#who:has-text(\"Ann's bid pad\")", timeout=WAIT)

        page.click("nav >> text=Setup")
        page.wait_for_selector('#players input[name="player"]')
        asked: list[str] = []

        def answer(dialog) -> None:
            asked.append(dialog.message)
            dialog.dismiss() if len(asked) == 1 else dialog.accept()

        page.on("dialog", answer)
        page.click("#setup button[type=submit]")  # first asked, and kept
        page.wait_for_selector("#setup-err:has-text('goes on')", timeout=WAIT)
        assert api.get("/api/state")["round"] == 1
        page.click("#setup button[type=submit]")  # asked again, and confirmed
        page.wait_for_selector("#setup-ok:has-text('New game started')", timeout=WAIT)
        assert len(asked) == 2 and "game is in play" in asked[0]
        phone.wait_for_selector("#pad-err:has-text('scan your seat')", timeout=WAIT)
        assert phone.locator("#who").inner_text().startswith("Scan")
    finally:
        c.stop()


def test_a_page_that_cannot_go_live_says_why_and_still_shows_the_game(browser, tmp_path):
    from companion.store import Store
    from companion.table import Table
    from companion.web import create_app
    from companion.web.serve import serve_in_thread

    db = tmp_path / "journal.db"
    table = Table(open_store=lambda: Store(db), db=str(db), solve=None, pin=PIN)
    table.start()
    table.broker.max_clients = 1  # one live page at most: the second is refused
    server, base = serve_in_thread(create_app(table))
    try:
        api = Api(base)
        api.post("/api/unlock", {"pin": PIN})
        api.post("/api/setup", {"players": ["Ann", "Ben"]})
        api.post("/api/command", {"type": "reveal"})
        first = browser.new_context().new_page()
        first.goto(base + "/")
        first.wait_for_selector("#conn.up", timeout=WAIT)
        second = browser.new_context().new_page()
        second.goto(base + "/")
        second.wait_for_selector("#conn-msg", timeout=WAIT)
        note = second.locator("#conn-msg").inner_text()
        assert "Live updates are not available" in note and "at most 1" in note, note
        second.wait_for_selector('#phase[data-phase="bidding"]', timeout=WAIT)  # not "…"
        first.close()  # a slot is free again: the page goes live and the note goes
        second.wait_for_selector("#conn.up", timeout=WAIT)
        second.wait_for_selector("#conn-msg", state="detached", timeout=WAIT)
    finally:
        server.close()
        table.stop()
