"""The shape gate's limits for small n, computed ahead of time.

The gate's limits (:func:`widefs.univariate._kinds.shape_limits`) are Monte Carlo quantiles
of the skewness and kurtosis of n Gaussian values with a fixed seed: a function of n alone,
about 0.3 s of CPU per n at n = 100. Every fresh process would pay it on its first screen fit,
so the values for n up to ``N_MAX`` are stored (``data/shape_limits.csv``, written by
:func:`write_table` with the very simulation the fit runs): a fit reads its row instead.
Values are stored as ``float.hex`` strings, so they round-trip bit for bit.
"""

from __future__ import annotations

import functools
from importlib import resources

__all__ = ["N_MAX", "N_MIN", "stored_shape_limits", "write_table"]

N_MIN = 3
N_MAX = 400
_FILE = "shape_limits.csv"
_HEADER = "n,draws,skew_level_low,skew_low,skew_level_high,skew_high,kurt_level,kurt"


@functools.cache
def _table() -> dict:
    """``{(n, draws): (levels, (skew_low, skew_high, kurt))}`` of the stored file."""
    text = resources.files("widefs.univariate").joinpath("data", _FILE).read_text("ascii")
    lines = text.splitlines()
    if lines[0] != _HEADER:
        raise ValueError(f"{_FILE}: unexpected header {lines[0]!r}.")
    table = {}
    for line in lines[1:]:
        n, draws, *values = line.split(",")
        levels = tuple(float.fromhex(values[i]) for i in (0, 2, 4))
        limits = tuple(float.fromhex(values[i]) for i in (1, 3, 5))
        table[int(n), int(draws)] = (levels, limits)
    return table


def stored_shape_limits(n: int, skew_level: float, kurt_level: float, draws: int):
    """``(skew limit, kurtosis limit)`` from the stored table, or ``None`` when not stored.

    A row answers only the exact levels and number of draws it was computed with.
    """
    if not N_MIN <= n <= N_MAX:
        return None
    row = _table().get((int(n), int(draws)))
    if row is None:
        return None
    (low, high, kurt_level_stored), (skew_low, skew_high, kurt) = row
    if kurt_level != kurt_level_stored:
        return None
    if skew_level == low:
        return skew_low, kurt
    if skew_level == high:
        return skew_high, kurt
    return None


def write_table(path, n_values, levels, kurt_level, draws, simulate) -> None:
    """Write the table: ``simulate(n)`` returns the (|skewness|, kurtosis) draws of n values.

    Run with the gate's own simulation::

        from widefs.univariate import _kinds
        write_table(path, range(N_MIN, N_MAX + 1), (_kinds.GATE_LEVEL,
                    _kinds.GATE_LEVEL_SPREAD), _kinds.GATE_LEVEL, _kinds._GATE_DRAWS,
                    _kinds.simulate_shape)
    """
    import numpy as np

    low, high = levels
    rows = [_HEADER]
    for n in n_values:
        skews, kurts = simulate(n)
        values = (
            low,
            np.quantile(skews, 1.0 - low / 2),
            high,
            np.quantile(skews, 1.0 - high / 2),
            kurt_level,
            np.quantile(kurts, 1.0 - kurt_level / 2),
        )
        rows.append(",".join([str(n), str(draws)] + [float(v).hex() for v in values]))
    with open(path, "w", encoding="ascii") as fh:
        fh.write("\n".join(rows) + "\n")
