"""Boundaries of the errors statistic's helpers, each value written from its definition.

The permutation count of ``n_permutations="auto"``, the imbalance rule that picks the null,
and the permutation null's merge when exactly one feature is scored.
"""

import numpy as np
import pytest

from widefs.univariate import gaussian_nb_split_errors
from widefs.univariate._error_counts import (
    BlockErrors,
    default_permutations,
    is_imbalanced,
    merge_null,
)


@pytest.mark.parametrize(
    ("n_features", "needs", "expected"),
    [
        (1, True, 1000),
        (1, False, 200),
        (20_000, True, 1000),  # 2e7 / 20,000 = 1000: the budget exactly
        (20_001, True, 999),
        (100_000, True, 200),
        (100_000, False, 200),
        (99_999, False, 200),  # the budget allows more, 200 are wanted
        (200_000, True, 100),
        (10**7, False, 100),  # never fewer than 100
        (0, True, 1000),
    ],
)
def test_default_permutations(n_features, needs, expected):
    assert default_permutations(n_features, needs) == expected


@pytest.mark.parametrize(
    ("class_counts", "imbalanced"),
    [
        ([10, 10], False),
        ([11, 10], False),  # half an example from equal
        ([12, 10], False),  # one example from equal: still balanced
        ([13, 10], True),
        ([14, 10], True),
        ([9, 9, 10], False),  # 10 - 28 / 3 = 0.67
        ([8, 8, 10], True),  # 10 - 26 / 3 = 1.33
        ([8, 8, 11], True),
    ],
)
def test_is_imbalanced_is_more_than_one_example_from_equal(class_counts, imbalanced):
    y = np.repeat(np.arange(len(class_counts)), class_counts)
    val = np.ones((1, y.size), dtype=bool)
    assert is_imbalanced(y, val, len(class_counts)) is imbalanced
    # The counts are summed over splits: two splits with half of the rows each, the same.
    half = np.zeros((2, y.size), dtype=bool)
    half[0, ::2] = True
    half[1, 1::2] = True
    assert is_imbalanced(y, half, len(class_counts)) is imbalanced


def test_merge_null_of_one_scored_feature_is_its_own_null():
    null_errors = np.array([[3], [5], [4]])  # three relabellings, one feature
    part = BlockErrors(
        errors=np.array([2]),
        constant=np.array([False]),
        null_min=null_errors.min(axis=1),
        null_sum=null_errors.sum(axis=1),
        pvalues=np.array([0.25]),
    )
    null = merge_null([part], n_permutations=3, n_scored=1, n_validation=9)
    np.testing.assert_array_equal(null.min_errors, [3, 5, 4])
    assert null.expected_errors == 4.0 and null.expected_min_errors == 4.0
    np.testing.assert_array_equal(null.pvalues, [0.25])


def test_merge_null_with_nothing_scored_is_the_worst_count():
    null = merge_null([], n_permutations=4, n_scored=0, n_validation=9)
    np.testing.assert_array_equal(null.min_errors, [9, 9, 9, 9])
    assert null.expected_errors == 9.0 and null.expected_min_errors == 9.0
    assert null.pvalues.size == 0


@pytest.mark.parametrize(
    ("n_jobs", "width", "expected"),
    [
        (1, 40, [slice(0, 40), slice(40, 50)]),  # serial: at most the block width (widened alone)
        (1, 60, [slice(0, 50)]),  # one block when the width holds every feature
        (2, 40, [slice(0, 25), slice(25, 50)]),  # one block per worker
        (3, 40, [slice(0, 17), slice(17, 34), slice(34, 50)]),
        (3, 10, [slice(s, s + 10) for s in range(0, 50, 10)]),  # at most the block width
    ],
)
def test_in_memory_scoring_blocks(monkeypatch, n_jobs, width, expected):
    # The blocks never change a score (features are scored one by one); they bound the
    # memory of a block and share the features among the workers.
    from types import SimpleNamespace

    from widefs.univariate import _error_counts

    seen = []

    def serial(function, calls, n_jobs=None):
        calls = list(calls)
        seen.extend(call[1] for call in calls)
        return [function(*call) for call in calls]

    monkeypatch.setattr(_error_counts, "parallel_calls", serial)
    monkeypatch.setattr(_error_counts, "block_width", lambda n_rows: width)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(12, 50)), np.arange(12) % 2
    tr = np.zeros((1, 12), dtype=bool)
    tr[0, :6] = True
    params = SimpleNamespace(n_jobs=n_jobs, scorer="gaussian_nb", var_smoothing=1e-9)
    parts = _error_counts._score_all(params, X, False, y, 2, tr, ~tr, None)
    assert seen == expected
    whole = gaussian_nb_split_errors(X, y, 2, tr, ~tr)[0]
    np.testing.assert_array_equal(np.concatenate([p.errors for p in parts]), whole)


