"""Plain-Python references of the Set Covering Machine greedies, shared by the scm tests."""

import itertools

import numpy as np
import pytest

from widefs.scm import dyadic_bits


def ref_hard_greedy(
    X, y_pos, *, utility, p, max_rules, eta=0.0, lo=None, hi=None, positives="all", reuse=False
):
    """Literal greedy: every feature, every cut between distinct remaining values, both sides.

    Stops when no negative remains, after ``max_rules`` stumps, when the best stump covers
    no remaining negative, or (sample compression) when the best utility is not positive.
    """
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
        if best is None or best[6] == 0 or (utility == "sc" and -best[0][0] <= 0):
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


@pytest.fixture
def literal_greedy():
    """The literal hard greedy of Section VI (every cut of every feature, both sides)."""
    return ref_hard_greedy


@pytest.fixture
def tie_data():
    """``tie_data(seed, m=30, n=8, levels=5)``: integer-valued data with heavy ties."""
    return _data
