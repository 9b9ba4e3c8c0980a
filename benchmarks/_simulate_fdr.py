"""Data-generating processes of the FDR benchmark (``benchmarks/bench_fdr.py``).

Every replicate is a pure function of its regime and seed, so every method sees the same
data. Matrices are samples x features; the true features come first.

- ``microarray``: log-expression, gene-wise variances from limma's own prior (scaled
  inverse chi-square, d0 = 4, s0 = 0.3, Smyth 2004), 2-5% of the genes shifted by a
  log2-fold-change of +-1 (two classes: class 1; more classes: one class chosen per gene).
- ``rnaseq``: negative-binomial counts; gene means log-normal (median 55 reads at the
  average depth), dispersion 0.04 + 0.6 / sqrt(mean) with log-normal scatter (biological CV
  about 0.2-0.8), library sizes varying 4-fold, 2-5% of the genes 2-fold up or down in
  class 1.
- ``shifted`` (the location, spread and bimodal regimes with Gaussian or t3 noise, blocks
  of correlated features) and ``null`` (global nulls of those kinds).
- ``mixed_null``: a global null whose features come in kinds (Gaussian, log-normal,
  zero-inflated counts, Cauchy, binary with two carriers), to measure each kind's null.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KINDS = ("gaussian", "lognormal", "zero-inflated", "cauchy", "binary, 2 carriers")


@dataclass(frozen=True)
class Regime:
    """A data-generating process: class sizes, features, true features and their effect."""

    label: str
    group: str  # "microarray", "rnaseq", "spread", "existing" or "mixed null"
    classes: tuple
    n_features: int
    n_true: int = 0
    kind: str = "mean"  # "mean", "variance", "bimodal", "null", "microarray", "rnaseq", "mixed"
    noise: str = "normal"  # "normal" or "t3"
    effect: float = 0.0
    rho: float = 0.0  # within-block correlation (blocks of 50)
    cv: object = "halves"  # the paper protocol's splits
    describe: str = ""
    kind_sizes: tuple = ()  # mixed nulls: features of each of KINDS

    @property
    def mean_shift(self) -> bool:
        return self.kind in ("mean", "microarray", "rnaseq")


def _noise(rng, n, p, regime):
    draw = (lambda size: rng.standard_t(3, size)) if regime.noise == "t3" else rng.standard_normal
    if regime.rho == 0:
        return draw((n, p))
    shared = draw((n, p // 50, 1))
    own = draw((n, p // 50, 50))
    return (np.sqrt(regime.rho) * shared + np.sqrt(1 - regime.rho) * own).reshape(n, p)


def _labels(regime):
    return np.repeat(np.arange(len(regime.classes)), regime.classes)


def _n_true(rng, regime):
    """2-5% of the genes, drawn per replicate."""
    return round(rng.uniform(0.02, 0.05) * regime.n_features)


def microarray(regime: Regime, seed: int):
    """Log-expression with limma's variance prior; ``(X, y, truth)``."""
    rng = np.random.default_rng(seed)
    y = _labels(regime)
    p, k = regime.n_features, _n_true(rng, regime)
    sd = np.sqrt(4 * 0.3**2 / rng.chisquare(4, p))
    X = rng.normal(8.0, 2.0, p) + sd * rng.standard_normal((y.size, p))
    lfc = rng.choice([-1.0, 1.0], k)
    target = (
        np.ones(k, int) if len(regime.classes) == 2 else rng.integers(0, len(regime.classes), k)
    )
    X[:, :k] += lfc * (y[:, None] == target[None, :])
    truth = np.arange(p) < k
    return X, y, truth


def rnaseq(regime: Regime, seed: int):
    """Negative-binomial counts (samples x genes), integer dtype; ``(X, y, truth)``."""
    rng = np.random.default_rng(seed)
    y = _labels(regime)
    p, k = regime.n_features, _n_true(rng, regime)
    base = np.exp(rng.normal(4.0, 2.0, p))
    phi = (0.04 + 0.6 / np.sqrt(base)) * np.exp(rng.normal(0.0, 0.4, p))
    depth = np.exp(rng.uniform(np.log(0.5), np.log(2.0), y.size))
    fold = np.ones((y.size, p))
    fold[:, :k] = np.where(y[:, None] == 1, 2.0 ** rng.choice([-1.0, 1.0], k), 1.0)
    mu = depth[:, None] * base[None, :] * fold
    X = rng.poisson(rng.gamma(1.0 / phi, mu * phi)).astype(np.int64)
    return X, y, np.arange(p) < k


def shifted(regime: Regime, seed: int):
    """The location, spread, bimodal and null regimes; ``(X, y, truth)``."""
    rng = np.random.default_rng(seed)
    y = _labels(regime)
    X = _noise(rng, y.size, regime.n_features, regime)
    k = regime.n_true
    if regime.kind == "mean":
        X[:, :k] += regime.effect * y[:, None]
    elif regime.kind == "variance":
        X[:, :k] *= np.where(y == 1, regime.effect, 1.0)[:, None]
    elif regime.kind == "bimodal":
        sign = rng.choice([-1.0, 1.0], size=(y.size, k))
        mixture = regime.effect * sign + 0.5 * rng.standard_normal((y.size, k))
        X[:, :k] = np.where(y[:, None] == 1, mixture, np.sqrt(2.5) * X[:, :k])
    return X, y, np.arange(regime.n_features) < k


