"""Seeding helpers: seeds for parallel work are drawn in the parent process."""

from __future__ import annotations

import numpy as np

__all__ = ["spawn_seeds"]


def spawn_seeds(random_state, n: int) -> np.ndarray:
    """Draw ``n`` independent 32-bit seeds from ``random_state``.

    Drawing all seeds up front, in the caller, makes results independent of how the
    work is later split across jobs.

    Examples
    --------
    >>> (spawn_seeds(0, 3) == spawn_seeds(0, 3)).all()
    np.True_
    """
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)
    return rng.randint(0, np.iinfo(np.int32).max, size=n)
