"""One time budget shared by the steps of a call (binarizing, several searches, several folds,
DT-SLIM's oracles): every time limit in odtree is a :class:`Deadline`."""

from __future__ import annotations

import time


class Deadline:
    """The end of a time budget of ``seconds`` (``None``: no end) times ``share``, counted from
    ``start`` (a ``time.monotonic()`` time; by default now), so that every step of a call
    draws on the same budget.

    Examples
    --------
    >>> Deadline(None).left() is None
    True
    >>> 0 < Deadline(10).left() <= 10
    True
    >>> Deadline(0).passed()
    True
    >>> 0 < Deadline(10).part(0.5).left() <= 5
    True
    """

    def __init__(self, seconds: float | None, share: float = 1.0, *,
                 start: float | None = None):
        if seconds is None:
            self.end = None
        else:
            self.end = (time.monotonic() if start is None else start) + float(seconds) * share

    def left(self) -> float | None:
        """Seconds left (at least 0), or ``None`` without a budget."""
        return None if self.end is None else max(0.0, self.end - time.monotonic())

    def passed(self) -> bool:
        """Whether the budget is spent."""
        return self.end is not None and time.monotonic() >= self.end

    def within(self, seconds: float | None) -> float | None:
        """The smaller of ``seconds`` (a step's own limit, ``None``: none) and the time left."""
        left = self.left()
        if left is None:
            return seconds
        return left if seconds is None else min(float(seconds), left)

    def part(self, share: float) -> Deadline:
        """A budget of ``share`` of the time left, from now (no end without a budget)."""
        return Deadline(self.left(), share)


#: A budget without an end.
NO_DEADLINE = Deadline(None)
