"""The small search: short positions under the classic rules, in plain Python, no tables.

Most positions a round deals are solved in a handful of moves. For those, building the numpy
move tables of a new board and the per-call cost of numpy calls are most of the time. This
module searches them in plain Python on integers instead, and a new board costs only its walls
as four bitboards (one bit per cell: a wall on that side), or-ed together from each tile's,
which are kept:

* a slide goes to the first cell with a wall on its side (the lowest set bit past the start,
  or the highest below it), then stops short of the first robot on the way;
* the estimate is the numpy search's (:func:`companion.solver_tables.distance_to`): the moves
  the active robot needs if it could stop anywhere along its slides, worked out layer by
  layer on the bitboards (a whole layer is a few shifts of one integer), raised where strict
  must-ricochet forbids claiming in one move;
* a look-ahead worth one move more: a position whose active robot cannot reach the target
  *alone*, in as many moves as the estimate, each one closer by it (the numpy search looks one
  move ahead only), needs a helper's move or a detour. A position that passes it ends the
  search at once: its route costs the bucket's f, which nothing left undercuts;
* A* over whole positions, in buckets by f, with a budget of work: a search that outgrows it
  gives up (:func:`solve_small` returns None) and the numpy search takes over. The budget is
  small: long positions are the numpy search's.

It handles boards of up to 16 × 16 cells without diagonal barriers or wall openings, one robot
that must arrive (not the vortex), robots that all move alike (no transparent robot), any
must-ricochet rule, and immediate reversal allowed. Everything else goes to the numpy search.
"""

from __future__ import annotations

from functools import cache
from heapq import heappop, heappush

import numpy as np

from .board import DIRECTIONS, Board
from .rules import Move, Position
from .solver_tables import _frame_walls, _memo, _tile_walls

__all__ = ["applies", "prepare", "solve_small"]

WIDTH = 16
SIZE = WIDTH * WIDTH
FULL = (1 << SIZE) - 1
_BIT = [1 << i for i in range(SIZE)]
_COLUMN = [sum(1 << (c + WIDTH * r) for r in range(WIDTH)) for c in range(WIDTH)]

# must-ricochet progress of the active robot, as in :mod:`companion.solver`
DONE, UNMOVED, LAST_VERTICAL, LAST_HORIZONTAL = 0, 1, 2, 3
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3


def applies(position: Position, claimers: tuple[str, ...]) -> bool:
    """Can the small search take this position?"""
    board, rules = position.board, position.rules
    return (len(claimers) == 1 and board.width <= WIDTH and board.height <= WIDTH
            and not board.diagonals and not board.openings
            and rules.immediate_reversal == "allowed"
            and "transparent" not in position.robots and 1 <= len(position.robots) <= 6)


