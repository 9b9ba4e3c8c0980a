"""The screen's block-wise selection rules against loops written from their definitions.

Tarone: K* is the smallest K in 1..m whose reach (the eligible features whose floor is at
most alpha / K; floors 0 except for the two-valued kind) is at most K. Benjamini-Hochberg:
the cut is the largest sorted p-value with ``p_(j) m / j <= alpha`` among the testable ones.
Both are run with one block and with blocks of a few features (the block budget patched).
"""

import numpy as np
import pytest

from widefs.univariate import _screen_select
from widefs.univariate._screen_select import bh_cut, tarone

TWO = 1  # the two-valued kind code


def _tarone_loop(kinds, min_pvalues, alpha):
    eligible = [j for j in range(kinds.size) if kinds[j] != 0]
    m = len(eligible)
    if m == 0:
        return np.zeros(kinds.size, bool), 0

    def floor(j):
        return float(min_pvalues[j]) if kinds[j] == TWO else 0.0

    for K in range(1, m + 1):
        if sum(1 for j in eligible if floor(j) <= alpha / K) <= K:
            break
    testable = np.zeros(kinds.size, bool)
    for j in eligible:
        testable[j] = floor(j) <= alpha / K
    return testable, K


def _bh_loop(pvalues, testable, alpha):
    ordered = sorted(float(p) for p, t in zip(pvalues, testable) if t)
    m = len(ordered)
    cut = -1.0
    for j in range(1, m + 1):
        if ordered[j - 1] * m / j <= alpha:
            cut = ordered[j - 1]
    return cut


@pytest.fixture(params=[None, 16 * 3], ids=["one_block", "blocks_of_3"])
def blocks(request, monkeypatch):
    if request.param is not None:
        monkeypatch.setattr(_screen_select, "_BLOCK_BYTES", request.param)


def _kinds_and_floors(seed, n, alpha):
    rng = np.random.default_rng(seed)
    kinds = rng.choice(np.array([0, 1, 2, 3], np.int8), size=n, p=[0.15, 0.5, 0.2, 0.15])
    # Floors from a few values (ties), some exactly at alpha / K for small K.
    levels = np.array([alpha / 1, alpha / 2, alpha / 3, alpha / 7, 1e-4, 0.2, 0.5, 1.0])
    floors = rng.choice(levels, size=n)
    # The other kinds' min_pvalues are never read as floors: make them large.
    floors[kinds != TWO] = 1.0
    return kinds, floors


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("alpha", [0.05, 0.3])
def test_tarone_equals_the_loop(blocks, seed, alpha):
    kinds, floors = _kinds_and_floors(seed, 5 + 4 * seed, alpha)
    testable, K = tarone(kinds, floors, alpha)
    expected, K_loop = _tarone_loop(kinds, floors, alpha)
    assert K_loop == K
    np.testing.assert_array_equal(testable, expected)


