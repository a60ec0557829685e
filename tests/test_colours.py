"""Colour profiles: memberships by hue, files that round-trip or are refused with the field
named, and a profile learnt from one frame of a dim table."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.board import cell_name
from companion.vision.colours import Profile, ProfileError, balanced_lab, white_of
from companion.vision.learn import learn
from companion.vision.render import random_position, render


def test_robot_colours_told_apart_by_hue_whatever_their_brightness():
    p = Profile()
    for colour in ("red", "green", "blue", "yellow"):
        L, a, b = p.references[colour]
        for scale in (0.4, 1.0):  # the same plastic in a dim and a bright room
            m = p.membership(np.array([[L * scale, a * scale, b * scale]], np.float32))
            assert max(m, key=lambda c: float(m[c][0])) == colour
    grey = p.membership(np.array([[80.0, 1.0, -2.0]], np.float32))
    assert all(float(v[0]) < 0.1 for v in grey.values())


def test_the_surface_white_becomes_neutral_under_a_colour_cast():
    board = np.full((40, 40, 3), (150, 200, 230), np.float32)  # white cells under a warm lamp
    lab = balanced_lab(board, white_of(board))
    assert np.abs(lab[..., 1:]).max() < 1.0


def test_a_profile_round_trips_through_its_file(tmp_path):
    p = Profile(robots=("red", "blue", "silver"))
    p.references["red"] = (30.0, 40.0, 20.0)
    p.save(tmp_path / "c.json")
    q = Profile.load(tmp_path / "c.json")
    assert q.robots == ("red", "blue", "silver")
    assert q.references["red"] == (30.0, 40.0, 20.0)


@pytest.mark.parametrize("data,field", [
    ({"format": "other"}, "format"),
    ({"format": "ricochet-colour-profile/1", "references": {"pink": [1, 2, 3]}}, "pink"),
    ({"format": "ricochet-colour-profile/1", "references": {"red": [1, 2]}}, "references.red"),
    ({"format": "ricochet-colour-profile/1", "references": {}, "robots": ["orange"]}, "robots"),
])
def test_a_bad_profile_is_refused_naming_the_field(tmp_path, data, field):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match=field):
        Profile.load(path)


def test_a_missing_or_broken_profile_file_is_refused(tmp_path):
    with pytest.raises(ProfileError, match="(?i)no such file"):
        Profile.load(tmp_path / "none.json")
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(ProfileError, match="not JSON"):
        Profile.load(tmp_path / "x.json")


def test_a_profile_learnt_from_one_frame_holds_that_tables_robots():
    shot = render(random_position(91), seed=91, tilt=15, brightness=0.45,
                  cast=(1.15, 1.0, 0.85))
    robots = {k: cell_name(v) for k, v in shot.robots.items()}
    p = learn(shot.image, robots, tiles=list(shot.tiles))
    assert set(p.robots) == set(robots)
    for colour in robots:
        m = p.membership(np.array([p.references[colour]], np.float32))
        assert float(m[colour][0]) > 0.9
    with pytest.raises(ProfileError, match="unknown colour"):
        learn(shot.image, {"purple": "a1"}, tiles=list(shot.tiles))


def test_a_game_names_its_robots_and_the_transparent_one_needs_no_colour(tmp_path):
    p = Profile().for_robots(["red", "green", "blue", "yellow", "silver", "transparent"])
    assert p.robots[-2:] == ("silver", "transparent")
    assert "transparent" not in p.membership(np.zeros((2, 3), np.float32))
    p.save(tmp_path / "game.json")
    assert Profile.load(tmp_path / "game.json").robots == p.robots
    with pytest.raises(ProfileError, match="gold"):
        Profile().for_robots(["red", "gold"])
    shot = render(random_position(92, robots=("red", "green", "blue", "yellow", "transparent")),
                  seed=92, tilt=10)
    robots = {k: cell_name(v) for k, v in shot.robots.items()}
    learnt = learn(shot.image, robots, tiles=list(shot.tiles))
    assert "transparent" in learnt.robots and "transparent" not in learnt.references


def test_neutral_robots_are_judged_against_the_light_where_they_stand():
    p = Profile().for_robots(["red", "silver"])
    mid = np.array([[40.0, 0.0, 0.0]], np.float32)  # a mid-dark grey …
    assert float(p.membership(mid)["silver"][0]) > 0.9
    # … that is the board's light grey print in a corner the lamp leaves at half its light
    assert float(p.membership(mid, np.array([2.0]))["silver"][0]) < 0.1
