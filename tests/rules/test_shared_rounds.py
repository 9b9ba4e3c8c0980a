"""Beam rounds shared between CN2 refits that differ in their stopping rule: same results.

Inside a sharing block, refits on prepared tables store each round run without the
significance test and take it back in a later search with the test when its best candidate
passes. The oracle is the same work without sharing (and the plain refit loop).
"""

from __future__ import annotations

import numpy as np
import pytest

from widefs._utils import sharing_label_free_work
from widefs.rules import CN2Classifier
from widefs.rules import _beam as beam
from widefs.rules._refits import _plain_predictions


def _problem(seed, n=30, F=40):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F)).round(1)  # rounded: ties
    y = np.repeat([0, 1], n // 2)
    X[:, :3] += 1.2 * y[:, None]
    Y = np.array([y] + [rng.permutation(y) for _ in range(5)])
    folds = np.array([rng.permutation(np.arange(n) % 4) for _ in Y])
    return X, Y, folds


def _both(X, Y, folds, params=None, alpha="auto"):
    """Out-of-fold predictions of CN2-POE, then of CN2 with the test at ``alpha``, in one
    sharing block (and the cache's hits), and without sharing."""
    params = params or {}
    poe = CN2Classifier(stopping="poe", **params)
    sig = CN2Classifier(alpha=alpha, **params)
    with sharing_label_free_work() as cache:
        shared = [est.out_of_fold_predictions(X, Y, folds) for est in (poe, sig)]
        hits = cache.hits
    plain = [est.out_of_fold_predictions(X, Y, folds) for est in (poe, sig)]
    return shared, plain, hits


@pytest.mark.parametrize(
    "params", [{}, {"beam_width": 2, "min_covered": 2}, {"quality": "m_estimate", "m": 3.0}]
)
def test_shared_rounds_give_the_unshared_predictions(params):
    X, Y, folds = _problem(0)
    shared, plain, hits = _both(X, Y, folds, params)
    assert hits > 0  # the significance searches did take POE's rounds
    for s, p in zip(shared, plain, strict=True):
        np.testing.assert_array_equal(s, p)
    # and the unshared path is the refit loop
    est = CN2Classifier(**params)
    np.testing.assert_array_equal(plain[1], _plain_predictions(est, X, Y, folds))


ALPHA = 1e-4  # a strict test: POE's best often fails it


def test_a_stored_best_that_fails_the_test_is_searched_again(monkeypatch):
    # Every stored best declared not significant: each round with the test runs itself.
    X, Y, folds = _problem(1)
    monkeypatch.setattr(beam, "best_is_significant", lambda *args: False)
    shared, plain, _ = _both(X, Y, folds, alpha=ALPHA)
    np.testing.assert_array_equal(shared[1], plain[1])


def test_accepting_any_stored_best_would_change_the_rules(monkeypatch):
    # The check has teeth: taking POE's best where the test rejects it changes predictions
    # on this problem (so the equality above is not vacuous).
    X, Y, folds = _problem(1)
    monkeypatch.setattr(beam, "best_is_significant", lambda *args: True)
    shared, plain, _ = _both(X, Y, folds, alpha=ALPHA)
    assert not np.array_equal(shared[1], plain[1])


def test_best_is_significant_is_the_likelihood_ratio_test():
    from scipy import stats

    counts = np.array([9, 1], dtype=np.int64)
    base_p = np.array([0.5, 0.5])
    expected = 10 * base_p  # cover 10
    g = 2 * np.sum(counts * np.log(counts / expected))
    assert g == pytest.approx(stats.power_divergence(counts, expected, lambda_=0)[0])
    assert beam.best_is_significant(counts, base_p, g - 1e-9)
    assert not beam.best_is_significant(counts, base_p, g + 1e-9)
    # an empty class adds nothing
    assert beam.best_is_significant(np.array([10, 0], dtype=np.int64), base_p, 13.8)


def test_plain_fits_in_a_sharing_block_share_rounds_and_keep_their_rules():
    X, Y, _ = _problem(2)
    y = Y[0]
    with sharing_label_free_work() as cache:
        shared = [CN2Classifier(stopping="poe").fit(X, y), CN2Classifier().fit(X, y)]
        assert cache.hits > 0
    plain = [CN2Classifier(stopping="poe").fit(X, y), CN2Classifier().fit(X, y)]
    for s, p in zip(shared, plain, strict=True):
        assert s.format_rules() == p.format_rules()
        assert s.search_score_ == p.search_score_
    # outside a block nothing is keyed, so nothing is stored
    assert plain[0]._rounds_key is None
