"""Warnings that point at the user's line, not at odtree's or scikit-learn's internals.

A fixed ``stacklevel`` breaks as soon as a call goes through one more wrapper (scikit-learn's
``_fit_context``, odtree's one-fit-at-a-time guard, ``GridSearchCV``, a refit inside
``cost_complexity_pruning_path``...). :func:`warn` walks the stack instead, to the first frame
of a module outside the packages below.
"""

from __future__ import annotations

import sys
import warnings

__all__ = ["warn"]

#: Packages whose frames a warning skips: odtree, scikit-learn, and joblib, through which
#: scikit-learn's meta-estimators call ``fit``.
INTERNAL_PACKAGES = ("odtree", "sklearn", "joblib")


def warn(message: str, category: type[Warning]) -> None:
    """``warnings.warn(message, category)`` attributed to the first frame outside
    :data:`INTERNAL_PACKAGES`: the user's line that called ``fit`` (or the outermost frame, when
    every frame is internal).

    Parameters
    ----------
    message : str
        The warning's text.
    category : Warning subclass
        The warning's class.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("careful", UserWarning)
    >>> caught[0].message.args[0], caught[0].filename.endswith("_warn.py")
    ('careful', False)
    """
    frame = sys._getframe(1)  # the caller of warn(), which warnings.warn's stacklevel=2 names
    stacklevel = 2
    while frame.f_back is not None and _is_internal(frame):
        frame = frame.f_back
        stacklevel += 1
    warnings.warn(message, category, stacklevel=stacklevel)


def _is_internal(frame) -> bool:
    """Whether ``frame`` runs code of one of :data:`INTERNAL_PACKAGES`."""
    module = frame.f_globals.get("__name__") or ""
    return module.partition(".")[0] in INTERNAL_PACKAGES
