"""The readings a demonstration cannot take at face value (see :mod:`companion.verify`).

:class:`Doubts` holds the readings taken for misreadings (a robot believed where it stood
while it is seen elsewhere), picks the suspects of a look no legal move explains, asks about
them and clears them when the robots are seen back. :class:`Unread` holds the robots the count
waits for: lifted off the board, not seen, seen as one with another, or put back on a cell no
legal move explains. Both report through the demonstration's own ``event`` maker, so every
event carries its bid and player.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import i18n
from .board import Board, Cell
from .i18n import Message
from .rules import Position

State = tuple[Cell, ...]
Event = dict[str, Any]
EventMaker = Callable[..., Event]


def on_cells(where: Mapping[str, str | None], robots: list[str]) -> Any:
    """``blue on k10, red on c2`` for players."""
    return i18n.listed([Message("verify.on", robot=i18n.color(n), cell=where[n])
                        for n in robots], "list.comma")


def back_on(wrong: Mapping[str, Mapping[str, str | None]]) -> Any:
    """``blue back on k10, red back on c2`` for players."""
    return i18n.listed([Message("verify.back_on", robot=i18n.color(n), cell=w["to"])
                        for n, w in wrong.items()], "list.comma")


def misplaced(snapshot: Position, seen: Mapping[str, Cell]) -> dict[str, dict[str, str | None]]:
    """The robots not on their start cells: robot → where it is seen (``at``, None when not
    seen) and where it goes back (``to``)."""
    board = snapshot.board
    return {n: {"at": None if seen.get(n) is None else board.name(seen[n]),
                "to": board.name(c)} for n, c in snapshot.robots.items() if seen.get(n) != c}


class Restore:
    """After a failure, until the board shows ``snapshot`` again: which robots go back where,
    each new misplacement reported once (:attr:`key`: the last reported; None to report
    afresh)."""

    def __init__(self, snapshot: Position, event: EventMaker) -> None:
        self.snapshot = snapshot
        self._event = event
        self.key: tuple | None = None

    def events(self, seen: Mapping[str, Cell], at: float, *, already: bool
               ) -> tuple[list[Event], bool]:
        """The events of a look (``seen``) and whether the board is restored (``already``: it
        was at the last look, so saying it again is no news)."""
        wrong = misplaced(self.snapshot, seen)
        if not wrong:
            self.key = None
            return ([] if already else
                    [self._event("restored", at, message=Message("verify.restored"))]), True
        key = tuple(sorted((n, w["at"]) for n, w in wrong.items()))
        if key == self.key:
            return [], False
        self.key = key
        return [self._event("restore", at, robots=wrong,
                            message=Message("verify.put_back", robots=back_on(wrong)))], False


class Doubts:
    """Readings taken for misreadings: robot → the cell it is seen on, while it is believed
    where it stood (:attr:`cells`), and the questions already asked.

    ``names``: the robots in the demonstration's order; ``board`` names the cells; ``event``
    makes the demonstration's events."""

    def __init__(self, names: tuple[str, ...], board: Board, event: EventMaker) -> None:
        self.names = names
        self.board = board
        self._event = event
        self.cells: dict[str, Cell] = {}
        self._asked: set[tuple[str, Cell]] = set()
        # A robot whose own change was legal in a look that moved several robots at once,
        # doubted with the others of that look (robot → those others): once they are all
        # seen back where they stood, its reading is judged afresh (see :meth:`suspects`).
        self._mover: dict[str, frozenset[str]] = {}
        # Robots doubted only because their reading alone would end the demonstration in
        # failure: judged as any other once a later look, after a hand, shows them there again.
        self._confirm: set[str] = set()
        # Robots doubted together (none of them alone the odd one out) in a look after a hand
        # or not (robot → (the others, hand)): once the others are all seen back where they
        # stood, they were misread, and what is left is that look's own change: judged as a
        # look after that hand (:attr:`watched`), not doubted for having come with them.
        self._groups: dict[str, tuple[frozenset[str], bool]] = {}
        self._seen_back: set[str] = set()
        self.watched = False  # the last recheck released such robots from a look after a hand
        # Robots doubted in a look whose other changes were counted as moves (robot → (the
        # robots moved, hand)): if those moves are taken back as a misreading
        # (:meth:`taken_back`), the doubted reading was that look's own change.
        self._came_with: dict[str, tuple[frozenset[str], bool]] = {}
        # Readings the players said are wrong (robot → the cell the camera saw it on): the
        # camera's mistake, so seeing it there again is no news (:meth:`answered`).
        self.denied: dict[str, Cell] = {}
        # Where the robots were believed once the look a reading was doubted in was taken
        # (robot → those cells): the players' word on the reading judges that look only
        # while the others are believed where they were then.
        self.since: dict[str, State] = {}

    def recheck(self, state: State, obs: State, at: float, events: list[Event], *,
                hand: bool = False) -> tuple[State, frozenset[str]]:
        """The look with every doubted robot still seen on its doubted cell believed where it
        stood (``state``); a doubted robot seen back there clears its doubt (an event), one
        seen on a third cell is judged afresh (returned: it stays a suspect if nothing
        explains it). ``hand``: the board was hidden since the last look, so a robot doubted
        only for the verdict its reading alone would give and seen on the same cell again is
        read twice alike: its move is judged as any other."""
        self.watched = False
        if self.denied:  # the camera's known mistakes: believed where the players said
            obs = tuple(state[i] if self.denied.get(n) == c else c
                        for i, (n, c) in enumerate(zip(self.names, obs, strict=True)))
            self.denied = {n: c for n, c in self.denied.items()
                           if obs[self.names.index(n)] == state[self.names.index(n)]}
        if not self.cells:
            return obs, frozenset()
        out = list(obs)
        cleared, again = [], set()
        for n, cell in list(self.cells.items()):
            i = self.names.index(n)
            if obs[i] == cell and not (hand and n in self._confirm):
                out[i] = state[i]
                continue
            del self.cells[n]
            self._confirm.discard(n)
            if obs[i] == cell:
                continue  # confirmed: judged with the look
            if obs[i] == state[i]:
                cleared.append(n)
                self._seen_back.add(n)
            else:
                again.add(n)
        for n, others in list(self._mover.items()):
            if n not in self.cells:
                del self._mover[n]
            elif not others & self.cells.keys():
                # the misreading that came with it is gone and it is still seen where it went:
                # two readings agree, so its move is judged as any other
                i = self.names.index(n)
                del self.cells[n], self._mover[n]
                out[i] = obs[i]
                again.add(n)
        for n, (others, watched) in list(self._groups.items()):
            if n not in self.cells:
                del self._groups[n]
            elif others <= self._seen_back and n not in self._mover:
                # the others were misread: this robot's reading is that look's own change
                i = self.names.index(n)
                del self.cells[n], self._groups[n]
                self._confirm.discard(n)
                out[i] = obs[i]
                self.watched = self.watched or watched
        if cleared:
            words = on_cells({n: self.board.name(state[self.names.index(n)])
                              for n in cleared}, cleared)
            events.append(self._event("doubt_cleared", at, robots=cleared,
                                      message=Message("verify.seen_again", robots=words)))
        return tuple(out), frozenset(again)

    def answered(self, robots: Mapping[str, bool]) -> dict[str, Cell]:
        """The players' answer to the question about the readings in doubt: for each robot
        asked about, whether it stands where the camera saw it. Every answered robot leaves
        the doubt; those said wrong are believed where they stood (the cell seen is the
        camera's mistake, :attr:`denied`); those said right are returned (robot → the cell
        seen), to be judged as read. A robot not in doubt is a ``ValueError``."""
        unknown = [n for n in robots if n not in self.cells]
        if unknown:
            raise ValueError(f"answer: no reading of {', '.join(unknown)} is in doubt "
                             f"(in doubt: {', '.join(self.cells) or 'none'})")
        right = {}
        for n, yes in robots.items():
            cell = self.cells.pop(n)
            for held in (self._mover, self._groups, self._came_with):
                held.pop(n, None)
            self._confirm.discard(n)
            if yes:
                right[n] = cell
            else:
                self.denied[n] = cell
        return right

    def beside(self) -> set[str]:
        """The robots whose moves were counted in a look that also changed a robot still in
        doubt: they did not move alone in it."""
        return {m for n, (moved, _hand) in self._came_with.items() if n in self.cells
                for m in moved}

    def taken_back(self, robot: str) -> tuple[dict[str, Cell], bool]:
        """``robot``'s moves were taken back as a misreading: the readings doubted in the
        look that counted them (robot → the cell still seen) are that look's own change, no
        longer in doubt, and whether a hand came before that look."""
        out, watched = {}, False
        for n, (moved, hand) in list(self._came_with.items()):
            if robot in moved and n in self.cells:
                out[n] = self.cells.pop(n)
                self._groups.pop(n, None)
                self._confirm.discard(n)
                watched = watched or hand
            if n not in self.cells:
                del self._came_with[n]
        return out, watched

    def suspects(self, state: State, obs: State, again: frozenset[str], *, unwatched: bool,
                 explains: Callable[[State], int | None]) -> set[str]:
        """The robots of an unexplained look whose readings may be wrong rather than their
        moves: those doubted before (``again``); every robot that changed while no hand
        reached over the board (``unwatched``, in a stream that shows hands); and, of several
        changes, the robot without which the rest is legal in the fewest moves (a robot
        standing still, misread while another one moved); when no such robot exists, every
        changed robot (one whose own change alone is legal is judged afresh once the others
        are seen back, :meth:`recheck`). ``explains``: what the shortest legal moves from
        ``state`` to a placement cost, None when none explains it."""
        changed = [i for i, (a, b) in enumerate(zip(state, obs, strict=True)) if a != b]
        out = {self.names[i] for i in changed if self.names[i] in again}
        if unwatched:
            return out | {self.names[i] for i in changed}
        if len(changed) == 1:
            return out  # the robot moved: its reading agreed over the tracker's frames
        odd: dict[str, int] = {}
        for i in changed:
            # the odd one out: the rest is legal without it (a misread cell may well be
            # one a few legal moves could reach: it is the sum that no hand makes)
            cost = explains((*obs[:i], state[i], *obs[i + 1:]))
            if cost is not None:
                odd[self.names[i]] = cost
        if odd:
            # … and of several, the one whose absence leaves the fewest moves to explain
            return out | {n for n, c in odd.items() if c == min(odd.values())}
        # No one misread robot explains it: several robots changed at once and no legal
        # moves explain them together (every robot seen jumping at once, as when the board is
        # read under a wrong north). A hand moves one robot at a time; if exactly one
        # robot's own change is legal, it may be the one that moved and the others stood
        # still; otherwise no robot can be told the moving one. Every change is doubted.
        alone = [i for i in changed
                 if explains(tuple(obs[j] if j == i else a for j, a in enumerate(state)))
                 is not None]
        if len(alone) == 1:
            # … but its reading comes from the same look as the misread ones (a look read
            # under a wrong north can move one robot to a cell it could reach): it is doubted
            # too, until the others are seen back where they stood.
            mover = self.names[alone[0]]
            self._mover[mover] = frozenset(self.names[i] for i in changed if i != alone[0])
        return out | {self.names[i] for i in changed}

    def question(self, cells: Mapping[str, Cell]) -> str:
        """The page's question about these readings ("blue seen on k10 — is that right?")."""
        seen = i18n.listed([Message("verify.seen", robot=i18n.color(n),
                                    cell=self.board.name(c)) for n, c in cells.items()],
                           "list.comma")
        return Message("verify.question", seen=seen)

    def doubt(self, state: State, obs: State, suspects: set[str], at: float, why: str, *,
              confirm: bool = False, hand: bool = False) -> list[Event]:
        """Take the suspects' readings for misreadings: believe them where they stood
        (``state``), and ask about each reading once. ``confirm``: their moves are legal but
        would end the demonstration on this one reading; a later look that agrees settles them
        (:meth:`recheck`). ``hand``: the board was hidden before this look."""
        cells = {n: obs[self.names.index(n)] for n in self.names if n in suspects}
        self.cells.update(cells)
        after = tuple(a if n in cells else c
                      for n, a, c in zip(self.names, state, obs, strict=True))
        self.since.update({n: after for n in cells})
        self._seen_back -= cells.keys()
        moved = frozenset(n for n, a, b in zip(self.names, state, obs, strict=True)
                          if a != b and n not in cells)
        for n in cells:
            if len(cells) > 1 and not confirm:
                self._groups[n] = (frozenset(cells) - {n}, hand)
            if moved:
                self._came_with[n] = (moved, hand)
        if confirm:
            self._confirm.update(cells)
        new = {n: c for n, c in cells.items() if (n, c) not in self._asked}
        if not new:
            return []
        self._asked.update(new.items())
        question = self.question(new)
        robots = {n: {"seen": self.board.name(c), "believed": self.board.name(state[
            self.names.index(n)])} for n, c in new.items()}
        key = "verify.doubt_verdict" if confirm else "verify.doubt"
        return [self._event("doubt", at, robots=robots, question=question, reason=why,
                            message=Message(key, question=question, n=len(new)))]


