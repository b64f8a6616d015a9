"""A time budget shared by the steps of one call (several searches, several folds)."""

from __future__ import annotations

import time


class Deadline:
    """The end of a time budget of ``seconds`` from now (``None``: no end), as a
    ``time.monotonic()`` time, so that every step of a call draws on the same budget.

    Examples
    --------
    >>> Deadline(None).left() is None
    True
    >>> 0 < Deadline(10).left() <= 10
    True
    >>> Deadline(0).passed()
    True
    """

    def __init__(self, seconds: float | None, share: float = 1.0):
        self.end = None if seconds is None else time.monotonic() + float(seconds) * share

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
