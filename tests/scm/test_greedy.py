"""Greedy learners against plain-Python references of Section VI (Shah et al. 2010)."""

import math

import numpy as np
import pytest

from widefs.scm import _occam as occam_mod
from widefs.scm import _pac_bayes as pb_mod
from widefs.scm import _parallel
from widefs.scm._covering import sc_greedy
from widefs.scm._occam import occam_greedy
from widefs.scm._pac_bayes import soft_greedy


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("p", [0.5, 1.0, 3.0])
def test_sample_compression_greedy_matches_reference(literal_greedy, tie_data, seed, p):
    X, y = tie_data(seed)
    got = sc_greedy(X, y, p=p, max_rules=6)
    ref = literal_greedy(X, y, utility="sc", p=p, max_rules=6)
    assert [(s.feature, s.direction, s.threshold) for s in got] == [r[:3] for r in ref]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("reuse", [False, True])
def test_feature_reuse_greedy_matches_reference(literal_greedy, tie_data, seed, reuse):
    X, _ = tie_data(seed, n=3, levels=7)
    # Positives in the middle of feature 0: the conjunction of x0 > a and x0 <= b.
    y = (np.abs(X[:, 0] - 1.9) < 2.0) ^ (np.random.default_rng(seed).random(30) < 0.1)
    got = sc_greedy(X, y, p=2.0, max_rules=8, feature_reuse=reuse)
    ref = literal_greedy(X, y, utility="sc", p=2.0, max_rules=8, reuse=reuse)
    assert [(s.feature, s.direction, s.threshold) for s in got] == [r[:3] for r in ref]
    features = [s.feature for s in got]
    assert len(set(features)) < len(features) if reuse else len(set(features)) == len(features)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("eta", "positives"), [(0.0, "all"), (0.02, "all"), (0.05, "remaining")])
def test_occam_greedy_matches_reference(literal_greedy, tie_data, seed, eta, positives):
    X, y = tie_data(seed, levels=9)
    lo, hi = X.min(axis=0) - 0.7, X.max(axis=0) + 2.1
    kw = {"p": 1.5, "max_rules": 5, "eta": eta, "positives": positives}
    got = occam_greedy(X, y, lo, hi, **kw)
    ref = literal_greedy(X, y, utility="occam", lo=lo, hi=hi, **kw)
    assert [(s.feature, s.direction, s.threshold, s.bits) for s in got] == ref


@pytest.mark.parametrize("compact_below", [0.0, 1.01])  # never, always
@pytest.mark.parametrize("seed", range(2))
def test_occam_compaction_does_not_change_the_model(
    literal_greedy, monkeypatch, compact_below, seed
):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 9, size=(60, 20)).astype(float) * 1.3 - 2.0
    y = X[:, 0] + X[:, 1] + 2 * rng.normal(size=60) > 3.5
    lo, hi = X.min(axis=0) - 1.0, X.max(axis=0) + 1.0
    ref = literal_greedy(X, y, utility="occam", p=6.0, eta=0.01, lo=lo, hi=hi, max_rules=8)
    monkeypatch.setattr(occam_mod, "_COMPACT_BELOW", compact_below)
    got = occam_greedy(X, y, lo, hi, p=6.0, eta=0.01, max_rules=8)
    assert len(ref) >= 6  # most examples are removed: compaction happens
    assert [(s.feature, s.direction, s.threshold, s.bits) for s in got] == ref


def sigma(x, d, a, b):
    if x < a:
        r = 0.0
    elif x > b:
        r = 1.0
    else:
        r = (x - a) / (b - a)
    return r if d > 0 else 1.0 - r


