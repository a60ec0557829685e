"""Practice in a real browser (headless Chromium against ``companion run``): deal a puzzle, take
the four hints, play the hinted route by picking robots and pressing the arrows, and find the
result in History; the page's words follow the chosen language. Skips only when
/usr/bin/chromium is not installed."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
WAIT = 30_000  # ms
ARROWS = {"↑": "up", "↓": "down", "←": "left", "→": "right"}  # a move as the page shows it

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Chromium at /usr/bin/chromium (apt install chromium)")


@pytest.fixture
def server(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--host", "127.0.0.1", "--port",
         str(port), "--db", str(tmp_path / "journal.db"), "--pin", "246802", "--quiet"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        if "Ctrl-C" in line:
            break
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.communicate(timeout=20)


def test_a_puzzle_is_played_from_the_page_with_hints_and_lands_in_history(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(server + "/")
        page.click("nav >> text=Practice")
        page.select_option("#moves", "3")
        page.click("#deal")
        page.wait_for_selector("#status:has-text('in 3 moves')", timeout=WAIT)
        for n in range(1, 5):
            page.click("#hint")
            page.locator("#hints li").nth(n - 1).wait_for(timeout=WAIT)
        assert page.inner_text("#hints li:nth-child(1)") == "It can be done in 3 moves."
        text = page.inner_text("#hints li:nth-child(4)")
        moves = re.match(r"The route: (.*)\.$", text).group(1).split(", ")
        for i, move in enumerate(moves, 1):
            robot, arrow = move.split()
            page.click(f"g.robot[data-robot='{robot}']")
            page.click(f"#arrows [data-dir='{ARROWS[arrow]}']")
            page.wait_for_selector(f"#count:text-is('{i}')", timeout=WAIT)
        page.wait_for_selector("#status:has-text('Solved in 3 moves (the best is 3)')",
                               timeout=WAIT)
        page.click("nav >> text=History")
        page.wait_for_selector("#practice:has-text('3 moves · best 3')", timeout=WAIT)
        assert "hints up to level 4" in page.inner_text("#practice")
        browser.close()


def test_a_solo_player_takes_hints_on_the_table_page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(server + "/")
        page.fill("#pin-input", "246802")
        page.click("#unlock button[type=submit]")
        page.wait_for_selector("#unlock.hidden", state="attached", timeout=WAIT)
        csrf = page.get_attribute("meta[name=csrf-token]", "content")
        headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json"}
        r = page.request.post(server + "/api/setup", headers=headers, data={
            "players": ["Ann"], "tiles": ["4B", "3B", "2B", "1A"]})
        assert r.ok, r.text()
        assert page.request.post(server + "/api/command", headers=headers,
                                 data={"type": "reveal"}).ok
        page.wait_for_selector("#solo-hints:not(.hidden)", timeout=WAIT)
        for n in range(1, 3):
            deadline = time.monotonic() + WAIT / 1000
            while page.locator("#solo-hint-list li").count() < n:
                # the table's solver may still be at work (the hint is refused, the page says
                # so): ask again, one answer at a time so no level is skipped
                assert time.monotonic() < deadline, page.inner_text("#solo-hint-err")
                with page.expect_response("**/api/hint", timeout=WAIT):
                    page.locator("#solo-hint").click()
                page.wait_for_timeout(300)
        assert re.match(r"It can be done in \d+ moves?\.", page.inner_text(
            "#solo-hint-list li:nth-child(1)"))
        assert "optimal route" in page.inner_text("#solo-hint-list li:nth-child(2)")
        # she gives up: the round ends and every optimal route is shown, in her language
        assert page.request.post(server + "/api/command", headers=headers,
                                 data={"type": "give_up", "seat": 0}).ok
        page.wait_for_selector("#all-routes:not(.hidden)", timeout=WAIT)
        assert re.fullmatch(r"(At least )?\d+ distinct optimal routes?(; the first \d+)?:",
                            page.inner_text("#all-routes-title"))
        route = page.inner_text("#all-routes-list li:nth-child(1)")
        # the robots stand where the simulated table dealt them, the edition's black one too
        robot = "(red|green|blue|yellow|black)"
        assert re.fullmatch(rf"{robot} [↑↓←→](, {robot} [↑↓←→])*", route), route
        page.select_option("#lang-pick", "de")
        assert re.fullmatch(r"(Mindestens )?\d+ (verschiedene )?optimale Lösung(en)?(; die ersten "
                            r"\d+)?:", page.inner_text("#all-routes-title"))
        assert re.match(r"(rot|grün|blau|gelb|schwarz) ", page.inner_text("#all-routes-list li"))
        assert page.inner_text("#solo-hint") == "Tipp"
        browser.close()


def test_the_practice_page_speaks_the_chosen_language(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(server + "/practice")
        page.select_option("#lang-pick", "de")
        assert page.inner_text("#deal") == "Neue Aufgabe"
        page.select_option("#moves", "2")
        page.click("#deal")
        page.wait_for_selector("#status:has-text('kürzeste Lösung 2 Züge')", timeout=WAIT)
        assert page.inner_text("#picked") == "Wähle einen Roboter"
        assert page.inner_text("#arrows [data-dir='up']") == "hoch"
        for n in range(1, 4):
            page.click("#hint")
            page.locator("#hints li").nth(n - 1).wait_for(timeout=WAIT)
        assert page.inner_text("#hints li:nth-child(1)") == "Es geht in 2 Zügen."
        assert page.inner_text("#hints li:nth-child(2)").startswith("In einer optimalen Lösung")
        first = page.inner_text("#hints li:nth-child(3)")
        assert re.fullmatch(r"Der erste Zug: \S+ [↑↓←→]\.", first), first
        # switching the language writes the words already shown again, none is left behind
        page.select_option("#lang-pick", "fr")
        page.wait_for_selector("#hints li:nth-child(1):text-is('On peut y arriver en 2 "
                               "mouvements.')", timeout=WAIT)
        assert "en 2 mouvements" in page.inner_text("#status")
        assert page.inner_text("#hint") == "Indice"
        assert page.inner_text("#hints li:nth-child(3)").startswith("Le premier mouvement : ")
        page.click("g.robot[data-robot='red']")
        assert page.inner_text("#picked") == "robot rouge choisi"
        browser.close()
