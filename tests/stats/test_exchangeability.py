"""Permutation schemes against brute-force enumeration; Freedman-Lane by Monte Carlo."""

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from widefs.stats import (
    exchangeability_scheme,
    freedman_lane_test,
    n_relabellings,
    permutation_indices,
)


def _allowed(y, groups):
    """Every index permutation the scheme allows, by brute force over all n! permutations."""
    y = np.asarray(y)
    n = y.size
    if groups is None:
        return list(itertools.permutations(range(n)))
    g = np.asarray(groups)
    pure = all(np.unique(y[g == k]).size == 1 for k in np.unique(g))
    out = []
    for perm in itertools.permutations(range(n)):
        perm = np.array(perm)
        if not pure:
            ok = (g[perm] == g).all()  # within: every sample draws from its own group
        else:
            # between: whole groups go to whole groups of the same size, members by position
            mapping = {}
            ok = True
            for k in np.unique(g):
                src = np.flatnonzero(g == k)
                tgt_groups = np.unique(g[perm[src]])
                if tgt_groups.size != 1 or (g == tgt_groups[0]).sum() != src.size:
                    ok = False
                    break
                tgt = np.flatnonzero(g == tgt_groups[0])
                ok &= (perm[src] == tgt).all()  # members matched in order
                mapping[k] = tgt_groups[0]
        if ok:
            out.append(tuple(perm))
    return out


DESIGNS = {
    "free": ([0, 0, 1, 1, 2], None),
    "within": ([0, 1, 0, 1, 1, 0, 0], ["a", "a", "b", "b", "b", "c", "c"]),
    "between": ([0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4]),
}


@pytest.mark.parametrize("name", list(DESIGNS))
def test_scheme_reaches_exactly_the_allowed_relabellings_uniformly(name):
    y, groups = DESIGNS[name]
    y = np.asarray(y)
    # 12! is too many: for the between design enumerate group maps instead, still brute force
    allowed = _allowed_between_by_groups(y, groups) if len(y) > 9 else _allowed(y, groups)
    truth = Counter(tuple(y[list(p)]) for p in allowed)
    # brute force: every allowed label vector is reached by the same number of permutations
    assert len(set(truth.values())) == 1
    assert len(truth) == n_relabellings(y, groups)
    perms = permutation_indices(y, groups, n_permutations=20000, random_state=1)
    assert {tuple(p) for p in perms} <= set(allowed)  # only allowed index permutations
    drawn = Counter(tuple(y[p]) for p in perms)
    assert set(drawn) == set(truth)
    counts = np.array([drawn[k] for k in truth])
    assert stats.chisquare(counts).pvalue > 1e-3  # uniform over the allowed relabellings


def _allowed_between_by_groups(y, groups):
    g = np.asarray(groups)
    levels = np.unique(g)
    members = [np.flatnonzero(g == k) for k in levels]
    out = []
    for sigma in itertools.permutations(range(levels.size)):
        if all(members[a].size == members[b].size for a, b in enumerate(sigma)):
            perm = np.empty(y.size, int)
            for a, b in enumerate(sigma):
                perm[members[a]] = members[b]
            out.append(tuple(perm))
    return out


def test_between_brute_force_agrees_on_a_small_design():
    y, groups = [0, 0, 1, 1, 1, 0], [0, 0, 1, 1, 2, 3]
    assert set(_allowed(y, groups)) == set(_allowed_between_by_groups(np.array(y), groups))
    # sizes (2, 2, 1, 1): groups 0<->1 and 2<->3 swap; 4 maps, 4 label vectors
    assert n_relabellings(y, groups) == 4.0


def test_cases_and_errors():
    assert exchangeability_scheme([0, 1]).case == "independent"
    assert exchangeability_scheme([0, 1, 0, 1], [0, 0, 1, 1]).kind == "within"
    assert exchangeability_scheme([0, 0, 1, 1], ["p", "p", "q", "q"]).kind == "between"
    with pytest.raises(ValueError, match="no two groups have the same size"):
        permutation_indices([0, 0, 1], [0, 0, 1], n_permutations=5)
    with pytest.raises(ValueError, match="one label per sample"):
        exchangeability_scheme([0, 1, 0], [0, 1])
    with pytest.raises(ValueError, match="groups has 1 missing labels"):
        exchangeability_scheme([0, 1, 0], ["a", None, "b"])
    with pytest.raises(ValueError, match="groups has 2 missing labels"):
        exchangeability_scheme([0, 1, 0], [1.0, np.nan, np.nan])
    with pytest.raises(ValueError, match="at least 1"):
        permutation_indices([0, 1], n_permutations=0)


