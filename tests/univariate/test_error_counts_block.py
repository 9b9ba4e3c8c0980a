"""One block of the errors statistic and its permutation null, against brute force.

``score_block`` scores a block of columns on the real labels and on a matrix of
relabellings; its oracles are one-label-at-a-time calls of the public scorers and
:func:`widefs.stats.permutation_pvalues` (the definition of the p-values).
"""

import numpy as np
import pytest

from widefs.stats import permutation_pvalues
from widefs.univariate import gaussian_nb_split_errors, halves_masks, stump_split_errors
from widefs.univariate._error_counts import score_block

SCORERS = {"gaussian_nb": gaussian_nb_split_errors, "stump": stump_split_errors}


def _problem(seed, n=24, F=40, C=2, splits=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    X[:, 0] = 3.0  # constant: no p-value, no share of the null
    X[:, 1] = np.round(X[:, 1])  # ties
    y = np.arange(n) % C
    X[:, 2] += 10.0 * y  # a feature that separates the classes: p-values at their floor
    tr, va = zip(*(halves_masks(y, C, random_state=seed + s) for s in range(splits)), strict=True)
    perms = np.array([rng.permutation(n) for _ in range(25)])
    return X, y, np.array(tr), np.array(va), y[perms]


def _brute(X, y, tr, va, Y, scorer, C=2):
    score = SCORERS[scorer]
    errors = score(X, y, C, tr, va).sum(axis=0)
    constant = np.ptp(X, axis=0) == 0
    null = np.stack([score(X, labels, C, tr, va).sum(axis=0) for labels in Y])
    keep = ~constant
    pvalues = np.ones(X.shape[1])
    pvalues[keep] = permutation_pvalues(errors[keep], null[:, keep])
    return errors, constant, null[:, keep], pvalues


@pytest.mark.parametrize("scorer", ["gaussian_nb", "stump"])
@pytest.mark.parametrize("splits", [1, 3])
def test_block_and_null_match_one_label_at_a_time(scorer, splits):
    X, y, tr, va, Y = _problem(splits, splits=splits)
    got = score_block(X, slice(0, X.shape[1]), False, y, 2, tr, va, scorer, 1e-9, Y)
    errors, constant, null, pvalues = _brute(X, y, tr, va, Y, scorer)
    np.testing.assert_array_equal(got.errors, errors)
    np.testing.assert_array_equal(got.constant, constant)
    np.testing.assert_array_equal(got.null_min, null.min(axis=1))
    np.testing.assert_array_equal(got.null_sum, null.sum(axis=1))
    np.testing.assert_array_equal(got.pvalues, pvalues)  # the same floats, not close ones
    assert got.pvalues[0] == 1.0 and got.pvalues[2] == 1 / (Y.shape[0] + 1)


def test_given_observed_errors_give_the_same_block():
    X, y, tr, va, Y = _problem(7)
    args = (X, slice(0, X.shape[1]), False, y, 2, tr, va, "gaussian_nb", 1e-9, Y)
    plain = score_block(*args)
    given = score_block(*args, observed=(plain.errors.copy(), plain.constant.copy()))
    for field in ("errors", "constant", "null_min", "null_sum", "pvalues"):
        np.testing.assert_array_equal(getattr(given, field), getattr(plain, field))


def test_given_observed_errors_are_the_ones_compared():
    # The p-values count the relabellings at least as good as the errors given: shifting
    # them moves the p-values exactly as the definition says (ties count as extreme).
    X, y, tr, va, Y = _problem(3)
    args = (X, slice(0, X.shape[1]), False, y, 2, tr, va, "gaussian_nb", 1e-9, Y)
    plain = score_block(*args)
    _, _, null, _ = _brute(X, y, tr, va, Y, "gaussian_nb")
    for shift in (-1, 0, 1):
        observed = plain.errors + shift
        got = score_block(*args, observed=(observed, plain.constant))
        keep = ~plain.constant
        np.testing.assert_array_equal(
            got.pvalues[keep], (1 + (null <= observed[keep]).sum(axis=0)) / (Y.shape[0] + 1)
        )
        np.testing.assert_array_equal(got.null_min, plain.null_min)  # the null is the labels'


def test_every_feature_constant_leaves_the_null_empty():
    X, y, tr, va, Y = _problem(2)
    X[:] = 1.5
    got = score_block(X, slice(0, X.shape[1]), False, y, 2, tr, va, "gaussian_nb", 1e-9, Y)
    assert got.constant.all()
    np.testing.assert_array_equal(got.pvalues, np.ones(X.shape[1]))
    np.testing.assert_array_equal(got.null_sum, np.zeros(Y.shape[0]))
    assert (got.null_min == np.iinfo(np.int64).max).all()
