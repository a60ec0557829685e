"""Ricochet Companion: a Raspberry Pi beside a real game of Ricochet Robots.

The pure core (``board``, ``rules``, ``solver``, ``game``, ``micro``) knows no hardware; the
adapters (``vision``, ``gpio``, ``web``, ``store``) sit at the edge, and ``table`` owns the game.
"""

__version__ = "0.1.0"
