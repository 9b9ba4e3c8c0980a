"""Greedy learners against plain-Python references of Section VI (Shah et al. 2010)."""

import itertools
import math

import numpy as np
import pytest

from widefs.scm import _greedy as greedy_mod
from widefs.scm import _pac_bayes as pb_mod
from widefs.scm import dyadic_bits
from widefs.scm._greedy import hard_greedy
from widefs.scm._pac_bayes import soft_greedy


def ref_hard_greedy(
    X, y_pos, *, utility, p, max_rules, eta=0.0, lo=None, hi=None, positives="all", reuse=False
):
    """Literal greedy: every feature, every cut between distinct remaining values, both sides."""
    m, n = X.shape
    active = np.ones(m, bool)
    out = []
    while len(out) < max_rules:
        n_rem = float((active & ~y_pos).sum())
        if n_rem == 0:
            break
        p_norm = float(y_pos.sum()) if positives == "all" else float((active & y_pos).sum())
        p_norm = max(p_norm, 1.0)
        best = None
        used = set() if reuse else {o[0] for o in out}  # one stump per attribute
        for f in range(n):
            if f in used:
                continue
            vals = np.unique(X[active, f])
            for a, b in itertools.pairwise(vals):
                for side in (0, 1):
                    cov = active & ((X[:, f] <= a) if side == 0 else (X[:, f] > a))
                    q = float((cov & ~y_pos).sum())
                    r = float((cov & y_pos).sum())
                    if utility == "sc":
                        u, bits, t = q - p * r, 0, a
                    else:
                        bits, t = dyadic_bits(a, b, lo[f], hi[f])
                        u = q / n_rem - p * r / p_norm - eta * bits
                    # utility desc, (q - r) desc, feature asc, threshold asc, side asc
                    key = (-u, -(q - r), f, a, side)
                    if best is None or key < best[0]:
                        best = (key, f, side, t, bits, cov, q)
        if best is None or best[6] == 0:
            break
        _, f, side, t, bits, cov, _ = best
        out.append((f, 1 if side == 0 else -1, t, bits))
        active &= ~cov
    return out


def _data(seed, m=30, n=8, levels=5):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(m, n)).astype(float) * 1.3 - 2.0  # heavy ties
    y = (X[:, 0] + X[:, 1] + rng.normal(size=m) > -1.5) ^ (rng.random(m) < 0.15)
    return X, y


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("p", [0.5, 1.0, 3.0])
def test_sample_compression_greedy_matches_reference(seed, p):
    X, y = _data(seed)
    got = hard_greedy(X, y, utility="sc", p=p, max_rules=6)
    ref = ref_hard_greedy(X, y, utility="sc", p=p, max_rules=6)
    assert [(s.feature, s.direction, s.threshold) for s in got] == [r[:3] for r in ref]


@pytest.mark.parametrize("seed", range(4))
def test_feature_reuse_greedy_matches_reference(seed):
    X, y = _data(seed, n=3)  # few features: reuse happens
    got = hard_greedy(X, y, utility="sc", p=2.0, max_rules=8, feature_reuse=True)
    ref = ref_hard_greedy(X, y, utility="sc", p=2.0, max_rules=8, reuse=True)
    assert [(s.feature, s.direction, s.threshold) for s in got] == [r[:3] for r in ref]
    if seed in (0, 2):  # these draws do put two stumps on one feature
        assert len({s.feature for s in got}) < len(got)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("eta", "positives"), [(0.0, "all"), (0.02, "all"), (0.05, "remaining")])
def test_occam_greedy_matches_reference(seed, eta, positives):
    X, y = _data(seed, levels=9)
    lo, hi = X.min(axis=0) - 0.7, X.max(axis=0) + 2.1
    kw = {"utility": "occam", "p": 1.5, "max_rules": 5, "eta": eta, "positives": positives}
    got = hard_greedy(X, y, feature_range=(lo, hi), **kw)
    ref = ref_hard_greedy(X, y, lo=lo, hi=hi, **kw)
    assert [(s.feature, s.direction, s.threshold, s.bits) for s in got] == ref


def test_lazy_compaction_does_not_change_the_model(monkeypatch):
    X, y = _data(7, m=60, n=20)
    eager = hard_greedy(X, y, utility="sc", p=1.0, max_rules=8)
    monkeypatch.setattr(greedy_mod, "_COMPACT_BELOW", 0.0)  # never compact
    lazy = hard_greedy(X, y, utility="sc", p=1.0, max_rules=8)
    assert [(s.feature, s.direction, s.threshold) for s in eager] == [
        (s.feature, s.direction, s.threshold) for s in lazy
    ]


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
        assert s.a == pytest.approx(a, rel=1e-12) and s.b == pytest.approx(b, rel=1e-12)


def test_soft_greedy_lazy_compaction_invariant(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6))
    y = X[:, 1] > -0.3
    lo, hi = np.full(6, -6.0), np.full(6, 6.0)
    eager = soft_greedy(X, y, lo, hi, p=1.0, eta=0.01, max_rules=5)
    monkeypatch.setattr(pb_mod, "_COMPACT_BELOW", 0.0)
    lazy = soft_greedy(X, y, lo, hi, p=1.0, eta=0.01, max_rules=5)
    assert [(s.feature, s.direction, s.a, s.b) for s in eager] == [
        (s.feature, s.direction, s.a, s.b) for s in lazy
    ]


def test_fixed_margin_intervals_have_the_fixed_width():
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 10, size=(40, 5))
    y = X[:, 2] > 4
    lo, hi = np.zeros(5), np.full(5, 10.0)
    stumps = soft_greedy(X, y, lo, hi, p=1.0, eta=0.0, max_rules=3, margin=0.05)
    assert stumps[0].feature == 2
    for s in stumps:
        # width 2 * 0.05 * 10 unless clipped at the range ends; t in the middle
        assert s.b - s.a == pytest.approx(1.0) or s.a == 0.0 or s.b == 10.0
        assert s.a <= s.threshold <= s.b
