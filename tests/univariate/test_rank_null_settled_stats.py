"""The stopped untied rank null: valid p-values (Monte Carlo) and unchanged selections.

Validity: null features (labels independent of the values) beside a few shifted ones, so
that the cut, and with it the stopping check, moves from fit to fit; the share of null
p-values at most a must not exceed a by more than 3 standard errors (fixed seed; the SE from
the spread of the per-fit shares, which carries the dependence through the shared draws).
Selections: the screen with and without stopping on colon-like data (62 examples, 22 / 40;
150 skewed noise features, 150 Gaussian of which 20 shifted), twelve seeds; the stopped fits
must select exactly what the full count selects, by both rules.
"""

import warnings

import numpy as np
import pytest

import widefs.univariate._rank_null as rank_null
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._kinds import tie_factor
from widefs.univariate._rank_settle import untied_decision

from .rank_data import colon_like

LEVELS = (0.005, 0.05, 0.5)


@pytest.mark.parametrize(
    ("sizes", "w"),
    [((8, 8), 0.0), ((12, 12), 0.35), ((6, 6, 6), 0.0)],
    ids=["location-two-classes", "location-and-spread", "three-classes"],
)
def test_stopped_p_values_of_null_features_are_valid(monkeypatch, sizes, w):
    monkeypatch.setattr(rank_null, "FIRST_UNTIED_DRAWS", 250)
    rng = np.random.default_rng(11)
    y = np.repeat(np.arange(len(sizes)), sizes)
    n_null, n_shift, fits = 120, 6, 80
    shares, full_shares, drawn = [], [], []
    for _ in range(fits):
        X = rng.lognormal(size=(y.size, n_null + n_shift))
        X[:, n_null:] *= np.exp(rng.uniform(0.5, 2.5, n_shift) * (y == 0)[:, None])
        m = X.shape[1]
        seed = int(rng.integers(2**31))
        run = []
        for decision in (untied_decision("fdr", 0.05, np.zeros(0), np.zeros(0, bool), m, m), None):
            run.append(
                rank_null.rank_branch(
                    X,
                    np.arange(m),
                    tie_factor(X),
                    y,
                    len(sizes),
                    w,
                    np.random.RandomState(seed),
                    untied_draws=8_000,
                    decision=decision,
                )
            )
        assert (run[0].strata == 0).all()
        shares.append([np.mean(run[0].pvalues[:n_null] <= a) for a in LEVELS])
        full_shares.append([np.mean(run[1].pvalues[:n_null] <= a) for a in LEVELS])
        drawn.append(run[0].untied_drawn)
    shares = np.array(shares)
    mean, se = shares.mean(axis=0), shares.std(axis=0, ddof=1) / np.sqrt(fits)
    assert np.all(mean <= np.array(LEVELS) + 3 * se + 1e-12), (mean, se)
    # Not vacuous: the fits stopped at different checks, and the shares are those of the full
    # count (8,000 draws, the same data and seeds) within 3 SE of the paired differences.
    assert len(set(drawn)) >= 2, drawn
    diff = shares - np.array(full_shares)
    diff_se = diff.std(axis=0, ddof=1) / np.sqrt(fits)
    assert np.all(np.abs(diff.mean(axis=0)) <= 3 * diff_se + 1e-3), (diff.mean(axis=0), diff_se)


@pytest.mark.slow
def test_colon_like_selections_equal_the_full_count_over_twelve_seeds():
    drawn = []
    warnings.simplefilter("ignore")
    for seed in range(12):
        X, y = colon_like(seed)
        fits = {
            r: ClassDifferenceScreen(random_state=seed, rank_draws=r).fit(X, y)
            for r in ("settled", "all")
        }
        s, a = fits["settled"], fits["all"]
        assert (a.kinds_[:150] == 3).sum() >= 140
        np.testing.assert_array_equal(s.get_support(), a.get_support())
        for rule in ("fdr", "bonferroni"):
            np.testing.assert_array_equal(s.select_under(rule)[1], a.select_under(rule)[1])
        drawn.append(round(1 / s.min_pvalues_[:150].max() - 1))
    # Not vacuous: several fits stop early (5 of 12 here), at different checks.
    assert sum(d < 100_000 for d in drawn) >= 4 and len(set(drawn)) >= 3, drawn
