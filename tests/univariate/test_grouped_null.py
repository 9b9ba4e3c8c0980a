"""The validation-error protocol with groups: splits keep groups whole, and the null's
relabellings are uniform over those the design and the splits allow (brute force)."""

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from widefs.univariate import DiscriminativeSelector
from widefs.univariate._grouped_null import grouped_permutations, grouped_split_masks


@pytest.mark.parametrize("cv", ["halves", 3])
def test_splits_keep_every_group_on_one_side(cv):
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(12), 3)
    y = (groups >= 6).astype(int)
    train, val = grouped_split_masks(cv, y, groups, rng)
    assert train.shape[0] == (1 if cv == "halves" else 3)
    for tr, va in zip(train, val, strict=True):
        assert not set(groups[tr]) & set(groups[va])
        assert set(y[va]) == {0, 1}


def _allowed(y, groups, cells, kind):
    """Every label vector reachable by the scheme inside every cell (enumerated)."""
    per_cell = []
    for c in np.unique(cells):
        idx = np.flatnonzero(cells == c)
        options = set()
        for p in itertools.permutations(range(idx.size)):
            lab = y[idx][list(p)]
            g = groups[idx]
            if kind == "within":  # labels stay within their group
                ok = all(sorted(lab[g == k]) == sorted(y[idx][g == k]) for k in np.unique(g))
            else:  # whole groups of one size exchanged: each group one class, sizes kept
                ok = all(np.unique(lab[g == k]).size == 1 for k in np.unique(g))
            if ok:
                options.add((tuple(idx), tuple(lab)))
        per_cell.append(sorted(options))
    out = set()
    for combo in itertools.product(*per_cell):
        lab = y.copy()
        for idx, values in combo:
            lab[list(idx)] = values
        out.add(tuple(lab))
    return out


@pytest.mark.parametrize(
    ("groups", "y", "cells", "kind", "n_allowed"),
    [
        # 4 pairs, 2 per cell: 16 relabellings
        (np.repeat(np.arange(4), 2), np.tile([0, 1], 4), np.repeat([0, 1], 4), "within", 16),
        # 6 patients x 2 samples, 3 per cell (2 + 1 and 1 + 2 per class): 3 x 3
        (
            np.repeat(np.arange(6), 2),
            np.repeat([0, 0, 1, 0, 1, 1], 2),
            np.repeat([0, 1], 6),
            "between",
            9,
        ),
        # pairs in cell 0, one-class groups in cell 1 (a within design): cell 1 never moves
        (
            np.repeat(np.arange(4), 2),
            np.array([0, 1, 0, 1, 0, 0, 1, 1]),
            np.repeat([0, 1], 4),
            "within",
            4,
        ),
    ],
)
def test_relabellings_are_uniform_over_the_allowed_ones(groups, y, cells, kind, n_allowed):
    allowed = _allowed(y, groups, cells, kind)
    assert len(allowed) == n_allowed
    draws = 2000 * n_allowed
    perms = grouped_permutations(cells, y, groups, draws, np.random.RandomState(1))
    assert (cells[perms] == cells).all()
    counts = Counter(tuple(y[p]) for p in perms)
    assert set(counts) == allowed
    chi2 = stats.chisquare(list(counts.values()))
    assert chi2.pvalue > 1e-3


def test_the_selector_with_groups_uses_the_grouped_permutation_null():
    rng = np.random.default_rng(0)
    patient = np.repeat(np.arange(12), 3)
    y = np.repeat([0, 1], 18)
    X = rng.normal(size=(36, 100)) + 2 * rng.normal(size=(12, 100))[patient]
    sel = DiscriminativeSelector(random_state=0, n_permutations=50).fit(X, y, groups=patient)
    assert sel.null_ == "permutation" and sel.design_case_ == "between groups"
    for perm in sel.permutations_:
        assert all(np.unique(y[perm][patient == p]).size == 1 for p in range(12))
    assert DiscriminativeSelector(random_state=0).fit(X, y).design_case_ == "independent"
    with pytest.raises(ValueError, match='null="analytic" assumes independent samples'):
        DiscriminativeSelector(null="analytic").fit(X, y, groups=patient)
    with pytest.raises(ValueError, match="groups apply to the errors statistic only"):
        DiscriminativeSelector("fdr", statistic="location").fit(X, y, groups=patient)
    # "all" thresholds nothing: the analytic null is allowed (the search score needs none)
    DiscriminativeSelector("all", null="analytic", random_state=0).fit(X, y, groups=patient)
