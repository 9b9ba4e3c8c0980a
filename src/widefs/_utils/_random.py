"""Seeding helpers: seeds for parallel work are drawn in the parent process."""

from __future__ import annotations

import numpy as np

__all__ = ["spawn_seeds"]


def spawn_seeds(random_state, n: int) -> np.ndarray:
    """Draw ``n`` independent 32-bit seeds from ``random_state``.

    Drawing all seeds up front, in the caller, makes results independent of how the
    work is later split across jobs.

    Parameters
    ----------
    random_state : int, RandomState instance or None
    n : int
        Seeds to draw.

    Returns
    -------
    seeds : ndarray of int, shape (n,)
        In ``[0, 2**31 - 1)``.

    See Also
    --------
    sklearn.utils.check_random_state : How ``random_state`` is interpreted.

    Examples
    --------
    >>> bool((spawn_seeds(0, 3) == spawn_seeds(0, 3)).all())
    True
    """
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)
    return rng.randint(0, np.iinfo(np.int32).max, size=n)
