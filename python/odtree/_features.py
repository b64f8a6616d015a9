"""Binary features: what each column of the binarized matrix tests on the original data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KINDS = ("binary", "threshold", "category")


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
    kind : {"binary", "threshold", "category"}
        ``"binary"``: the column already holds 0/1 and is used as is.
        ``"threshold"``: the test is ``column <= value``.
        ``"category"``: the test is ``column == value`` (one-hot).
    value : float, str or None
        The threshold or the category; ``None`` for ``"binary"``.

    Examples
    --------
    >>> f = BinaryFeature(0, "age", "threshold", 37.5)
    >>> f.name, f.negation
    ('age <= 37.5', 'age > 37.5')
    """

    column: int
    column_name: str
    kind: str
    value: Any = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")

    @property
    def name(self) -> str:
        """The test as text, true on the rows that go right (feature = 1)."""
        if self.kind == "binary":
            return f"{self.column_name} = 1"
        if self.kind == "threshold":
            return f"{self.column_name} <= {_fmt(self.value)}"
        return f"{self.column_name} = {self.value}"

    @property
    def negation(self) -> str:
        """The test as text, true on the rows that go left (feature = 0)."""
        if self.kind == "binary":
            return f"{self.column_name} = 0"
        if self.kind == "threshold":
            return f"{self.column_name} > {_fmt(self.value)}"
        return f"{self.column_name} != {self.value}"

    def to_dict(self) -> dict:
        """A JSON-ready description; :meth:`from_dict` reads it back."""
        value = self.value
        if isinstance(value, float | int) and not isinstance(value, bool):
            value = float(value) if self.kind == "threshold" else value
        return {"column": int(self.column), "column_name": self.column_name,
                "kind": self.kind, "value": _json_value(value)}

    @classmethod
    def from_dict(cls, data: dict) -> BinaryFeature:
        """Rebuild a feature from :meth:`to_dict` output."""
        return cls(int(data["column"]), str(data["column_name"]), data["kind"], data["value"])


def _fmt(value: float) -> str:
    """Shortest readable form of a threshold: 37.5, 2, 0.001."""
    value = float(value)
    return f"{value:.6g}"


def _json_value(value):
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    return value