def test_permutations_deterministic_for_a_seed():
    y, g = DESIGNS["within"]
    a = permutation_indices(y, g, n_permutations=50, random_state=3)
    b = permutation_indices(y, g, n_permutations=50, random_state=3)
    c = permutation_indices(y, g, n_permutations=50, random_state=4)
    assert (a == b).all() and not (a == c).all()
    # every row is a permutation
    assert (np.sort(a, axis=1) == np.arange(len(y))).all()


def _reference_fl_stat(x, D, class_idx, Z, perm):
    """statsmodels OLS F-test of the class coefficients on Z g + P r, one feature."""
    import statsmodels.api as sm

    g = np.linalg.lstsq(Z, x, rcond=None)[0]
    r = x - Z @ g
    xs = Z @ g + r[perm]
    res = sm.OLS(xs, D).fit()
    R = np.zeros((len(class_idx), D.shape[1]))
    R[np.arange(len(class_idx)), class_idx] = 1
    return float(np.squeeze(res.f_test(R).fvalue))


def test_freedman_lane_statistics_match_statsmodels_refits():
    from widefs.stats import build_design

    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 4)
    age = rng.normal(size=12)
    X = rng.normal(size=(12, 3)) + 2 * age[:, None]
    res = freedman_lane_test(X, y, covariates={"age": age}, n_permutations=30, random_state=2)
    design = build_design(y, {"age": age})
    D, Z = design.matrix, design.reduced_matrix
    perms = permutation_indices(y, n_permutations=30, random_state=2)
    idx = list(design.class_coefficients)
    for j in range(3):
        obs = _reference_fl_stat(X[:, j], D, idx, Z, np.arange(12))
        assert res.statistics[j] == pytest.approx(obs, rel=1e-9)
        null = np.array([_reference_fl_stat(X[:, j], D, idx, Z, p) for p in perms])
        assert res.pvalues[j] == pytest.approx((1 + np.sum(null >= obs - 1e-9)) / 31)


