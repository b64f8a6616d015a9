"""Reading a memory limit given as bytes or as a string with a unit, such as "500MB"."""

from __future__ import annotations

import re
from fractions import Fraction
from numbers import Integral

#: Bytes per unit: MB and GB are powers of 10, MiB and GiB powers of 2.
UNITS = {
    "": 1, "b": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
}

_PATTERN = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*$")

#: The largest limit the search takes: its byte counts are signed 64-bit integers.
MAX_BYTES = 2**63 - 1


def parse_bytes(value) -> int:
    """The number of bytes ``value`` stands for: an int, or a string such as ``"500MB"``,
    ``"1.5 GB"`` or ``"2GiB"`` (units are case-insensitive), from 1 to ``MAX_BYTES``.

    >>> parse_bytes("500MB"), parse_bytes("2GiB"), parse_bytes(4096)
    (500000000, 2147483648, 4096)
    """
    if isinstance(value, Integral) and not isinstance(value, bool):
        amount = int(value)
    elif isinstance(value, str):
        match = _PATTERN.match(value)
        unit = match.group(2).lower() if match else None
        if unit not in UNITS:
            raise ValueError(f"memory_limit {value!r} is not a size such as 500MB or 2GiB "
                             f"(units: {', '.join(u for u in UNITS if u)})")
        amount = int(Fraction(match.group(1)) * UNITS[unit])  # exact, however large
    else:
        raise TypeError(f"memory_limit must be an int (bytes) or a string such as '500MB', "
                        f"got {type(value).__name__}")
    if amount < 1:
        raise ValueError(f"memory_limit must be at least 1 byte, got {value!r}")
    if amount > MAX_BYTES:
        raise ValueError(f"memory_limit {value!r} is too large: the largest is {MAX_BYTES} bytes "
                         "(2**63 - 1, about 9.2 million TB)")
    return amount
