"""ClassDifferenceScreen.select_under: another rule on a fitted screen equals a fresh fit."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from widefs.exceptions import NothingSelectedWarning
from widefs.univariate import ClassDifferenceScreen

pytestmark = pytest.mark.filterwarnings("ignore", category=NothingSelectedWarning)


def _gaussian():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    X = rng.normal(size=(20, 400))
    X[:, :25] += np.linspace(0.8, 2.5, 25) * y[:, None]
    return X, y


def _mixed_kinds():
    # Gaussian, ranked (heavy ties) and rare two-valued features: Tarone counts some out.
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], [5, 9, 14])
    gauss = rng.normal(size=(28, 150))
    gauss[:, :12] += 1.8 * (y == 2)[:, None]
    ranked = rng.poisson(0.7, size=(28, 60)).astype(float) + 2.0 * (y == 1)[:, None] * (
        np.arange(60) < 6
    )
    rare = np.zeros((28, 80))
    for j in range(80):
        rare[rng.choice(28, 1 + j % 3, replace=False), j] = 1.0
    return np.hstack([gauss, ranked, rare]), y


def _ties_at_the_cut():
    # Every feature repeated: each p-value comes in blocks of equal values, so whatever
    # the cut, equal p-values sit on both sides of it unless the rule keeps ties together.
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 8)
    base = rng.normal(size=(16, 40))
    base[:, :8] += np.linspace(1.0, 2.2, 8) * y[:, None]
    return np.repeat(base, 5, axis=1), y


def _null():
    rng = np.random.default_rng(3)
    return rng.normal(size=(12, 300)), np.repeat([0, 1], 6)


DATA = {"gaussian": _gaussian, "mixed": _mixed_kinds, "ties": _ties_at_the_cut, "null": _null}


def _fresh(X, y, threshold, alpha):
    return ClassDifferenceScreen(threshold, alpha=alpha, random_state=0).fit(X, y)


@pytest.mark.parametrize("name", sorted(DATA))
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
def test_select_under_equals_a_fresh_fit_of_that_rule(name, alpha):
    X, y = DATA[name]()
    fitted = _fresh(X, y, "fdr", 0.05)
    for rule in ("fdr", "bonferroni", 1, 7):
        cut, support = fitted.select_under(rule, alpha=alpha)
        fresh = _fresh(X, y, rule, alpha)
        np.testing.assert_array_equal(fresh.pvalues_, fitted.pvalues_)
        np.testing.assert_array_equal(support, fresh.get_support())
        assert cut == fresh.threshold_


@pytest.mark.parametrize("name", sorted(DATA))
def test_select_under_matches_brute_force_rules(name):
    # Independent computation: Bonferroni at alpha / K and the Benjamini-Hochberg step-up
    # written out over ranks, both on Tarone's testable set.
    X, y = DATA[name]()
    fitted = _fresh(X, y, "bonferroni", 0.05)
    p, testable = fitted.pvalues_, fitted.testable_
    K = int(testable.sum())
    _, bonf = fitted.select_under("bonferroni")
    np.testing.assert_array_equal(bonf, testable & (p <= 0.05 / K))
    _, fdr = fitted.select_under("fdr")
    ordered = np.sort(p[testable])
    passing = [k for k in range(1, K + 1) if ordered[k - 1] <= k * 0.05 / K]
    expected = testable & (p <= ordered[max(passing) - 1]) if passing else np.zeros_like(fdr)
    np.testing.assert_array_equal(fdr, expected)
    if name == "ties":
        # The cut keeps or drops each block of equal p-values whole.
        blocks = fdr.reshape(40, 5)
        assert (blocks.all(axis=1) | ~blocks.any(axis=1)).all()
        assert fdr.any() and not fdr.all()


def test_select_under_leaves_the_fit_alone_and_checks_its_arguments():
    X, y = _gaussian()
    fitted = _fresh(X, y, "fdr", 0.05)
    support, cut = fitted.get_support().copy(), fitted.threshold_
    fitted.select_under("bonferroni", alpha=0.001)
    np.testing.assert_array_equal(fitted.get_support(), support)
    assert fitted.threshold_ == cut
    for bad in ("mgm", 0, True, 2.5):
        with pytest.raises(ValueError, match="threshold must be"):
            fitted.select_under(bad)
    for bad in (0, 1, -0.1, "0.05"):
        with pytest.raises(ValueError, match="alpha must be"):
            fitted.select_under("fdr", alpha=bad)
    with pytest.raises(NotFittedError):
        ClassDifferenceScreen().select_under("fdr")
