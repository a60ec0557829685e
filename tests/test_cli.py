"""The command line: show and check, their JSON contracts and exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion.cli import example_path, main

HARDEST = str(example_path("hardest-25.json"))


def write(tmp_path, data, name="p.json") -> str:
    f = tmp_path / name
    f.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(f)


SMALL = {"board": {"size": 8}, "robots": {"red": "a1", "green": "h3"},
         "target": {"cell": "h8", "robot": "red"}}


def test_show_draws_the_bundled_example_with_robots_and_target(cli):
    code, out, _ = cli("show", "--color", "never")
    assert code == 0
    assert "R red c2" in out and "B blue l14" in out
    assert "the blue triangle at j4" in out
    rows = [line for line in out.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == 16
    assert "BT" in out  # the round's target in capitals


def test_show_paints_robots_in_colour_when_asked(cli):
    code, out, _ = cli("show", HARDEST, "--color", "always")
    assert code == 0 and "\x1b[44;97mB" in out


def test_check_json_follows_the_contract(cli, tmp_path):
    code, out, _ = cli("check", write(tmp_path, SMALL), "--route",
                       "red up, red right", "--bid", "2", "--json")
    assert code == 0
    assert json.loads(out) == {"legal": True, "reason": None, "moves": 2, "cost": 2,
                               "reached": True, "meets_bid": True,
                               "robots": {"red": "h8", "green": "h3"}}


def test_check_names_the_move_that_broke_a_rule_and_stops_there(cli, tmp_path):
    code, out, _ = cli("check", write(tmp_path, SMALL), "--route",
                       "red up, red left, red right", "--json")
    result = json.loads(out)
    assert code == 1
    assert result["legal"] is False and result["moves"] == 1
    assert result["reason"].startswith("move 2 (red left)")
    assert result["robots"]["red"] == "a8"


def test_check_reports_a_bid_not_met(cli, tmp_path):
    code, out, _ = cli("check", write(tmp_path, SMALL), "--route",
                       "red up, red right", "--bid", "1")
    assert code == 1 and "bid 1: not met" in out


@pytest.mark.parametrize("data,message", [
    ("{broken", "not JSON"),
    ({**SMALL, "colour": 1}, "unknown key 'colour'"),
    ({**SMALL, "robots": {"red": "a1", "green": "a1"}}, "robots.green"),
    ({**SMALL, "board": {"tiles": ["1A", "2A", "3A", "5A"]}}, "unknown tile"),
    ({**SMALL, "robots": {"red": "z9"}}, "robots.red"),
])
def test_bad_positions_exit_2_with_one_clear_message(cli, tmp_path, data, message):
    code, out, err = cli("check", write(tmp_path, data), "--route", "red up")
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_a_bad_route_exits_2(cli, tmp_path):
    code, _, err = cli("check", write(tmp_path, SMALL), "--route", "red sideways")
    assert code == 2 and "--route" in err and "sideways" in err


def test_the_installed_command_runs(tmp_path):
    done = subprocess.run([sys.executable, "-m", "companion.cli", "show", HARDEST,
                           "--color", "never"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "target: the blue triangle" in done.stdout


def test_bench_help_names_every_benchmark(capsys):
    from companion.benchmarks import NAMES

    with pytest.raises(SystemExit) as e:
        main(["bench", "--help"])
    assert e.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert all(name in text for name in NAMES)
