"""Watching a search as it goes: the events it reports, printed with ``verbose=1`` and handed
to a ``callback``, which may stop it."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from typing import NamedTuple

#: Printed lines are at least this many seconds apart (but for the last).
PRINT_EVERY = 0.25


class Progress(NamedTuple):
    """One event of a search: a better tree found, or the end.

    Attributes
    ----------
    seconds : float
        Seconds since the search started.
    objective : float
        The objective of the best tree so far.
    bound : float
        A proven lower bound on the optimal objective (0 until the search proves one).
    final : bool
        Whether the search has ended.

    Examples
    --------
    >>> print(Progress(0.5, 12.0, 0.0))
    [    0.50 s] objective 12           no bound yet
    >>> print(Progress(2.0, 12.0, 9.0, final=True))
    [    2.00 s] objective 12           bound 9            gap  25.00% (end)
    """

    seconds: float
    objective: float
    bound: float
    final: bool = False

    @property
    def bound_proven(self) -> bool:
        """Whether the search has proven a bound yet: a bound of 0 under a positive objective
        is only the one every tree has."""
        return not (self.bound == 0 and self.objective > 0)

    @property
    def gap(self) -> float:
        """``(objective - bound) / objective``: 0 once the tree is proven optimal."""
        if self.objective <= 0:
            return 0.0
        return max(0.0, (self.objective - self.bound) / self.objective)

    def __str__(self) -> str:
        end = " (end)" if self.final else ""
        if not self.bound_proven:  # not "bound 0, gap 100 %", which reads as stuck
            return f"[{self.seconds:8.2f} s] objective {self.objective:<12.6g} no bound yet{end}"
        return (f"[{self.seconds:8.2f} s] objective {self.objective:<12.6g} "
                f"bound {self.bound:<12.6g} gap {self.gap:7.2%}{end}")


class Watcher:
    """Prints the events (``verbose > 0``) and hands them to ``callback``, whose true return
    value asks the search to stop."""

    def __init__(self, verbose: int = 0, callback: Callable[[Progress], object] | None = None,
                 stream=None):
        self.verbose = verbose
        self.callback = callback
        self.stream = stream
        self._printed = -float("inf")

    @property
    def active(self) -> bool:
        """Whether anything watches."""
        return bool(self.verbose) or self.callback is not None

    def __call__(self, seconds: float, objective: float, bound: float,
                 final: bool = False) -> bool:
        event = Progress(seconds, objective, bound, final)
        now = time.monotonic()
        if self.verbose and (final or now - self._printed >= PRINT_EVERY):
            self._printed = now
            _say(event, self.stream or sys.stdout)
        if self.callback is None:
            return False
        CALLING_BACK.active = True
        try:
            return bool(self.callback(event))
        finally:
            CALLING_BACK.active = False


#: Whether this thread is inside a progress callback (a fit started from there on the
#: object being fitted would never end: each search would start another).
CALLING_BACK = threading.local()


#: Seconds after which a search that nobody watches and that has no time limit says, once on
#: stderr, that it is still running and how to watch or bound it.
NOTICE_AFTER = 10.0


@contextmanager
def long_search_notice(enabled: bool, stream=None):
    """While the block runs (a search, with the GIL released), prints one notice to ``stream``
    (``sys.stderr``) if it lasts :data:`NOTICE_AFTER` seconds and ``enabled``; nothing else.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with long_search_notice(True, out):
    ...     pass
    >>> out.getvalue()
    ''
    """
    if not enabled:
        yield
        return
    token = _NOTICES.add(stream)
    try:
        yield
    finally:
        _NOTICES.remove(token)


class _Notices:
    """The searches that print a notice if still running when it falls due, watched by one
    daemon thread for them all (a timer thread per search cost a tenth of a millisecond, as
    much as a small search)."""

    def __init__(self):
        self._changed = threading.Condition()
        self._due: dict[object, tuple[float, float, object]] = {}
        self._thread: threading.Thread | None = None

    def add(self, stream) -> object:
        """Watches a search from now on; returns the token that :meth:`remove` takes."""
        token = object()
        with self._changed:
            self._due[token] = (time.monotonic() + NOTICE_AFTER, NOTICE_AFTER, stream)
            if self._thread is None or not self._thread.is_alive():  # also after a fork
                self._thread = threading.Thread(target=self._watch, daemon=True,
                                                name="odtree-notices")
                self._thread.start()
            self._changed.notify()
        return token

    def remove(self, token) -> None:
        """Stops watching the search of ``token``: it has ended."""
        with self._changed:
            self._due.pop(token, None)

    def _watch(self) -> None:
        while True:
            with self._changed:
                now = time.monotonic()
                due = [token for token, (at, _, _) in self._due.items() if at <= now]
                notices = [self._due.pop(token)[1:] for token in due]
                if not notices:
                    soonest = min((at for at, _, _ in self._due.values()), default=None)
                    self._changed.wait(None if soonest is None else soonest - now)
            for after, stream in notices:
                _notice(after, stream)


_NOTICES = _Notices()


#: How the notice says to watch or bound the search (the command line names its flags).
NOTICE_ADVICE = ("pass verbose=1 to watch its progress, or time_limit=SECONDS to get the best "
                 "tree found by then")


def _notice(after: float, stream) -> None:
    _say(f"odtree: the search has run for {after:g} s and goes on until it proves the "
         f"optimal tree; {NOTICE_ADVICE} (Ctrl-C also stops it and keeps that tree)",
         stream or sys.stderr)


def _say(message, stream) -> None:
    """Prints ``message`` to ``stream``; output that cannot be written (a closed or broken
    stream, no stream at all) is dropped: progress never fails a fit."""
    try:
        print(message, file=stream, flush=True)
    except (OSError, ValueError, AttributeError):
        pass
