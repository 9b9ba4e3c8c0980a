"""The CLI's pre-screen: scikit-learn's F statistic, a block of features at a time."""

import warnings

import numpy as np
from sklearn.feature_selection import f_classif

from widefs._utils import block_width
from widefs.cli._methods import f_scores_blockwise, f_screen


def test_blockwise_f_equals_f_classif_across_blocks():
    rng = np.random.default_rng(0)
    n_rows = 20
    n_cols = 2 * block_width(n_rows) + 7  # three blocks, the last one short
    X = rng.normal(size=(n_rows, n_cols))
    X[:, 5] = 1.0  # constant: F undefined
    X[:, -1] = 2.0
    y = np.repeat([0, 1, 2, 3], 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F_ref, p_ref = f_classif(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the constant columns warn nothing
        F, p = f_scores_blockwise(X, y)
    np.testing.assert_array_equal(F, F_ref)
    np.testing.assert_array_equal(p, p_ref)
    assert np.isnan(F[[5, -1]]).all()
    keep = f_screen(k=10).fit(X, y).get_support()
    assert keep.sum() == 10 and not keep[[5, -1]].any()
    assert set(np.flatnonzero(keep)) == set(np.argsort(-np.nan_to_num(F_ref, nan=-1))[:10])
