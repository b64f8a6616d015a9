"""Binary features: what each column of the binarized matrix tests on the original data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KINDS = ("binary", "threshold", "category", "missing")


@dataclass(frozen=True)
class BinaryFeature:
    """One binary feature the search can split on.

    The feature is 1 on a row when its test holds. In a fitted tree the rows where it is 0 go to the
    left child and the rows where it is 1 go to the right child, as in scikit-learn.

    Parameters
    ----------
    column : int
        Index of the original input column.
    column_name : str
        Readable name of that column (``feature_names_in_`` or ``x{column}``).
    kind : {"binary", "threshold", "category", "missing"}
        ``"binary"``: the column held only 0 and 1 in fit and is used as is: the test is
        ``column > 0.5`` (named ``column = 1``), so that any other number routes too.
        ``"threshold"``: the test is ``column <= value``.
        ``"category"``: the test is ``column == value`` (one-hot); it fails on a missing value.
        ``"missing"``: the test is "the value is missing" (NaN, None or NA).
    value : float, str or None
        The threshold or the category; ``None`` for ``"binary"`` and ``"missing"``.
    missing_holds : bool or None, default=None
        Threshold features only: whether the test holds on a row whose value is missing, so
        that such rows go right (``True``) or left (``False``). ``None``: the column had no
        missing values in ``fit``; a tree sends a row missing there to the child that held
        more training weight.

    Examples
    --------
    >>> f = BinaryFeature(0, "age", "threshold", 37.5)
    >>> f.name, f.negation
    ('age <= 37.5', 'age > 37.5')
    >>> f = BinaryFeature(0, "age", "threshold", 37.5, missing_holds=True)
    >>> f.name, f.negation
    ('age <= 37.5 or missing', 'age > 37.5')
    >>> BinaryFeature(0, "age", "missing").name
    'age is missing'
    """

    column: int
    column_name: str
    kind: str
    value: Any = None
    missing_holds: bool | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if self.missing_holds is not None and (self.kind != "threshold"
                                               or not isinstance(self.missing_holds, bool)):
            raise ValueError("missing_holds must be None, or a bool on a threshold feature; "
                             f"got {self.missing_holds!r} on a {self.kind} feature")

    @property
    def name(self) -> str:
        """The test as text, true on the rows that go right (feature = 1)."""
        if self.kind == "binary":
            return f"{self.column_name} = 1"
        if self.kind == "threshold":
            text = f"{self.column_name} <= {_fmt(self.value)}"
            return text + " or missing" if self.missing_holds else text
        if self.kind == "missing":
            return f"{self.column_name} is missing"
        return f"{self.column_name} = {self.value}"

    @property
    def negation(self) -> str:
        """The test as text, true on the rows that go left (feature = 0)."""
        if self.kind == "binary":
            return f"{self.column_name} = 0"
        if self.kind == "threshold":
            text = f"{self.column_name} > {_fmt(self.value)}"
            return text + " or missing" if self.missing_holds is False else text
        if self.kind == "missing":
            return f"{self.column_name} is not missing"
        return f"{self.column_name} != {self.value}"

    def to_dict(self) -> dict:
        """A JSON-ready description; :meth:`from_dict` reads it back."""
        value = self.value
        if isinstance(value, float | int) and not isinstance(value, bool):
            value = float(value) if self.kind == "threshold" else value
        data = {"column": int(self.column), "column_name": self.column_name,
                "kind": self.kind, "value": _json_value(value)}
        if self.missing_holds is not None:  # left out otherwise, as older files have it
            data["missing_holds"] = self.missing_holds
        return data

    @classmethod
    def from_dict(cls, data: dict) -> BinaryFeature:
        """Rebuild a feature from :meth:`to_dict` output."""
        return cls(int(data["column"]), str(data["column_name"]), data["kind"], data["value"],
                   data.get("missing_holds"))


def _fmt(value: float) -> str:
    """Shortest readable form of a threshold: 37.5, 2, 0.001."""
    value = float(value)
    return f"{value:.6g}"


def _json_value(value):
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    return value