def mixed_null(regime: Regime, seed: int):
    """A global null of several kinds of features; ``(X, y, kind)`` with ``kind`` per feature."""
    rng = np.random.default_rng(seed)
    y = _labels(regime)
    n = y.size
    blocks = []
    for name, size in zip(KINDS, regime.kind_sizes, strict=True):
        if name == "gaussian":
            block = rng.standard_normal((n, size))
        elif name == "lognormal":
            block = np.exp(1.5 * rng.standard_normal((n, size)))
        elif name == "zero-inflated":
            counts = rng.poisson(rng.gamma(2.0, 10.0, (n, size)))  # NB, mean 20, dispersion 0.5
            block = np.where(rng.random((n, size)) < 0.7, 0, counts).astype(float)
        elif name == "cauchy":
            block = rng.standard_cauchy((n, size))
        else:
            carriers = rng.random((n, size)).argsort(axis=0)[:2]
            block = np.zeros((n, size))
            block[carriers, np.arange(size)] = 1.0
        blocks.append(block)
    kind = np.repeat(np.arange(len(KINDS)), regime.kind_sizes)
    return np.hstack(blocks), y, kind


def make_data(regime: Regime, seed: int):
    """``(X, y, truth_or_kind)`` of one replicate of any regime."""
    if regime.kind == "microarray":
        return microarray(regime, seed)
    if regime.kind == "rnaseq":
        return rnaseq(regime, seed)
    if regime.kind == "mixed":
        return mixed_null(regime, seed)
    return shifted(regime, seed)


def _mixed(classes):
    label = "/".join(map(str, classes))
    return Regime(
        f"mixed null, {label}",
        "mixed null",
        classes,
        3000,
        kind="mixed",
        kind_sizes=(2000, 250, 250, 250, 250),
        describe="2000 Gaussian; 250 each of log-normal (exp of N(0, 1.5^2)), zero-inflated "
        "negative-binomial counts (70% zeros, else mean 20), standard Cauchy, and binary with "
        "exactly two carriers placed at random; no signal",
    )


REGIMES = (
    *(
        Regime(
            f"microarray {'v'.join(map(str, c)) if len(c) == 2 else '4 classes x 8'}",
            "microarray",
            c,
            10_000,
            kind="microarray",
            describe="10,000 genes; variances from a scaled inverse chi-square prior (d0 = 4, "
            "s0 = 0.3); 2-5% of the genes shifted by log2-fold-change +-1"
            + (" in one class" if len(c) > 2 else ""),
        )
        for c in ((4, 4), (6, 6), (10, 10), (8, 8, 8, 8))
    ),
    *(
        Regime(
            f"RNA-seq {c[0]}v{c[1]}",
            "rnaseq",
            c,
            10_000,
            kind="rnaseq",
            describe="10,000 genes of negative-binomial counts: gene means log-normal (median 55 "
            "reads), dispersion (0.04 + 0.6 / sqrt(mean)) x log-normal scatter, library sizes "
            "varying 4-fold; 2-5% of the genes 2-fold up or down",
        )
        for c in ((4, 4), (6, 6), (10, 10))
    ),
    *(
        Regime(
            f"spread only {c}/{c}",
            "spread",
            (c, c),
            1000,
            20,
            "variance",
            effect=2.5,
            describe="Gaussian, equal means; class SDs 1 and 2.5",
        )
        for c in (15, 30)
    ),
    Regime(
        "15/15, t3, p = 5000, 20 true",
        "existing",
        (15, 15),
        5000,
        20,
        "mean",
        "t3",
        3.0,
        describe="t (3 df) noise; true features shifted by 3.0 (1.7 SD) in class 1",
    ),
    Regime(
        "3 classes 20/20/20, p = 1000, 20 true",
        "existing",
        (20, 20, 20),
        1000,
        20,
        "mean",
        effect=1.25,
        describe="Gaussian; true features' class means 0, 1.25, 2.5",
    ),
    Regime(
        "10/10, p = 1000, 20 true (2 SD)",
        "existing",
        (10, 10),
        1000,
        20,
        "mean",
        effect=2.0,
        describe="Gaussian; shift 2 SD",
    ),
    Regime(
        "45/15, t3, p = 1000, 50 true",
        "existing",
        (45, 15),
        1000,
        50,
        "mean",
        "t3",
        2.4,
        describe="t (3 df) noise; shift 2.4 (1.4 SD)",
    ),
    Regime(
        "cv=5, 45/15, blocks rho 0.5, p = 500, 20 true",
        "existing",
        (45, 15),
        500,
        20,
        "mean",
        effect=1.0,
        rho=0.5,
        cv=5,
        describe="Gaussian blocks of 50 (within-block correlation 0.5), the true features one "
        "block's first 20; shift 1 SD; the paper protocol with 5-fold errors",
    ),
    Regime(
        "bimodal, 30/30, p = 1000, 20 true",
        "existing",
        (30, 30),
        1000,
        20,
        "bimodal",
        effect=1.5,
        describe="class 0 N(0, 2.5); class 1 an equal mixture of N(-1.5, 0.25) and "
        "N(1.5, 0.25): equal means and variances",
    ),
    Regime(
        "null: blocks rho 0.5 of t3, 48/12, p = 1000",
        "existing",
        (48, 12),
        1000,
        0,
        "null",
        "t3",
        rho=0.5,
        describe="t (3 df) blocks of 50, within-block correlation 0.5; no signal",
    ),
    Regime(
        "null: 3 classes 20/20/20, p = 1000",
        "existing",
        (20, 20, 20),
        1000,
        0,
        "null",
        describe="Gaussian; no signal",
    ),
    _mixed((4, 10, 30)),
    _mixed((8, 40)),
)
