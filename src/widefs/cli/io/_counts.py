"""Whether the numbers read are counts (RNA-seq reads, k-mer or OTU tallies).

Counts are non-negative integers, zeros among them, spanning orders of magnitude; their variance grows with
their mean, so tests and classifiers that assume a common spread read them differently from
intensities or log values. The reader recognises them and the report says what was done;
``--counts`` / ``--no-counts`` override the decision.
"""

from __future__ import annotations

import numpy as np

from widefs.exceptions import DataError

__all__ = ["decide_counts"]

# Counts reach at least this and include zeros. Thresholded microarray intensities (integers
# clipped to 20..16000, as in medulloblastoma_b) have no zeros.
_MIN_LARGEST = 1000
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


def decide_counts(X: np.ndarray, option: bool | None, notes: list[str]) -> bool:
    """Whether ``X`` is read as counts: ``option`` if given (``--counts`` refused on values that
    are not non-negative integers), else recognised from the values; the decision is noted.

    Examples
    --------
    >>> notes = []
    >>> decide_counts(np.array([[0.0, 5000.0], [3.0, 12.0]]), None, notes)
    True
    >>> decide_counts(np.array([[0.5, 5000.0], [3.0, 12.0]]), None, [])
    False
    >>> decide_counts(np.array([[20.0, 16000.0], [3.0, 12.0]]), None, [])  # no zero
    False
    """
    if option is False:
        return False
    integers, low, high = _integers(X)
    if option and not integers:
        raise DataError(
            "--counts: the data hold values that are not non-negative integers "
            f"(from {low:g} to {high:g}); counts are whole numbers of at least 0"
        )
    if not option and not (integers and low == 0 and high >= _MIN_LARGEST):
        return False
    why = "--counts" if option else "recognised: --no-counts to read them as intensities"
    notes.append(
        f"read as counts (non-negative integers from {low:,.0f} to {high:,.0f}; {why}): the "
        "analysis takes the values as given, without a log transform or normalisation; "
        "count-aware statistics and log2(x + 1) can change which features and methods win"
    )
    return True