@pytest.mark.parametrize("paired", [False, True])
def test_freedman_lane_pvalues_uniform_under_a_covariate_effect(paired):
    # No class effect; a strong covariate effect correlated with the class. Each of the
    # 1500 features is an independent replicate; rejection rate at alpha has
    # SE sqrt(alpha (1 - alpha) / 1500) (0.0056 at 0.05), tested within 3.5 SE, plus KS.
    # Pairs: 20 of them (with 8 pairs and a covariate that differs by class the sign flips
    # of Freedman-Lane are conservative: 0.008 at 0.05, see the test below).
    rng = np.random.default_rng(11)
    n, m = (40 if paired else 16), 1500
    y = np.tile([0, 1], n // 2) if paired else np.repeat([0, 1], n // 2)
    groups = np.repeat(np.arange(n // 2), 2) if paired else None
    age = 1.5 * y + rng.normal(size=n)
    X = 4.0 * age[:, None] + rng.normal(size=(n, m))
    if paired:
        X += 2.0 * rng.normal(size=(n // 2, m))[groups]
    res = freedman_lane_test(
        X, y, covariates={"age": age}, groups=groups, n_permutations=199, random_state=0
    )
    p = res.pvalues
    for alpha in (0.05, 0.1):
        se = np.sqrt(alpha * (1 - alpha) / m)
        assert abs(np.mean(p <= alpha) - alpha) < 3.5 * se
    assert stats.kstest(p, "uniform").pvalue > 1e-3 or np.abs(np.mean(p) - 0.5) < 0.02
    assert res.case == ("within groups" if paired else "independent")


def test_freedman_lane_has_power_and_beats_ignoring_the_covariate():
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 8)
    age = rng.normal(size=16)
    X = 5.0 * age[:, None] + rng.normal(size=(16, 200))
    X[:, :20] += 2.0 * y[:, None]
    p = freedman_lane_test(X, y, covariates={"age": age}, random_state=0).pvalues
    assert np.mean(p[:20] <= 0.01) > 0.8
    assert np.mean(p[20:] <= 0.05) < 0.12


def test_freedman_lane_with_few_pairs_is_valid_if_conservative():
    rng = np.random.default_rng(11)
    n, m = 16, 1500
    y = np.tile([0, 1], n // 2)
    groups = np.repeat(np.arange(n // 2), 2)
    age = 1.5 * y + rng.normal(size=n)
    X = 4.0 * age[:, None] + rng.normal(size=(n, m))
    p = freedman_lane_test(
        X, y, covariates={"age": age}, groups=groups, n_permutations=199, random_state=0
    ).pvalues
    se = np.sqrt(0.05 * 0.95 / m)
    assert np.mean(p <= 0.05) < 0.05 + 3.5 * se


def test_boundaries_singleton_groups_size_one_and_single_class():
    y = np.array([0, 0, 1, 1, 1])
    # every sample its own group: each group holds one class, all of size 1 -> free
    assert exchangeability_scheme(y, np.arange(5)).kind == "between"
    assert n_relabellings(y, np.arange(5)) == n_relabellings(y) == 10.0
    perms = permutation_indices(y, np.arange(5), n_permutations=4000, random_state=0)
    assert len({tuple(y[p]) for p in perms}) == 10
    # one sample: the identity only
    assert permutation_indices([1], n_permutations=3).tolist() == [[0], [0], [0]]
    assert n_relabellings([1]) == 1.0
    # pairs where one pair has tied classes: that pair keeps its labels
    y2, g2 = np.array([0, 1, 1, 1]), np.array([0, 0, 1, 1])
    assert n_relabellings(y2, g2) == 2.0
    drawn = {tuple(y2[p]) for p in permutation_indices(y2, g2, n_permutations=200, random_state=0)}
    assert drawn == {(0, 1, 1, 1), (1, 0, 1, 1)}


def test_freedman_lane_perfect_fit_is_the_most_extreme_statistic():
    """A relabelling that the classes explain exactly has F = inf (counted as at least as
    extreme as any observed F), and a feature the groups alone explain has F = 0, whatever
    sign rounding gives the residual sum of squares; exact p-values by enumeration."""
    groups = np.repeat(np.arange(5), 2)
    y = np.repeat([0, 0, 1, 1, 1], 2)
    # constant within patients: relabellings putting the two 1-patients in class 0 fit exactly
    x = np.repeat([0.0, 1.0, 0.0, 1.0, 0.0], 2)
    X = np.column_stack([x, x, x + 0.5])  # several columns: a matrix product, not a vector one
    res = freedman_lane_test(X, y, groups=groups, n_permutations=20000, random_state=0)
    # the 10 relabellings of whole patients (class 0 = two of the five patients), enumerated
    cls = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]
    fs = []
    for zero in cls:
        lab = np.isin(groups, zero, invert=True).astype(float)
        D = np.column_stack([np.ones(10), lab])
        rss = np.sum((x - D @ np.linalg.lstsq(D, x, rcond=None)[0]) ** 2)
        tss = np.sum((x - x.mean()) ** 2)
        fs.append(np.inf if rss < 1e-12 else (tss - rss) / (rss / 8))
    observed = fs[0]
    exact = np.mean(np.array(fs) >= observed - 1e-9)
    assert np.isfinite(res.statistics[0]) and res.statistics[0] == pytest.approx(observed)
    assert abs(res.pvalues[0] - exact) < 4 * np.sqrt(exact * (1 - exact) / 20000) + 1e-3
    assert res.pvalues[0] == res.pvalues[1] == res.pvalues[2]
    paired = np.repeat([1.0, 2.0, 3.0, 4.0, 5.0], 2)  # the subjects explain everything
    none = freedman_lane_test(
        paired[:, None], np.tile([0, 1], 5), groups=groups, n_permutations=99, random_state=0
    )
    assert none.statistics[0] == 0.0 and none.pvalues[0] == 1.0
