"""``--counts`` / ``--no-counts``: the user's word on whether the numbers are counts.

Whether a matrix *looks like* counts is decided once, by the library
(:func:`widefs.stats.looks_like_counts`, called by the analysis); the command line passes the
user's override on and refuses ``--counts`` on values that cannot be counts.
"""

from __future__ import annotations

import numpy as np

from widefs.exceptions import DataError

__all__ = ["counts_option"]

_BLOCK = 4096  # columns checked at a time (no temporary the size of the data)


def _integers(X: np.ndarray) -> tuple[bool, float, float]:
    """(every value a non-negative integer, smallest, largest), a block of columns at a time."""
    low, high = np.inf, -np.inf
    for j in range(0, X.shape[1], _BLOCK):
        block = X[:, j : j + _BLOCK]
        low, high = min(low, float(block.min())), max(high, float(block.max()))
        if low < 0 or not np.array_equal(block, np.round(block)):
            return False, low, high
    return True, low, high


def counts_option(X: np.ndarray, option: bool | None) -> bool | str:
    """The ``counts`` argument of :func:`widefs.analysis.analyse` for ``--counts`` (True),
    ``--no-counts`` (False) or neither (None: ``"auto"``, the library recognises them).

    Examples
    --------
    >>> counts_option(np.array([[0.0, 5000.0], [3.0, 12.0]]), None)
    'auto'
    >>> counts_option(np.array([[0.0, 5.0], [3.0, 12.0]]), True)
    True
    >>> counts_option(np.array([[0.5, 5.0], [3.0, 12.0]]), True)
    Traceback (most recent call last):
    ...
    widefs.exceptions.DataError: --counts: the data hold values that are not non-negative integers (from 0.5 to 12); counts are whole numbers of at least 0
    """
    if option is None:
        return "auto"
    if option:
        integers, low, high = _integers(X)
        if not integers:
            raise DataError(
                "--counts: the data hold values that are not non-negative integers "
                f"(from {low:g} to {high:g}); counts are whole numbers of at least 0"
            )
    return bool(option)
