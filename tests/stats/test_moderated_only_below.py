"""moderated_f's ``only_below``: p-values that cannot be below a caller's level are skipped.

The skip rests on a bound: the F(1, d) upper tail is at least the normal tail
``erfc(sqrt(F / 2))`` for every d. Checked here on a grid against scipy's survival
function, then the p-values with and without the option: equal wherever computed, and
the skipped ones provably at least the level (so a caller's minimum is unchanged).
"""

import numpy as np
import pytest
import scipy
from packaging.version import Version
from scipy import special

import widefs.univariate._screen_moderated as moderated_module
from widefs.stats import linear_model_fit, moderated_f
from widefs.univariate import ClassDifferenceScreen

DFS = [1, 2, 3, 5, 10, 48, 98, 1e3, 1e5, 1e7, 2e8, 1e10]


@pytest.mark.parametrize("d", DFS)
def test_the_f_tail_exceeds_the_normal_tail(d):
    F = np.concatenate([[0.0], np.logspace(-12, 4.2, 4000), np.linspace(0.0, 60.0, 4001)])
    q = special.fdtrc(1.0, d, F)
    bound = special.erfc(np.sqrt(F / 2))
    # The exact tail is at least the bound; scipy 1.12's fdtrc falls up to 4e-4 below it at
    # d >= 1e5 (measured), inside the 1e-3 margin moderated_f gives the bound.
    old_scipy = Version(scipy.__version__) < Version("1.15")
    assert np.all(q >= bound * (1 - (5e-4 if old_scipy else 1e-12)))
    # Not vacuous: close for large d, far for small d in the tail.
    assert q[F == 9.0][0] / bound[F == 9.0][0] < (1.01 if d >= 1e5 else np.inf)
    assert d >= 1e3 or q[F == 9.0][0] > 1.2 * bound[F == 9.0][0]


def _fit(seed, n_classes=2, m=3000):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), 8)
    design = np.column_stack([np.ones(y.size)] + [y == c for c in range(1, n_classes)])
    X = rng.normal(size=(y.size, m)) * rng.uniform(0.5, 2.0, m)
    X[:, :40] += 2.5 * (y == 1)[:, None]
    X[:, 40:45] = 1.0  # constant: F = 0, p = 1
    return linear_model_fit(X, design.astype(float))


@pytest.mark.parametrize("seed", range(3))
def test_skipped_pvalues_are_at_least_the_level_and_the_rest_exact(seed):
    fit = _fit(seed)
    rng = np.random.default_rng(seed)
    full = moderated_f(fit, [1])
    level = rng.uniform(size=full.pvalues.size) ** 3
    level[:10] = 0.0  # nothing below 0: every p-value skipped unless the bound is tiny
    level[10:20] = 1.0
    got = moderated_f(fit, [1], only_below=level)
    skipped = np.isinf(got.pvalues)
    assert 0.2 < skipped.mean() < 0.999
    np.testing.assert_array_equal(got.pvalues[~skipped], full.pvalues[~skipped])
    assert np.all(full.pvalues[skipped] >= level[skipped])
    # Every p-value below its level is computed, and a caller's minimum is unchanged.
    assert not skipped[full.pvalues < level].any()
    np.testing.assert_array_equal(np.minimum(level, got.pvalues), np.minimum(level, full.pvalues))
    np.testing.assert_array_equal(got.statistics, full.statistics)
    np.testing.assert_array_equal(got.df_total, full.df_total)


def test_several_coefficients_compute_every_pvalue():
    fit = _fit(0, n_classes=3)
    full = moderated_f(fit, [1, 2])
    got = moderated_f(fit, [1, 2], only_below=np.zeros(full.pvalues.size))
    np.testing.assert_array_equal(got.pvalues, full.pvalues)


def test_tiny_bounds_are_computed():
    # A bound below 1e-280 never skips: the survival function's own value is used there.
    fit = _fit(1)
    full = moderated_f(fit, [1])
    got = moderated_f(fit, [1], only_below=np.full(full.pvalues.size, 1e-300))
    tiny = special.erfc(np.sqrt(np.maximum(full.statistics, 0) / 2)) < 1e-280
    assert not np.isinf(got.pvalues[tiny]).any()


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("weight", ["auto", 0.3])
def test_the_screen_equals_the_screen_that_computes_every_spread_pvalue(weight, monkeypatch):
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 4000)) * rng.uniform(0.3, 3.0, 4000)
    X[:, :30] += 1.5 * y[:, None]
    X[:, 30:60] *= np.where(y == 1, 3.0, 1.0)[:, None]
    ref_calls, got = [], ClassDifferenceScreen(spread_weight=weight, random_state=0).fit(X, y)

    def every(*args, only_below=None, **kwargs):
        ref_calls.append(only_below is not None)
        return moderated_f(*args, **kwargs)

    monkeypatch.setattr(moderated_module, "moderated_f", every)
    ref = ClassDifferenceScreen(spread_weight=weight, random_state=0).fit(X, y)
    assert any(ref_calls)  # the spread test asked for the skip
    for name in ("pvalues_", "location_statistics_", "spread_statistics_", "support_"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name), err_msg=name)
    assert got.support_[30:60].any() and got.support_[:30].any()
