"""Data shared by the rank-null tests (not a test module)."""

import numpy as np


def colon_like(seed):
    """62 examples (22 / 40): 150 skewed noise features (ranked, untied), 130 Gaussian noise
    and 20 strongly shifted Gaussian ones (moderated F: fixed p-values that set the cut)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], [22, 40])
    X = rng.normal(size=(y.size, 300))
    X[:, :150] = np.exp(2.0 * X[:, :150])
    X[:, 280:] += 2.0 * (y == 0)[:, None]
    return X, y
