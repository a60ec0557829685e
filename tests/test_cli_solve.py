"""``companion solve`` and ``companion check --bid``: output, JSON contract, exit statuses and
the ``.jsonl`` batch mode."""

from __future__ import annotations

import json

from companion.rules import Position, parse_route, validate_route

SMALL = {"board": {"size": 8}, "robots": {"red": "a1", "green": "h3"},
         "target": {"cell": "h8", "robot": "red"}}
WALLED = {"board": {"size": 8, "walls": [["d4", "up"], ["d4", "down"], ["d4", "left"],
                                         ["d4", "right"]]},
          "robots": {"red": "a1"}, "target": {"cell": "d4", "robot": "red"}}


def write(tmp_path, data, name="p.json") -> str:
    f = tmp_path / name
    f.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(f)


def test_solve_prints_the_optimal_route_as_moves(cli, tmp_path):
    code, out, _ = cli("solve", write(tmp_path, SMALL))
    assert code == 0
    assert out.startswith("2 moves: ")
    route = parse_route(out.split(": ", 1)[1])
    assert validate_route(Position.from_dict(SMALL), route).reached


def test_solve_json_follows_the_contract(cli, tmp_path):
    code, out, _ = cli("solve", write(tmp_path, SMALL), "--json")
    assert code == 0
    result = json.loads(out)
    assert result["length"] == 2 and result["cost"] == 2
    assert all(set(m) == {"robot", "direction"} for m in result["moves"])
    assert result["moves"][-1]["robot"] == "red"


def test_solve_exits_1_when_nothing_is_within_max_moves(cli, tmp_path):
    code, out, _ = cli("solve", write(tmp_path, SMALL), "--max-moves", "1")
    assert code == 1 and "within 1" in out


def test_solve_exits_1_with_the_reason_for_a_walled_off_target(cli, tmp_path):
    code, out, _ = cli("solve", write(tmp_path, WALLED), "--json")
    assert code == 1
    result = json.loads(out)
    assert result["moves"] is None and "walls" in result["reason"]


def test_solve_rules_option_changes_the_answer(cli, tmp_path):
    straight = {"board": {"size": 6}, "robots": {"blue": "a1", "red": "f6"},
                "target": {"cell": "a6", "robot": "blue"}}
    path = write(tmp_path, straight)
    _, strict, _ = cli("solve", path, "--json")
    _, off, _ = cli("solve", path, "--json", "--rules", "micro-robots")  # ricochet off
    assert json.loads(off)["length"] == 1
    assert json.loads(strict)["length"] > 1


def test_solve_bad_input_exits_2_naming_the_field(cli, tmp_path):
    bad = dict(SMALL, robots={"red": "z99"})
    code, out, err = cli("solve", write(tmp_path, bad))
    assert code == 2 and out == "" and "robots.red" in err
    code, _, err = cli("solve", write(tmp_path, SMALL), "--max-moves", "0")
    assert code == 2 and "--max-moves" in err


def test_solve_batch_gives_one_line_per_position_and_goes_on_after_a_bad_one(cli, tmp_path):
    lines = [json.dumps(SMALL), "{not json", "", json.dumps(WALLED), json.dumps(SMALL)]
    code, out, _ = cli("solve", write(tmp_path, "\n".join(lines), "many.jsonl"))
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == 4
    assert results[0]["length"] == 2
    assert "error" in results[1] and "line 2" in results[1]["error"]
    assert results[2]["moves"] is None
    assert results[3] == results[0]
    assert code == 2


def test_solve_batch_exit_status_says_whether_all_were_solved(cli, tmp_path):
    ok = write(tmp_path, json.dumps(SMALL) + "\n" + json.dumps(SMALL), "ok.jsonl")
    assert cli("solve", ok)[0] == 0
    some = write(tmp_path, json.dumps(SMALL) + "\n" + json.dumps(WALLED), "some.jsonl")
    assert cli("solve", some)[0] == 1


def test_check_bid_alone_says_whether_the_bid_can_be_met(cli, tmp_path):
    path = write(tmp_path, SMALL)
    code, out, _ = cli("check", path, "--bid", "2", "--json")
    result = json.loads(out)
    assert code == 0
    assert result["meets_bid"] is True and result["moves"] == 2 and result["reached"]
    assert result["robots"]["red"] == "h8"
    assert {"legal", "reason", "moves", "cost", "reached", "meets_bid", "robots"} <= set(result)


def test_check_bid_below_the_optimum_exits_1(cli, tmp_path):
    code, out, _ = cli("check", write(tmp_path, SMALL), "--bid", "1", "--json")
    result = json.loads(out)
    assert code == 1
    assert result["meets_bid"] is False and result["robots"] == {"red": "a1", "green": "h3"}
    code, out, _ = cli("check", write(tmp_path, SMALL), "--bid", "1")
    assert code == 1 and "cannot be met" in out


BARRIER_BACK = {"board": {"size": 6,
                          "diagonals": [{"cell": "a3", "color": "red", "orientation": "/"}]},
                "robots": {"blue": "a1"}, "target": {"cell": "a1", "robot": "blue"},
                "rules": "riogrande-2003"}


def test_solve_and_check_under_riogrande_find_the_best_route_without_a_reversal(cli, tmp_path):
    # blue up is turned right by the barrier; straight back left would come home in 2
    path = write(tmp_path, BARRIER_BACK)
    code, out, _ = cli("solve", path, "--json")
    assert code == 0
    result = json.loads(out)
    assert result["length"] == 3
    route = parse_route(", ".join(f"{m['robot']} {m['direction']}" for m in result["moves"]))
    verdict = validate_route(Position.from_dict(BARRIER_BACK), route)
    assert verdict.legal and verdict.reached
    code, out, _ = cli("check", path, "--bid", "2", "--json")
    assert code == 1 and json.loads(out)["meets_bid"] is False
    code, out, _ = cli("check", path, "--bid", "3", "--json")
    assert code == 0 and json.loads(out)["meets_bid"] is True
    code, out, _ = cli("solve", path, "--json", "--rules", "abacus-2013")
    assert code == 0 and json.loads(out)["length"] == 2
