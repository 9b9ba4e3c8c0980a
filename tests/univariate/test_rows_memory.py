"""Memory-saving paths give the fits of the plain paths, float for float.

The errors certificate scores blocks of columns (widened to float64 one block at a time);
:meth:`DiscriminativeSelector._fit_rows` and :meth:`ClassDifferenceScreen._fit_rows` read a
fold's rows in place. Each is checked against the plain computation on a copy.
"""

import numpy as np
import pytest
from sklearn.base import clone

from widefs.univariate import DiscriminativeSelector, _search_scores


def _data(dtype, n=24, m=61, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, m)).astype(dtype)
    X[y == "b", :4] += 1.5
    X[:, 5] = 2.0  # a constant feature
    X[:, 6] = np.round(X[:, 6])  # ties
    return X, y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("cv", ["halves", 3])
def test_errors_certificate_equals_refits_over_many_blocks(monkeypatch, dtype, n_jobs, cv):
    # Blocks of 3 columns: 21 blocks, the last one short.
    monkeypatch.setattr(_search_scores, "_ERRORS_BLOCK_BYTES", 3 * 8 * 24)
    X, y = _data(dtype)
    sel = DiscriminativeSelector("all", statistic="errors", null="analytic", cv=cv,
                                 random_state=3)  # fmt: skip
    perms = np.random.default_rng(1).permuted(np.tile(np.arange(y.size), (7, 1)), axis=1)
    fast = sel.permutation_search_scores(X, y, perms, n_jobs=n_jobs)
    refits = [clone(sel).fit(X, y[p]).search_score_ for p in perms]
    assert fast.dtype == np.float64
    np.testing.assert_array_equal(fast, refits)


def test_errors_certificate_with_every_feature_constant_takes_any_features_score():
    X = np.ones((8, 5), np.float32)
    y = np.repeat([0, 1], 4)
    sel = DiscriminativeSelector("all", statistic="errors", null="analytic", random_state=0)
    perms = np.array([np.arange(8), np.arange(8)[::-1]])
    fast = sel.permutation_search_scores(X, y, perms)
    np.testing.assert_array_equal(fast, [clone(sel).fit(X, y[p]).search_score_ for p in perms])
