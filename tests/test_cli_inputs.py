"""Hostile input to every command's files and option values.

Each command is run in this process (as ``companion ...`` runs it) on files that are random
bytes, truncated or mutated copies of valid files, JSON nested a hundred thousand levels deep,
numbers of thousands of digits, text that is not UTF-8, empty files, folders where a file
belongs and files that do not exist; and on option values of any text and any size. Whatever
comes, the command answers with exit status 0, 1 or 2, never a traceback (neither an exception
out of ``main`` nor a line of one on the standard error), and exit status 2 comes with one
line ``error: …`` naming the option or the file.

How many inputs each command was given is printed at the end of the module (set
``COMPANION_FUZZ_EXAMPLES`` for more than the default per test).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import example_path, main

EXAMPLES = int(os.environ.get("COMPANION_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])
ROOT = Path(__file__).resolve().parents[1]
TRIED: Counter[str] = Counter()
_NUMBER = itertools.count()
TRACEBACKS: Counter[str] = Counter()

SMALL = {"board": {"size": 8, "walls": [["c4", "up"]], "targets": [
    {"cell": "h8", "color": "red", "shape": "circle"}]},
    "robots": {"red": "a1", "green": "h3"}, "target": {"color": "red", "shape": "circle"}}
HARDEST = str(example_path("hardest-25.json"))


@pytest.fixture(scope="module", autouse=True)
def summary(request):
    """The table of inputs tried per command, printed once the module has run."""
    yield
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if reporter is None or capture is None or not TRIED:
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        reporter.write_line(f"{'command':<40} {'inputs tried':>12} {'tracebacks':>10}")
        for command in sorted(TRIED):
            reporter.write_line(f"{command:<40} {TRIED[command]:>12} "
                                f"{TRACEBACKS[command]:>10}")
        reporter.write_line(f"{'all':<40} {sum(TRIED.values()):>12} "
                            f"{sum(TRACEBACKS.values()):>10}")


_SEEDS: dict[str, bytes] = {}


@pytest.fixture(scope="module")
def seeds():
    """Valid files of each kind, the material the hostile ones are cut from (a module
    global, not an argument of the tests, so a failing example prints short)."""
    _SEEDS.update(_make_seeds())
    yield _SEEDS


def _make_seeds() -> dict[str, bytes]:
    from companion.micro import example_layout
    from companion.store import Store
    from companion.vision.colours import Profile

    folder = Path(tempfile.mkdtemp(prefix="companion-fuzz-seeds-"))
    img = np.zeros((48, 64, 3), np.uint8)
    cv2.rectangle(img, (8, 8), (40, 30), (0, 0, 255), -1)
    png = cv2.imencode(".png", img)[1].tobytes()
    video = folder / "v.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for _ in range(4):
        writer.write(img)
    writer.release()
    db = folder / "j.db"
    with Store(db, now=0.0) as s:
        s.apply({"type": "setup", "at": 0, "players": ["Anna", "Ben"], "seed": 1})
    observations = "\n".join(json.dumps(x) for x in [
        {"at": 0, "robots": {"red": "c2", "green": "a13", "blue": "l14", "yellow": "c15"}},
        {"at": 1, "robots": None},
        {"at": 2, "robots": {"red": "c2", "green": "a13", "blue": "l1", "yellow": "c15"}}])
    out = {
        "position": json.dumps(SMALL).encode(),
        "positions": (json.dumps(SMALL) + "\n" + json.dumps(SMALL) + "\n").encode(),
        "layout": example_layout().to_json().encode(),
        "profile": json.dumps(Profile().to_dict()).encode(),
        "pins": (ROOT / "hardware" / "pins.toml").read_bytes(),
        "observations": observations.encode(),
        "image": png,
        "video": video.read_bytes(),
        "db": db.read_bytes(),
    }
    shutil.rmtree(folder, ignore_errors=True)
    return out


@pytest.fixture
def work(seeds):
    folder = Path(tempfile.mkdtemp(prefix="companion-fuzz-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------- hostile material

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                  max_size=4),
    max_leaves=10)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _replace(value, path, new):
    if not path:
        return new
    value = json.loads(json.dumps(value))
    inner = value
    for k in path[:-1]:
        inner = inner[k]
    inner[path[-1]] = new
    return value


@st.composite
def mutated_json(draw, valid: bytes):
    """A valid JSON file with one value anywhere in it replaced by any JSON value (wrong
    types, huge numbers, deep lists, nothing)."""
    data = json.loads(valid)
    path = draw(st.sampled_from(list(_paths(data))))
    new = draw(json_values | st.sampled_from([10 ** 400, -(10 ** 40), 1e308, 2 ** 63, "",
                                              "\u202e\x00", [[[[[]]]]]]))
    return json.dumps(_replace(data, path, new), allow_nan=True).encode()


def deep(n: int, opener: str) -> bytes:
    return (opener * n).encode()


def hostile_bytes(valid: bytes, *, is_json: bool = True) -> st.SearchStrategy[bytes]:
    """Every kind of bad file, cut from a valid one where that helps."""
    kinds = [
        st.binary(max_size=600),
        st.just(b""),
        st.just(b"\xff\xfe\x00\x00garbage"),
        st.integers(0, max(len(valid) - 1, 0)).map(lambda i: valid[:i]),
        st.tuples(st.integers(0, max(len(valid) - 1, 0)), st.binary(min_size=1, max_size=8))
          .map(lambda t: valid[:t[0]] + t[1] + valid[t[0] + len(t[1]):]),
        st.integers(1, 200_000).flatmap(
            lambda n: st.sampled_from([deep(n, "["), deep(n, '{"a":'),
                                       deep(n, "[") + deep(n, "]")])),
        st.sampled_from([b"1" * 5000, b"1e999", b"-1e400", b"[1e999, NaN, -Infinity]",
                         b"9" * 100_000, b'{"board": {"size": ' + b"9" * 4400 + b"}}"]),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.just(valid),
    ]
    if is_json and valid.lstrip()[:1] in (b"{", b"["):
        kinds.append(mutated_json(valid))
    return st.one_of(kinds)


def place(folder: Path, name: str, content: bytes | str) -> str:
    """The file a command is given: the bytes, or a folder (``"dir"``), or nothing there
    (``"missing"``)."""
    path = folder / f"{next(_NUMBER)}-{name}"
    if content == "dir":
        path.mkdir()
        (path / "inner.json").write_text("{}")
    elif content != "missing":
        path.write_bytes(content)
    return str(path)


def file_or_worse(valid: bytes, *, is_json: bool = True):
    return st.one_of(hostile_bytes(valid, is_json=is_json), st.sampled_from(["dir", "missing"]))


option_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=12).map(lambda s: s + "\u202e"),
    st.sampled_from(["", ",,,,", " ", "-", "--", "1e999", "9" * 5000, "red", "pink1",
                     "blue up", "a1,b2", "x" * 10_000, "4B,3B,2B,1A", "0,0,0,0,0,0,0,0",
                     "nan,nan,nan,nan,nan,nan,nan,nan", "abacus-2013", "classic-1999",
                     "red=c2", "red=z99,blue=", "6x9", "0x0", "99999999x9"]),
).filter(lambda s: "\x00" not in s)
option_int = st.one_of(st.integers(-10, 60), st.integers(), st.just(10 ** 30)).map(str)


# ---------------------------------------------------------------- running a command


def run(capfd, command: str, argv: list[str], *, names: tuple[str, ...]) -> int:
    """Run ``companion argv``; check the promise; count the input. ``names``: what an error
    message must name (any one of them): the option or the file that was hostile."""
    TRIED[command] += 1
    try:
        code = main(argv)
    except SystemExit as e:  # argparse refusing an option value
        code = e.code
    except BaseException:
        TRACEBACKS[command] += 1
        raise
    out, err = capfd.readouterr()
    if "Traceback" in err:
        TRACEBACKS[command] += 1
    assert "Traceback" not in err, err
    assert code in (0, 1, 2), (code, argv, err)
    if code == 2:
        # a .jsonl batch answers each bad line on the standard output, in order
        lines = [line for line in err.splitlines()  # calibration names each photo skipped
                 if line.strip() and not line.startswith("skipped ")] or \
            [line for line in out.splitlines() if line.startswith('{"error": ')][:1]
        assert lines, (argv, out)
        message = lines[-1]
        assert "error: " in message or '"error": ' in message, (err, out)
        assert any(n in message for n in names), (names, message)
        if not message.startswith("companion"):  # argparse prints its usage first
            assert len(lines) == 1, err
    return code


# ---------------------------------------------------------------- positions


@FUZZ
@given(data=st.data())
def test_show_check_and_solve_survive_any_position_file(capfd, work, data):
    content = data.draw(file_or_worse(_SEEDS["position"]))
    path = place(work, "p.json", content)
    run(capfd, "show", ["show", path, "--color", "never"], names=("POSITION", path))
    run(capfd, "check", ["check", path, "--route", "red up, red right", "--bid", "3"],
        names=("POSITION", path, "target", "--route"))
    run(capfd, "solve POSITION.json", ["solve", path, "--max-moves", "4"],
        names=("POSITION", path, "target"))
    run(capfd, "verify --start", ["verify", str(work), "--start", path, "--bid", "2"],
        names=("--start", path, "FRAMES"))


@FUZZ
@given(data=st.data())
def test_solve_survives_any_jsonl_file(capfd, work, data):
    content = data.draw(file_or_worse(_SEEDS["positions"], is_json=False))
    path = place(work, "p.jsonl", content)
    run(capfd, "solve POSITIONS.jsonl", ["solve", path, "--max-moves", "3"],
        names=("POSITION", path, '"line '))


@FUZZ
@given(route=option_text, bid=option_int, rules=option_text, max_moves=option_int)
def test_check_and_solve_survive_any_option_value(capfd, work, route, bid, rules, max_moves):
    path = place(work, "p.json", json.dumps(SMALL).encode())
    run(capfd, "check --route --bid", ["check", path, "--route", route, "--bid", bid],
        names=("--route", "--bid"))
    run(capfd, "check --rules", ["check", path, "--route", "red up", "--rules", rules],
        names=("--rules",))
    run(capfd, "solve --max-moves --rules",
        ["solve", path, "--max-moves", max_moves, "--rules", rules],
        names=("--max-moves", "--rules"))
    run(capfd, "show --rules", ["show", path, "--rules", rules, "--color", "never"],
        names=("--rules",))


# ---------------------------------------------------------------- Micro Robots


@FUZZ
@given(data=st.data())
def test_micro_commands_survive_any_layout_file(capfd, work, data):
    content = data.draw(file_or_worse(_SEEDS["layout"]))
    path = place(work, "l.json", content)
    run(capfd, "micro show", ["micro", "show", path], names=("LAYOUT", path))
    run(capfd, "micro solve", ["micro", "solve", path, "--from", "pink1", "--to", "white2"],
        names=("LAYOUT", path))
    run(capfd, "micro check", ["micro", "check", path, "--from", "pink1", "--to", "white2",
                               "--call", "3", "--route", "pink6, white6"],
        names=("LAYOUT", path, "--route"))


@FUZZ
@given(start=option_text, target=option_text, via=option_text, exact=option_int,
       route=option_text, call=option_int)
def test_micro_commands_survive_any_option_value(capfd, work, start, target, via,
                                                 exact, route, call):
    path = place(work, "l.json", _SEEDS["layout"])
    run(capfd, "micro solve --from --to --via --exact",
        ["micro", "solve", path, "--from", start, "--to", target, "--via", via,
         "--exact", exact], names=("--from", "--to", "--via", "--exact"))
    run(capfd, "micro check --route --call",
        ["micro", "check", path, "--from", "pink1", "--to", "white2", "--call", call,
         "--route", route], names=("--route", "--call"))


# ---------------------------------------------------------------- pictures and videos


@FUZZ
@given(data=st.data())
def test_read_commands_survive_any_picture_and_profile(capfd, work, data):
    n = TRIED["read IMAGE"]
    image = place(work, "i.png", data.draw(file_or_worse(_SEEDS["image"], is_json=False)))
    good = place(work, "g.png", _SEEDS["image"])
    profile = place(work, "c.json", data.draw(file_or_worse(_SEEDS["profile"])))
    layout = place(work, "l.json", data.draw(file_or_worse(_SEEDS["layout"])))
    run(capfd, "read IMAGE", ["read", image, "--json"], names=("IMAGE", image))
    run(capfd, "read --profile", ["read", good, "--profile", profile],
        names=("--profile", profile))
    run(capfd, "micro read IMAGE", ["micro", "read", image], names=("IMAGE", image))
    run(capfd, "micro read --layout", ["micro", "read", good, "--layout", layout],
        names=("--layout", layout))
    run(capfd, "calibration colours IMAGE",
        ["calibration", "colours", image, "--robots", "red=c2",
         "--out", str(work / f"out{n}.json")], names=("IMAGE", image))


@FUZZ
@given(board=option_text, corners=option_text, robots=option_text)
def test_read_commands_survive_any_option_value(capfd, work, board, corners, robots):
    good = place(work, "g.png", _SEEDS["image"])
    run(capfd, "read --board --corners --robots",
        ["read", good, "--board", board, "--corners", corners, "--robots", robots],
        names=("--board", "--corners", "--robots"))
    run(capfd, "calibration colours --robots",
        ["calibration", "colours", good, "--robots", robots, "--out", str(work / "c.json")],
        names=("--robots", "IMAGE"))


@FUZZ
@given(data=st.data())
def test_verify_survives_any_recording(capfd, work, data):
    log = place(work, "o.jsonl", data.draw(file_or_worse(_SEEDS["observations"],
                                                              is_json=False)))
    video = place(work, "v.avi", data.draw(file_or_worse(_SEEDS["video"],
                                                              is_json=False)))
    run(capfd, "verify FRAMES.jsonl", ["verify", log, "--start", HARDEST, "--bid", "3"],
        names=("FRAMES", log))
    run(capfd, "verify FRAMES (video)", ["verify", video, "--start", HARDEST, "--bid", "3"],
        names=("FRAMES", video))


@FUZZ
@given(data=st.data())
def test_verify_and_calibration_survive_any_folder_of_pictures(capfd, work, data):
    folder = work / f"frames{next(_NUMBER)}"
    folder.mkdir()
    for k in range(data.draw(st.integers(0, 3))):
        content = data.draw(hostile_bytes(_SEEDS["image"], is_json=False))
        (folder / f"f{k}.png").write_bytes(content)
    run(capfd, "verify FRAMES (folder)", ["verify", str(folder), "--start", HARDEST,
                                          "--bid", "3"], names=("FRAMES", str(folder)))
    run(capfd, "calibration camera PHOTOS",
        ["calibration", "camera", str(folder), *map(str, folder.iterdir()),
         "--out", str(work / "lens.json")], names=("PHOTOS", str(folder), "calibration"))


@FUZZ
@given(pattern=option_text, square=option_text, name=option_text)
def test_calibration_and_example_survive_any_option_value(capfd, work, pattern, square, name):
    good = place(work, "g.png", _SEEDS["image"])
    run(capfd, "calibration camera --pattern --square-mm",
        ["calibration", "camera", good, "--pattern", pattern, "--square-mm", square,
         "--out", str(work / "lens.json")],
        names=("--pattern", "--square-mm", "calibration"))
    run(capfd, "micro example --name", ["micro", "example", "--name", name],
        names=("--name",))


@FUZZ
@given(data=st.data())
def test_standard_input_is_read_like_a_file(capfd, work, monkeypatch, data):
    import io
    import sys

    for command, argv, valid in [
        ("show -", ["show", "-", "--color", "never"], _SEEDS["position"]),
        ("micro solve -", ["micro", "solve", "-", "--from", "pink1", "--to", "white2"],
         _SEEDS["layout"]),
    ]:
        content = data.draw(hostile_bytes(valid))
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(content)))
        run(capfd, command, argv, names=("(standard input)",))


out_paths = st.one_of(
    st.sampled_from(["{file}", "{file}/below", "{dir}", "new/deeper/still", "/proc/none/x",
                     "/dev/null", "", ".", "{file}.json/x"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00/"),
            min_size=1, max_size=20),
)


@settings(FUZZ, max_examples=max(EXAMPLES // 5, 5))
@given(out=out_paths)
def test_commands_that_write_refuse_any_place_they_cannot_write(capfd, work, monkeypatch,
                                                                out):
    """Where a command writes (``--out``, ``--sheet-dir``) is input too."""
    monkeypatch.chdir(work)
    n = next(_NUMBER)
    file = place(work, f"taken{n}", b"x")
    folder = place(work, f"folder{n}", "dir")
    out = out.replace("{file}", file).replace("{dir}", folder)
    run(capfd, "calibration markers --out", ["calibration", "markers", "--out", out],
        names=("--out",))
    run(capfd, "calibration camera --sheet-dir",
        ["calibration", "camera", "--sheet", "--sheet-dir", out], names=("--sheet-dir",))


# ---------------------------------------------------------------- journal, pins, colours


@FUZZ
@given(data=st.data())
def test_history_survives_any_journal_file(capfd, work, data):
    path = place(work, "j.db",
                 data.draw(file_or_worse(_SEEDS["db"], is_json=False)))
    run(capfd, "history --db", ["history", "--db", path], names=("--db", path))
    run(capfd, "history --db --json", ["history", "--db", path, "--json"],
        names=("--db", path))
    run(capfd, "history --db --recover", ["history", "--db", path, "--recover"],
        names=("--db", path))


@FUZZ
@given(data=st.data())
def test_run_refuses_any_bad_pin_map_or_colour_profile_before_starting(capfd, work,
                                                                       monkeypatch, data):
    """``companion run`` checks its files before it starts anything; where the files are
    good it goes on to start the table (here: the call that would start it is recorded)."""
    import companion.app as app

    started = []
    monkeypatch.setattr(app, "run", lambda opts: started.append(opts) or 0)
    pins = place(work, "p.toml", data.draw(file_or_worse(_SEEDS["pins"], is_json=False)))
    colours = place(work, "c.json", data.draw(file_or_worse(_SEEDS["profile"])))
    code = run(capfd, "run --pins", ["run", "--pins", pins, "--port", "0"],
               names=("--pins", pins))
    assert (code == 0) == (len(started) == 1)
    before = len(started)
    code = run(capfd, "run --colours", ["run", "--colours", colours, "--port", "0"],
               names=("--colours", colours))
    assert (code == 0) == (len(started) == before + 1)
    kind, valid = data.draw(st.sampled_from([("avi", "video"), ("png", "image")]))
    camera = place(work, f"camera.{kind}", data.draw(file_or_worse(_SEEDS[valid],
                                                                   is_json=False)))
    before = len(started)
    code = run(capfd, "run --camera", ["run", "--camera", camera, "--port", "0"],
               names=("--camera", camera))
    assert (code == 0) == (len(started) == before + 1)


# ---------------------------------------------------------------- the named defects


@pytest.mark.slow
def test_a_journal_with_any_text_byte_not_utf8_is_refused_or_recovered(capfd, work):
    """SQLite hands text over as UTF-8 and Python decodes it: one byte that is not UTF-8 in the
    schema (in SQLite's own error message) or in a row (its text, or its type, so the command
    reads as NULL) once escaped ``history`` and ``--recover`` as a traceback. Every printable
    byte of a real journal is replaced in turn; each file is refused or recovered, never a
    traceback, and what --recover keeps still opens."""
    valid = _SEEDS["db"]
    offsets = [i for i, b in enumerate(valid) if 32 <= b < 127]
    assert len(offsets) > 200  # the schema and the rows' text are in the file
    recovered = 0
    for i in offsets:
        path = place(work, f"j{i}.db", valid[:i] + b"\x80" + valid[i + 1:])
        run(capfd, "history --db (one byte not UTF-8)", ["history", "--db", path],
            names=("--db", path))
        code = run(capfd, "history --db --recover (one byte not UTF-8)",
                   ["history", "--db", path, "--recover"], names=("--db", path))
        for kept in Path(path).parent.glob(f"{Path(path).stem}.recovered-*.db"):
            assert code == 0
            assert run(capfd, "history --db (recovered)", ["history", "--db", str(kept)],
                       names=("--db",)) == 0
            recovered += 1
    assert recovered > 0  # damage in a row's text leaves the rows before it to keep


@pytest.mark.parametrize("argv, names", [
    (["show", "{deep}"], ("POSITION", "nested")),
    (["check", "{deep}", "--bid", "3"], ("POSITION", "nested")),
    (["solve", "{deep}"], ("POSITION", "nested")),
    (["solve", "{deepl}"], ("line 1", "nested")),
    (["micro", "solve", "{deep}", "--from", "pink1", "--to", "white2"], ("LAYOUT", "nested")),
    (["verify", "{deepl}", "--start", HARDEST, "--bid", "3"], ("FRAMES", "nested")),
    (["read", "{png}", "--profile", "{deep}"], ("--profile", "nested")),
    (["read", "{png}", "--profile", "{garbage}"], ("--profile", "not a text file")),
    (["history", "--db", "{empty}"], ("--db", "empty file")),
    (["run", "--colours", "{garbage}"], ("--colours", "garbage.bin")),
    (["run", "--pins", "{garbage}"], ("--pins", "garbage.bin")),
    (["verify", "{empty}", "--start", HARDEST, "--bid", "3"], ("FRAMES", "empty")),
    (["verify", "{emptyl}", "--start", HARDEST, "--bid", "3"], ("FRAMES", "empty")),
    (["check", HARDEST, "--route", ",,,,"], ("--route", "no moves")),
    (["verify", "{fake}", "--start", HARDEST, "--bid", "3"], ("FRAMES", "fake.mp4")),
    (["solve", "{emptyl}"], ("POSITION", "empty file")),
])
def test_the_reported_inputs_exit_2_naming_option_and_file(capfd, work, argv, names):
    files = {
        "deep": place(work, "deep.json", b"[" * 100_000),
        "deepl": place(work, "deep.jsonl", b"[" * 100_000),
        "png": place(work, "x.png", _SEEDS["image"]),
        "garbage": place(work, "garbage.bin", bytes(range(256)) * 8),
        "empty": place(work, "empty", b""),
        "emptyl": place(work, "empty.jsonl", b""),
        "fake": place(work, "fake.mp4", bytes(range(256)) * 20),
    }
    argv = [a.format(**files) if a.startswith("{") else a for a in argv]
    code = main(argv)
    out, err = capfd.readouterr()
    assert code == 2, (out, err)
    message = err or out  # a .jsonl batch answers each bad line on the standard output
    assert message.startswith(("error: ", '{"error": ')) and message.count("\n") == 1, message
    assert all(n in message for n in names), message
    assert "moov" not in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    [b"check", HARDEST.encode(), b"--route", b"\xff up"],
    [b"show", b"\xff\xfe.json"],
    [b"micro", b"example", b"--name", b"\xff\xfe"],
    [b"verify", b"{fake}", b"--start", HARDEST.encode(), b"--bid", b"3"],
    [b"read", b"{png}", b"--profile", b"{deep}"],
    [b"history", b"--db", b"{garbage}"],
])
def test_the_real_process_answers_without_a_traceback(work, argv):
    """As a shell runs it: arguments that are not UTF-8 and the decoders' own output on the
    process's standard error."""
    import subprocess
    import sys

    files = {b"{fake}": place(work, "fake.mp4", bytes(range(256)) * 20),
             b"{png}": place(work, "x.png", _SEEDS["image"]),
             b"{deep}": place(work, "deep.json", b"[" * 100_000),
             b"{garbage}": place(work, "garbage.bin", bytes(range(256)) * 8)}
    argv = [os.fsencode(files[a]) if a in files else a for a in argv]
    done = subprocess.run([sys.executable.encode(), b"-m", b"companion.cli", *argv],
                          capture_output=True, timeout=120, cwd=ROOT)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode in (0, 1, 2) and "Traceback" not in err, err
    if done.returncode == 2:
        assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "moov" not in err and "libpng" not in err
