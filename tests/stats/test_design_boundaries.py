"""Designs, permutation schemes and Freedman-Lane at their boundaries.

References: moderated F recomputed from per-group means and explicit designs, Freedman-Lane
statistics refitted with statsmodels for every permutation (ties counted as ties), the
allowed relabellings enumerated, and every validator's message in full.
"""

import re
import warnings

import numpy as np
import pytest

from widefs.stats import (
    build_design,
    design_moderated_f,
    freedman_lane_test,
    linear_model_fit,
    moderated_f,
    n_relabellings,
    permutation_indices,
)


def _full(message):
    return "^" + re.escape(message) + "$"


def _ols_f(x, D, idx):
    """Ordinary F of the coefficients idx by statsmodels (an independent fit)."""
    import statsmodels.api as sm

    R = np.zeros((len(idx), D.shape[1]))
    R[np.arange(len(idx)), idx] = 1
    return float(np.squeeze(sm.OLS(x, D).fit().f_test(R).fvalue))


def test_freedman_lane_within_pairs_equals_refits_with_ties_counted():
    # Three pairs: 8 relabellings, so most permutations repeat the observed labelling and
    # tie with it exactly; they count in the p-value (>=), as in the refit reference.
    rng = np.random.default_rng(0)
    y = np.tile([0, 1], 3)
    groups = np.repeat([0, 1, 2], 2)
    age = rng.normal(size=6)
    X = rng.normal(size=(6, 3)) + age[:, None]
    res = freedman_lane_test(
        X, y, covariates={"age": age}, groups=groups, n_permutations=40, random_state=1
    )
    design = build_design(y, {"age": age}, groups)
    D, Z = design.matrix, design.reduced_matrix
    idx = list(design.class_coefficients)
    perms = permutation_indices(y, groups, n_permutations=40, random_state=1)
    for j in range(3):
        g = np.linalg.lstsq(Z, X[:, j], rcond=None)[0]
        r = X[:, j] - Z @ g
        obs = _ols_f(X[:, j], D, idx)
        null = np.array([_ols_f(Z @ g + r[p], D, idx) for p in perms])
        assert res.statistics[j] == pytest.approx(obs, rel=1e-9)
        assert res.pvalues[j] == pytest.approx((1 + np.sum(null >= obs * (1 - 1e-9))) / 41)
    assert res.n_permutations == 40 and res.case == "within groups"


