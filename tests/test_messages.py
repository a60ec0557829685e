"""Words the server makes for players are catalogue keys and values (:class:`Message`): every
key it can produce is in all three catalogues with the same placeholders, and a message of
each kind rendered in German and French has no English left in it."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from companion import i18n
from companion.i18n import Message

ROOT = Path(i18n.__file__).parent


@cache
def produced_keys() -> dict[str, str]:
    """Every key the code gives a :class:`Message` (``Message("refuse.bid_higher", …)``, an
    f-string's fixed part such as ``f"pass.{token}"`` as a prefix ending in ``.``), with where."""
    out: dict[str, str] = {}
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args and (
                    (isinstance(node.func, ast.Name) and node.func.id == "Message")
                    or (isinstance(node.func, ast.Attribute) and node.func.attr == "Message"))):
                continue
            first = node.args[0]
            where = f"{path.relative_to(ROOT.parent)}:{node.lineno}"
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                out[first.value] = where
            elif isinstance(first, ast.JoinedStr) and isinstance(first.values[0], ast.Constant):
                out[str(first.values[0].value) + "*"] = where
    return out


def test_the_walk_finds_the_messages():
    keys = produced_keys()
    assert "refuse.bid_higher" in keys and "verify.question" in keys
    assert "layout.duplicate" in keys and "route.move" in keys
    # the camera's reasons why it cannot see the board, classic and Micro Robots
    assert "vision.no_board_colour" in keys and "vision.single_tile" in keys
    assert "vision.out_edge.*" in keys and "vision.micro.rows_out" in keys
    assert "vision.covered" in keys and "camera.no_frame" in keys
    assert len(keys) > 80


def forms(lang: str, key: str) -> list[str]:
    """The catalogue keys of ``key`` in ``lang``: itself, or its plural forms."""
    words = i18n.catalogue(lang)
    if key.endswith("*"):
        return [k for k in words if k.startswith(key[:-1])]
    if key in words:
        return [key]
    return [k for k in (f"{key}.one", f"{key}.other") if k in words]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_produced_key_is_in_every_catalogue(lang):
    missing = {k: w for k, w in produced_keys().items() if not forms(lang, k)}
    assert not missing, f"{lang}: keys the code produces but the catalogue lacks: {missing}"


def test_every_produced_key_has_the_same_placeholders_everywhere():
    bad = []
    for key in produced_keys():
        for form in forms("en", key):
            want = set(i18n.PLACEHOLDER.findall(i18n.catalogue("en")[form])) - {"n"}
            for lang in ("de", "fr"):
                got = set(i18n.PLACEHOLDER.findall(i18n.catalogue(lang)[form])) - {"n"}
                if got != want:
                    bad.append((lang, form, sorted(want), sorted(got)))
    assert not bad


def test_a_message_is_its_english_and_keeps_its_key():
    m = Message("refuse.bid_higher", name="Anna", bid=9, previous=7)
    assert m == "Anna's bid of 9 is higher than her bid of 7"
    assert (m.key, m.args) == ("refuse.bid_higher", {"name": "Anna", "bid": 9, "previous": 7})
    assert Message.from_json(m.to_json()) == m
    assert i18n.message(m.to_json()).key == "refuse.bid_higher"
    # prose from an old journal stays as it was written, in every language
    assert i18n.render("de", "blue up: it would stop on the barrier") == \
        "blue up: it would stop on the barrier"
    assert i18n.render("fr", i18n.message("old words")) == "old words"


def test_jsonable_keeps_the_english_and_adds_the_key_beside_it():
    q = Message("verify.question", seen=Message("verify.seen", robot=i18n.color("blue"),
                                                 cell="k10"))
    out = i18n.jsonable({"message": q, "problems": [Message("layout.empty", n=3)], "n": 1})
    assert out["message"] == "blue seen on k10 — is that right?"
    assert out["message_msg"]["key"] == "verify.question"
    assert out["message_msg"]["args"]["seen"]["args"]["robot"] == {"key": "color.blue",
                                                                   "args": {}}
    assert out["problems"] == ["3 spaces still to fill"]
    assert out["problems_msg"][0] == {"key": "layout.empty", "args": {"n": 3}}


# Words that would be English left in a German or French sentence.
ENGLISH = {"the", "is", "are", "bid", "bids", "move", "moves", "seen", "right", "left", "up",
           "down", "blue", "red", "green", "yellow", "white", "pink", "board", "higher", "her",
           "camera", "appears", "twice", "missing", "row", "column", "still", "fill", "wall",
           "stops", "reaches", "target", "sure", "that", "timer", "has", "run", "out", "over",
           "demonstration", "put", "back", "waits", "count", "cannot", "read", "chip", "by",
           "space", "spaces", "shares", "neither", "colour", "number", "after", "not"}