def test_tarone_boundaries(blocks):
    alpha = 0.05
    # No feature eligible.
    testable, K = tarone(np.zeros(7, np.int8), np.full(7, 1e-9), alpha)
    assert K == 0 and not testable.any()
    # No two-valued feature: every floor is 0, so K = m and every eligible one is testable.
    kinds = np.array([2, 0, 3, 2, 0, 3, 2], np.int8)
    testable, K = tarone(kinds, np.ones(7), alpha)
    assert K == 5
    np.testing.assert_array_equal(testable, kinds != 0)
    # Only two-valued features, floors exactly at alpha / K for the smallest K that fits:
    # 3 features at alpha / 3 reach 3 <= 3 at K = 3 and stay testable (<=, not <).
    kinds = np.array([1, 1, 1, 1, 1, 1], np.int8)
    floors = np.array([alpha / 3] * 3 + [0.5] * 3)
    testable, K = tarone(kinds, floors, alpha)
    assert K == 3
    np.testing.assert_array_equal(testable, [True] * 3 + [False] * 3)
    # One feature: K = 1, testable when its floor is at most alpha.
    for floor, keep in ((alpha, True), (np.nextafter(alpha, 1), False)):
        testable, K = tarone(np.array([1], np.int8), np.array([floor]), alpha)
        assert K == 1 and testable[0] == keep
    # A two-valued feature with a zero floor counts like a continuous one.
    testable, K = tarone(np.array([1, 1, 1], np.int8), np.array([0.0, 0.9, 0.9]), alpha)
    assert K == 1
    np.testing.assert_array_equal(testable, [True, False, False])


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.25])
def test_bh_cut_equals_the_loop(blocks, seed, alpha):
    rng = np.random.default_rng(100 + seed)
    n = 3 + 5 * seed
    # Signals, ties and p-values at alpha's scale; non-testable ones small on purpose.
    p = np.concatenate([rng.uniform(0, alpha / 4, n // 3), rng.uniform(0, 1, n - n // 3)])
    p[rng.random(n) < 0.2] = p[0]
    p = rng.permutation(p)
    testable = rng.random(n) < 0.8
    p[~testable] = np.minimum(p[~testable], 1e-6)
    assert bh_cut(p, testable, alpha) == _bh_loop(p, testable, alpha)


def test_bh_cut_boundaries(blocks):
    alpha = 0.05
    # Nothing testable; nothing passing.
    assert bh_cut(np.full(6, 1e-9), np.zeros(6, bool), alpha) == -1.0
    assert bh_cut(np.array([0.5, 0.9]), np.ones(2, bool), alpha) == -1.0
    # Every p-value exactly alpha: p m / m = alpha passes, so the cut is alpha.
    assert bh_cut(np.full(5, alpha), np.ones(5, bool), alpha) == alpha
    # One p-value just above alpha / m at j = 1, the second at 2 alpha / m exactly: the cut
    # is the second (the step-up keeps the largest passing position).
    p = np.array([0.9, 2 * alpha / 4, alpha / 4 + 1e-6, 0.7])
    assert bh_cut(p, np.ones(4, bool), alpha) == 2 * alpha / 4
    # A small non-testable p-value neither counts in m nor becomes the cut.
    p = np.array([1e-8, 0.03, 0.04, 0.9])
    t = np.array([False, True, True, True])
    assert bh_cut(p, t, alpha) == _bh_loop(p, t, alpha) == -1.0
    assert bh_cut(p, np.ones(4, bool), alpha) == 1e-8
    # Size 1.
    assert bh_cut(np.array([alpha]), np.ones(1, bool), alpha) == alpha
    assert bh_cut(np.array([np.nextafter(alpha, 1)]), np.ones(1, bool), alpha) == -1.0


def test_the_rules_read_blocks_of_the_budget_not_one_feature_at_a_time(monkeypatch):
    # The point of the module: bounded temporaries (blocks of at most budget / 16 features)
    # without a Python loop per feature (as few blocks as the budget allows).
    from widefs._utils import feature_blocks

    widths = []

    def spy(*args, **kwargs):
        for block in feature_blocks(*args, **kwargs):
            widths.append(block.stop - block.start)
            yield block

    budget = 16 * 50
    monkeypatch.setattr(_screen_select, "_BLOCK_BYTES", budget)
    monkeypatch.setattr(_screen_select, "feature_blocks", spy)
    n = 1000
    kinds, floors = _kinds_and_floors(0, n, 0.05)
    p = np.random.default_rng(0).uniform(size=n)
    # Tarone reads the features twice (counts, then the testable set), BH once.
    runs = ((lambda: tarone(kinds, floors, 0.05), 2), (lambda: bh_cut(p, kinds != 0, 0.05), 1))
    for run, passes in runs:
        widths.clear()
        run()
        assert max(widths) <= budget // 16
        assert len(widths) <= passes * -(-n // (budget // 16))


def test_coded_values_are_float64_before_and_after_any_set():
    coded = _screen_select.CodedValues(3, table=(0, 1))  # an integer table is read as floats
    assert coded.table.dtype == np.float64 and coded[0].dtype == np.float64
    coded.set(np.array([2]), [0.25])
    np.testing.assert_array_equal(coded.toarray(), [0.0, 0.0, 0.25])
    assert coded.toarray().dtype == np.float64


@pytest.mark.parametrize("n_values", [255, 256, 257])
def test_coded_values_widen_their_codes_exactly_when_the_table_outgrows_them(n_values):
    # Codes 0..255 fit one byte: a table of 256 values keeps uint8; 257 needs two bytes.
    values = np.arange(1, n_values, dtype=np.float64) / 7.0  # with table[0] = 0: n_values
    coded = _screen_select.CodedValues(n_values)
    coded.set(np.arange(1, n_values), values)
    assert coded.table.size == n_values
    assert coded.codes.itemsize == (1 if n_values <= 256 else 2)
    np.testing.assert_array_equal(coded.toarray(), np.r_[0.0, values])
    np.testing.assert_array_equal(coded[np.arange(n_values)], np.r_[0.0, values])


def _bh_sorted(pvalues, testable, alpha):
    """The cut from a sort of every testable p-value and every position at once."""
    p = np.sort(pvalues[testable])
    if p.size == 0:
        return -1.0
    passing = np.flatnonzero(p * p.size / np.arange(1, p.size + 1) <= alpha)
    return float(p[passing[-1]]) if passing.size else -1.0


def _bh_case(case, rng):
    alpha, n = 0.05, 60
    if case == "ties":
        p = rng.choice([0.0005, 0.001, 0.01, 0.02, 0.04, 0.3, 1.0], size=n)
    elif case == "all_equal_passing":
        p = np.full(n, alpha)  # p m / m = alpha at the last position
    elif case == "all_equal_failing":
        p = np.full(n, np.nextafter(alpha, 1.0))
    elif case == "none":
        p = rng.uniform(0.06, 1.0, n)
    else:  # every p-value selected
        p = rng.uniform(0.0, alpha / n, n)
    testable = rng.random(n) < 0.9
    return p, testable, alpha


@pytest.mark.parametrize("case", ["ties", "all_equal_passing", "all_equal_failing", "none", "all"])
@pytest.mark.parametrize("positions", [7, 2**20])
def test_bh_cut_equals_the_sorted_cut(case, positions, monkeypatch):
    # Positions scanned from the last, ``positions`` at a time (and the blocks of features).
    monkeypatch.setattr(_screen_select, "_BLOCK_BYTES", 16 * positions)
    from widefs.stats import benjamini_hochberg

    for seed in range(5):
        p, testable, alpha = _bh_case(case, np.random.default_rng(seed))
        cut = bh_cut(p, testable, alpha)
        assert cut == _bh_sorted(p, testable, alpha)
        rejected = np.zeros(p.size, bool)
        rejected[testable] = benjamini_hochberg(p[testable]) <= alpha
        np.testing.assert_array_equal(testable & (p <= cut), rejected)
        expected = {"none": 0, "all_equal_failing": 0, "all": testable.sum()}
        if case in expected:
            assert (testable & (p <= cut)).sum() == expected[case]
        if case == "all_equal_passing":
            assert cut == alpha


def _fit(X, y, threshold):
    import warnings

    from widefs.univariate import ClassDifferenceScreen

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ClassDifferenceScreen(threshold, random_state=0).fit(X, y)


def test_a_fits_summaries_and_rules_equal_their_definitions():
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 8)
    X = np.column_stack(
        [rng.normal(size=(16, 30)), np.full((16, 4), 3.0), (rng.random((16, 6)) < 0.4)]
    ).astype(float)
    X[:, :3] += 3.0 * y[:, None]
    for threshold in (3, "fdr", "bonferroni"):
        s = _fit(X, y, threshold)
        k = s.kinds_
        assert s.constant_features_.tolist() == (k == 0).tolist() and (k == 0).sum() == 4
        assert s.n_scored_ == int((k != 0).sum())
        assert s.kind_counts_ == {n: int((k == i).sum()) for i, n in enumerate(s.kind_names_)}
        assert s.threshold_ == float(s.pvalues_[s.support_].max()) > 0.0
    testable, cut, support = _screen_select.select(
        s, 3, 0.05
    )  # the k smallest p-values on this fit
    np.testing.assert_array_equal(testable, k != 0)  # every non-constant feature counts
    order = np.argsort(np.where(k != 0, s.pvalues_, np.inf), kind="stable")
    assert support.sum() == 3 and set(np.flatnonzero(support)) == set(order[:3])
    assert cut == float(s.pvalues_[support].max())


@pytest.mark.parametrize("threshold", [2, "fdr", "bonferroni"])
def test_a_fit_of_constant_features_only_selects_nothing_with_threshold_zero(threshold):
    X = np.tile(np.arange(5.0), (12, 1))
    s = _fit(X, np.repeat([0, 1], 6), threshold)
    assert s.kind_counts_["constant"] == 5 and s.n_scored_ == 0
    assert not s.support_.any() and not s.testable_.any()
    assert s.threshold_ == 0.0 and s.select_under(threshold)[0] == 0.0