class Unread:
    """The robots the count waits for: lifted off the board or not seen (:attr:`lifted`:
    robot → the cell it stood on), seen as one with another (:attr:`unseen`, of the last
    look), or put back on a cell no legal move explains (:attr:`misread`: the cells they are
    seen on). Each problem is reported once (:attr:`problem`)."""

    def __init__(self, names: tuple[str, ...], board: Board, event: EventMaker) -> None:
        self.names = names
        self.board = board
        self._event = event
        self.lifted: dict[str, Cell] = {}
        self.misread: dict[str, Cell] = {}
        self.unseen: list[str] = []
        self.problem: tuple | None = None
        # Robots unseen in a look after a hand in which no robot seen had changed: the hand
        # may have moved them; seen back where they stood, they may have gone away and back
        # (two moves at least, :attr:`uncounted`), which no look showed.
        self.hidden: set[str] = set()
        self.uncounted = 0
        self._came_back: list[str] = []

    def reset(self) -> None:
        """Every robot is read again where the count can go on from."""
        self.lifted = {}
        self.misread = {}
        self.problem = None

    def look(self, missing: list[str], merged: list[list[str]], *, hidden: bool = False
             ) -> None:
        """The robots of the last look not seen, or seen as one with another; ``hidden``: a
        hand came before it and no robot seen had changed."""
        self.misread = {}
        self.unseen = [n for n in self.names if n in missing or any(n in g for g in merged)]
        if hidden:
            self.hidden.update(missing)

    def seen(self, cells: Mapping[str, Cell]) -> None:
        """The robots a look sees (robot → cell): those hidden and back where they stood may
        have made two moves no look showed."""
        for n in [n for n in self.hidden if n in cells]:
            self.hidden.discard(n)
            if cells[n] == self.lifted.get(n):
                self.uncounted += 2
                self._came_back.append(n)

    def uncounted_words(self, cost: int) -> tuple[Any, Any]:
        """Why a success is ``unsure`` when moves no look showed may pass the bid, and the
        question for the players."""
        who = i18n.listed([i18n.color(n) for n in dict.fromkeys(self._came_back)])
        return (Message("verify.hidden_moves", robots=who, count=cost, n=self.uncounted),
                Message("verify.hidden_question", robots=who))

    def off(self, state: State, missing: list[str], merged: list[list[str]], at: float, *,
            afresh: bool) -> list[Event]:
        """Robots not seen (``missing``) or seen on one cell (``merged``): they are taken
        for standing where they stood (``state``); the page says where they go back.
        ``afresh``: the count went on since the last robot was lifted."""
        if afresh:
            self.lifted = {}
        for n in missing:
            self.lifted.setdefault(n, state[self.names.index(n)])
        for group in merged:
            for n in group:
                self.lifted.setdefault(n, state[self.names.index(n)])
        key = (tuple(missing), tuple(tuple(g) for g in merged))
        if key == self.problem:
            return []
        self.problem = key
        put_back = {n: self.board.name(state[self.names.index(n)])
                    for n in [*missing, *(n for g in merged for n in g)]}
        if missing:
            words = on_cells(put_back, missing)
            who = i18n.listed([i18n.color(n) for n in missing])
            # lifted off, or only not seen surely enough to be placed: the camera cannot tell
            msg = Message("verify.missing", robots=who, n=len(missing), waits=words)
            return [self._event("robot_missing", at, robots=missing, put_back=put_back,
                                message=msg)]
        group = merged[0]
        cell = self.board.name(state[self.names.index(group[0])])
        words = on_cells(put_back, group)
        return [self._event(
            "robots_merged", at, robots=[n for g in merged for n in g], put_back=put_back,
            message=Message("verify.merged", robots=i18n.listed([i18n.color(n) for n in group]),
                            waits=words, cell=cell))]

    def moved(self, obs: State) -> bool:
        """Is a lifted robot seen back elsewhere than where it stood?"""
        return any(obs[self.names.index(n)] != c for n, c in self.lifted.items())

    def misplaced(self, obs: State, at: float) -> list[Event]:
        """Lifted robots back on a cell no legal move explains: the page says where they go."""
        wrong = {n: {"at": self.board.name(obs[self.names.index(n)]),
                     "to": self.board.name(c)}
                 for n, c in self.lifted.items() if obs[self.names.index(n)] != c}
        key = ("misplaced", tuple(sorted((n, w["at"]) for n, w in wrong.items())))
        if key == self.problem:
            return []
        self.problem = key
        self.misread = {n: obs[self.names.index(n)] for n in wrong}
        words = back_on(wrong)
        return [self._event("misplaced", at, robots=wrong,
                            message=Message("verify.misplaced", robots=words))]

    def ending(self, state: State, occluded: bool, doubts: Doubts
               ) -> tuple[str, str, dict[str, Any]]:
        """Why a demonstration ending now is ``unsure`` (the robots unread, or every one while
        the board is ``occluded``), the question for the players, and the verdict's further
        fields."""
        if self.misread and not occluded:
            return Message("verify.unexplained_end"), doubts.question(self.misread), {}
        unread = ([] if occluded else self.unseen) or [
            n for n in self.names if n in self.lifted or occluded]
        who = i18n.listed([i18n.color(n) for n in unread])
        cells = i18n.listed([self.board.name(self.lifted.get(n, state[self.names.index(n)]))
                             for n in unread])
        question = Message("verify.where", robots=who, cells=cells, n=len(unread))
        reason = Message("verify.unread_end", robots=who, n=len(unread))
        return reason, question, {"unread": unread}