def _params(threshold, null, cv="halves"):
    from types import SimpleNamespace

    return SimpleNamespace(
        cv=cv, null=null, n_permutations="auto", threshold=threshold, p_error="auto",
        scorer="gaussian_nb", var_smoothing=1e-9, n_jobs=None,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("threshold", "expected"), [("fdr", 1000), ("bonferroni", 1000), ("mgm", 200), ("all", 200)]
)
def test_auto_permutations_follow_what_the_threshold_reads(threshold, expected):
    # Per-feature p-values (the error-controlling rules) need 1000; E[X] and E[X(1)] 200.
    from widefs.univariate._error_counts import fit_error_counts

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 6)), np.arange(20) % 2
    fit = fit_error_counts(
        _params(threshold, "permutation"), X, y, 2, False, np.random.RandomState(0)
    )
    assert fit.null_used == "permutation"
    assert fit.permutations.shape[0] == expected


@pytest.mark.parametrize(
    ("null", "threshold", "expected"),
    [
        ("analytic", "all", "analytic"),  # allowed with groups only when nothing is cut
        ("analytic", "mgm", "permutation"),
        ("auto", "all", "permutation"),
        ("permutation", "all", "permutation"),
    ],
)
def test_groups_force_the_permutation_null_unless_analytic_and_all(null, threshold, expected):
    from widefs.univariate._error_counts import fit_error_counts

    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 12)
    groups = np.arange(24) // 2  # pairs of samples, each pair of one class
    X = rng.normal(size=(24, 5))
    state = np.random.RandomState(1)
    fit = fit_error_counts(_params(threshold, null), X, y, 2, False, state, groups=groups)
    assert fit.null_used == expected
    if expected == "permutation":
        # The relabellings move whole groups: a pair's two samples keep one label.
        relabelled = y[fit.permutations]
        assert (relabelled[:, 0::2] == relabelled[:, 1::2]).all()
        assert not (relabelled == y).all(axis=1).all()


def test_best_score_prefers_the_eligible_features():
    from widefs.univariate._error_counts import best_score

    scores = np.array([3.0, 1.0, 2.0])
    assert best_score(scores, np.array([False, True, True])) == 2.0  # not the ineligible 3
    assert best_score(scores, np.zeros(3, dtype=bool)) == 3.0  # none eligible: any feature's


def _key(**changes):
    from types import SimpleNamespace

    from widefs.univariate._error_counts import error_counts_key

    settings = dict(
        cv=5, null="permutation", n_permutations=50, p_error="auto", scorer="gaussian_nb",
        var_smoothing=1e-9, threshold=0.5,
    )  # fmt: skip
    settings.update(changes)
    groups = settings.pop("groups", None)
    X = np.arange(24.0).reshape(6, 4)
    return error_counts_key(SimpleNamespace(**settings), X, np.arange(6) % 2, 2, groups)


def test_error_counts_key_shares_what_gives_the_same_computation():
    from sklearn.model_selection import KFold

    # Equal strings and integers are the same setting, whichever object holds them.
    assert _key(cv="".join(["lo", "o"])) == _key(cv="loo")
    assert _key(cv=int("1000")) == _key(cv=1000)
    # Two splitter objects are not assumed equal (their splits may differ).
    assert _key(cv=KFold(3)) != _key(cv=KFold(3))
    # The threshold counts only through what it changes.
    assert _key(threshold="fdr") == _key(threshold="bonferroni")
    assert _key(threshold="fdr") != _key(threshold=0.5)
    assert _key(threshold="max_chance") == _key(threshold=0.5)
    assert _key(threshold="all") != _key(threshold="max_chance")
    # Groups are part of the computation.
    assert _key(groups=[0, 0, 1, 1, 2, 2]) != _key(groups=[0, 1, 1, 2, 2, 0])
    assert _key(groups=[0, 0, 1, 1, 2, 2]) == _key(groups=[5, 5, 7, 7, 9, 9])


def test_errors_are_summed_over_two_splits():
    from widefs.univariate._error_counts import _errors_of

    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(12, 5)), np.arange(12) % 2
    train = np.zeros((2, 12), dtype=bool)
    train[0, :6], train[1, 6:] = True, True
    both = _errors_of(X, y, 2, train, ~train, "gaussian_nb", 1e-9)
    each = [_errors_of(X, y, 2, train[[s]], ~train[[s]], "gaussian_nb", 1e-9) for s in (0, 1)]
    np.testing.assert_array_equal(both, each[0] + each[1])
    assert (each[0] != each[1]).any()  # the splits differ, so a sum is not a copy


def test_no_scored_feature_gets_p_values_of_one():
    import warnings

    from widefs.univariate import DiscriminativeSelector

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = DiscriminativeSelector(null="permutation", n_permutations=20, random_state=0).fit(
            np.ones((12, 3)), np.arange(12) % 2
        )
    np.testing.assert_array_equal(fit.pvalues_, np.ones(3))
