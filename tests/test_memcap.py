"""The solver's memory cap follows the memory the machine has available (MemAvailable)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import memcap
from companion.memcap import SHARE, mem_available, memory_cap
from companion.rules import Position
from companion.solver import DEFAULT_MEMORY_LIMIT, SearchMemoryError, solve

EXAMPLES = Path(__file__).resolve().parents[1] / "companion" / "examples"

# /proc/meminfo of a Raspberry Pi 4 with 1 GB, the companion and the desktop running
PI4_1GB = """MemTotal:         944388 kB
MemFree:           61232 kB
MemAvailable:     402116 kB
Buffers:           21884 kB
Cached:           371148 kB
SwapTotal:        102396 kB
"""


def test_a_1gb_pi_4_gets_half_of_what_is_available_not_a_gibibyte():
    assert mem_available(PI4_1GB) == 402116 * 1024
    cap = memory_cap(DEFAULT_MEMORY_LIMIT, meminfo=PI4_1GB)
    assert cap == int(402116 * 1024 * SHARE) < DEFAULT_MEMORY_LIMIT
    assert cap >> 20 == 196


@given(available_kb=st.integers(0, 1 << 40), limit=st.integers(1, 1 << 45),
       padding=st.text(alphabet=" \t", max_size=5))
def test_the_cap_is_the_smaller_of_the_limit_and_the_share_of_available(available_kb, limit,
                                                                          padding):
    text = f"MemTotal: 1 kB\nMemAvailable:{padding} {available_kb} kB\nCached: 5 kB\n"
    cap = memory_cap(limit, meminfo=text)
    assert cap == min(limit, int(available_kb * 1024 * SHARE))
    assert 0 <= cap <= limit


@given(st.text(max_size=200).filter(lambda t: "MemAvailable:" not in t))
def test_meminfo_that_does_not_say_leaves_the_limit_as_given(text):
    assert mem_available(text) is None
    assert memory_cap(12345, meminfo=text) == 12345


def test_this_machines_meminfo_is_read_and_a_missing_one_leaves_the_cap(monkeypatch, tmp_path):
    if memcap.MEMINFO.exists():
        assert mem_available() > 0
    monkeypatch.setattr(memcap, "MEMINFO", tmp_path / "nothing")
    assert mem_available() is None and memory_cap(1 << 30) == 1 << 30


def test_the_solver_stops_at_the_share_of_available_memory_before_the_oom_killer(
        monkeypatch, tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal: 944388 kB\nMemAvailable: 8192 kB\n")  # 8 MiB free
    monkeypatch.setattr(memcap, "MEMINFO", meminfo)
    pos = Position.load(EXAMPLES / "hardest-24.json")
    with pytest.raises(SearchMemoryError, match="more than 4 MiB"):
        solve(pos)  # the default cap of 1 GiB, but only 4 MiB may be taken now