def ref_soft_greedy(X, y_pos, lo, hi, p, eta, max_rules):
    """O(n m^3) soft greedy of Section VI-B: each interval's C and E summed directly."""
    m, n = X.shape
    w = np.ones(m)
    n_pos = max(float(y_pos.sum()), 1.0)
    out = []
    while len(out) < max_rules:
        n_rem = w[~y_pos].sum()
        if n_rem <= 0:
            break
        best = None
        for f in range(n):
            if f in {o[0] for o in out}:
                continue
            vals = np.unique(X[w > 0, f])
            for i, a in enumerate(vals):
                for b in vals[i + 1 :]:
                    for d in (1, -1):
                        c = sum(
                            w[k] * (1 - sigma(X[k, f], d, a, b)) for k in range(m) if not y_pos[k]
                        )
                        e = sum(w[k] * (1 - sigma(X[k, f], d, a, b)) for k in range(m) if y_pos[k])
                        u = c / n_rem - p * e / n_pos - eta * math.log((hi[f] - lo[f]) / (b - a))
                        if best is None or u > best[0] + 1e-12:
                            best = (u, f, d, a, b, c)
        if best is None or best[5] <= 0:
            break
        u, f, d, a, b, c = best
        out.append((f, d, a, b, u))
        w = w * np.array([sigma(x, d, a, b) for x in X[:, f]])
    return out


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("p", "eta"), [(1.0, 0.0), (2.0, 0.05)])
def test_soft_greedy_matches_direct_sums(seed, p, eta):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(14, 4)) * 3 + 10  # continuous: no exact utility ties
    y = X[:, 0] + rng.normal(size=14) > 10
    lo, hi = np.full(4, -5.0), np.full(4, 25.0)
    got = soft_greedy(X, y, lo, hi, p=p, eta=eta, max_rules=3)
    ref = ref_soft_greedy(X, y, lo, hi, p, eta, 3)
    assert len(got) == len(ref)
    for s, (f, d, a, b, _) in zip(got, ref):
        assert (s.feature, s.direction) == (f, d)
        assert s.interval == pytest.approx((a, b), rel=1e-12)


def test_soft_greedy_lazy_compaction_invariant(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6))
    y = X[:, 1] > -0.3
    lo, hi = np.full(6, -6.0), np.full(6, 6.0)
    eager = soft_greedy(X, y, lo, hi, p=1.0, eta=0.01, max_rules=5)
    monkeypatch.setattr(pb_mod, "_COMPACT_BELOW", 0.0)
    lazy = soft_greedy(X, y, lo, hi, p=1.0, eta=0.01, max_rules=5)
    assert [(s.feature, s.direction, s.interval) for s in eager] == [
        (s.feature, s.direction, s.interval) for s in lazy
    ]


def test_fixed_margin_intervals_have_the_fixed_width():
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 10, size=(40, 5))
    y = X[:, 2] > 4
    lo, hi = np.zeros(5), np.full(5, 10.0)
    stumps = soft_greedy(X, y, lo, hi, p=1.0, eta=0.0, max_rules=3, margin=0.05)
    assert stumps[0].feature == 2
    for s in stumps:
        a, b = s.interval
        # width 2 * 0.05 * 10 unless clipped at the range ends; t in the middle
        assert b - a == pytest.approx(1.0) or a == 0.0 or b == 10.0
        assert a <= s.threshold <= b


def test_threads_over_feature_blocks_change_nothing(literal_greedy, monkeypatch):
    # Worker threads scan one block of features each; a later block wins only when
    # strictly better, so ties still go to the lowest feature index.
    rng = np.random.default_rng(3)
    X = rng.integers(0, 9, size=(50, 31)).astype(float)
    X[:, 20:] = X[:, :11]  # copies in a later block: ties across blocks
    y = X[:, 0] + X[:, 1] + 2 * rng.normal(size=50) > 7.5
    lo, hi = np.full(31, -1.0), np.full(31, 10.0)
    serial_occam = occam_greedy(X, y, lo, hi, p=3.0, eta=0.01, max_rules=6)
    serial_pb = soft_greedy(X, y, lo, hi, p=1.0, eta=0.01, max_rules=3)
    monkeypatch.setattr(_parallel, "THREADS_MIN_ENTRIES", 0)
    monkeypatch.setattr(_parallel, "n_threads", lambda n_blocks: min(3, n_blocks))
    threaded_occam = occam_greedy(X, y, lo, hi, p=3.0, eta=0.01, max_rules=6)
    threaded_pb = soft_greedy(X, y, lo, hi, p=1.0, eta=0.01, max_rules=3)
    ref = literal_greedy(X, y, utility="occam", p=3.0, eta=0.01, lo=lo, hi=hi, max_rules=6)
    assert len(ref) >= 3 and all(f < 20 for f, *_ in ref)
    assert [(s.feature, s.direction, s.threshold, s.bits) for s in threaded_occam] == ref
    assert serial_occam == threaded_occam and serial_pb == threaded_pb