def test_freedman_lane_between_groups_scale_and_constant_features():
    # Repeated samples of patients (one class each): the design has no blocks, the labels
    # move with whole patients. Scaling X leaves F and p unchanged; a constant feature has
    # F = 0 and p = 1, silently.
    rng = np.random.default_rng(2)
    groups = np.repeat(np.arange(6), 2)
    y = np.repeat([0, 1], 6)
    X = np.column_stack([rng.normal(size=(12, 3)), np.full(12, 4.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = freedman_lane_test(X, y, groups=groups, n_permutations=30, random_state=0)
        small = freedman_lane_test(1e-3 * X, y, groups=groups, n_permutations=30, random_state=0)
    assert res.case == "between groups"
    np.testing.assert_allclose(small.statistics, res.statistics, rtol=1e-9)
    np.testing.assert_array_equal(small.pvalues, res.pvalues)
    assert res.statistics[3] == 0.0 and res.pvalues[3] == 1.0
    perms = permutation_indices(y, groups, n_permutations=30, random_state=0)
    D = build_design(y).matrix
    for j in range(3):
        obs = _ols_f(X[:, j], D, [1])
        null = np.array([_ols_f(X[p, j], D, [1]) for p in perms])
        assert res.pvalues[j] == pytest.approx((1 + np.sum(null >= obs * (1 - 1e-9))) / 31)


def test_freedman_lane_default_number_of_permutations():
    rng = np.random.default_rng(3)
    res = freedman_lane_test(rng.normal(size=(8, 2)), [0, 1] * 4, random_state=0)
    assert res.n_permutations == 999
    counts = res.pvalues * 1000
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)


def test_permutation_counts_at_their_limits():
    y = [0, 1, 0, 1]
    assert permutation_indices(y, n_permutations=1, random_state=0).shape == (1, 4)
    assert permutation_indices(y, random_state=0).shape == (1000, 4)
    with pytest.raises(ValueError, match=_full("n_permutations must be at least 1; got 0.")):
        permutation_indices(y, n_permutations=0)
    # Exactly two groups of equal size, one class each: they can swap (2 relabellings).
    perms = permutation_indices([0, 0, 1, 1], ["a", "a", "b", "b"], n_permutations=200)
    assert {tuple(p) for p in perms} == {(0, 1, 2, 3), (2, 3, 0, 1)}
    assert n_relabellings([0, 0, 1, 1], ["a", "a", "b", "b"]) == 2.0
    with pytest.raises(
        ValueError,
        match=_full(
            "every group holds one class but no two groups have the same size, so no "
            "relabelling exchanges whole groups; give groups of equal sizes."
        ),
    ):
        permutation_indices([0, 0, 1], ["a", "a", "b"], n_permutations=3)


def test_between_groups_average_unequal_groups_then_fit_the_group_means():
    rng = np.random.default_rng(4)
    sizes = [1, 3, 2, 2, 4, 1]  # a singleton group and unequal sizes
    groups = np.repeat(np.arange(6), sizes)
    y_g = np.array([0, 1, 0, 1, 0, 1])
    y = y_g[groups]
    age_g = rng.normal(size=6)
    X = rng.normal(size=(groups.size, 40)) + 2.0 * rng.normal(size=(6, 40))[groups]
    res = design_moderated_f(X.tolist(), y, covariates={"age": age_g[groups]}, groups=groups)
    means = np.array([X[groups == g].mean(axis=0) for g in range(6)])
    D = np.column_stack([np.ones(6), y_g, age_g])
    ref = moderated_f(linear_model_fit(means, D), [1])
    np.testing.assert_allclose(res.test.statistics, ref.statistics, rtol=1e-10)
    assert res.case == "between groups" and res.design.matrix.shape == (6, 3)
    age = age_g[groups].copy()
    age[2] += 1.0  # now varies within group 1 (two distinct values)
    with pytest.raises(
        ValueError,
        match=_full(
            "covariate 'age' varies within groups: with one class per group the comparison "
            "is between groups, and a covariate must be a group property."
        ),
    ):
        design_moderated_f(X, y, covariates={"age": age}, groups=groups)
    with pytest.raises(
        ValueError,
        match=_full("weights cannot be combined with groups that hold one class each."),
    ):
        design_moderated_f(X, y, groups=groups, weights=np.ones(X.shape))


def test_design_moderated_f_passes_the_weights():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 5)
    X = rng.normal(size=(10, 20))
    W = rng.uniform(0.2, 3.0, size=(10, 20))
    res = design_moderated_f(X, y, weights=W)
    ref = moderated_f(linear_model_fit(X, build_design(y).matrix, weights=W), [1])
    np.testing.assert_allclose(res.test.statistics, ref.statistics, rtol=1e-12)


def test_covariate_inputs_and_their_messages():
    y = [0, 0, 0, 1, 1, 1]
    pd = pytest.importorskip("pandas")
    series = pd.Series([1.0, 2.0, 4.0, 3.0, 5.0, 9.0])  # has iloc, no columns: one column
    assert build_design(y, series).column_names == ("intercept", "class[1]", "covariate 0")
    mixed = np.array(["a", 1, "a", 1, 2.5, "a"], dtype=object)  # mixed types: as text
    d = build_design(y, {"lot": mixed})
    assert d.column_names == ("intercept", "class[1]", "lot[2.5]", "lot[a]")
    named = build_design(y, {"subgroups": ["u", "v", "u", "v", "u", "v"]})
    assert named.column_names[-1] == "subgroups[v]"
    with pytest.raises(ValueError, match=_full("covariates must be 1-D or 2-D; got 3 dimensions.")):
        build_design(y, np.ones((6, 1, 1)))
    with pytest.raises(
        ValueError, match=_full("groups must have one label per sample (6); got shape (5,).")
    ):
        build_design(y, groups=[0, 0, 1, 1, 2])
    with pytest.raises(
        ValueError, match=_full("y has a single class: there is no class effect to estimate.")
    ):
        build_design([1, 1, 1])
    with pytest.raises(
        ValueError,
        match=_full(
            "design column 'groups' is confounded with the classes: together with the class "
            "indicators its columns are linearly dependent (e.g. each of its levels holds one "
            "class), so its effect cannot be separated from the class effect."
        ),
    ):
        build_design(y, groups=["p", "p", "q", "r", "r", "r"])
    with pytest.raises(
        ValueError,
        match=_full(
            "covariate 'age2' is redundant: it is a linear combination of the intercept, the "
            "class indicators and the covariates before it; drop it."
        ),
    ):
        build_design(y, {"age": [1.0, 2, 3, 4, 5, 7], "age2": [2.0, 4, 6, 8, 10, 14]})
    with pytest.raises(
        ValueError,
        match=_full("design column 'groups' is constant: it adjusts for nothing; drop it."),
    ):
        build_design(y, groups=["g"] * 6)
