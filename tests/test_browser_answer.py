"""The camera's question answered on the page (headless Chromium against the table served in
this process): the main screen, unlocked with the PIN, and a watching player's phone show
"blue seen on k10 — is that right?" with "Yes" and "No, it stands on c2", in the table's
language; a tap answers, and the question goes from every screen."""

from __future__ import annotations

import pytest
from conftest import SIM_PIN, ask, wait_state
from test_browser import CHROMIUM, PHONE, WAIT, unlock

from companion import i18n

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Chromium at /usr/bin/chromium (apt install chromium)")


def test_the_host_answers_no_on_the_main_screen_in_german_and_the_question_goes(
        browser, served_table):
    table, url = served_table(pin=SIM_PIN)
    table.speaker.set_language("de")
    page = browser.new_context(viewport={"width": 1280, "height": 800},
                               locale="en-GB").new_page()
    page.goto(url + "/")
    unlock(page)
    asked = ask(table)
    still, stood = asked["still"], asked["stood"]
    box = page.locator(f'#question .answer[data-robot="{still}"]')
    box.wait_for(timeout=WAIT)
    colour = i18n.text("de", f"color.{still}")
    assert box.locator(".answer-said").inner_text() == (
        f"{colour.capitalize()} auf {asked['wrong']} gesehen — stimmt das?")
    assert box.locator(".answer-yes").inner_text() == "Ja"
    assert box.locator(".answer-no").inner_text() == f"Nein, er steht auf {stood}"
    box.locator(".answer-no").click()
    page.wait_for_selector("#question.hidden", state="attached", timeout=WAIT)
    assert page.locator("#question .answer").count() == 0
    state = wait_state(table, lambda s: s["question"] is None)
    assert state["phase"] == "demonstrating" and state["robots"][still] == stood
    assert table.game.s.round.moves == [asked["first"]]


def test_a_watching_players_phone_answers_yes_and_the_demonstrators_phone_does_not(
        browser, served_table):
    table, url = served_table(pin=SIM_PIN)
    screen = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    screen.goto(url + "/")
    unlock(screen)
    asked = ask(table)
    links = screen.evaluate("Companion.api('/api/join-links')")
    pads = {}
    for seat in (0, 1):  # Ann watches, Ben demonstrates
        link = next(x["url"] for x in links if x["seat"] == seat)
        pads[seat] = browser.new_context(**PHONE).new_page()
        pads[seat].goto(link)
        pads[seat].wait_for_selector("#question:not(.hidden)", timeout=WAIT)
    ben = pads[1]
    assert ben.locator("#question .answer-yes").count() == 0
    # a main screen not unlocked with the PIN shows the question in its message, no buttons
    locked = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    locked.goto(url + "/")
    locked.wait_for_selector("#question .answer-yes", state="attached", timeout=WAIT)
    assert not locked.locator("#question .answer-yes").is_visible()
    assert "is that right?" in locked.locator("#message").inner_text()
    assert ben.locator("#question").inner_text().strip().endswith(
        i18n.text("en", "answer.demonstrator"))
    ann = pads[0]
    yes = ann.locator(f'#question .answer[data-robot="{asked["still"]}"] .answer-yes')
    assert yes.inner_text() == "Yes"
    yes.click()
    for page in (ann, ben, screen):
        page.wait_for_selector("#question.hidden", state="attached", timeout=WAIT)
    assert ann.locator("#pad-err").inner_text() == ""
    wait_state(table, lambda s: s["question"] is None)
    verdict = table.game.s.verdict
    assert verdict is not None and not verdict["success"] and verdict["by"] == "camera"


def test_a_question_about_several_robots_is_sent_once_every_robot_is_answered(
        browser, served_table):
    # two robots that stood still are seen on cells no legal move reaches while a third
    # moves: the camera asks about them together, and a reading answered alone would leave
    # the rest unjudged, so the page sends the answer only when each robot has one
    from conftest import demonstrating, unreachable

    from companion.rules import Move

    table, url = served_table(pin=SIM_PIN)
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(url + "/")
    unlock(page)
    opt, pos = demonstrating(table)
    first = Move.parse(" ".join(opt["moves"][0].split()[:2]))
    after = pos.push(first)
    still = [r for r in pos.robots if r != first.robot][:2]
    wrong = {still[0]: unreachable(after, still[0])}
    wrong[still[1]] = unreachable(after, still[1], avoid=wrong.values())
    seen = {r: pos.board.name(c) for r, c in after.robots.items()}
    table.observe(None, "camera")
    table.observe({**seen, **{r: pos.board.name(c) for r, c in wrong.items()}}, "camera")
    q = wait_state(table, lambda s: s["question"] is not None)["question"]
    asked = [r["robot"] for r in q["robots"]]
    assert set(still) <= set(asked), q
    for i, robot in enumerate(asked):
        button = ".answer-yes" if robot in still else ".answer-no"
        page.locator(f'#question .answer[data-robot="{robot}"] {button}').click()
        if i < len(asked) - 1:
            page.wait_for_selector(f'#question .answer[data-robot="{robot}"] '
                                   f'{button}[aria-pressed="true"]', timeout=WAIT)
            assert table.view()["question"] == q and table.game.s.verdict is None
    page.wait_for_selector("#question.hidden", state="attached", timeout=WAIT)
    wait_state(table, lambda s: s["question"] is None)
    verdict = table.game.s.verdict
    assert verdict is not None and not verdict["success"] and verdict["by"] == "camera"
    assert all(pos.board.name(c) in verdict["reason"] for c in wrong.values()), verdict
