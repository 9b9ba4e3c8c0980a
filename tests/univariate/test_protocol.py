"""The vectorized leave-one-out protocol against a per-round sklearn loop."""

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB

from widefs.stats import expected_min_errors
from widefs.univariate import halves_masks, leave_one_out_threshold_curve, threshold_in_errors
from widefs.utils import spawn_seeds


def brute_force(X, y, rule, seed, errors_allowed=None):
    """Section 5.2 by hand: one GaussianNB per feature and round, then a final GaussianNB."""
    n, F = X.shape
    seeds = spawn_seeds(seed, n)
    correct, n_sel = [], []
    for r in range(n):
        avail = np.ones(n, bool)
        avail[r] = False
        tr, va = halves_masks(y, 2, seeds[r], available=avail)
        errs = np.array(
            [
                (GaussianNB().fit(X[tr][:, [j]], y[tr]).predict(X[va][:, [j]]) != y[va]).sum()
                for j in range(F)
            ]
        )
        if errors_allowed is None:
            _, sel = threshold_in_errors(rule, errs, int(va.sum()), 0.5)
        else:
            sel = errs <= errors_allowed
        n_sel.append(sel.sum())
        if sel.any():
            clf = GaussianNB(var_smoothing=1e-12).fit(X[avail][:, sel], y[avail])
            pred = clf.predict(X[[r]][:, sel])[0]
        else:
            pred = np.argmax(np.bincount(y[avail], minlength=2))  # prior only
        correct.append(pred == y[r])
    return np.array(correct), np.array(n_sel)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], [13, 12])
    X = rng.normal(size=(25, 60))
    X[:, :4] += 1.5 * y[:, None]
    return X, y


@pytest.mark.parametrize("rule", ["all", "max_chance", "mgm", "fdr"])
def test_named_thresholds_match_per_round_loop(problem, rule):
    X, y = problem
    curve = leave_one_out_threshold_curve(X, y, random_state=11, var_smoothing=1e-12)
    correct, n_sel = brute_force(X, y, rule, 11)
    out = curve.outcomes[rule]
    np.testing.assert_array_equal(out.n_selected, n_sel)
    np.testing.assert_array_equal(out.correct, correct)


def test_errors_allowed_curve_matches_loop(problem):
    X, y = problem
    curve = leave_one_out_threshold_curve(X, y, random_state=5, var_smoothing=1e-12)
    for e in [0, 3, 6, 12]:
        correct, _ = brute_force(X, y, None, 5, errors_allowed=e)
        assert curve.accuracy[e] == pytest.approx(correct.mean())
    assert curve.outcomes["oracle"].accuracy == curve.accuracy.max()
    assert curve.n_validation == 12  # 24 remaining examples -> 12 / 12
    assert curve.expected_min_errors == pytest.approx(expected_min_errors(60, 12))


def test_empty_selection_is_reported_not_hidden():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    X = rng.normal(size=(20, 3))
    curve = leave_one_out_threshold_curve(X, y, thresholds=["fdr"], random_state=0)
    out = curve.outcomes["fdr"]
    assert out.empty_rounds == 20
    # Pitfall (b) of FORMULAS.md: the prior-only classifier is always wrong under LOO.
    assert out.accuracy == 0.0
