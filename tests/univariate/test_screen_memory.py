"""The screen's steps after the first pass, a block of features at a time: same results.

The selection rules read by blocks equal :func:`widefs.stats.tarone_testable` and
:func:`widefs.stats.benjamini_hochberg` on the eligible features; a screen whose per-feature
steps run in blocks of a few features equals the default fit bit for bit.
"""

import numpy as np
import pytest

import widefs.univariate._screen as screen_module
import widefs.univariate._screen_moderated as moderated_module
import widefs.univariate._screen_select as select_module
from widefs.stats import benjamini_hochberg, tarone_testable
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._screen_select import bh_cut, tarone

from .screen_attrs import FITTED

pytestmark = pytest.mark.filterwarnings("ignore")


def _reference(kinds, min_p, pvalues, alpha):
    """The screen's rule as written with the stats functions (sorts of every p-value)."""
    eligible = kinds != 0
    floors = np.where(kinds == 1, min_p, 0.0)
    t_mask, K = tarone_testable(floors[eligible], alpha)
    testable = np.zeros(kinds.size, bool)
    testable[np.flatnonzero(eligible)[t_mask]] = True
    bh = np.zeros(kinds.size, bool)
    if testable.any():
        bh[testable] = benjamini_hochberg(pvalues[testable]) <= alpha
    return testable, K, bh


def _case(rng, m):
    kinds = rng.choice(np.array([0, 1, 2, 3], np.int8), m, p=[0.05, 0.45, 0.4, 0.1])
    # Two-valued floors depend on the number of carriers: few distinct values.
    floor_values = np.r_[0.5, 0.1, 0.02, 1e-3, 4e-5, 1e-6, 3e-8]
    min_p = np.where(kinds == 1, rng.choice(floor_values, m), 0.0)
    min_p[kinds == 0] = 1.0
    pvalues = np.maximum(rng.uniform(size=m) ** rng.choice([1.0, 4.0, 40.0], m), min_p)
    pvalues[rng.random(m) < 0.2] = rng.choice([1e-9, 1e-6, 2e-4, 0.01], 1)  # ties
    pvalues[kinds == 0] = 1.0
    return kinds, min_p, pvalues


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.3])
def test_block_rules_equal_tarone_and_benjamini_hochberg(seed, alpha, monkeypatch):
    monkeypatch.setattr(select_module, "_BLOCK_BYTES", 16 * 37)  # 37 features a block
    rng = np.random.default_rng(seed)
    kinds, min_p, pvalues = _case(rng, int(rng.integers(1, 3000)))
    testable, K, bh = _reference(kinds, min_p, pvalues, alpha)
    got, got_K = tarone(kinds, min_p, alpha)
    np.testing.assert_array_equal(got, testable)
    assert got_K == K
    np.testing.assert_array_equal(testable & (pvalues <= bh_cut(pvalues, testable, alpha)), bh)


def test_block_rules_at_their_boundaries():
    # p_(j) m / j == alpha exactly: rejected (<=), and so is every smaller p-value.
    p = np.array([0.01, 0.02, 0.03, 0.04, 0.9])
    kinds = np.full(5, 2, np.int8)
    testable, K = tarone(kinds, np.zeros(5), 0.05)
    assert testable.all() and K == 5 == tarone_testable(np.zeros(5), 0.05)[1]
    cut = bh_cut(p, testable, 0.05)
    assert cut == 0.04 and (benjamini_hochberg(p) <= 0.05).sum() == 4
    # Nothing eligible, nothing testable, no p-value passing.
    assert tarone(np.zeros(3, np.int8), np.ones(3), 0.05)[1] == 0
    assert bh_cut(p, np.zeros(5, bool), 0.05) == -1.0
    assert bh_cut(np.full(5, 0.5), np.ones(5, bool), 0.05) == -1.0
    # Only two-valued features whose floors never reach alpha / K: none testable.
    testable, K = tarone(np.ones(4, np.int8), np.full(4, 0.2), 0.05)
    assert not testable.any() and K == 1 == tarone_testable(np.full(4, 0.2), 0.05)[1]


def _mixed(seed=4):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], [14, 15, 13])
    n = y.size
    X = np.column_stack(
        [
            rng.normal(size=(n, 700)),
            rng.lognormal(size=(n, 90)),
            rng.poisson(0.7, size=(n, 60)).astype(float),
            (rng.random((n, 80)) < 0.3).astype(float),
            np.full((n, 3), 2.0),
        ]
    )
    X[:, :15] += 1.4 * (y[:, None] == 1)
    X[:, 700:705] *= np.where(y == 2, 4.0, 1.0)[:, None]
    X[:, 850:860] = rng.random((n, 10)) < np.where(y == 0, 0.9, 0.1)[:, None]
    return X[:, rng.permutation(X.shape[1])], y


ATTRS = (*FITTED, "scores_")


