"""Argument checks shared by the pure functions (one tested message per failure)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["as_float_array", "check_integer_array", "check_unit_interval"]


def as_float_array(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """Return ``x`` as a float array, rejecting non-numeric input with a message naming ``name``."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric, got {x!r}.") from exc
    return arr


def check_integer_array(
    x: ArrayLike, name: str, *, minimum: float | None = None
) -> NDArray[np.float64]:
    """Check that ``x`` holds finite integer values (as floats, so 1e9 fits), at least ``minimum``."""
    arr = as_float_array(x, name)
    if np.any(~np.isfinite(arr)):
        raise ValueError(f"{name} must be finite.")
    if np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold integer values.")
    if minimum is not None and np.any(arr < minimum):
        raise ValueError(f"{name} must be >= {minimum:g}.")
    return arr


def check_unit_interval(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """Check that ``x`` lies in ``[0, 1]`` (NaN rejected)."""
    arr = as_float_array(x, name)
    if np.any(~((arr >= 0) & (arr <= 1))):
        raise ValueError(f"{name} must lie in [0, 1].")
    return arr
