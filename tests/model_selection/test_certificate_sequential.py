"""Sequential certificates (Besag & Clifford 1991), and the default certificate of CN2.

The sequential null stops once ``stop_after`` relabellings score at least as well as the real
labels; its p-value is then ``stop_after / k``. Checked here: it is the full count's
whenever it does not stop, a prefix of the full null when it does, valid by exact
enumeration and by Monte Carlo (uniform for continuous scores, conservative with ties), and
the same for any block size. Then the acceptance of ``search_certificate(CN2Classifier(),
X, y)`` with its defaults: power on planted signal and the binomial band on null data.
"""

import warnings
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin

from widefs.model_selection import SearchCertificate, search_certificate
from widefs.model_selection._null_scores import stopping_point
from widefs.rules import CN2Classifier
from widefs.scm import SampleCompressionSCM
from widefs.search import KNNEvaluator, SequentialSelector


class Centroid(ClassifierMixin, BaseEstimator):
    """Nearest class mean (cheap enough for hundreds of certificates)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.means_ = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict(self, X):
        d = ((np.asarray(X)[:, None, :] - self.means_[None]) ** 2).sum(axis=2)
        return self.classes_[np.argmin(d, axis=1)]


def _sequential(observed, null, h):
    """The certificate a sequential null gives from the full null ``null``."""
    k = stopping_point(null, observed, h)
    kept = null if k is None else null[:k]
    perms = np.zeros((kept.size, 2), int)
    return SearchCertificate(observed, kept, perms, None, stop_after=h, n_planned=null.size)


def test_stopping_point_and_pvalue_by_hand():
    null = np.array([0.5, 0.9, 0.7, 0.8, 0.8, 0.95])
    assert stopping_point(null, 0.8, 1) == 2
    assert stopping_point(null, 0.8, 3) == 5  # ties count: 0.9, 0.8, 0.8
    assert stopping_point(null, 0.8, 5) is None and stopping_point(null, 0.99, 1) is None
    assert stopping_point(np.array([]), 0.5, 1) is None
    cert = _sequential(0.8, null, 3)
    assert cert.stopped and cert.n_permutations == 5 and cert.pvalue == 3 / 5
    assert cert.pvalue_floor == 1 / 7  # against the 6 planned
    full = _sequential(0.8, null, 5)  # 4 reach 0.8: not stopped, the usual count
    assert not full.stopped and full.pvalue == (1 + 4) / (1 + 6)
    # The h-th beat on the last planned relabelling stops there: h / B (not (h + 1)/(B + 1)).
    last = _sequential(0.9, np.array([0.1, 0.95, 0.2, 0.9]), 2)
    assert last.stopped is False and last.pvalue == 3 / 5
    with pytest.raises(ValueError, match="stop_after=None"):
        cert.randomized_pvalue(0)


def _exact_cdf(B, h):
    """P(p = v) for each value v of the sequential p-value, continuous scores, by
    enumeration: the observed score's rank r (how many of B null scores beat it) is uniform
    on 0..B; with r >= h beats the h-th falls at k with probability
    C(k-1, h-1) C(B-k, r-h) / C(B, r), and the p-value is h / k (h / B at k = B: the
    certificate counts that case as not stopped, (1 + h) / (1 + B) -- see below)."""
    mass = {}
    for r in range(B + 1):
        if r < h:
            v = Fraction(1 + r, 1 + B)
            mass[v] = mass.get(v, 0) + Fraction(1, B + 1)
            continue
        for k in range(h, B + 1):
            w = Fraction(comb(k - 1, h - 1) * comb(B - k, r - h), comb(B, r) * (B + 1))
            v = Fraction(h, k) if k < B else Fraction(1 + r, 1 + B)
            mass[v] = mass.get(v, 0) + w
    return mass


@pytest.mark.parametrize("B, h", [(19, 1), (19, 3), (29, 10), (9, 9), (50, 7)])
def test_sequential_pvalue_valid_by_enumeration(B, h):
    mass = _exact_cdf(B, h)
    assert sum(mass.values()) == 1
    cdf = Fraction(0)
    for v in sorted(mass):
        cdf += mass[v]
        assert cdf <= v  # P(p <= v) <= v at every value the p-value takes
    # Before the stop can happen the p-value is the usual one: P(p <= m / (B + 1)) = m/(B + 1).
    for m in range(1, h + 1):
        assert sum(w for v, w in mass.items() if v <= Fraction(m, B + 1)) == Fraction(m, B + 1)


def test_sequential_pvalue_valid_by_monte_carlo():
    """20,000 draws of the observed and B = 19 null scores, i.i.d. under the null, through
    the certificate's own p-value. Continuous scores: P(p <= a) within 4 standard errors of
    the enumeration above at every value a the p-value takes (and so at most a); scores with
    ties (counts out of 6) never above a + 4 SE. SE = sqrt(a (1 - a) / 20,000) <= 0.0036."""
    rng = np.random.default_rng(0)
    n, B, h = 20_000, 19, 4
    values = sorted(_exact_cdf(B, h).items())
    cdf = {float(v): float(sum(w for u, w in values if u <= v)) for v, _ in values}
    draws = {"continuous": rng.random((n, B + 1)), "ties": rng.integers(0, 7, (n, B + 1)) / 6}
    for kind, scores in draws.items():
        p = np.array([_sequential(s[0], s[1:], h).pvalue for s in scores])
        for a in np.unique(p):
            rate = np.mean(p <= a)
            se = np.sqrt(a * (1 - a) / n)
            assert rate <= a + 4 * se, (kind, a, rate)
            if kind == "continuous":
                assert abs(rate - cdf[a]) <= 4 * se, (a, rate, cdf[a])


def _data(seed, n=30, p=10, shift=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = rng.permutation(np.repeat([0, 1], n // 2))
    X[:, :2] += shift * y[:, None]
    return X, y


@pytest.mark.parametrize("score", ["search", "cv"])
def test_sequential_null_is_a_prefix_and_the_full_count_when_not_stopped(score):
    est = SequentialSelector(n_features=1, evaluator=KNNEvaluator(3))
    if score == "cv":
        est = Centroid()
    stopped = kept = 0
    for seed in range(12):
        X, y = _data(seed, shift=0.8 * (seed % 3))
        args = dict(score=score, cv=3, n_permutations=29, random_state=seed)
        full = search_certificate(est, X, y, stop_after=None, **args)
        seq = search_certificate(est, X, y, stop_after=5, **args)
        k = seq.n_permutations
        np.testing.assert_array_equal(seq.null_scores, full.null_scores[:k])
        np.testing.assert_array_equal(seq.permutations, full.permutations[:k])
        assert seq.observed == full.observed and seq.n_planned == 29
        beats = np.count_nonzero(full.null_scores >= full.observed)
        if seq.stopped:
            stopped += 1
            assert np.count_nonzero(seq.null_scores >= seq.observed) == 5
            assert seq.null_scores[-1] >= seq.observed and seq.pvalue == 5 / k
        else:
            kept += 1
            assert beats < 5 or stopping_point(full.null_scores, full.observed, 5) == 29
            assert seq.pvalue == full.pvalue
    assert stopped and kept  # both cases were exercised


def test_sequential_null_does_not_depend_on_blocks_or_jobs():
    from joblib import parallel_config

    X, y = _data(3)
    one = search_certificate(
        SampleCompressionSCM(), X, y, score="search", n_permutations=29, stop_after=4,
        random_state=1,
    )  # fmt: skip
    with parallel_config(backend="threading"):
        # Blocks of max(stop_after, n_jobs) = 6 rows instead of 4.
        six = search_certificate(
            SampleCompressionSCM(), X, y, score="search", n_permutations=29, stop_after=4,
            random_state=1, n_jobs=6,
        )  # fmt: skip
    assert one.stopped
    np.testing.assert_array_equal(one.null_scores, six.null_scores)


def test_sequential_cv_certificates_calibrated_on_null_data():
    """300 null datasets, 19 planned permutations, stop_after=3: the rejection rate at 0.05
    inside the binomial 99% band (6 to 25 of 300), and a mean p-value of at least 0.5 -
    4 SE (p is uniform or conservative; SE of the mean of 300 uniforms: 0.017)."""
    rng = np.random.default_rng(21)
    pvalues = []
    for d in range(300):
        X = rng.normal(size=(20, 3))
        y = rng.permutation(np.repeat([0, 1], 10))
        cert = search_certificate(
            Centroid(), X, y, score="cv", cv=4, n_permutations=19, stop_after=3, random_state=d
        )
        pvalues.append(cert.pvalue)
    pvalues = np.array(pvalues)
    lo, hi = stats.binom.ppf([0.005, 0.995], 300, 0.05)
    assert lo <= np.count_nonzero(pvalues <= 0.05) <= hi
    assert pvalues.mean() >= 0.5 - 4 * np.sqrt(1 / 12 / 300)


def _planted(seed, signal=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 200))
    y = rng.permutation(np.repeat([0, 1], 20))
    if signal:
        X[:, :3] += 2 * y[:, None]
    return X, y


def test_cn2_default_certificate_rejects_planted_signal():
    """search_certificate(CN2Classifier(), X, y) with its defaults but 19 permutations (p =
    0.05 reachable): on 10 data sets of 40 x 200 with 3 features shifted by 2 SD it
    certifies the cross-validated accuracy (the training accuracy saturates) and rejects at
    0.05 on at least 8."""
    rejected = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(10):
            X, y = _planted(seed)
            cert = search_certificate(CN2Classifier(), X, y, n_permutations=19, random_state=seed)
            assert cert.score == "cv" and cert.replaced.null_scores[-1] == 1.0
            rejected += cert.pvalue <= 0.05
    assert rejected >= 8


def test_cn2_default_certificate_calibrated_on_null_data():
    """60 null data sets (40 x 20, cheaper), defaults but 19 permutations: whichever score
    the pilot picks, the count of p <= 0.05 lies inside the binomial 99% band (0 to 9 of 60)."""
    pvalues = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(60):
            X, y = _planted(100 + seed, signal=False)
            cert = search_certificate(
                CN2Classifier(), X[:, :20], y, n_permutations=19, random_state=seed
            )
            pvalues.append(cert.pvalue)  # "cv" or, where 20 genes do not saturate, "search"
    pvalues = np.array(pvalues)
    lo, hi = stats.binom.ppf([0.005, 0.995], 60, 0.05)
    assert lo <= np.count_nonzero(pvalues <= 0.05) <= hi
    assert np.mean(pvalues) > 0.35  # not piled up near 0 (uniform: 0.5, SE 0.037)
