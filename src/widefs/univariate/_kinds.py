"""What kind of feature each column is, and the per-feature fits of the screen's first pass.

One pass over the columns (a block at a time) gives everything the screen needs except the
rank branch's permutations: the location and spread linear fits (for the moderated F), the
carriers of two-valued features (for their exact p-values), and each feature's *kind*:

- ``CONSTANT``: one value; p-value 1.
- ``TWO_VALUED``: two values; exact conditional p-value (:func:`widefs.stats.binary_exact_pvalues`).
- ``GAUSSIAN``: the moderated F's reference holds: its values are neither skewed nor
  heavy-tailed beyond what n Gaussian values show once in 500 features, and have no
  large ties.
- ``RANKED``: skewed, heavy-tailed or tied (its smallest or largest value shared by at least
  a tenth of the examples, as zero-inflated or censored values are, or integers on fewer
  values than half the examples): a rank statistic calibrated
  by permutations pooled among features with the same amount of ties.

Why the kind is decided without the labels: it is then a function of the feature's values
as a set (their order statistics), and under the null every assignment of labels to those
values is equally likely whatever the kind: the rank branch's permutation p-values stay exact
given the kind, and the moderated F is used only where the values look Gaussian. A gate on
residuals (deviations from the class means) would look at the labels: for a skewed feature,
an outlier in a small class pulls that class's mean and hides itself from the residuals
exactly when the F is large (measured: 20 times too many p-values below 1e-3).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from widefs._utils import block_width, is_lazy_matrix, iter_column_blocks, load_columns
from widefs.stats import LinearModelFit, linear_model_fit

__all__ = ["CONSTANT", "GAUSSIAN", "KIND_NAMES", "RANKED", "TWO_VALUED", "FirstPass", "first_pass"]

CONSTANT, TWO_VALUED, GAUSSIAN, RANKED, COUNTS = 0, 1, 2, 3, 4
#: Names of the kinds, indexed by their codes (``kinds_`` of the screen).
KIND_NAMES = ("constant", "two_valued", "gaussian", "ranked", "counts")
#: Share of Gaussian features the shape gate sends to the rank branch (both tests together):
#: small where the rank branch has little power (few examples, location test only). When
#: the spread test is on, the skewness test alone gets the larger level GATE_LEVEL_SPREAD:
#: Levene's test on a skewed feature is liberal, and the rank branch then loses little power;
#: the kurtosis test keeps the small level, as a spread difference itself raises the
#: kurtosis of the pooled values and would send the very features it should find away.
GATE_LEVEL = 2e-3
GATE_LEVEL_SPREAD = 0.05
_GATE_DRAWS = 200_000
_BLOCK_BYTES = 64 * 2**20  # the first pass's temporaries (about 8 copies of a block)


@dataclass(frozen=True)
class FirstPass:
    """Per-feature results of the first pass over the columns."""

    kinds: NDArray[np.int8]
    location: LinearModelFit
    spread: LinearModelFit | None
    carriers: NDArray[np.int64]  # (n_features, n_classes), zeros except two-valued features
    ties: NDArray[np.float64]  # tie factor sum(t^3 - t) / (n^3 - n) of ranked features


def class_design(codes: NDArray[np.intp], n_classes: int) -> NDArray[np.float64]:
    """Intercept and indicators of classes 1..C-1 (class 0 the reference)."""
    return np.column_stack(
        [np.ones(codes.size)] + [(codes == c).astype(np.float64) for c in range(1, n_classes)]
    )


def _shape(Xb):
    """Skewness and kurtosis of every column (about its overall mean: no labels)."""
    r = Xb - Xb.mean(axis=0)
    r2 = r * r
    m2 = r2.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        skew = np.einsum("ij,ij->j", r2, r) / Xb.shape[0] / m2**1.5
        kurt = np.einsum("ij,ij->j", r2, r2) / Xb.shape[0] / (m2 * m2)
    return np.nan_to_num(skew), np.nan_to_num(kurt, nan=0.0)


@functools.lru_cache(maxsize=16)
def shape_limits(n: int, skew_level: float = GATE_LEVEL) -> tuple[float, float]:
    """|skewness| and kurtosis that n Gaussian values exceed with probability ``skew_level / 2``
    and ``GATE_LEVEL / 2``.

    Monte Carlo under the Gaussian null with a fixed seed (both statistics are pivotal: they
    depend on n only), so the gate is the same on every fit.
    """
    rng = np.random.default_rng(0)
    skews, kurts = [], []
    for _ in range(_GATE_DRAWS // 20_000):
        skew, kurt = _shape(rng.standard_normal(size=(n, 20_000)))
        skews.append(np.abs(skew))
        kurts.append(kurt)
    return (
        float(np.quantile(np.concatenate(skews), 1.0 - skew_level / 2)),
        float(np.quantile(np.concatenate(kurts), 1.0 - GATE_LEVEL / 2)),
    )


def tie_factor(Xb: NDArray[np.float64]) -> NDArray[np.float64]:
    """``sum(t^3 - t) / (n^3 - n)`` over the tie groups of every column (0 without ties)."""
    from scipy.stats import rankdata

    n = Xb.shape[0]
    r = rankdata(Xb, axis=0)
    ss = np.sum((r - (n + 1) / 2.0) ** 2, axis=0)
    # Mid-ranks lose sum(t^3 - t) / 12 of the sum of squares n (n^2 - 1) / 12 of 1..n.
    return np.maximum(1.0 - 12.0 * ss / (n**3 - n), 0.0)


def _block_kinds(Xb, limits):
    n = Xb.shape[0]
    lo, hi = Xb.min(axis=0), Xb.max(axis=0)
    n_lo, n_hi = (Xb == lo).sum(axis=0), (Xb == hi).sum(axis=0)
    integer = np.all(Xb == np.round(Xb), axis=0)
    tied = (np.maximum(n_lo, n_hi) >= max(3, int(np.ceil(0.1 * n)))) | (integer & (hi - lo < n / 2))
    skew, kurt = _shape(Xb)
    odd = (np.abs(skew) > limits[0]) | (kurt > limits[1])
    kinds = np.where(tied | odd, RANKED, GAUSSIAN).astype(np.int8)
    kinds[n_lo + n_hi == n] = TWO_VALUED
    kinds[lo == hi] = CONSTANT
    return kinds, Xb == hi


def class_means(Xb, codes, n_classes):
    """(n_classes, m) means of every column within each class."""
    return np.stack([Xb[codes == c].mean(axis=0) for c in range(n_classes)])


def first_pass(X, codes, n_classes, *, spread: bool, counts=None) -> FirstPass:
    """Kinds, location (and spread) fits, carriers and tie factors, one block at a time.

    ``counts``: ``(log_cpm, weights)`` from :func:`widefs.stats.voom`; every feature is then of
    kind ``COUNTS`` and fitted with its precision weights.
    """
    lazy = is_lazy_matrix(X)
    n, m = X.shape
    limits = shape_limits(int(n), GATE_LEVEL_SPREAD if spread else GATE_LEVEL)
    design = class_design(codes, n_classes)
    if counts is not None:
        fit = linear_model_fit(counts[0], design, weights=counts[1])
        kinds = np.full(m, COUNTS, np.int8)
        kinds[np.ptp(counts[0], axis=0) == 0] = CONSTANT
        return FirstPass(kinds, fit, None, np.zeros((m, n_classes), np.int64), np.zeros(m))
    kinds = np.empty(m, np.int8)
    carriers = np.zeros((m, n_classes), np.int64)
    ties = np.zeros(m)
    loc, spr = [], []
    onehot = np.eye(n_classes)[codes]
    for cols in iter_column_blocks(m, block_width(n, 8 * 8, _BLOCK_BYTES)):
        Xb = load_columns(X, cols) if lazy else np.asarray(X[:, cols], dtype=np.float64)
        if not np.isfinite(Xb).all():
            bad = cols.start + np.flatnonzero(~np.isfinite(Xb).all(axis=0))
            raise ValueError(f"Input X contains NaN or infinity (columns {bad[:5].tolist()}).")
        kinds[cols], high = _block_kinds(Xb, limits)
        two = kinds[cols] == TWO_VALUED
        carriers[cols][two] = (onehot.T @ high[:, two]).T.astype(np.int64)
        ranked = kinds[cols] == RANKED
        ties[cols][ranked] = tie_factor(Xb[:, ranked])
        loc.append(linear_model_fit(Xb, design))
        if spread:
            dev = np.abs(Xb - class_means(Xb, codes, n_classes)[codes])
            spr.append(linear_model_fit(dev, design))
    return FirstPass(kinds, _concat(loc), _concat(spr) if spread else None, carriers, ties)


def _concat(fits: list[LinearModelFit]) -> LinearModelFit:
    return LinearModelFit(
        np.concatenate([f.coefficients for f in fits]),
        fits[0].unscaled_covariance,
        np.concatenate([f.variances for f in fits]),
        np.concatenate([f.df_residual for f in fits]),
    )