@pytest.mark.parametrize("params", [{}, {"threshold": "bonferroni"}, {"spread_weight": 0.2}])
def test_feature_blocks_give_the_same_fit(params, monkeypatch):
    X, y = _mixed()
    ref = ClassDifferenceScreen(random_state=0, **params).fit(X, y)
    assert ref.support_.any() and ref.kind_counts_["two_valued"] > 0
    monkeypatch.setattr(screen_module, "_BLOCK_BYTES", 8 * 7 * 128)  # a few features a block
    # The moderated branch writes its results over the fits' rows, from the last block back:
    # small blocks, whose places overlap the fit rows of the blocks after them.
    monkeypatch.setattr(moderated_module, "_BLOCK_BYTES", 128 * 13)
    monkeypatch.setattr(select_module, "_BLOCK_BYTES", 16 * 11)
    small = ClassDifferenceScreen(random_state=0, **params).fit(X, y)
    for name in ATTRS:
        np.testing.assert_array_equal(getattr(small, name), getattr(ref, name), err_msg=name)
    assert small.prior_ == ref.prior_ and small.threshold_ == ref.threshold_
    assert small.search_score_ == ref.search_score_ == ref.scores_[ref.kinds_ != 0].max()


def test_scores_are_computed_from_the_pvalues():
    X, y = _mixed(5)
    screen = ClassDifferenceScreen(random_state=0).fit(X, y)
    assert "scores_" not in vars(screen)  # not stored: one array per feature fewer
    np.testing.assert_array_equal(screen.scores_, -np.log10(np.maximum(screen.pvalues_, 1e-300)))
    assert not hasattr(ClassDifferenceScreen(), "scores_")


@pytest.mark.parametrize("prior", [(1.0, np.inf), (0.8, 6.0), None])
def test_moderated_f_of_some_rows_equals_the_full_fit_with_the_pooled_df(prior):
    from widefs.stats import linear_model_fit, moderated_f
    from widefs.univariate._kinds import fit_rows

    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], [4, 5, 6])
    design = np.column_stack([np.ones(15), y == 1, y == 2]).astype(float)
    X = rng.normal(size=(15, 300))
    X[:, :5] += 2.0 * (y == 2)[:, None]
    full = linear_model_fit(X, design)
    rows = rng.random(300) < 0.3
    prior = prior if prior is not None else (float(np.median(full.variances)), 5.0)
    ref = moderated_f(full, [1, 2], prior=prior)
    part = fit_rows(full, rows)
    got = moderated_f(part, [1, 2], prior=prior, pooled_df=float(full.df_residual.sum()))
    np.testing.assert_array_equal(got.pvalues, ref.pvalues[rows])
    np.testing.assert_array_equal(got.statistics, ref.statistics[rows])
    np.testing.assert_array_equal(got.df_total, ref.df_total[rows])
    # An infinite prior df: the total is the cap, and without pooled_df the cap is the part's.
    if np.isinf(prior[1]):
        assert got.df_total[0] == 12 * 300
        alone = moderated_f(part, [1, 2], prior=prior)
        assert alone.df_total[0] == 12 * rows.sum() and alone.df_total[0] < got.df_total[0]


def test_the_moderated_branch_allocates_no_array_per_feature(monkeypatch):
    # Its results go into the first pass's arrays: beyond its blocks, the branch adds the
    # one-byte codes and mask (3 bytes a feature), not 24 bytes of results beside the fits
    # nor the prior's temporaries (another 24).
    import tracemalloc

    import widefs._utils._streaming as streaming
    import widefs.stats._moderated as stats_moderated

    monkeypatch.setattr(moderated_module, "_BLOCK_BYTES", 2**16)
    monkeypatch.setattr(stats_moderated, "_BLOCK", 4096)
    monkeypatch.setattr(streaming, "_GATHER", 4096)
    rng = np.random.default_rng(0)
    m = 200_000
    X = rng.standard_normal((30, m))
    y = np.repeat([0, 1], 15)
    grown = []
    branch = moderated_module.moderated_branch

    def measured(screen, passed, spill=None):
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        branch(screen, passed, spill)
        grown.append((tracemalloc.get_traced_memory()[1] - before) / m)
        tracemalloc.stop()
        # The results took the places of the location and spread variances and the pooled.
        assert np.shares_memory(screen.pvalues_, buffers[2])
        assert np.shares_memory(screen.location_statistics_, buffers[0])
        assert np.shares_memory(screen.spread_statistics_, buffers[1])

    first_pass = screen_module.first_pass
    buffers = []

    def kept(*args, **kwargs):
        passed = first_pass(*args, **kwargs)
        buffers.extend(passed.buffers)
        return passed

    monkeypatch.setattr(screen_module, "first_pass", kept)
    monkeypatch.setattr(screen_module, "moderated_branch", measured)
    screen = ClassDifferenceScreen(random_state=0).fit(X, y)
    assert screen.kind_counts_["gaussian"] > 0.9 * m and screen.spread_weight_ > 0
    # 2 MB at most of fixed temporaries (the median's counts of 16-bit digits).
    assert grown[0] < 5.0 + 2**21 / m, grown


@pytest.mark.parametrize("params", [{}, {"spread_weight": 0.2}, {"spread_weight": 0.0}])
def test_a_first_pass_without_its_arrays_gives_the_same_fit(params, monkeypatch):
    # The moderated branch makes its own results arrays when the first pass hands none over.
    X, y = _mixed(3)
    ref = ClassDifferenceScreen(random_state=0, **params).fit(X, y)
    first_pass = screen_module.first_pass

    def bare(*args, **kwargs):
        passed = first_pass(*args, **kwargs)
        passed.buffers = ()
        return passed

    monkeypatch.setattr(screen_module, "first_pass", bare)
    got = ClassDifferenceScreen(random_state=0, **params).fit(X, y)
    for name in ATTRS:
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name), err_msg=name)
    assert got.prior_ == ref.prior_
