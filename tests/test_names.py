"""Names from outside: players' names are checked where they enter the game, old ones are
shown escaped, and layout names each keep a file of their own."""

from __future__ import annotations

import re
import time
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.micro import Layout, LayoutError, example_layout
from companion.names import (
    BIDI_CONTROLS,
    JOINERS,
    MAX_NAME,
    PlayerNameError,
    check_command_names,
    check_player_name,
    shown,
)
from companion.store import LayoutShelf, Store
from companion.table import Table
from companion.web import create_app

PIN = "246810"
ROWS = [[s.name for s in row] for row in example_layout().rows]
BAD_NAMES = [
    ("Ann\nBen", "control characters"),
    ("Ann\x00", "control characters"),
    ("\x1b[2J", "control characters"),
    ("Ann\u202eneB", "backwards"),
    ("\u2067Ann", "backwards"),
    ("\u200b\u200b", "give the player a name"),
    ("Ann\u200b", "invisible formatting characters (U+200B)"),
    ("Ann\xad", "invisible formatting characters (U+00AD)"),
    ("\u200d", "give the player a name"),
    ("   ", "give the player a name"),
    ("", "give the player a name"),
    ("x" * (MAX_NAME + 1), f"at most {MAX_NAME}"),
    (7, "text"),
    (None, "text"),
]


# ---------------------------------------------------------------- the rule itself


@pytest.mark.parametrize("name, words", BAD_NAMES)
def test_a_bad_player_name_is_refused_saying_why(name, words):
    with pytest.raises(PlayerNameError, match=re.escape(words)):
        check_player_name(name, "players[1]")
    with pytest.raises(PlayerNameError, match=re.escape("players[1]")):
        check_player_name(name, "players[1]")


@pytest.mark.parametrize("name, clean", [
    ("  Ann  ", "Ann"), ("Anna  Lena", "Anna Lena"), ("日本", "日本"), ("Zoë", "Zoë"),
    ("Zoe\u0308", "Zoë"), ("👩\u200d👩\u200d👧", "👩\u200d👩\u200d👧"), ("O'Neil-2", "O'Neil-2"),
    ("x" * MAX_NAME, "x" * MAX_NAME),
])
def test_ordinary_names_pass_tidied(name, clean):
    assert check_player_name(name) == clean


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_refused_or_becomes_a_name_that_shows(text):
    try:
        name = check_player_name(text)
    except PlayerNameError as e:
        assert str(e).startswith("name: ")
        return
    assert 0 < len(name) <= MAX_NAME
    assert "".join(ch for ch in name if ch not in JOINERS).isprintable()
    assert not set(name) & BIDI_CONTROLS
    assert name == name.strip() and "  " not in name
    assert any(not (ch.isspace() or unicodedata.category(ch) in ("Cf", "Mn", "Me"))
               for ch in name)


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_shown_text_is_one_printable_line_and_plain_text_stays_as_it_is(text):
    out = shown(text)
    assert out.isprintable() and not set(out) & BIDI_CONTROLS
    assert "\n" not in out
    if text.isprintable():
        assert out == text


def test_every_command_that_carries_names_is_checked():
    assert check_command_names({"type": "setup", "players": [" Ann ", {"name": "Ben "}]}
                               )["players"] == ["Ann", {"name": "Ben"}]
    for cmd in ({"type": "setup", "players": ["Ann", "B\nen"]},
                {"type": "new_game", "players": [{"name": "\u202eBen"}]},
                {"type": "correct", "name": {"seat": 0, "name": "\x00"}, "by": "referee"}):
        with pytest.raises(PlayerNameError):
            check_command_names(cmd)
    other = {"type": "bid", "seat": 0, "value": 3}
    assert check_command_names(other) == other


# ---------------------------------------------------------------- where names enter


@pytest.fixture
def table(tmp_path):
    db = tmp_path / "j.db"
    t = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db), solve=None,
              pin=PIN, simulated=True)
    t.start()
    yield t
    t.stop()


@pytest.fixture
def screen(table):
    client = create_app(table, {"PUBLIC_URL": "http://table.local:8000/"}).test_client()
    page = client.get("/")
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)
    client.environ_base["HTTP_X_CSRF_TOKEN"] = csrf
    assert client.post("/api/unlock", json={"pin": PIN}).status_code == 200
    return client


