"""Every fitted SCM's bounds against exact references recomputed from the model's own counts.

For each prefix of the learned stumps the test recounts, from the training data and the
fitted rules alone, what the theorem needs (training errors, the compression set and the
errors outside it, code lengths, Gibbs risk and margin ratios) and evaluates the bound
with exact integer binomials (``math.comb``) and mpmath, independently of
``widefs.scm._bounds``. Planted bugs these tests catch (checked by hand): compression set
size off by one, message prior without ``2^k`` or with ``C(n, k - 1)``, a ``k!`` too many or
too few, ``zeta(|j|)`` dropped or replaced by ``zeta(|i|)``, ``delta`` split in two, errors
inside the compression set counted, Occam code lengths off by one, PAC-Bayes ``ln((m+1)/delta)``
replaced by ``ln(m/delta)``.
"""

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM

mp.mp.dps = 40


def zeta(a):
    return mp.mpf(6) / mp.pi**2 / (a + 1) ** 2


def message_count(n, k, reuse):
    """Attribute sets and directions of k stumps over n attributes (the prior's denominator)."""
    return math.comb(2 * n + k - 1, k) if reuse else math.comb(n, k) * 2**k


def sc_exact(j, m, n, k, delta, prior, reuse):
    """Eqs. 4-5 of Shah et al. (2010) in exact arithmetic."""
    free = m - k - j
    if free <= 0:
        return mp.mpf(1)
    message = message_count(n, k, reuse) * (math.factorial(k) if prior == "ordered" else 1)
    total = (
        mp.log(math.comb(m, k))
        + mp.log(math.comb(m - k, j))
        + mp.log(message)
        - mp.log(zeta(k) * zeta(j) * mp.mpf(delta))
    )
    return 1 - mp.exp(-total / free)


def binbar_exact(errors, m, delta):
    """sup{r : sum_{i <= errors} C(m, i) r^i (1 - r)^(m - i) >= delta} (bisection, 1e-30)."""
    lo, hi = mp.mpf(0), mp.mpf(1)
    for _ in range(100):
        mid = (lo + hi) / 2
        tail = mp.fsum(math.comb(m, i) * mid**i * (1 - mid) ** (m - i) for i in range(errors + 1))
        lo, hi = (mid, hi) if tail >= delta else (lo, mid)
    return lo


def occam_exact(errors, m, n, bits, delta, reuse):
    """Theorem 2 of Shah et al. (2010) in exact arithmetic."""
    k = len(bits)
    g = mp.fprod(zeta(b) * mp.mpf(2) ** -b for b in bits)
    return binbar_exact(errors, m, zeta(k) * g * mp.mpf(delta) / message_count(n, k, reuse))


def pac_bayes_exact(gibbs, m, n, ratios, delta, reuse):
    """Theorem 5 of Shah et al. (2010): sup{eps : kl(gibbs || eps) <= psi} (bisection)."""
    k = len(ratios)
    kl_qp = mp.log(message_count(n, k, reuse) / zeta(k)) - mp.fsum(mp.log(r) for r in ratios)
    psi = (kl_qp + mp.log(mp.mpf(m + 1) / mp.mpf(delta))) / m
    q = mp.mpf(gibbs)
    lo, hi = q, mp.mpf(1)
    for _ in range(100):
        mid = (lo + hi) / 2
        kl = (q * mp.log(q / mid) if q > 0 else 0) + (1 - q) * mp.log((1 - q) / (1 - mid))
        lo, hi = (mid, hi) if kl <= psi else (lo, mid)
    return lo


def _data(kind, seed, m=36, n=10):
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        X, t = rng.normal(size=(m, n)), (0.0, 0.5, -0.5)
    else:  # few values: many examples carry each threshold
        X, t = rng.integers(0, 4, size=(m, n)).astype(float), (0.5, 2.5, 0.5)
    rule = (X[:, 1] > t[0]) & (X[:, 4] < t[1]) & (X[:, 7] > t[2])
    return X, np.where(rule ^ (rng.random(m) < 0.1), "b", "a")


