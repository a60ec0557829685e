"""The message catalogues (companion/catalogues): every language has every key and no other,
the same placeholders in each, real translations, and every key the pages and the voice use.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import i18n, micro, speech
from companion.game import CHIPS, PHASES
from companion.rules import PRESETS, ROBOTS, Rules

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "companion" / "web"
USED = [
    re.compile(r"\bt\(\s*\"([^\"]+)\""),  # t("key", ...)
    re.compile(r"\btn\(\s*\"([^\"]+)\""),  # tn("key", n) uses key.one and key.other
    re.compile(r"data-i18n(?:-[a-z-]+)?=\"([^\"{}]+)\""),  # templates
    re.compile(r"\"data-i18n(?:-[a-z-]+)?\":\s*\"([^\"]+)\""),  # elements built by a script
]


def problems(catalogues: dict[str, dict[str, str]]) -> list[str]:
    """What is wrong with a set of catalogues, against the English one."""
    out = []
    base = catalogues["en"]
    for lang, words in catalogues.items():
        for key in sorted(set(base) - set(words)):
            out.append(f"{lang}: missing {key}")
        for key in sorted(set(words) - set(base)):
            out.append(f"{lang}: extra {key}")
        for key in sorted(set(base) & set(words)):
            found = set(i18n.PLACEHOLDER.findall(words[key]))
            if found != set(i18n.PLACEHOLDER.findall(base[key])):
                out.append(f"{lang}: {key} has other placeholders than in English")
            if not words[key].strip():
                out.append(f"{lang}: {key} is empty")
    return out


def used_keys(web: Path = WEB) -> dict[str, set[str]]:
    """Every catalogue key named literally in a script or a template, with where."""
    out: dict[str, set[str]] = {}
    files = [*(web / "static").glob("*.js"), *(web / "templates").glob("*.html")]
    for path in files:
        text = path.read_text(encoding="utf-8")
        for pattern in USED:
            for m in pattern.finditer(text):
                key = m.group(1)
                keys = [f"{key}.one", f"{key}.other"] if pattern is USED[1] else [key]
                for k in keys:
                    out.setdefault(k, set()).add(path.name)
    return out


def test_every_language_has_every_key_and_no_other():
    assert problems(i18n.catalogues()) == []
    assert set(i18n.catalogues()) == {"en", "de", "fr"}


def test_the_check_fails_on_a_missing_an_extra_or_a_changed_key():
    cats = {lang: dict(words) for lang, words in i18n.catalogues().items()}
    del cats["de"]["say.bid"]
    cats["fr"]["say.bidd"] = "{name}"
    cats["fr"]["head.lead"] = "{name} annonce"  # lost {moves} and {time}
    found = problems(cats)
    assert "de: missing say.bid" in found
    assert "fr: extra say.bidd" in found
    assert "fr: head.lead has other placeholders than in English" in found


def test_every_key_the_pages_use_is_in_the_catalogues():
    used = used_keys()
    assert len(used) > 150  # the scan finds the pages' words at all
    missing = {k: sorted(w) for k, w in used.items() if k not in i18n.catalogue("en")}
    assert missing == {}


def test_the_scan_sees_a_key_a_script_names(tmp_path):
    # the scan itself can fail: a made-up key in a script is reported
    static = tmp_path / "static"
    static.mkdir()
    (tmp_path / "templates").mkdir()
    (static / "x.js").write_text('t("no.such.key"); tn("moves", 2);\n'
                                 'el("b", {"data-i18n": "nav.x"})')
    (tmp_path / "templates" / "y.html").write_text('<p data-i18n-title="nav.y">')
    assert set(used_keys(tmp_path)) == {"no.such.key", "moves.one", "moves.other", "nav.x",
                                        "nav.y"}


def test_the_keys_built_from_the_games_own_names_exist():
    en = i18n.catalogue("en")
    needed = []
    for chip in CHIPS:
        needed += ["chip." + chip.replace(" ", "."),
                   "to." + chip.replace(" ", ".")]
    needed += [f"robot.{r}" for r in ROBOTS] + [f"color.{r}" for r in ROBOTS]
    needed += [f"color.{c}" for c in micro.COLORS]
    for name in Rules.option_names():
        needed.append(f"option.{name}")
        for choice in Rules._CHOICES.get(name, ()):
            needed.append(f"choice.{name}.{choice}")
    needed += [f"choice.tile_sides.{PRESETS[p].tile_sides}" for p in PRESETS]
    needed += [f"preset.{p}" for p in PRESETS if p != "micro-robots"]
    needed += [f"preset_help.{p}" for p in PRESETS if p != "micro-robots"]
    needed += [f"verdict.{v}" for v in ("success", "over_bid", "illegal", "incomplete", "gave_up")]
    needed += [f"micro.head.{p}" for p in micro.PHASES]
    needed += [f"history.status.{s}" for s in ("playing", "over", "abandoned")]
    needed += [f"dir.{d}" for d in ("up", "down", "left", "right")]
    assert [k for k in needed if k not in en] == []
    # every classic phase has a headline in common.js
    common = (WEB / "static" / "common.js").read_text()
    assert [p for p in PHASES if f'case "{p}"' not in common] == []


def test_counts_have_both_forms():
    en = i18n.catalogue("en")
    ones = {k[:-4] for k in en if k.endswith(".one")}
    others = {k[:-6] for k in en if k.endswith(".other")}
    assert ones == others and "moves" in ones


def test_translations_are_real():
    en = i18n.catalogue("en")
    for lang in ("de", "fr"):
        words = i18n.catalogue(lang)
        same = [k for k in en if words[k] == en[k]]
        assert len(same) < 0.1 * len(en), f"{lang}: {len(same)} texts the same as English"


def test_the_rule_sheets_words():
    # the terms each language's rule sheet uses (../shared/seeds)
    de, fr = i18n.catalogue("de"), i18n.catalogue("fr")
    assert "Zielchip" in de["target.chip"] and "Sanduhr" in de["say.time_up"]
    assert "Gebot" in de["pad.your_bid"] and de["chip.vortex"] == "Farbwirbel"
    assert "Züge" in de["moves.other"]
    assert "jeton cible" in fr["target.chip"].lower() and "sablier" in fr["say.time_up"]
    assert "annonce" in fr["pad.your_bid"].lower() and "vortex cosmique" in fr["chip.vortex"]
    assert "mouvements" in fr["moves.other"]


@pytest.mark.parametrize("lang,n,want", [
    ("en", 1, "1 move"), ("en", 0, "0 moves"), ("en", 6, "6 moves"),
    ("de", 1, "1 Zug"), ("de", 6, "6 Züge"),
    ("fr", 0, "0 mouvement"), ("fr", 1, "1 mouvement"), ("fr", 2, "2 mouvements"),
])
def test_plurals(lang, n, want):
    assert i18n.count(lang, "moves", n) == want


def test_text_fills_placeholders_and_names_join():
    assert i18n.text("en", "head.lead", name="Anna", moves="6 moves",
                     time=i18n.clock("en", 38)) == "Anna bids 6 moves — 38\xa0s left to go lower"
    assert i18n.names_joined("de", ["Anna", "Ben", "Cleo"]) == "Anna, Ben und Cleo"
    assert i18n.chip_name("fr", "green hexagon") == "hexagone vert"
    with pytest.raises(KeyError):
        i18n.text("en", "no.such.key")


# a time as the hourglass shows it, in every language: m:ss from a minute up, seconds below
CLOCKS = {"en": ["10:00", "1:01", "1:00", "59\xa0s", "38\xa0s", "1\xa0s", "0\xa0s"],
          "de": ["10:00", "1:01", "1:00", "59\xa0s", "38\xa0s", "1\xa0s", "0\xa0s"],
          "fr": ["10:00", "1:01", "1:00", "59\xa0s", "38\xa0s", "1\xa0s", "0\xa0s"]}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_time_reads_as_the_hourglass_shows_it(lang):
    times = [600, 60.4, 59.2, 58.01, 37.5, 0.3, 0]
    assert [i18n.clock(lang, s) for s in times] == CLOCKS[lang]
    head = i18n.text(lang, "head.lead", name="Anna", moves=i18n.count(lang, "moves", 6),
                     time=i18n.clock(lang, 600))
    assert "10:00" in head and "600" not in head, head


@pytest.mark.parametrize(("lang", "said"), [
    ("en", ["10 minutes", "1 minute 30", "1 minute", "2 minutes 5", "38 seconds", "1 second"]),
    ("de", ["10 Minuten", "1 Minute 30", "1 Minute", "2 Minuten 5", "38 Sekunden", "1 Sekunde"]),
    ("fr", ["10 minutes", "1 minute 30", "1 minute", "2 minutes 5", "38 secondes", "1 seconde"]),
])
def test_a_time_said_aloud_counts_minutes_and_seconds(lang, said):
    assert [i18n.duration(lang, s) for s in (600, 90, 60, 125, 37.2, 1)] == said


@given(st.text(max_size=12))
def test_a_language_setting_is_one_of_three_or_a_clear_error(value):
    try:
        code = i18n.language(value)
    except ValueError as e:
        assert str(e).startswith("language: one of en, de, fr")
    else:
        assert code in i18n.LANGUAGES and value.strip().lower().startswith(code)


def test_every_announcement_has_words_in_every_language():
    samples = {"chip": {"chip": "blue triangle"}, "bid": {"name": "Anna", "n": 6},
               "hourglass": {"seconds": 120}, "ten_seconds": {}, "time_up": {},
               "demonstrator": {"name": "Ben", "n": 1},
               "verdict": {"name": "Ben", "success": True}, "winner": {"names": ["Anna"]},
               "message": {"message": i18n.Message("refuse.time_up")}}
    assert set(samples) == set(speech.KINDS)
    for lang in i18n.LANGUAGES:
        for kind, params in samples.items():
            said = speech.phrase(lang, kind, **params)
            assert said and "{" not in said
