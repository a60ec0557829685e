"""The simulated table's virtual buttons: what the page draws, and a press on one.

A press drives the same :mod:`companion.gpio` code a finger would, through gpiozero's mock
pins, so the simulated table's buttons send the table exactly the commands real ones do.
``hardware`` is the table's :class:`companion.gpio.Hardware` (``None``: no buttons at all).
"""

from __future__ import annotations

import threading
from typing import Any

TAP_SECONDS = 0.08  # a tap is held a little longer than the debounce


def listed(hardware: Any, players: list[str], micro: bool) -> list[dict[str, Any]] | None:
    """The buttons that work, for the page to draw: the start button (and its long press),
    each seated player's bid button, the dial (``None`` without hardware)."""
    hw = hardware
    if hw is None or not hasattr(hw, "status"):
        return None
    working = hw.status()
    out = []
    if working.get("start") == "ok":
        start = "Start (roll the dice)" if micro else "Start (reveal)"
        out.append({"name": "start", "label": start, "kind": "button"})
        out.append({"name": "start-hold", "label": "Hold start (undo)", "kind": "button"})
    for seat in range(len(getattr(hw.pins, "bids", ()))):
        if working.get(f"bid[{seat}]") == "ok" and seat < max(1, len(players)):
            who = players[seat] if seat < len(players) else f"seat {seat + 1}"
            out.append({"name": f"bid-{seat}", "label": f"{who}'s button",
                        "kind": "button"})
            out.append({"name": f"bid-{seat}-hold", "label": f"Hold {who}'s button",
                        "kind": "button"})
    if working.get("dial") == "ok":
        out.append({"name": "dial", "label": "Dial", "kind": "dial"})
    return out


def press(hardware: Any, name: str, action: str = "press", steps: int = 1) -> None:
    """Press a virtual button: ``name`` is ``start``, ``bid-N`` or ``dial``, with ``-hold``
    for a long press (or ``action`` ``hold``; ``turn`` turns the dial ``steps``).
    :class:`KeyError` for a button this table does not have."""
    hw = hardware
    if hw is None or not hasattr(hw, "press"):
        raise KeyError(name)
    if name == "dial" or action == "turn":
        if name != "dial":
            raise ValueError("only the dial turns")
        try:
            hw.turn(steps)
        except KeyError as e:
            raise KeyError(name) from e
        return
    hold = name.endswith("-hold") or action == "hold"
    base = name.removesuffix("-hold")
    if base == "start":
        target: tuple[str, int | None] = ("start", None)
    elif base.startswith("bid-") and base[4:].isdigit():
        target = ("bid", int(base[4:]))
    else:
        raise KeyError(name)
    hw.pin(*target)  # KeyError for a button this table does not have
    seconds = (float(getattr(hw.pins, "hold_seconds", 2.0)) + 0.3) if hold else TAP_SECONDS
    hw.press(*target)

    def release() -> None:
        try:
            hw.release(*target)
        except (AttributeError, KeyError):  # the hardware closed meanwhile
            pass

    timer = threading.Timer(seconds, release)
    timer.daemon = True
    timer.start()