@cache
def representative() -> dict[str, Message]:
    """A message of each kind the server makes, most of them made by the code itself."""
    from test_game import Table as GameTable
    from test_micro import EXAMPLE, grid_names

    from companion.game import GameError
    from companion.micro import check_demonstration, check_rows

    g = GameTable(2)
    g.do("reveal")
    g.do("bid", seat=0, value=7)
    with pytest.raises(GameError) as refused:
        g.do("bid", seat=0, value=9)
    rows = grid_names(EXAMPLE)
    rows[0][0], rows[5][5] = rows[0][1], None
    problems = check_rows(rows)
    landings = ["pink6", "white6", "red6", "red2", "white2"]
    micro_why = check_demonstration(EXAMPLE, "pink1", "white1", 5, landings).reason
    color = i18n.color
    return {
        "refusal": i18n.said(refused.value),
        "phase": Message("refuse.time_up"),
        "illegal": Message("fail.illegal", name="Anna", why=Message(
            "route.move", n=2, move=i18n.move("blue", "right"),
            why=Message("slide.barrier_stop", cell="c4"))),
        "blocked": Message("why.blocked", robot=color("blue"), start="c2", cell="c9",
                           dir=i18n.direction("up"), what=Message("why.wall"), end="c5"),
        "question": Message("verify.question", seen=i18n.listed(
            [Message("verify.seen", robot=color("blue"), cell="k10"),
             Message("verify.seen", robot=color("red"), cell="c2")], "list.comma")),
        "missing": Message("verify.missing", robots=i18n.listed([color("green")]), n=1,
                           waits=Message("verify.on", robot=color("green"), cell="d4")),
        "put_back": Message("verify.put_back", robots=Message(
            "verify.back_on", robot=color("yellow"), cell="e5")),
        "chip_unread": Message("chip.unread_color", source=Message("source.camera"),
                               color=color("green"), why="…"),  # vision's own reason: prose
        "duplicate": problems[0],
        "empty": problems[-1],
        "micro_move": micro_why,
    }


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["de", "fr"])
def test_a_message_of_each_kind_has_no_english_left(lang):
    for kind, m in representative().items():
        assert isinstance(m, Message), kind
        words = i18n.render(lang, m)
        left = set(re.findall(r"\w+", words.lower())) & ENGLISH
        assert not left, (kind, words, left)
        assert words != str(m), kind


@pytest.mark.slow
def test_a_cameras_reason_is_journaled_as_its_key_and_an_old_prose_reason_still_shows(
        tmp_path):
    # the camera's reason for an illegal demonstration goes into the journal as its key and
    # values: after a restart the verdict says it in each page's language; a journal written
    # before (prose) replays and shows its words as they were
    from conftest import make_table, set_up, wait_state

    from companion.store import Store

    why = Message("why.blocked", robot=i18n.color("blue"), start="c2", cell="c9",
                  dir=i18n.direction("up"), what=Message("why.wall"), end="c5")
    old = "blue cannot get from c2 to c9 going up: a wall stops it on c5"
    for name, reason in (("new.db", i18n.stored(why)), ("old.db", old)):
        table = make_table(tmp_path, solve=None, name=name)
        table.start()
        try:
            set_up(table, timer=0.2)
            assert table.submit({"type": "reveal"}).ok
            assert table.submit({"type": "bid", "seat": 0, "value": 5}).ok
            wait_state(table, lambda s: s["phase"] == "demonstrating")
            out = table.submit({"type": "verdict", "success": False, "by": "camera",
                                "reason": reason})
            assert out.ok, out.reason
        finally:
            table.stop()
        store = Store(tmp_path / name)
        rows = [c for c in store.commands() if c.get("type") == "verdict"]
        store.close()
        assert rows[-1]["reason"] == reason  # the journal keeps what it was given
        again = make_table(tmp_path, solve=None, name=name)
        again.start()
        try:
            v = again.view()["verdict"]
            assert v["result"] == "illegal" and v["reason"] == old
            if name == "new.db":
                assert v["reason"].key == "why.blocked"
                assert i18n.render("de", v["reason"]) == (
                    "Roboter blau kommt von c2 Richtung hoch nicht nach c9: eine Wand hält ihn "
                    "auf c5 auf")
            else:
                assert i18n.render("de", v["reason"]) == old
        finally:
            again.stop()


