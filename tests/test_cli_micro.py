"""``companion micro``: solve, example and show; their JSON and exit statuses."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from companion.micro import Layout, Space, check_demonstration, example_layout


@pytest.fixture
def layout_file(tmp_path) -> str:
    path = tmp_path / "table.json"
    example_layout().save(path)
    return str(path)


def test_example_prints_a_layout_file_that_loads(cli, tmp_path):
    code, out, _ = cli("micro", "example")
    assert code == 0
    path = tmp_path / "printed.json"
    path.write_text(out)
    assert Layout.load(path) == example_layout()
    assert json.loads(out)["format"] == "micro-layout/1"
    code, out, _ = cli("micro", "example", "--name", "kitchen table")
    assert json.loads(out)["name"] == "kitchen table"


def test_solve_prints_the_worked_example_route(cli, layout_file):
    code, out, _ = cli("micro", "solve", layout_file, "--from", "pink 1", "--to", "white2")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "pink1 → white2: shortest 5 moves"
    assert lines[1].strip() == "pink1 → pink6 → white6 → red6 → red2 → white2"
    assert lines[2] == "possible move counts: every number from 5"


def test_solve_json_has_the_shortest_route_and_the_counts(cli, layout_file):
    code, out, _ = cli("micro", "solve", layout_file, "--from", "pink1", "--to",
                       "white2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["found"] is True and data["via"] is None
    assert data["shortest"]["moves"] == 5
    assert data["shortest"]["spaces"][0] == "pink1" and data["shortest"]["spaces"][-1] == "white2"
    assert data["lengths"]["odd_from"] == 5 and data["lengths"]["even_from"] == 6
    assert "exact" not in data


def test_solve_exact_finds_a_route_of_that_many_moves(cli, layout_file):
    code, out, _ = cli("micro", "solve", layout_file, "--from", "pink1", "--to",
                       "white2", "--exact", "8", "--json")
    assert code == 0
    exact = json.loads(out)["exact"]
    assert exact["found"] and exact["moves"] == 8
    spaces = [Space.parse(s) for s in exact["spaces"]]
    assert len(spaces) == 9
    assert check_demonstration(example_layout(), spaces[0], "white2", 8, spaces[1:]).success


def test_solve_exact_says_no_with_status_1_when_the_count_is_impossible(cli, layout_file):
    code, out, _ = cli("micro", "solve", layout_file, "--from", "pink1", "--to",
                       "white2", "--exact", "4")
    assert code == 1
    assert "no route of exactly 4 moves" in out
    assert "every number from 5" in out
    code, out, _ = cli("micro", "solve", layout_file, "--from", "pink1", "--to",
                       "white2", "--exact", "4", "--json")
    assert code == 1 and json.loads(out)["exact"] == {"moves": 4, "found": False,
                                                      "spaces": None}


def test_solve_via_lands_on_the_intermediate_target_first(cli, layout_file):
    code, out, _ = cli("micro", "solve", layout_file, "--from", "pink1", "--to",
                       "white2", "--via", "red3", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["via"] == "red3"
    spaces = data["shortest"]["spaces"]
    assert "red3" in spaces[1:] and spaces[-1] == "white2"
    assert data["shortest"]["moves"] > 5


def test_solve_with_no_route_at_all_exits_1(cli, tmp_path):
    # columns share nothing, rows pair column c with c + 3: most targets are unreachable
    from companion.micro import COLORS
    rows = [[f"{COLORS[(r + c) % 6]}{(r + 2 * c) % 6 + 1}" for c in range(6)] for r in range(6)]
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps({"format": "micro-layout/1", "name": "pairs", "rows": rows}))
    code, out, _ = cli("micro", "solve", str(path), "--from", rows[0][0],
                       "--to", rows[1][0])
    assert code == 1 and "no route at all" in out
    code, out, _ = cli("micro", "solve", str(path), "--from", rows[0][0],
                       "--to", rows[1][0], "--json")
    assert code == 1 and json.loads(out)["shortest"] is None


@pytest.mark.parametrize("argv, words", [
    (["--from", "pink9", "--to", "white2"], "--from: 'pink9' is not a space"),
    (["--from", "pink1", "--to", "mauve2"], "--to: 'mauve2' is not a space"),
    (["--from", "pink1", "--to", "white2", "--via", "x"], "--via"),
    (["--from", "pink1", "--to", "white2", "--exact", "-1"], "--exact"),
])
def test_solve_bad_spaces_exit_2_with_the_option_named(cli, layout_file, argv, words):
    code, out, err = cli("micro", "solve", layout_file, *argv)
    assert code == 2 and out == ""
    assert words in err and err.startswith("error: ")


def test_a_bad_layout_file_exits_2_and_names_the_problem(cli, tmp_path):
    rows = [[s.name for s in row] for row in example_layout().rows]
    gone = example_layout().at(0, 0)
    rows[0][0] = "pink1"  # pink 1 twice, the corner's space gone
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "micro-layout/1", "name": "bad", "rows": rows}))
    code, out, err = cli("micro", "solve", str(path), "--from", "pink1", "--to", "white2")
    assert code == 2 and out == ""
    assert "pink 1 appears twice" in err and f"{gone.label} is missing" in err
    code, _, err = cli("micro", "show", str(path))
    assert code == 2 and "pink 1 appears twice" in err
    code, _, err = cli("micro", "solve", str(tmp_path / "none.json"), "--from", "pink1",
                       "--to", "white2")
    assert code == 2 and "none.json" in err


def test_show_draws_a_valid_layout(cli, layout_file):
    code, out, _ = cli("micro", "show", layout_file)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "rule-sheet example: a valid Micro Robots layout"
    assert lines[1].split() == [s.name for s in example_layout().rows[0]]


def test_solve_reads_the_layout_from_standard_input(cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(example_layout().to_json()))
    code, out, _ = cli("micro", "solve", "-", "--from", "pink1", "--to", "white2",
                       "--json")
    assert code == 0 and json.loads(out)["layout"] == "rule-sheet example"


def test_the_installed_command_solves(tmp_path, layout_file):
    proc = subprocess.run(
        [sys.executable, "-m", "companion.cli", "micro", "solve", layout_file, "--from",
         "pink1", "--to", "white2", "--exact", "7"],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "exactly 7 moves:" in proc.stdout


def test_check_judges_the_worked_example_demonstration(cli, layout_file):
    code, out, _ = cli("micro", "check", layout_file, "--from", "pink1", "--to",
                       "white2", "--call", "5", "--route", "pink 6, white 6, red 6, red 2, white 2")
    assert code == 0 and out == "success: white2 in exactly 5 moves\n"


def test_check_says_why_a_demonstration_fails_and_whether_the_call_was_possible(cli, layout_file):
    code, out, _ = cli("micro", "check", layout_file, "--from", "pink1", "--to",
                       "white2", "--call", "6", "--route", "pink6 white6 red6 red2 white2",
                       "--json")
    assert code == 1
    data = json.loads(out)
    assert data["success"] is False and data["possible"] is True
    assert data["reason"] == "stopped after 5 of the 6 moves called"
    code, out, _ = cli("micro", "check", layout_file, "--from", "pink1", "--to",
                       "white2", "--call", "2", "--route", "pink6 white2")
    assert code == 1
    assert out.splitlines() == ["failed: move 2: white2 is not in the same row or column as "
                                "pink6", "2 moves were not possible"]


def test_check_with_an_intermediate_target(cli, layout_file):
    code, out, _ = cli("micro", "check", layout_file, "--from", "pink1", "--to",
                       "white2", "--via", "pink4", "--call", "5", "--route",
                       "pink6 white6 red6 red2 white2")
    assert code == 1 and "without landing on the intermediate target pink4" in out


@pytest.mark.parametrize("argv, words", [
    (["--call", "0", "--route", "pink6"], "--call"),
    (["--call", "2", "--route", "pink6 plum2"], "--route: 'plum2'"),
])
def test_check_bad_input_exits_2(cli, layout_file, argv, words):
    code, out, err = cli("micro", "check", layout_file, "--from", "pink1", "--to",
                         "white2", *argv)
    assert code == 2 and out == "" and words in err
