"""The server's side of the page's words: the catalogues in every page, the table's language
and voice settings, the favicon, and a player count the page can seat."""

from __future__ import annotations

import json
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_web import REMOTE, Browser, app, join, screen, table  # noqa: F401

from companion import i18n, speech


def embedded(page_text: str) -> dict:
    m = re.search(r'<script id="catalogues" type="application/json">(.*?)</script>', page_text,
                  re.S)
    assert m, "no catalogues in the page"
    return json.loads(m.group(1))


@pytest.mark.parametrize("path", ["/", "/pad", "/setup", "/history", "/layouts", "/calibrate"])
def test_every_page_carries_the_catalogues_and_a_favicon(app, path):  # noqa: F811
    page = Browser(app, REMOTE).get(path)
    assert page.status_code == 200
    assert embedded(page.text) == i18n.catalogues()
    assert 'rel="icon"' in page.text and 'id="lang-pick"' in page.text
    assert '<html lang="en">' in page.text


def test_the_favicon_is_served(app):  # noqa: F811
    r = Browser(app).get("/static/favicon.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data


def test_the_tables_language_reaches_every_page_and_the_state(app, screen, table):  # noqa: F811
    r = screen.post("/api/settings", {"language": "fr"})
    assert r.status_code == 200 and r.json["language"] == "fr"
    assert table.speaker.language == "fr"
    assert '<html lang="fr">' in Browser(app, REMOTE).get("/pad").text
    deadline = time.monotonic() + 5
    while table.view().get("lang") != "fr":  # republished by the loop
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert table.view()["lang"] == "fr"


def test_settings_need_the_pin(app):  # noqa: F811
    phone = Browser(app, REMOTE)
    assert phone.post("/api/settings", {"language": "de"}).status_code in (401, 403)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["language", "voice_on", "volume", "speed", "lang"]),
                       st.one_of(st.text(max_size=6), st.integers(-5, 120), st.booleans(),
                                 st.none()), max_size=3))
def test_bad_settings_are_refused_naming_the_field(screen, table, body):  # noqa: F811
    before = table.speaker.language
    r = screen.post("/api/settings", body)
    if r.status_code == 200:
        assert table.speaker.language in i18n.LANGUAGES
        return
    assert r.status_code == 400
    field = r.json["error"].split(":")[0]
    assert field in body or field in ("language", "volume", "on")
    assert table.speaker.language == before


def test_the_voice_settings_and_the_test_phrase(screen, table):  # noqa: F811
    table.speaker.attach_voice(speech.Voice(program=""))  # no espeak-ng: silent, but settable
    r = screen.post("/api/settings", {"voice_on": False, "volume": 35, "language": "de"})
    assert r.status_code == 200
    assert r.json["voice"] == {"on": False, "volume": 35, "available": False, "lang": "de"}
    said = screen.post("/api/voice/test", {})
    assert said.status_code == 200 and said.json["said"] == "Rasende Roboter"


def test_setup_offers_the_seats_the_page_has_and_micro_robots_says_so(screen, table):  # noqa: F811
    assert screen.get("/api/setup-info").json["seats"] == 8
    r = screen.post("/api/setup", {"game": "micro-robots", "players": ["Solo"]})
    assert r.status_code == 400 and "2 to 8 players" in r.json["error"]


def test_a_chip_the_camera_reads_is_told_in_catalogue_words(screen, table):  # noqa: F811
    assert screen.post("/api/setup", {"players": ["Ann", "Ben"]}).status_code == 200
    table.observe_chip("blue triangle")
    deadline = time.monotonic() + 5
    while table.view()["phase"] != "bidding":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    state = table.view()
    assert state["notice"] == {"key": "notice.chip_read", "params": {"chip": "blue triangle"}}
    assert state["message"] == "The camera read the chip: blue triangle"
    for lang in i18n.LANGUAGES:
        assert "{chip}" in i18n.catalogue(lang)[state["notice"]["key"]]
    # another message replaces it: the notice goes with it
    table.observe({"red": "z99"}, source="camera")
    deadline = time.monotonic() + 5
    while table.view()["message"] == state["message"]:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert table.view()["notice"] is None


def test_each_failure_gets_the_verdict_that_names_it():
    # the game says why a demonstration failed as a kind (Failure) and a message key: no
    # words are parsed to sort a failure into the page's verdicts
    from test_game import Table as GameTable
    from test_game import event

    from companion.game import Failure

    g = GameTable(2)
    g.to_demonstration({0: 2, 1: 3})
    g.do("move", move="blue right")
    g.do("move", move="blue up")
    ev = g.do("move", move="blue right")  # three moves over Anna's bid of 2
    assert event(ev, "demonstration_failed")["reason"].key == "fail.over_bid"
    assert g.g.s.verdict["result"] == Failure.OVER_BID == "over_bid"
    ev = g.do("give_up", seat=1)
    assert event(ev, "demonstration_failed")["reason"].key == "fail.gave_up"
    assert g.g.s.verdict["result"] == Failure.GAVE_UP
    for kind in ("success", "over_bid", "illegal", "incomplete", "gave_up"):
        assert f"verdict.{kind}" in i18n.catalogue("en")
