"""The camera's picture for the page: the latest frame as a JPEG, with what was read on it.

On the simulated table the renderer says exactly what it drew (the board's outline, each
robot's cell, the tiles); with a real camera the feed keeps what the reader found in its last
frame (the board's outline and the robots' cells on its grid). The corners the user set by
hand are marked too. Drawing only: nothing here reads a picture or decides anything.
"""

from __future__ import annotations

from typing import Any

# what the camera read in its last frame: the board's corners in the picture, the grid's size
# in cells, and the labels to draw at points of that grid (in cells, north-west (0, 0))
Drawn = tuple[list[list[float]], int, list[tuple[str, tuple[float, float]]]]


def jpeg(image: Any, shot: Any, drawn: Drawn | None,
         corners: list[tuple[float, float]] | None, overlay: bool = True) -> bytes | None:
    """``image`` as a JPEG; with ``overlay``, what the renderer drew (``shot``) or else what
    the reader read (``drawn``), and the ``corners`` set by hand."""
    import cv2
    import numpy as np

    img = image.copy()
    if overlay and shot is not None:
        quad = np.asarray(shot.corners, dtype=np.int32).reshape(-1, 1, 2)
        cv2.polylines(img, [quad], True, (0, 220, 255), 2, cv2.LINE_AA)
        if hasattr(shot, "layout"):  # a Micro Robots table: one robot
            where = shot.robot_pixels["base"] if shot.robot_pixels else None
            marks = [(shot.robot.name, where)] if shot.robot and where else []
        else:
            marks = [(f"{name} {shot.board.name(cell)}", shot.robot_pixels[name]["base"])
                     for name, cell in shot.robots.items()]
        for text, (x, y) in marks:
            _mark(img, text, x, y)
        if getattr(shot, "tiles", None):
            for label, (x, y) in zip(shot.tiles, shot.corners, strict=False):
                cv2.putText(img, label, (int(x) + 6, int(y) + 20),
                            cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 220, 255), 2, cv2.LINE_AA)
    elif overlay and drawn is not None:
        # what the camera read in its last frame: the board's outline, the robots' cells
        outline, grid, labels = drawn
        src = np.array([[0, 0], [grid, 0], [grid, grid], [0, grid]], dtype=np.float32)
        H = cv2.getPerspectiveTransform(src, np.asarray(outline, dtype=np.float32))
        quad = np.asarray(outline, dtype=np.int32).reshape(-1, 1, 2)
        cv2.polylines(img, [quad], True, (0, 220, 255), 2, cv2.LINE_AA)
        for text, uv in labels:
            x, y = cv2.perspectiveTransform(np.array([[uv]], dtype=np.float32), H)[0, 0]
            _mark(img, text, x, y)
    if corners:
        for i, (x, y) in enumerate(corners):
            cv2.circle(img, (int(x), int(y)), 8, (255, 0, 255), 2, cv2.LINE_AA)
            cv2.putText(img, str(i + 1), (int(x) + 10, int(y) - 10),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 0, 255), 2, cv2.LINE_AA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return buf.tobytes() if ok else None


def cell_uv(name: str) -> tuple[float, float]:
    """A cell's centre on the grid seen from above, north-west corner (0, 0), in cells."""
    from ..board import parse_cell

    index = parse_cell(name)
    return index % 16 + 0.5, 15 - index // 16 + 0.5


def _mark(img: Any, text: str, x: float, y: float) -> None:
    import cv2

    cv2.circle(img, (int(x), int(y)), 14, (255, 255, 255), 2, cv2.LINE_AA)
    cv2.putText(img, text, (int(x) + 16, int(y) - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                (255, 255, 255), 1, cv2.LINE_AA)