class _Walls:
    """One board's walls as bitboards, its natural stops (filled as they are met) and the
    relaxed distance to each target (filled as asked)."""

    def __init__(self, board: Board) -> None:
        block = [0, 0, 0, 0]
        bit = _BIT
        w = board.width
        if board.tiles is not None and w == board.height == WIDTH:
            # a board of real tiles: each tile's walls where it lies, as the numpy tables
            # assemble them (:func:`companion.solver_tables.board_walls`), kept per tile
            block = list(_frame_bits())
            for q, name in enumerate(board.tiles):
                for i, b in enumerate(_tile_bits(name, q)):
                    block[i] |= b
        elif w == WIDTH:
            for cell, side in board.walls:  # each (cell, side) once: adding is or-ing
                block[side] += bit[cell]
        else:  # a smaller board sits in the corner of a 16 x 16 one, the rest walled off
            for cell, side in board.walls:
                block[side] += bit[cell // w * WIDTH + cell % w]
            inside = sum(bit[r * WIDTH + c] for r in range(board.height) for c in range(w))
            for i in range(4):
                block[i] |= ~inside & FULL
        for c in board.blocked:  # never entered: walls all round (already), never passed
            b = 1 << inner(board, c)
            for i in range(4):
                block[i] |= b
        self.block = block
        # cells a slide may leave on that side (and, for the estimate, pass through)
        self.passes = [~b & FULL for b in block]
        self.cross = [-1] * SIZE
        self.nat4: list[tuple[int, int, int, int] | None] = [None] * SIZE
        self.dist: dict[int, tuple[list[int], _Layers, int, int]] = {}

    def natural4(self, s: int) -> tuple[int, int, int, int]:
        """Where a robot from ``s`` stops going up, right, down and left on an empty board:
        the first cell with a wall on that side (the lowest set bit past ``s``, or the highest
        up to it), kept."""
        bu, br, bd, bl = self.block
        column = _COLUMN[s & 15]
        low = (2 << s) - 1  # cells up to s
        m = (bu & column) >> s
        u = s + (m & -m).bit_length() - 1
        m = br >> s
        r = s + (m & -m).bit_length() - 1
        four = self.nat4[s] = (u, r, (bd & column & low).bit_length() - 1,
                               (bl & low).bit_length() - 1)
        return four

    def cross_of(self, s: int) -> int:
        """The cells a slide from ``s`` may pass or be stopped by, in all four directions,
        up to where the walls stop it (a bitboard)."""
        u, r, d, left = self.nat4[s] or self.natural4(s)
        column = _COLUMN[s & 15]
        above = (2 << s) - 1  # cells up to s
        c = ((2 << r) - 1) & ~above  # s+1 .. r
        c |= ((1 << s) - 1) & ~((1 << left) - 1)  # left .. s-1
        c |= column & ((2 << u) - 1) & ~above
        c |= column & ((1 << s) - 1) & ~((1 << d) - 1)
        self.cross[s] = c
        return c

    def distance(self, target: int) -> tuple[list[int], _Layers, int, int]:
        """The relaxed distance to ``target`` by cell, -1 where not read yet from the layers
        (:func:`_read`); the layers: bitboards of the cells within 0, 1, 2, ... moves; the
        cells one move away along the target's row, and along its column."""
        d = self.dist.get(target)
        if d is None:
            layers = _Layers(self.passes, target)
            d = self.dist[target] = ([-1] * SIZE, layers, *layers.lines)
        return d


def _bits(walls: np.ndarray) -> tuple[int, ...]:
    """A wall array of a 16 x 16 board (``walls[side * 256 + cell]``) as four bitboards."""
    return tuple(int.from_bytes(np.packbits(side, bitorder="little").tobytes(), "little")
                 for side in walls.reshape(4, SIZE))


@cache
def _tile_bits(name: str, quarter: int) -> tuple[int, ...]:
    """One tile side's walls in one quarter of the board, as bitboards by side."""
    return _bits(_tile_walls(name, quarter))


@cache
def _frame_bits() -> tuple[int, ...]:
    """The board's edge and the walls round its centre block, as bitboards by side."""
    return _bits(_frame_walls())


class _Layers(list[int]):
    """Cells within 0, 1, 2, ... moves of a target if a robot could stop anywhere, as
    bitboards, grown as far as asked (:func:`_read`); and of the cells one move away, those
    that reach it along its row, and along its column (``lines``)."""

    def __init__(self, passes: list[int], target: int) -> None:
        super().__init__([1 << target])
        # a cell reaches the next one up when it has no wall on its upper side, and so on
        # (each pass bitboard has no bit on the board's edge in its direction)
        self.passes = passes
        self.done = False
        pu, pr, pd, pl = passes
        seen = 1 << target
        row = _spread_down(seen, pr, 1) | _spread_up(seen, pl, 1)
        column = _spread_down(seen, pu, WIDTH) | _spread_up(seen, pd, WIDTH)
        self.lines = (row, column)
        self.grow(row | column)

    def grow(self, grown: int | None = None) -> None:
        """One layer more, or ``done``."""
        seen = self[-1]
        if grown is None:
            # cells from which a slide passes a cell of `seen`: going right, x + 1 is in the
            # set and x lets it pass; and so on, by doubling steps
            pu, pr, pd, pl = self.passes
            grown = (_spread_down(seen, pr, 1) | _spread_up(seen, pl, 1)
                     | _spread_down(seen, pu, WIDTH) | _spread_up(seen, pd, WIDTH))
        grown |= seen
        if grown == seen:
            self.done = True
        else:
            self.append(grown)


def _spread_down(g: int, p: int, step: int) -> int:
    """``g`` and the cells ``x`` that reach it through cells of ``p``: ``x + step`` in the
    result and ``x`` in ``p`` (a doubling fill: four steps cover a row or a column)."""
    for _ in range(4):
        g |= p & (g >> step)
        p &= p >> step
        step <<= 1
    return g


def _spread_up(g: int, p: int, step: int) -> int:
    """As :func:`_spread_down`, the other way: ``x - step`` in the result."""
    for _ in range(4):
        g |= p & (g << step)
        p &= p << step
        step <<= 1
    return g & FULL


def _bucket(buckets: dict[int, list[int]], order: list[int], slot: int) -> list[int]:
    """The bucket at ``slot``, made (and queued) if there is none."""
    b = buckets.get(slot)
    if b is None:
        b = buckets[slot] = []
        heappush(order, slot)
    return b


def _read(dist: list[int], layers: _Layers, cell: int) -> int:
    """A cell's relaxed distance from the layers (255: never), kept in ``dist``."""
    for k, layer in enumerate(layers):
        if layer >> cell & 1:
            dist[cell] = k
            return k
    while not layers.done:
        layers.grow()
        if layers[-1] >> cell & 1:
            k = dist[cell] = len(layers) - 1
            return k
    dist[cell] = 255
    return 255


def relaxed_distance(board: Board, target: int) -> np.ndarray | None:
    """The relaxed distance to ``target`` by cell as the numpy search keeps it
    (:func:`companion.solver_tables.distance_to`: uint8, 255 where never, a spare 257th
    entry), read off the bitboard layers, which a 16 x 16 board without diagonals or openings
    grows faster than the search over the tables' edges; None on any other board."""
    if board.width != WIDTH or board.height != WIDTH or board.diagonals or board.openings:
        return None
    layers = _walls(board).distance(target)[1]
    while not layers.done:
        layers.grow()
    out = np.full(SIZE + 1, 255, np.uint8)
    cells = out[:SIZE]
    inside = 0
    for k, layer in enumerate(layers):  # each layer holds the ones before it
        bits = np.frombuffer((layer & ~inside).to_bytes(SIZE // 8, "little"), np.uint8)
        cells[np.unpackbits(bits, bitorder="little").view(bool)] = k
        inside = layer
    return out


def inner(board: Board, cell: int) -> int:
    """A cell's number on the 16 x 16 grid the search works on."""
    w = board.width
    return cell if w == WIDTH else cell // w * WIDTH + cell % w


def prepare(board: Board, targets: set[int]) -> None:
    """The walls and the estimates to these target cells, built now rather than in the first
    search (cached with the board's tables), where the small search can take this board."""
    if board.width > WIDTH or board.height > WIDTH or board.diagonals or board.openings:
        return
    walls = _walls(board)
    for cell in targets:
        walls.distance(inner(board, cell))


def _walls(board: Board) -> _Walls:
    memo = _memo(board)
    w = memo.get("small")
    if w is None:
        w = memo["small"] = _Walls(board)
    return w


def _flag_next(flag: int, axis: int) -> int:
    if flag == DONE or (flag >= LAST_VERTICAL and flag - LAST_VERTICAL != axis):
        return DONE
    return LAST_VERTICAL + axis


# by flag << 1 | axis (0: vertical, 1: horizontal)
_FLAG_NEXT = [_flag_next(i >> 1, i & 1) for i in range(8)]


def solve_small(position: Position, claimers: tuple[str, ...], max_cost: int | None,
                budget: int, unproven: list[tuple[tuple[Move, ...], int]] | None = None
                ) -> tuple[tuple[Move, ...], int, int] | None:
    """A* in plain Python: ``(moves, cost, expanded)`` of an optimal route within
    ``max_cost``, or None when it has no answer of that kind: past ``budget`` units of work
    (a look-ahead from a position is one, an expansion three), no route within ``max_cost``,
    or none at all (the numpy search then says which, in its words). Past the budget, a route
    within ``max_cost`` found on the way but not proven optimal (an upper bound, below) is
    added to ``unproven`` as ``(moves, cost)``, where given.

    The estimate of a position is the active robot's relaxed distance, raised to 2 under
    strict must-ricochet where one move cannot claim the target yet (it has not moved, or the
    move that would claim it is on the axis of its last one, or it stands on the target
    without having turned). A position whose active robot cannot do it alone, with the robots
    where they stand, in as many moves as that, each one closer (:func:`alone`), needs one
    move more: if the first move is the active robot's, it lands no closer; if a helper's, the
    estimate stays. It is checked when it leaves the queue, and waits one bucket later if it
    fails; a helper's move that touches none of the cells that answer looked at inherits it.
    Both keep the estimate consistent, so each position is expanded once, at its optimal cost.
    A position that fails it may still give an upper bound of one move more: by the active
    robot alone (:func:`alone_plus`), or by one helper's move and then the active robot alone
    (:func:`helped`). Both are tried when the bucket runs out, on the positions of the bucket
    that failed (a bucket may still end in a position that passes, and then the bound is of no
    use). The search then ends, without the bucket of the optimum, where most of the work
    would be. A child whose f is a known route's cost or more is not queued (a helper's move
    is still marked as reached: reached again, it would cost a look-ahead in vain).
    """
    board, rules = position.board, position.rules
    assert position.target is not None
    target = inner(board, position.target.cell)
    walls = _walls(board)
    nat4 = walls.nat4
    dist, layers, along_row, along_col = walls.distance(target)
    active = claimers[0]
    names = [r for r in position.robots if r != active] + [active]  # the robot of each byte
    helpers = [inner(board, position.robots[r]) for r in names[:-1]]
    k = len(helpers)
    n = k + 1
    strict = rules.ricochet == "strict"
    lenient = rules.ricochet == "lenient"
    flag_shift = 8 * n
    act_shift = 8 * k
    low_mask = (1 << act_shift) - 1
    shifts = [8 * i for i in range(n)]
    flag_next = _FLAG_NEXT

    def estimate(cell: int, flag: int) -> int:
        h = dist[cell]
        if h < 0:
            h = _read(dist, layers, cell)
        if h <= 1 and flag != DONE:  # strict only: else the flag is always DONE
            if h == 0 or flag == UNMOVED:
                return 2
            return 1 if (along_row if flag == LAST_VERTICAL else along_col) >> cell & 1 else 2
        return h

    def slides(s: int, others: list[int]) -> tuple[int, int, int, int]:
        """Where a robot at ``s`` stops going up, right, down and left, among the robots at
        ``others`` (``s`` may be one of them: the robot itself)."""
        four = nat4[s]
        if four is None:
            four = walls.natural4(s)
        u, r, d, left = four
        for q in others:
            if q > s:
                if q <= r:
                    r = q - 1
                elif q <= u and not (q - s) & 15:
                    u = q - 16
            elif q == s:
                continue
            elif q >= left:
                left = q + 1
            elif q >= d and not (s - q) & 15:
                d = q + 16
        return u, r, d, left

    cross = walls.cross

    def alone(a: int, flag: int, others: list[int], h: int) -> tuple[list[int] | None, int]:
        """Can the active robot alone, the others where they stand, claim the target in ``h``
        moves, each one closer by the estimate? Its directions if so (last first), else None;
        and the cells whose robots the answer depends on (a bitboard): every cell its slides
        looked at. A helper's move that neither leaves nor enters one of them leaves the
        answer as it is."""
        zone = cross[a]
        if zone < 0:
            zone = walls.cross_of(a)
        ends = slides(a, others)
        for d in (UP, RIGHT, DOWN, LEFT):
            e = ends[d]
            if e == a:
                continue
            nf = flag_next[flag << 1 | (d & 1)] if strict else DONE
            if h == 1:
                if e == target and nf == DONE and not (lenient and flag == UNMOVED):
                    return [d], zone
                continue
            he = dist[e]  # the estimate, read here: this is the search's innermost loop
            if he < 0 or he <= 1 and nf:
                he = estimate(e, nf)
            if he == h - 1:
                path, more = alone(e, nf, others, h - 1)
                zone |= more
                if path is not None:
                    path.append(d)
                    return path, zone
        return None, zone

    def alone_plus(a: int, flag: int, others: list[int], h: int) -> list[int] | None:
        """As :func:`alone`, in ``h + 1`` moves: one of them may leave the estimate as it is."""
        ends = slides(a, others)
        for d in (UP, RIGHT, DOWN, LEFT):
            e = ends[d]
            if e == a:
                continue
            nf = flag_next[flag << 1 | (d & 1)] if strict else DONE
            if e == target and nf == DONE and not (lenient and flag == UNMOVED):
                continue  # h + 1 > 1 moves: not the last one
            he = dist[e]
            if he < 0 or he <= 1 and nf:
                he = estimate(e, nf)
            if he == h - 1 and h > 1:
                path = alone_plus(e, nf, others, h - 1)
            elif he == h:
                path = alone(e, nf, others, h)[0]
            else:
                continue
            if path is not None:
                path.append(d)
                return path
        return None

    def helped(cells: list[int], a: int, flag: int, h: int, zone: int) -> list[Move] | None:
        """A helper's move, then the active robot alone in ``h`` moves, each one closer."""
        for i in range(k):
            s = cells[i]
            ends = slides(s, cells)
            away = zone >> s & 1
            for d in (UP, RIGHT, DOWN, LEFT):
                e = ends[d]
                if e == s or not (away or zone >> e & 1):
                    continue
                others = cells[:k]
                others[i] = e
                path = alone(a, flag, others, h)[0]
                if path is not None:
                    return [Move(names[i], DIRECTIONS[d]),
                            *(Move(active, DIRECTIONS[x]) for x in reversed(path))]
        return None

    def bound(pending: list[tuple[int, int, list[int], int, int, int]]
              ) -> tuple[int, list[Move]] | None:
        """The first upper bound of one move more found from the positions that failed the
        look-ahead in a bucket, the last to fail first (the deepest: their trees are smaller,
        and the bound is more often found there): ``(key, tail)``, or None."""
        for key, g, cells, flag, bare, zone in reversed(pending):
            a = cells[k]
            # by the active robot alone, one move more
            path = alone_plus(a, flag, cells[:k], bare)
            if path is not None:
                return key, [Move(active, DIRECTIONS[d]) for d in reversed(path)]
            if not lenient or g:
                # or by one helper's move that touches what the look-ahead looked at, and
                # then the active robot alone
                found = helped(cells, a, flag, bare, zone)
                if found is not None:
                    return key, found
        return None

    start_cell = inner(board, position.robots[active])
    # lenient: the start is a position of its own (from there a straight slide may not claim
    # the target), told apart by the flag, which every move clears
    start_flag = UNMOVED if strict or lenient else DONE
    keep = ~(3 << flag_shift) if lenient else -1  # what a helper's move keeps
    h0 = estimate(start_cell, start_flag)
    if h0 >= 255 or (max_cost is not None and h0 > max_cost):
        return None
    start = start_cell << act_shift | start_flag << flag_shift
    for sh, c in zip(shifts, helpers):  # noqa: B905 - one helper fewer
        start |= c << sh
    # each position reached: (cost so far, parent, the mover's cell, direction)
    seen: dict[int, tuple[int, int, int, int]] = {start: (0, -1, -1, -1)}
    seen_get = seen.get
    # buckets of keys by f << 8 | checked << 7 | (127 - g): lowest f first; in it, the
    # positions to look ahead from first (one may end the search), then the deepest
    buckets: dict[int, list[int]] = {h0 << 8 | 127: [start]}
    order = [h0 << 8 | 127]
    closed: set[int] = set()
    zones: dict[int, int] = {}  # the look-ahead's cells, by position (see alone)
    best: tuple[int, int] | None = None  # (cost, key)
    tail: list[Move] = []  # the active robot's moves from best's key, when found alone
    expanded = 0
    work = 0  # look-aheads and expansions (weighed), for the budget
    # the positions of bucket pending_f that failed the look-ahead, for an upper bound of one
    # move more (:func:`bound`), sought when the bucket runs out: the last bucket of a search
    # often ends in a position that passes, and then the bound is of no use
    pending: list[tuple[int, int, list[int], int, int, int]] = []
    pending_f = -1
    while order:
        slot = order[0]
        if pending and slot >> 8 > pending_f:
            found_bound = bound(pending) if best is None or best[0] > pending_f + 1 else None
            pending = []
            if found_bound is not None:
                best = (pending_f + 1, found_bound[0])
                tail = found_bound[1]
        bucket = buckets[slot]
        if not bucket:
            heappop(order)
            del buckets[slot]
            continue
        key = bucket.pop()
        checked = slot & 128
        f = slot >> 8
        g = 127 - (slot & 127)
        if best is not None and best[0] <= f:
            break
        if max_cost is not None and f > max_cost:
            break
        if key in closed or seen[key][0] != g:
            continue
        cells = list(key.to_bytes(n + 1, "little"))
        flag = cells.pop()
        a = cells[k]
        goal_ok = not (lenient and g == 0)
        bare = dist[a]  # the estimate, inlined
        if bare < 0 or bare <= 1 and flag:
            bare = estimate(a, flag)
        if checked:
            zone = zones.get(key, FULL)
        elif bare:
            work += 1
            if work > budget:
                break
            path, zone = alone(a, flag, cells[:k], bare)
            if path is not None:
                # a route of f moves, and every position left costs at least f: done
                best = (g + bare, key)
                tail = [Move(active, DIRECTIONS[d]) for d in reversed(path)]
                break
            zones[key] = zone
            if best is None or best[0] > f + 1:
                pending.append((key, g, cells, flag, bare, zone))
                pending_f = f
        else:
            zone = FULL
        if not checked and bare and not (lenient and g == 0):
            # (under lenient, a helper's move from the start lowers the estimate: no +1 there)
            # the active robot cannot do it alone in as few moves as the estimate: it needs
            # a helper's move first (one more), or more moves of its own
            if best is not None and best[0] <= f + 1:
                continue  # never taken: a route of f + 1 is known
            nxt = slot + 384  # f + 1, checked
            if nxt in buckets:
                buckets[nxt].append(key)
            else:
                buckets[nxt] = [key]
                heappush(order, nxt)
            continue
        closed.add(key)
        expanded += 1
        work += 3  # an expansion costs about three look-aheads
        if work > budget:
            break
        g1 = g + 1
        rank = 127 - g1
        # a helper's move leaves the active robot as it is (under lenient, no longer at the
        # start): the same estimate; and where it moves no robot the look-ahead looked at,
        # the same answer from it, so the same place in the queue
        # (bare is that estimate under strict; otherwise the flag's raise does not apply, and
        # dist[a] was read for bare)
        helper_slot = (g1 + (bare if strict else dist[a])) << 8 | rank
        same_slot = (f + 1) << 8 | 128 | rank
        if lenient and g == 0:
            zone = FULL
        # the active robot's moves one closer from a position that failed the look-ahead
        # fail it too (it looked at them, with the same robots): in this bucket, as checked
        inherit = checked and zone != FULL
        closer_slot = f << 8 | 128 | rank
        to_look = to_same = None  # the buckets of helper_slot and same_slot
        # a child whose f is a known route's cost or more is never taken (the search ends
        # before its bucket): it is not queued
        cap = best[0] if best is not None else 1 << 16
        keep_same = f + 1 < cap
        base = key & keep
        for i in range(k):  # the helpers' moves: one byte changes
            s = cells[i]
            ends = slides(s, cells)
            sh = shifts[i]
            away = zone >> s & 1
            for d, e in enumerate(ends):
                if e == s:
                    continue
                child = base ^ (s ^ e) << sh
                look = away or zone >> e & 1
                if not (look or keep_same):
                    # never queued, but kept as reached: reached again, from a position
                    # whose look-ahead looked elsewhere, it would cost a look-ahead in vain
                    seen.setdefault(child, (g1, key, i, d))
                    continue
                old = seen_get(child)
                if old is not None and old[0] <= g1:
                    continue
                seen[child] = (g1, key, i, d)
                if look:
                    if to_look is None:
                        to_look = _bucket(buckets, order, helper_slot)
                    to_look.append(child)
                else:
                    if to_same is None:
                        to_same = _bucket(buckets, order, same_slot)
                    to_same.append(child)
                    zones[child] = zone
        for d, e in enumerate(slides(a, cells)):  # the active robot's
            if e == a:
                continue
            nf = flag_next[flag << 1 | (d & 1)] if strict else DONE
            child = (key & low_mask) | e << act_shift | nf << flag_shift
            if e == target and nf == DONE and goal_ok:
                if best is None or g1 < best[0]:
                    best = (g1, child)
                    tail = []
                    seen[child] = (g1, key, k, d)
                continue
            h = dist[e]
            if h <= 1:  # not read yet, or raised under strict must-ricochet
                h = estimate(e, nf)
            if g1 + h >= cap:  # (h is 255 where the target is out of reach)
                continue
            old = seen_get(child)
            if old is not None and old[0] <= g1:
                continue
            seen[child] = (g1, key, k, d)
            if inherit and h == bare - 1:
                nxt = closer_slot
                zones[child] = zone
            else:
                nxt = (g1 + h) << 8 | rank
            if nxt in buckets:
                buckets[nxt].append(child)
            else:
                buckets[nxt] = [child]
                heappush(order, nxt)
        if best is not None and best[0] <= f:
            break
    if pending and (best is None or best[0] > pending_f + 1):  # (out of budget)
        found_bound = bound(pending)
        if found_bound is not None:
            best = (pending_f + 1, found_bound[0])
            tail = found_bound[1]
    if best is None or (max_cost is not None and best[0] > max_cost):
        return None
    moves = []  # the route, last move first
    key = best[1]
    while True:
        _, pk, i, d = seen[key]
        if pk < 0:
            break
        moves.append(Move(names[i], DIRECTIONS[d]))
        key = pk
    moves.reverse()
    if work > budget:  # not proven: a cheaper route may be among the positions left
        if unproven is not None:
            unproven.append(((*moves, *tail), best[0]))
        return None
    return (*moves, *tail), best[0], expanded
