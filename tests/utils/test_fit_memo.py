"""Fits that share label-dependent work (widefs._utils.sharing_fits) give the same results."""

import contextlib

import numpy as np
import pytest

import widefs._utils as utils
from widefs._utils import FitMemo, shared_fit, sharing_fits
from widefs.univariate import DiscriminativeSelector, _selector

FITTED = (
    "n_errors_",
    "constant_features_",
    "pvalues_",
    "scores_",
    "support_",
    "expected_errors_",
    "expected_min_errors_",
)


def _data(n=30, p=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.repeat([0, 1], n // 2)
    X[y == 1, :3] += 1.5
    return X, y


def _counting(monkeypatch):
    calls = []
    real = _selector.fit_error_counts

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_selector, "fit_error_counts", counted)
    return calls


def _assert_same_fit(a, b):
    for name in FITTED:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.threshold_ == b.threshold_


@pytest.mark.parametrize("null", ["analytic", "permutation"])
def test_mgm_and_max_chance_share_one_computation_and_fit_as_alone(monkeypatch, null):
    X, y = _data()
    kw = dict(statistic="errors", null=null, n_permutations=50, random_state=3)
    alone = {t: DiscriminativeSelector(t, **kw).fit(X, y) for t in ("mgm", "max_chance")}
    calls = _counting(monkeypatch)
    with sharing_fits() as memo:
        shared = {t: DiscriminativeSelector(t, **kw).fit(X, y) for t in ("mgm", "max_chance")}
    assert len(calls) == 1 and memo.hits == 1  # the second selector reused the first's work
    for t in alone:
        _assert_same_fit(alone[t], shared[t])
    if null == "permutation":
        np.testing.assert_array_equal(
            alone["mgm"].permutations_, shared["max_chance"].permutations_
        )


@pytest.mark.parametrize(
    "change",
    [
        {"random_state": 4},
        {"null": "permutation"},
        {"n_permutations": 51},
        {"var_smoothing": 1e-6},
        {"p_error": "uniform"},
        {"scorer": "stump"},
        {"threshold": "fdr"},  # more permutations by default: not the same computation
    ],
)
def test_a_setting_that_changes_the_computation_is_not_shared(monkeypatch, change):
    X, y = _data()
    base = dict(threshold="mgm", statistic="errors", null="analytic", random_state=3)
    calls = _counting(monkeypatch)
    with sharing_fits() as memo:
        DiscriminativeSelector(**base).fit(X, y)
        other = DiscriminativeSelector(**{**base, **change}).fit(X, y)
    assert len(calls) == 2 and memo.hits == 0
    _assert_same_fit(other, DiscriminativeSelector(**{**base, **change}).fit(X, y))


def test_other_data_or_labels_are_not_shared(monkeypatch):
    X, y = _data()
    X2 = X.copy()
    X2[0, 0] += 1e-12  # one value changed by a rounding error
    calls = _counting(monkeypatch)
    kw = dict(statistic="errors", null="analytic", random_state=0)
    with sharing_fits() as memo:
        DiscriminativeSelector("mgm", **kw).fit(X, y)
        DiscriminativeSelector("mgm", **kw).fit(X2, y)
        DiscriminativeSelector("mgm", **kw).fit(X, y[::-1])
    assert len(calls) == 3 and memo.hits == 0


def test_a_generator_is_left_as_the_computation_leaves_it():
    """A RandomState shared by two fits: after a hit, it has advanced as it would have."""
    X, y = _data()
    kw = dict(statistic="errors", null="permutation", n_permutations=20)

    def two_fits_and_a_draw(memo):
        rng = np.random.RandomState(7)
        with memo:
            a = DiscriminativeSelector("mgm", random_state=rng, **kw).fit(X, y)
            rng.seed(7)  # the same state: the same computation
            b = DiscriminativeSelector("max_chance", random_state=rng, **kw).fit(X, y)
        return a, b, rng.randint(10**9)

    plain = two_fits_and_a_draw(contextlib.nullcontext())
    shared = two_fits_and_a_draw(sharing_fits())
    assert plain[2] == shared[2]
    _assert_same_fit(plain[1], shared[1])


def test_memo_hands_a_value_over_once_and_drops_the_oldest_beyond_its_budget():
    memo = FitMemo(budget_bytes=200)
    memo.put(b"a", (np.zeros(10), None))  # 80 bytes
    assert memo.get(b"a") is not None and memo.get(b"a") is None  # handed over once
    memo.put(b"a", (np.zeros(10), None))
    memo.put(b"b", (np.zeros(10), None))
    memo.put(b"c", (np.zeros(10), None))  # 240 > 200: "a", the oldest, goes
    assert memo.get(b"a") is None
    assert memo.get(b"b") is not None and memo.get(b"c") is not None
    memo.put(b"big", (np.zeros(100), None))  # 800 bytes: never kept
    assert memo.get(b"big") is None and memo.hits == 3


def test_outside_a_block_nothing_is_kept_and_nested_blocks_share_the_outer():
    calls = []
    compute = lambda rng: calls.append(1) or 1  # noqa: E731
    shared_fit(lambda: b"k", compute, None)
    shared_fit(lambda: b"k", compute, None)
    assert len(calls) == 2
    with sharing_fits() as outer:
        with sharing_fits() as inner:
            assert inner is outer
            shared_fit(lambda: b"k", compute, None)
        shared_fit(lambda: b"k", compute, None)
    assert len(calls) == 3 and outer.hits == 1


def test_comparison_shares_the_selectors_work_and_keeps_its_numbers(monkeypatch):
    """MGM and E[X(1)] rows of the comparison: the same table with the memo as without."""
    from widefs.analysis._compare import compare
    from widefs.analysis._spec import candidates

    X, y = _data(n=24, p=30)
    cands = [c for c in candidates(("chance",)) if c.name.startswith(("MGM", "E[X(1)]"))]
    assert len(cands) == 2
    kw = dict(seed=0, folds=3, repeats=1, certificates={})
    calls = _counting(monkeypatch)
    shared, _, _ = compare(X, y, cands, **kw)
    assert len(calls) == 3  # one per fold, for both methods
    monkeypatch.setattr(utils, "sharing_fits", lambda: contextlib.nullcontext())
    alone, _, _ = compare(X, y, cands, **kw)
    assert len(calls) == 3 + 6
    assert shared.equals(alone)