def _outside_errors(X, rules, wrong):
    """Fewest errors outside a compression set of ``k`` distinct examples, one carrier of
    each rule's threshold or, where no distinct carrier is left, a correctly classified
    example (brute force over every choice; None stands for such a pad)."""
    carriers = [[*np.flatnonzero(X[:, r.feature] == r.threshold).tolist(), None] for r in rules]
    inside = 0
    for choice in itertools.product(*carriers):
        real = [c for c in choice if c is not None]
        if len(set(real)) == len(real):
            inside = max(inside, sum(bool(wrong[c]) for c in real))
    return int(wrong.sum()) - inside


SC_CASES = [
    # (data, seed, model_type, p, prior, reuse, delta)
    ("continuous", 0, "conjunction", 1.0, "paper", False, 0.05),
    ("continuous", 1, "disjunction", 0.5, "ordered", False, 0.2),
    ("integers", 2, "conjunction", 0.7, "paper", True, 0.05),
    ("integers", 7, "disjunction", 0.5, "ordered", True, 0.01),
    ("integers", 4, "conjunction", 0.5, "ordered", False, 0.1),
]


@pytest.mark.parametrize(("kind", "seed", "model_type", "p", "prior", "reuse", "delta"), SC_CASES)
def test_sample_compression_bound_path_is_exact(kind, seed, model_type, p, prior, reuse, delta):
    X, y = _data(kind, seed)
    m, n = X.shape
    clf = SampleCompressionSCM(
        model_type, p=p, delta=delta, select="none", message_prior=prior, feature_reuse=reuse
    ).fit(X, y)
    k_all = len(clf.rules_)
    assert k_all >= 2 and clf.bound_path_.shape == (k_all + 1,)
    for k, pred in enumerate(clf.staged_predict(X)):
        wrong = pred != y
        j = _outside_errors(X, clf.rules_[:k], wrong)
        assert clf.bound_path_[k] == pytest.approx(
            float(sc_exact(j, m, n, k, delta, prior, reuse)), rel=1e-10, abs=1e-12
        )
    # The kept model's own compression set: distinct examples, carriers of the thresholds
    # or correctly classified pads.
    cs = clf.compression_set_
    wrong = clf.predict(X) != y
    assert len(set(cs.tolist())) == k_all
    for i, r in zip(cs, clf.rules_, strict=True):
        assert X[i, r.feature] == r.threshold or not wrong[i]
    j = int(wrong.sum() - wrong[cs].sum())
    exact = float(sc_exact(j, m, n, k_all, delta, prior, reuse))
    assert clf.risk_bound_ == pytest.approx(exact, rel=1e-10)
    assert clf.empirical_risk_ == wrong.mean()


def test_sample_compression_select_keeps_the_prefix_of_smallest_exact_bound():
    X, y = _data("continuous", 12)
    m, n = X.shape
    full = SampleCompressionSCM(p=0.5, select="none").fit(X, y)
    exact = []
    for k, pred in enumerate(full.staged_predict(X)):
        j = _outside_errors(X, full.rules_[:k], pred != y)
        exact.append(float(sc_exact(j, m, n, k, 0.05, "paper", False)))
    best = int(np.argmin(exact))
    assert 0 < best < len(full.rules_)  # a proper prefix: selection matters here
    kept = SampleCompressionSCM(p=0.5).fit(X, y)
    assert kept.bound_path_.tolist() == full.bound_path_.tolist()
    assert kept.rules_ == full.rules_[:best]
    assert kept.risk_bound_ == pytest.approx(exact[best], rel=1e-10)


