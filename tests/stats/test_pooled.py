"""Pooled permutation p-values and the heterogeneity check, against brute-force counts."""

import numpy as np
import pytest

from widefs.stats import null_heterogeneity, pooled_permutation_pvalues


def brute_force(observed, null):
    flat = np.ravel(null)
    return np.array([(1 + sum(v >= o for v in flat)) / (1 + flat.size) for o in observed])


@pytest.mark.parametrize("seed", range(5))
def test_pvalues_equal_a_brute_force_count(seed):
    rng = np.random.default_rng(seed)
    null = rng.integers(0, 6, size=(7, 9)).astype(float)  # ties on purpose
    observed = rng.integers(-1, 8, size=11).astype(float)
    np.testing.assert_array_equal(
        pooled_permutation_pvalues(observed, null), brute_force(observed, null)
    )
    ordered = np.sort(null.ravel())
    np.testing.assert_array_equal(
        pooled_permutation_pvalues(observed, ordered, assume_sorted=True),
        brute_force(observed, null),
    )


def test_floor_and_ceiling():
    p = pooled_permutation_pvalues([10.0, -10.0], np.zeros((4, 5)))
    assert p.tolist() == [1 / 21, 1.0]


def test_uniform_when_observed_is_exchangeable_with_the_draws():
    # The observed value is one more draw from the same distribution: P(p <= a) <= a, and
    # about a for continuous statistics (SE of the rate stated by the binomial).
    rng = np.random.default_rng(0)
    reps, draws = 4000, 99
    values = rng.normal(size=(reps, draws + 1))
    p = np.array([pooled_permutation_pvalues([v[0]], v[1:])[0] for v in values])
    for a in (0.01, 0.05, 0.2, 0.5):
        se = np.sqrt(a * (1 - a) / reps)
        assert abs(np.mean(p <= a) - a) < 4 * se, a


@pytest.mark.parametrize(
    "args, message",
    [
        (([[1.0]], [1.0]), "one-dimensional"),
        (([1.0], []), "at least one draw"),
        (([np.nan], [1.0]), "NaN"),
        (([1.0], [np.nan]), "NaN"),
    ],
)
def test_pvalue_messages(args, message):
    with pytest.raises(ValueError, match=message):
        pooled_permutation_pvalues(*args)


def test_heterogeneity_is_zero_for_alike_nulls_and_grows_with_differences():
    rng = np.random.default_rng(1)
    alike = rng.normal(size=(40, 3000))
    assert null_heterogeneity(alike) < 0.05
    # Correlated features (one shift per permutation, shared) stay at 0: given the shifts,
    # a feature's share is a sum of Bernoullis with unequal rates, less variable than a
    # binomial.
    shared = rng.normal(size=(40, 1))
    correlated = np.sqrt(0.5) * shared + np.sqrt(0.5) * rng.normal(size=(40, 3000))
    assert null_heterogeneity(correlated) < 0.05
    # Half the features with a tail probability of 0.05 at the pooled 10% quantile, half
    # with about 0.15: a coefficient of variation near 0.5.
    wide = alike * np.r_[np.ones(1500), 1.5 * np.ones(1500)]
    assert 0.35 < null_heterogeneity(wide) < 0.7


def test_heterogeneity_equals_its_definition():
    rng = np.random.default_rng(2)
    null = rng.exponential(size=(10, 50)) * rng.uniform(0.5, 2, size=50)
    shares = (null > np.quantile(null, 0.9)).mean(axis=0)
    s = shares.mean()
    expected = np.sqrt(max(shares.var() - s * (1 - s) / 10, 0)) / s
    assert null_heterogeneity(null, 0.1) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "args, message",
    [(([1.0, 2.0],), "shape"), ((np.ones((1, 3)),), "shape"), ((np.ones((3, 3)), 1.5), "level")],
)
def test_heterogeneity_messages(args, message):
    with pytest.raises(ValueError, match=message):
        null_heterogeneity(*args)


@pytest.mark.parametrize(
    "args, message",
    [
        (([[1.0]], [1.0]), r"^observed must be one-dimensional \(one statistic per feature\)\.$"),
        (([1.0], []), r"^null must hold at least one draw\.$"),
        (([np.nan], [1.0]), r"^observed and null must not contain NaN\.$"),
    ],
)
def test_pvalue_messages_in_full(args, message):
    with pytest.raises(ValueError, match=message):
        pooled_permutation_pvalues(*args)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: pooled_permutation_pvalues(["a"], [1.0]), "observed"),
        (lambda: pooled_permutation_pvalues([1.0], ["a"]), "null"),
        (lambda: null_heterogeneity([["a", "b"], ["c", "d"]]), "null"),
    ],
)
def test_non_numeric_input_names_its_argument(call, name):
    with pytest.raises(TypeError, match=rf"^{name} must be numeric"):
        call()


def test_heterogeneity_edges():
    rng = np.random.default_rng(3)
    # Two permutations are enough; one feature gives a number; no feature gives NaN.
    assert np.isfinite(null_heterogeneity(rng.normal(size=(2, 40))))
    assert null_heterogeneity(rng.normal(size=(30, 1))) == 0.0
    assert np.isnan(null_heterogeneity(np.ones((5, 0))))
    for level in (0.0, 1.0):
        with pytest.raises(ValueError, match=r"^level must be in \(0, 1\)"):
            null_heterogeneity(rng.normal(size=(5, 5)), level)


def test_heterogeneity_of_a_null_without_a_tail_is_nan_quietly():
    # Every draw equal: no draw lies strictly above the quantile, so no tail share exists.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(null_heterogeneity(np.ones((10, 20))))
    # Ties at the quantile do not count as above it.
    ties = np.zeros((10, 20))
    ties[0] = 1.0  # one permutation above the 90% quantile (0), in every feature
    assert null_heterogeneity(ties) == 0.0
