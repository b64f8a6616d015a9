"""Ctrl-C across searches: the first stops one search, which keeps what it found; a second
within a short window stops the caller's program too, even a loop over many searches."""

from __future__ import annotations

import time

#: Two Ctrl-C within this many seconds raise KeyboardInterrupt instead of stopping one search.
INTERRUPT_WINDOW = 10.0
_last_interrupt = [float("-inf")]


def note_interrupt() -> None:
    """Records a Ctrl-C that stopped a search, and raises ``KeyboardInterrupt`` if another
    one did within :data:`INTERRUPT_WINDOW` seconds."""
    now = time.monotonic()
    if now - _last_interrupt[0] < INTERRUPT_WINDOW:
        _last_interrupt[0] = float("-inf")
        raise KeyboardInterrupt("second interrupt: stopping")
    _last_interrupt[0] = now