def test_an_example_carrying_two_thresholds_is_counted_once():
    # In these data one example carries the thresholds of both rules: the compression set
    # still holds two distinct examples (the second a correctly classified pad), and that
    # example counts once among the errors it removes from outside the set.
    X, y = _data("continuous", 0)
    clf = SampleCompressionSCM(select="none").fit(X, y)
    carrier = [np.flatnonzero(X[:, r.feature] == r.threshold) for r in clf.rules_]
    assert len(clf.rules_) == 2 and carrier[0].tolist() == carrier[1].tolist()
    cs, wrong = clf.compression_set_, clf.predict(X) != y
    assert cs[0] == carrier[0][0] and cs[1] != cs[0] and not wrong[cs[1]]
    j = int(wrong.sum() - wrong[carrier[0][0]])
    m, n = X.shape
    assert clf.risk_bound_ == pytest.approx(float(sc_exact(j, m, n, 2, 0.05, "paper", False)))


OCCAM_CASES = [
    ("continuous", 0, "conjunction", 1.0, 0.01, False, 0.05),
    ("integers", 1, "disjunction", 2.0, 0.0, True, 0.2),
    ("continuous", 2, "conjunction", 0.5, 0.02, False, 0.01),
]


@pytest.mark.parametrize(("kind", "seed", "model_type", "p", "eta", "reuse", "delta"), OCCAM_CASES)
def test_occam_bound_path_is_exact(kind, seed, model_type, p, eta, reuse, delta):
    X, y = _data(kind, seed)
    m, n = X.shape
    lo, hi = np.full(n, -5.0), np.full(n, 5.0)
    clf = OccamSCM(
        model_type, p=p, eta=eta, delta=delta, select="none", feature_range=(lo, hi),
        feature_reuse=reuse,
    ).fit(X, y)  # fmt: skip
    assert len(clf.rules_) >= 2
    for k, pred in enumerate(clf.staged_predict(X)):
        # the threshold is the dyadic grid point of its code length
        for r in clf.rules_[:k]:
            j = (r.threshold - lo[r.feature]) / (hi[r.feature] - lo[r.feature]) * 2 ** (r.bits + 1)
            assert j == round(j) and round(j) % 2 == 1
        bits = [r.bits for r in clf.rules_[:k]]
        exact = occam_exact(int(np.sum(pred != y)), m, n, bits, delta, reuse)
        assert clf.bound_path_[k] == pytest.approx(float(exact), rel=1e-9)
    assert clf.risk_bound_ == clf.bound_path_[-1]


PB_CASES = [
    ("continuous", 0, "conjunction", 1.0, 0.01, False, 0.05),
    ("continuous", 3, "disjunction", 2.0, 0.05, True, 0.1),
    ("integers", 1, "conjunction", 1.0, 0.02, False, 0.05),
]


@pytest.mark.parametrize(("kind", "seed", "model_type", "p", "eta", "reuse", "delta"), PB_CASES)
def test_pac_bayes_bound_path_is_exact(kind, seed, model_type, p, eta, reuse, delta):
    X, y = _data(kind, seed)
    m, n = X.shape
    clf = PACBayesSCM(
        model_type, p=p, eta=eta, delta=delta, select="none", feature_range=(-5.0, 5.0),
        feature_reuse=reuse,
    ).fit(X, y)  # fmt: skip
    assert len(clf.rules_) >= 2
    positive = y == clf.classes_[1]
    for k, proba in enumerate(clf.staged_predict_proba(X)):
        gibbs = np.mean(np.where(positive, proba[:, 0], proba[:, 1]))  # P(wrong class)
        ratios = [(r.interval[1] - r.interval[0]) / 10.0 for r in clf.rules_[:k]]
        exact = pac_bayes_exact(gibbs, m, n, ratios, delta, reuse)
        assert clf.bound_path_[k] == pytest.approx(float(exact), rel=1e-9)
    assert clf.gibbs_risk_ == pytest.approx(gibbs, rel=1e-12)
    np.testing.assert_allclose(clf.margin_ratios_, ratios, rtol=1e-12)
    assert clf.bayes_risk_bound_ == min(1.0, 2.0 * clf.risk_bound_)
