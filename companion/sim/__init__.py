"""The simulated table: the worlds a hand moves robots in, the rendered camera that watches
them, and the virtual buttons the page presses (the same gpio code a finger drives, on
gpiozero's mock pins). Nothing here is imported by the game or the table's decisions: a
simulated table reaches the table loop through the same camera feed and buttons as a real one.
"""

from .worlds import MicroSimWorld, SimWorld

__all__ = ["MicroSimWorld", "SimWorld"]