@pytest.mark.parametrize("name, words", BAD_NAMES)
@pytest.mark.parametrize("game", ["ricochet-robots", "micro-robots"])
def test_setup_refuses_a_bad_name_with_the_field_and_starts_nothing(screen, table, name,
                                                                    words, game):
    r = screen.post("/api/setup", json={"players": ["Ann", name], "game": game})
    assert r.status_code == 400, r.json
    assert "players[1]" in r.json["error"] and words in r.json["error"], r.json
    assert table.game.phase == "setup"


def test_setup_keeps_the_tidied_names(screen, table):
    r = screen.post("/api/setup", json={"players": ["  Ann ", "Zoe\u0308"]})
    assert r.status_code == 200, r.json
    assert [p["name"] for p in r.json["state"]["players"]] == ["Ann", "Zoë"]


def test_a_renamed_player_is_checked_too(screen, table):
    assert screen.post("/api/setup", json={"players": ["Ann", "Ben"]}).status_code == 200
    r = screen.post("/api/command", json={"type": "correct",
                                          "name": {"seat": 1, "name": "B\u202eneB"}})
    assert r.status_code == 400 and "backwards" in r.json["error"]
    r = screen.post("/api/command", json={"type": "correct",
                                          "name": {"seat": 1, "name": " Bo "}})
    assert r.status_code == 200, r.json
    assert [p["name"] for p in r.json["state"]["players"]] == ["Ann", "Bo"]


def test_names_from_any_source_are_checked_by_the_table(table):
    out = table.submit({"type": "setup", "players": ["Ann", "\x07Ben"]}, "buttons")
    assert not out.ok and "players[1]" in out.reason
    assert table.game.phase == "setup"


def test_history_prints_old_names_escaped(tmp_path, capsys):
    """A journal written before names were checked still prints one clean row per game."""
    db = tmp_path / "old.db"
    with Store(db, now=0.0) as s:  # straight into the journal, as older versions did
        s.apply({"type": "setup", "at": 0, "players": ["An\nn", "\u202eBen", "Cy\x1b[2J"],
                 "seed": 1})
    assert main(["history", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "An\\nn" in out and "\\u202eBen" in out and "Cy\\x1b[2J" in out
    assert all(line.isprintable() for line in out.splitlines())


def test_the_history_page_gets_old_names_escaped(tmp_path):
    db = tmp_path / "old.db"
    with Store(db, now=0.0) as s:  # straight into the journal, as older versions did
        s.apply({"type": "setup", "at": 0, "players": ["An\nn", "\u202eBen"], "seed": 1})
    t = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db), solve=None,
              pin=PIN, simulated=True)
    t.start()
    try:
        h = create_app(t, {}).test_client().get("/api/history").json
    finally:
        t.stop()
    assert h["games"][0]["players"] == ["An\\nn", "\\u202eBen"]
    assert sorted(p["name"] for p in h["players"]) == ["An\\nn", "\\u202eBen"]


# ---------------------------------------------------------------- layout names


def test_two_names_without_letters_in_common_keep_two_files(tmp_path):
    shelf = LayoutShelf(tmp_path)
    shelf.save(example_layout().renamed("日本"))
    turned = example_layout().turn_section(1)
    shelf.save(turned.renamed("中文"))
    assert len(list(tmp_path.glob("*.json"))) == 2
    shelf.delete("中文")
    assert shelf.load("日本") == example_layout()
    with pytest.raises(LayoutError, match="no layout called '中文'"):
        shelf.load("中文")


def test_a_name_finds_only_itself(tmp_path):
    shelf = LayoutShelf(tmp_path)
    shelf.save(example_layout().renamed("Kitchen table"))
    with pytest.raises(LayoutError, match="no layout called"):
        shelf.load("Kitchen!Table")
    shelf.save(example_layout().turn_section(2).renamed("Kitchen!Table"))
    assert shelf.load("kitchen  TABLE") == example_layout()  # case and spacing are the same
    assert shelf.load("Kitchen!Table") == example_layout().turn_section(2)
    assert sorted(x["name"] for x in shelf.list()) == ["Kitchen table", "Kitchen!Table"]
    shelf.rename("Kitchen!Table", "Attic")
    assert shelf.load("Kitchen table") == example_layout()
    assert shelf.load("attic") == example_layout().turn_section(2)


