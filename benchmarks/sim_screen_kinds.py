"""Per-kind null rates and mean-shift power of ClassDifferenceScreen (quick simulation).

python benchmarks/sim_screen_kinds.py null   # global nulls of mixed kinds
python benchmarks/sim_screen_kinds.py power  # mean shifts vs the moderated F reference
python benchmarks/sim_screen_kinds.py spread # spread-only differences
"""

import sys
import time
import warnings

import numpy as np

from widefs.stats import benjamini_hochberg, linear_model_fit, moderated_f
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._kinds import class_design

KINDS = ("gaussian", "lognormal", "zero_inflated", "cauchy", "binary2")


def mixed(rng, n, m_gauss, m_minor):
    blocks = [rng.normal(size=(n, m_gauss))]
    blocks.append(np.exp(rng.normal(size=(n, m_minor))))
    zi = rng.poisson(rng.gamma(2, 3, size=m_minor), size=(n, m_minor)) * (
        rng.random((n, m_minor)) < 0.5
    )
    blocks.append(zi.astype(float))
    blocks.append(rng.standard_cauchy(size=(n, m_minor)))
    b = np.zeros((n, m_minor))
    for j in range(m_minor):
        b[rng.choice(n, 2, replace=False), j] = 1
    blocks.append(b)
    labels = np.repeat(np.arange(5), [m_gauss] + [m_minor] * 4)
    return np.hstack(blocks), labels


def null(sizes, reps, m_gauss=4000, m_minor=1000):
    y = np.repeat(np.arange(len(sizes)), sizes)
    hits = {k: [0, 0, 0] for k in KINDS}
    for r in range(reps):
        rng = np.random.default_rng(r)
        X, lab = mixed(rng, y.size, m_gauss, m_minor)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = ClassDifferenceScreen(random_state=r).fit(X, y)
        for i, k in enumerate(KINDS):
            p = s.pvalues_[lab == i]
            hits[k][0] += np.sum(p <= 1e-3)
            hits[k][1] += np.sum(p <= 1e-2)
            hits[k][2] += p.size
    for k, (a, b, c) in hits.items():
        print(
            f"{sizes} {k:14s} p<=1e-3: {a / c:.2e} (SE {np.sqrt(1e-3 / c):.1e})  p<=0.01: {b / c:.4f}"
        )


def power(sizes, reps, shift=1.0, m=10000, true=300, q=0.05):
    y = np.repeat(np.arange(len(sizes)), sizes)
    D = class_design(y, len(sizes))
    out = {"screen": [], "moderated F": []}
    fdp = []
    for r in range(reps):
        rng = np.random.default_rng(100 + r)
        sd = np.sqrt(0.25 * 4 / rng.chisquare(4, m))  # limma-like variance prior
        X = rng.normal(size=(y.size, m)) * sd
        X[:, :true] += shift * (y[:, None] == 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = ClassDifferenceScreen(alpha=q, random_state=r).fit(X, y)
        ref = moderated_f(linear_model_fit(X, D), list(range(1, len(sizes)))).pvalues
        out["screen"].append(s.support_[:true].mean())
        out["moderated F"].append((benjamini_hochberg(ref) <= q)[:true].mean())
        fdp.append(s.support_[true:].sum() / max(1, s.support_.sum()))
    print(
        sizes,
        {k: round(float(np.mean(v)), 4) for k, v in out.items()},
        "FDR",
        round(float(np.mean(fdp)), 4),
    )


def spread(n_per, reps, ratio=2.5, m=10000, true=300, q=0.05):
    y = np.repeat([0, 1], n_per)
    pw = []
    for r in range(reps):
        rng = np.random.default_rng(200 + r)
        X = rng.normal(size=(y.size, m))
        X[:, :true] *= np.where(y == 1, ratio, 1.0)[:, None]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = ClassDifferenceScreen(alpha=q, random_state=r).fit(X, y)
        pw.append(s.support_[:true].mean())
    print("spread", n_per, round(float(np.mean(pw)), 4))


if __name__ == "__main__":
    t = time.time()
    what = sys.argv[1]
    if what == "null":
        for sizes in ((4, 10, 30), (8, 40)):
            null(sizes, int(sys.argv[2]) if len(sys.argv) > 2 else 3)
    elif what == "power":
        reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
        for sizes, shift in (((4, 4), 1.6), ((6, 6), 1.2), ((10, 10), 0.9), ((8, 8, 8, 8), 1.0)):
            for q in (0.05, 0.1):
                power(sizes, reps, shift=shift, q=q)
    else:
        for n_per in (15, 30):
            spread(n_per, int(sys.argv[2]) if len(sys.argv) > 2 else 3)
    print(f"{time.time() - t:.0f} s")
