"""Synthetic wide classification problems for experiments, benchmarks and tests."""

from __future__ import annotations

import numpy as np

__all__ = ["make_wide_classification"]


def make_wide_classification(
    n_samples: int = 40,
    n_features: int = 80_000,
    *,
    n_informative: int = 300,
    effect_size: float = 0.8,
    n_classes: int = 2,
    dtype=np.float64,
    random_state=None,
):
    """Few samples, many independent Gaussian features, a few of them weakly informative.

    Class ``c`` shifts each informative feature by ``effect_size * s_jc`` standard
    deviations, with signs ``s_jc`` drawn at random, so that every informative feature
    separates the classes with the same strength. Informative features come first.
    Classes are as balanced as possible (sizes differ by at most one).

    Parameters
    ----------
    n_samples : int, default=40
        Number of examples, at least ``n_classes``.
    n_features : int, default=80_000
        Number of features, informative ones included.
    n_informative : int, default=300
        Number of informative features (the first ones), between 0 and ``n_features``.
    effect_size : float, default=0.8
        Shift of an informative feature between classes, in standard deviations.
    n_classes : int, default=2
        Number of classes, at least 2.
    dtype : numpy dtype, default=float64
        Dtype of ``X``.
    random_state : int, RandomState instance or None
        Seeds the signs and the Gaussian draws.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The features; informative ones first.
    y : ndarray of int, shape (n_samples,)
        Class labels ``0, 1, ..., n_classes - 1, 0, 1, ...`` (sizes differ by at most one).

    See Also
    --------
    load_dataset : Real wide datasets bundled with widefs.

    Examples
    --------
    >>> X, y = make_wide_classification(40, 1000, n_informative=10, random_state=0)
    >>> X.shape, np.bincount(y).tolist()
    ((40, 1000), [20, 20])
    """
    if not 0 <= n_informative <= n_features:
        raise ValueError("n_informative must lie between 0 and n_features.")
    if n_classes < 2 or n_samples < n_classes:
        raise ValueError("need n_classes >= 2 and at least one sample per class.")
    from sklearn.utils import check_random_state  # keeps `import widefs.datasets` light

    rng = check_random_state(random_state)
    y = np.arange(n_samples) % n_classes
    X = rng.standard_normal(size=(n_samples, n_features)).astype(dtype, copy=False)
    signs = rng.choice([-0.5, 0.5], size=(n_classes, n_informative))
    X[:, :n_informative] += (effect_size * signs[y]).astype(dtype)
    return X, y