def test_files_saved_before_read_by_the_name_inside_them(tmp_path):
    example_layout().renamed("Kitchen table").save(tmp_path / "kitchen-table.json")
    example_layout().turn_section(0).renamed("").save(tmp_path / "cellar.json")
    shelf = LayoutShelf(tmp_path)
    assert shelf.load("Kitchen Table") == example_layout()
    assert shelf.load("cellar") == example_layout().turn_section(0)
    shelf.save(example_layout().turn_section(3).renamed("kitchen table"))  # replaces it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cellar.json", "kitchen-table.json"]


layout_names = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")),
                       min_size=1, max_size=12).filter(lambda s: any(c.isalnum() for c in s))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=layout_names, b=layout_names)
def test_deleting_one_name_never_touches_another(tmp_path_factory, a, b):
    try:
        a, b = LayoutShelf.clean_name(a), LayoutShelf.clean_name(b)
    except LayoutError:
        return  # not a layout name at all (refused with its reason elsewhere)
    if a.casefold() == b.casefold():
        return  # one name, written twice
    shelf = LayoutShelf(tmp_path_factory.mktemp("shelf"))
    first, second = example_layout(), example_layout().turn_section(1)
    shelf.save(first.renamed(a))
    shelf.save(second.renamed(b), replace=False)
    assert shelf.load(b).rows == second.rows and shelf.load(a).rows == first.rows
    shelf.delete(b)
    assert shelf.load(a).rows == first.rows and shelf.load(a).name == a
    assert [Layout.load(f).name for f in shelf.folder.glob("*.json")] == [a]


def test_the_layout_api_keeps_names_apart(screen, table):
    for name in ("日本", "中文", "Kitchen table"):
        r = screen.post("/api/layouts", json={"name": name, "rows": ROWS})
        assert r.status_code == 200, r.json
    assert screen.post("/api/layouts/中文/delete", json={}).status_code == 200
    assert screen.get("/api/layouts/日本").json["name"] == "日本"
    assert screen.get("/api/layouts/中文").status_code == 404
    r = screen.get("/api/layouts/Kitchen!Table")
    assert r.status_code == 404 and "Kitchen!Table" in r.json["error"]
    assert screen.get("/api/layouts/kitchen table").json["name"] == "Kitchen table"


api_names = st.builds(  # letters, then the characters URLs treat specially, then anything
    lambda a, p, b: a + p + b,
    st.text(st.characters(categories=("L", "N")), min_size=1, max_size=4),
    st.text(st.sampled_from("/%?#&+.\\ '\"~!<>"), max_size=3),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=4))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=api_names, b=api_names)
def test_the_api_addresses_every_name_and_only_it(screen, a, b):
    """Through the URL the page uses (``encodeURIComponent``): a name with ``/``, ``%``,
    ``?`` or ``#`` in it is found, and deleting one name never deletes another."""
    from urllib.parse import quote

    try:
        a, b = LayoutShelf.clean_name(a), LayoutShelf.clean_name(b)
    except LayoutError:
        return
    if a.casefold() == b.casefold() or "proposal" in (a, b):
        return
    url = "/api/layouts/{}".format
    turned = [[s.name for s in row] for row in example_layout().turn_section(1).rows]
    assert screen.post("/api/layouts", json={"name": a, "rows": ROWS}).status_code == 200
    assert screen.post("/api/layouts", json={"name": b, "rows": turned}).status_code == 200
    assert screen.get(url(quote(b, safe=""))).json["rows"] == turned
    assert screen.post(url(quote(b, safe="") + "/delete"), json={}).status_code == 200
    assert screen.get(url(quote(b, safe=""))).status_code == 404
    got = screen.get(url(quote(a, safe=""))).json
    assert got["name"] == a and got["rows"] == ROWS
    assert screen.post(url(quote(a, safe="") + "/delete"), json={}).json["layouts"] == []


def test_proposal_is_not_a_layout_name_the_page_could_reach(screen):
    r = screen.post("/api/layouts", json={"name": " proposal ", "rows": ROWS})
    assert r.status_code == 400 and "camera's proposal" in r.json["error"]
