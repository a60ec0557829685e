"""The companion's eyes: frame sources, the renderer, board and robot reading."""