def test_a_reason_sent_as_a_form_the_catalogues_do_not_know_is_not_taken():
    # a verdict's reason given as {"key", "args"}: only a known key with plain values is kept;
    # anything else (an unknown key, deep nesting, a long text, odd values) leaves the plain
    # "the table judged" failure, and nothing breaks
    from test_game import Table as GameTable
    from test_game import event

    deep: dict = {"key": "text", "args": {"text": "x"}}
    for _ in range(40):
        deep = {"key": "list.and", "args": {"first": "a", "rest": deep}}
    for reason in ({"key": "no.such.key"}, deep, {"key": "text", "args": {"text": "x" * 5000}},
                   {"key": "text", "args": {"text": ["a"]}}, {"key": "text", "args": "x"},
                   {"key": "text", "args": {"text": "x"}, "extra": 1}):
        g = GameTable(2)
        g.to_demonstration({0: 3})
        ev = event(g.do("verdict", success=False, by="camera", reason=reason),
                   "demonstration_failed")
        assert ev["reason"].key == "fail.judged", reason
    g = GameTable(2)
    g.to_demonstration({0: 3})
    good = i18n.stored(Message("verify.hidden"))
    ev = event(g.do("verdict", success=False, by="camera", reason=good), "demonstration_failed")
    assert ev["reason"].key == "verify.hidden" and g.g.s.verdict["result"] == "illegal"


# More words that would be English left in a camera's reason.
SIGHT = ENGLISH | {"frame", "view", "picture", "edge", "edges", "outline", "lattice", "cells",
                   "covered", "part", "of", "no", "clearly", "tile", "tiles",
                   "squares", "rows", "only", "within", "trying", "again", "recording",
                   "ended", "skipped", "could", "black", "light", "small", "closer",
                   "corners", "quadrilateral", "layout", "turn", "identified"}


def english_left(words: str) -> set[str]:
    return set(re.findall(r"\w+", words.lower())) & SIGHT


def sight_keys() -> list[str]:
    """The keys of the camera's reasons: why it cannot see or read the board, or why its
    pictures do not come."""
    return sorted(k for k in produced_keys()
                  if k.startswith("vision.") or k.startswith("camera."))


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_every_reason_of_the_camera_is_said_without_english(lang):
    # every reason the vision code gives, with its values filled, in German and French
    keys = sight_keys()
    assert len(keys) >= 25
    for key in keys:
        for form in forms("en", key):
            template = i18n.catalogue("en")[form]
            values = {name: "7" for name in i18n.PLACEHOLDER.findall(template)}
            if "name" in values:
                values["name"] = " 'Home'"
            m = Message(form, **values)
            words = i18n.render(lang, m)
            assert words != str(m), form
            assert not english_left(words), (form, words, english_left(words))


def test_a_frame_with_no_board_says_why_in_german():
    # the reason locate gives for a frame facing no board, classic or Micro Robots, as the
    # table page shows it (the camera feed's "camera: …"); the English stays for the command
    # line
    import numpy as np

    from companion.vision.locate import BoardNotFound, locate
    from companion.vision.micro_locate import locate_micro

    table = np.full((480, 640, 3), 128, np.uint8)  # an empty grey table
    for find in (locate, locate_micro):
        with pytest.raises(BoardNotFound) as refused:
            find(table)
        why = i18n.said(refused.value)
        assert isinstance(why, Message) and why.key.startswith("vision.")
        assert str(refused.value) == str(why) and str(why).startswith("no board in view")
        line = Message("camera.refused", why=why)
        german = i18n.render("de", Message.from_json(line.to_json()))
        assert german.startswith("Kamera: kein Spielplan im Bild"), german
        assert not english_left(german), german
    with pytest.raises(BoardNotFound) as black:
        locate(np.zeros((480, 640, 3), np.uint8))
    assert str(black.value) == "the frame is black: no light, or the camera is covered"
    assert i18n.render("fr", i18n.said(black.value)) == \
        "l'image est noire : pas de lumière, ou la caméra est couverte"


def test_an_edge_out_of_the_picture_is_named_in_each_language():
    from companion.vision.locate import BoardNotFound, locate_lattice

    assert str(Message("vision.out_edge.top")) == "the board's top edge is out of the picture"
    assert i18n.render("de", Message("vision.out_edge.left")) == \
        "der linke Rand des Spielplans liegt außerhalb des Bildes"
    # the lattice's reason is passed on as it was given, a message still
    import numpy as np

    grey = np.full((120, 160, 3), 128, np.uint8)
    with pytest.raises(BoardNotFound) as refused:
        locate_lattice(grey, grey[..., 0], BoardNotFound(Message("vision.out_of_frame")))
    assert isinstance(i18n.said(refused.value), Message)
