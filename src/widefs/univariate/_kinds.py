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
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from widefs._utils import (
    ComputedColumns,
    block_width,
    column_min_max,
    is_lazy_matrix,
    iter_column_blocks,
    load_columns,
    store_blocks,
)
from widefs._utils._spill import SpillFile, closed_on_error, spill_file
from widefs.stats import LinearModelFit, linear_model_fit

__all__ = [
    "CONSTANT",
    "GAUSSIAN",
    "KIND_NAMES",
    "RANKED",
    "TWO_VALUED",
    "FirstPass",
    "KeptRanks",
    "first_pass",
    "fit_rows",
    "pooled_variances",
]

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
_GATE_BYTES = 256 * 2**20  # draws of the shape gate in memory at once, beyond n = 10,000
_BLOCK_BYTES = 64 * 2**20  # a block of an out-of-core X loaded at once (float64)
_COMPUTED_BLOCK_BYTES = 8 * 2**20  # ... of columns computed in memory (RowsOf)
_KERNEL_COLUMNS = 16384  # columns the first-pass kernel scans at once
# Blocks of 0/1 values (presence/absence) skip the kernel: their kinds and carriers are
# counts, one matrix product (the kernel would give the same integers).
_BINARY_FAST = True


@dataclass
class FirstPass:
    """Per-feature results of the first pass over the columns.

    Not frozen: the screen drops the fits (``None``) once its moderated tests have used them,
    which lowers the peak memory of a fit on many features. The fits hold only the rows of
    the *modelled* features (gaussian, or counts that are not constant), in feature order:
    a wide fit of presence/absence or skewed features keeps nothing per feature for them.
    """

    kinds: NDArray[np.int8]
    location: LinearModelFit | None
    spread: LinearModelFit | None
    # (n_features, n_classes), zeros except two-valued features; the narrowest unsigned
    # integer that holds n (uint8 up to 255 examples).
    carriers: NDArray[np.unsignedinteger]
    # Tie factors sum(t^3 - t) / (n^3 - n) of the ranked features only: their indices
    # (ascending) and values.
    tie_index: NDArray[np.intp]
    tie_values: NDArray[np.float64]
    # The residual degrees of freedom of every feature the first pass fitted, summed: the
    # moderated tests' cap on the total degrees of freedom (limma's).
    pooled_df: float
    # Out of core: the mid-ranks of the ranked features, kept so that the rank branch does
    # not read the store again (None in memory).
    ranks: KeptRanks | None = None
    # The pooled variances of the gaussian features (in the fits' order), when asked for.
    pooled: NDArray[np.float64] | None = None
    # The arrays of n_features float64 behind the fits' variances (location, then spread)
    # and the pooled variances: the screen writes its per-feature results into them once
    # the fits are used, instead of allocating as many arrays again.
    buffers: tuple[NDArray[np.float64], ...] = ()

    def ties(self, columns: NDArray[np.intp]) -> NDArray[np.float64]:
        """Tie factors of ``columns`` (every one ranked: in ``tie_index``)."""
        return self.tie_values[np.searchsorted(self.tie_index, columns)]

    def add_ties(self, columns: NDArray[np.intp], values: NDArray[np.float64]) -> None:
        """Record the tie factors of features sent to the rank branch after the first pass."""
        index = np.concatenate([self.tie_index, columns])
        order = np.argsort(index, kind="stable")
        self.tie_index = index[order]
        self.tie_values = np.concatenate([self.tie_values, values])[order]


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
    depend on n only), so the gate is the same on every fit. The values for small n were
    computed ahead of time by this same simulation (:mod:`widefs.univariate._shape_table`).
    """
    from widefs.univariate._shape_table import stored_shape_limits

    stored = stored_shape_limits(n, skew_level, GATE_LEVEL, _GATE_DRAWS)
    if stored is not None:
        return stored
    skews, kurts = simulate_shape(n)
    return (
        float(np.quantile(skews, 1.0 - skew_level / 2)),
        float(np.quantile(kurts, 1.0 - GATE_LEVEL / 2)),
    )


def simulate_shape(n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """|skewness| and kurtosis of ``_GATE_DRAWS`` sets of n Gaussian values (seed 0)."""
    rng = np.random.default_rng(0)
    skews, kurts = [], []
    # 20,000 columns of draws at a time up to n = 10,000; beyond, blocks of _GATE_BYTES, so
    # that memory stays bounded whatever n (at n = 10^5 one 20,000-column block is 16 GB).
    width = 20_000 if n <= 10_000 else max(1, _GATE_BYTES // (8 * n))
    for _ in range(-(-_GATE_DRAWS // width)):
        skew, kurt = _shape(rng.standard_normal(size=(n, width)))
        skews.append(np.abs(skew))
        kurts.append(kurt)
    return np.concatenate(skews), np.concatenate(kurts)


def tie_factor(Xb: NDArray[np.float64]) -> NDArray[np.float64]:
    """``sum(t^3 - t) / (n^3 - n)`` over the tie groups of every column (0 without ties)."""
    from scipy.stats import rankdata

    n = Xb.shape[0]
    out = np.zeros(Xb.shape[1])
    # Most ranked features have no ties (skewed or heavy-tailed): a sort finds them, and
    # their factor is exactly 0; only the tied columns are ranked.
    ordered = np.sort(Xb, axis=0)
    tied = np.flatnonzero((ordered[1:] == ordered[:-1]).any(axis=0))
    if tied.size == 0:
        return out
    r = rankdata(Xb[:, tied], axis=0)
    ss = np.sum((r - (n + 1) / 2.0) ** 2, axis=0)
    # Mid-ranks lose sum(t^3 - t) / 12 of the sum of squares n (n^2 - 1) / 12 of 1..n.
    out[tied] = np.maximum(1.0 - 12.0 * ss / (n**3 - n), 0.0)
    return out


def _kinds_of(stats, n, limits):
    """Kinds from the kernel's extremes, their counts, the integer test and the shape."""
    lo, hi, n_lo, n_hi, integer, skew, kurt = stats
    tied = (np.maximum(n_lo, n_hi) >= max(3, int(np.ceil(0.1 * n)))) | (integer & (hi - lo < n / 2))
    odd = (np.abs(skew) > limits[0]) | (kurt > limits[1])
    kinds = np.where(tied | odd, RANKED, GAUSSIAN).astype(np.int8)
    kinds[n_lo + n_hi == n] = TWO_VALUED
    kinds[lo == hi] = CONSTANT
    return kinds


def _fit_from_means(means, rss, n):
    """The class design's least-squares fit from the class means and the residual sum of squares:
    intercept = mean of class 0, coefficient c = mean of class c minus it."""
    C = means.shape[0]
    coefs = means.T.copy()
    coefs[:, 1:] -= coefs[:, :1]
    return coefs, rss / float(n - C)


def fit_rows(fit: LinearModelFit, rows) -> LinearModelFit:
    """The fit of the features ``rows`` (a mask or a slice) only: views for a slice, and
    per-feature covariances kept with their rows."""
    V = fit.unscaled_covariance
    df = np.broadcast_to(fit.df_residual, fit.variances.shape)
    return LinearModelFit(
        fit.coefficients[rows], V[rows] if V.ndim == 3 else V, fit.variances[rows], df[rows]
    )


def doubled_mid_ranks(rows) -> NDArray[np.int64]:
    """Twice the mid-ranks of every row of ``rows`` (features x samples): integers, equal to
    ``2 * scipy.stats.rankdata(rows, axis=1)``. One unstable sort per row (equal values take
    the same mid-rank whatever their order): a run of equal values at sorted positions
    ``i..j-1`` gets ``i + j + 1``, a value without ties at position ``i`` ``2 (i + 1)``."""
    k, n = rows.shape
    order = np.argsort(rows, axis=1)
    ordered = np.take_along_axis(rows, order, axis=1)
    same = ordered[:, 1:] == ordered[:, :-1]
    del ordered
    doubled = np.empty((k, n), np.int64)
    doubled[:] = 2 * np.arange(1, n + 1)
    tied = np.flatnonzero(same.any(axis=1))  # most ranked features have no ties
    if tied.size:
        doubled[tied] = _doubled_runs(same[tied])
    out = np.empty(k * n, np.int64)
    out[(order + np.arange(0, k * n, n)[:, None]).ravel()] = doubled.ravel()
    return out.reshape(k, n)


def _doubled_runs(same) -> NDArray[np.int64]:
    """``first + last + 2`` of the run of equal values at each sorted position of rows
    (``same``: each value equals the one before it), carried along the flat array at once
    (a run never crosses a row: each row's first value starts one)."""
    t, n = same.shape[0], same.shape[1] + 1
    starts = np.ones((t, n), bool)
    np.logical_not(same, out=starts[:, 1:])
    starts = starts.ravel()
    at = np.arange(t * n)
    first = np.where(starts, at, 0)
    np.maximum.accumulate(first, out=first)
    ends = np.empty_like(starts)  # a run ends where the next starts, and at the very end
    ends[:-1] = starts[1:]
    ends[-1:] = True
    doubled = np.minimum.accumulate(np.where(ends, at, t * n)[::-1])[::-1]
    doubled += first
    doubled -= 2 * (at - at % n) - 2  # positions within the row, plus 2
    return doubled.reshape(t, n)


def doubled_tie_factor(doubled, n: int) -> NDArray[np.float64]:
    """:func:`tie_factor` of features from twice their mid-ranks (features x samples), the
    same floats: the sum of squares of mid-ranks about (n + 1) / 2 is a sum of quarters
    below 2**51, exact in any order (and that of untied ranks gives exactly 0)."""
    deviation = doubled - (n + 1)
    deviation *= deviation
    ss = deviation.sum(axis=1).astype(np.float64) / 4.0
    return np.maximum(1.0 - 12.0 * ss / (n**3 - n), 0.0)


class KeptRanks(ComputedColumns):
    """Twice the mid-ranks of the ranked features of an out-of-core ``X``, kept by the first
    pass: read as a matrix (n_samples, n_ranked) of float64 mid-ranks (the rank branch reads
    them instead of the store; ``mid_ranks``: they are their own mid-ranks).

    Twice a mid-rank is an integer up to 2n: one byte per value up to 127 examples, two up
    to 32,767, in the pieces the blocks of the first pass gave (no copy to join them). With
    ``spilled`` the pieces wait in a temporary file (:class:`~widefs._utils._spill.SpillFile`,
    opened with the first piece), not in memory; :meth:`release` closes it.
    """

    mid_ranks = True

    def __init__(self, n: int, spilled: bool = False):
        super().__init__((n, 0))
        self.dtype_kept = np.min_scalar_type(2 * n)
        self.spilled = spilled  # the file is opened with the first piece
        self.spill = None
        self.pieces: list = []  # (features, n) each, arrays or in the spill file
        self.index: list[np.ndarray] = []
        self.stops = np.zeros(0, np.intp)

    def add(self, columns, Xr) -> NDArray[np.float64]:
        """Keep the columns ``columns`` of ``X`` (values ``Xr``, n x k); their tie factors
        (:func:`tie_factor`, the same floats)."""
        doubled = doubled_mid_ranks(np.ascontiguousarray(np.asarray(Xr).T))
        piece = doubled.astype(self.dtype_kept)
        if self.spilled and self.spill is None:
            self.spill = SpillFile()
        self.pieces.append(piece if self.spill is None else self.spill.store(piece))
        self.index.append(columns)
        return doubled_tie_factor(doubled, self.shape[0])

    def close(self) -> KeptRanks:
        self.stops = np.cumsum([p.shape[0] for p in self.pieces], dtype=np.intp)
        self.shape = (self.shape[0], int(self.stops[-1]) if self.stops.size else 0)
        self.index = np.concatenate(self.index) if self.index else np.zeros(0, np.intp)
        return self

    def release(self) -> None:
        """Drop the pieces (and close their file)."""
        self.pieces = []
        if self.spill is not None:
            self.spill.close()

    def columns(self, cols) -> np.ndarray:
        idx = np.arange(self.shape[1])[cols]
        out = np.empty((idx.size, self.shape[0]))
        piece = np.searchsorted(self.stops, idx, side="right")
        for p in np.unique(piece):
            at = piece == p
            rows = idx[at] - (self.stops[p] - self.pieces[p].shape[0])
            low = int(rows.min())  # one read of the rows' range (a piece in a file too)
            out[at] = self.pieces[p][low : int(rows.max()) + 1][rows - low]
        out *= 0.5
        return out.T


def pooled_variances(fit, sizes) -> np.ndarray:
    """Sample variance of every feature's values, all classes pooled (no labels), from the
    class design's fit: residual sum of squares plus the between-class sum of squares."""
    n = float(np.sum(sizes))
    means = fit.coefficients.copy()
    means[:, 1:] += means[:, :1]
    grand = means @ sizes / n
    # In place: the same operations without a temporary per feature and class.
    means -= grand[:, None]
    means **= 2
    between = means @ sizes
    del means, grand
    pooled = fit.variances * fit.df_residual
    pooled += between
    pooled /= n - 1.0
    return pooled


class _CompactFits:
    """Location (and spread) fits of the gaussian features, filled block by block.

    The arrays are allocated for every feature but written from the start, gaussian rows
    only: the operating system maps a page of a large allocation when it is first written,
    so memory grows with the gaussian features, not with all of them. A fit keeps the class
    coefficients the tests use (not the intercept) and the residual variance: 16 bytes per
    feature and test with two classes; with ``pooled``, the pooled variance of each feature
    (8 bytes) too, for the median of the spread shares.
    """

    def __init__(self, m: int, sizes, n_fits: int, pooled: bool, spill=None):
        n_classes = sizes.size
        self.sizes = sizes
        self.spill = spill  # a SpillFile: the arrays are kept there, not in memory
        new = np.empty if spill is None else spill.array
        self.coefs = [new((m, n_classes - 1)) for _ in range(n_fits)]
        self.variances = [new(m) for _ in range(n_fits)]
        self.pooled = new(m) if pooled else None
        self.rows = 0

    def head(self, a):
        """The first ``rows`` rows of one of the arrays (a view, or still in the file)."""
        return a[: self.rows] if self.spill is None else a.head(self.rows)

    def buffers(self) -> tuple:
        """The in-memory arrays the screen's results may reuse (none when spilled)."""
        if self.spill is not None:
            return ()
        return (*self.variances, *([] if self.pooled is None else [self.pooled]))

    def add(self, out, gaussian, n: int) -> None:
        g = int(np.count_nonzero(gaussian))
        if not g:
            return
        to = slice(self.rows, self.rows + g)
        for f, (means, rss) in enumerate(((out[8], out[9]), (out[10], out[11]))[: len(self.coefs)]):
            coefs, variances = _fit_from_means(means[:, gaussian], rss[gaussian], n)
            self.coefs[f][to], self.variances[f][to] = coefs[:, 1:], variances
            if f == 0 and self.pooled is not None:
                df = np.broadcast_to(float(n - self.sizes.size), (g,))
                fit = LinearModelFit(coefs, np.empty((0, 0)), variances, df)
                self.pooled[to] = pooled_variances(fit, self.sizes)
        self.rows += g

    def fits(self, design, n: int, n_classes: int) -> list[LinearModelFit]:
        # The tested coefficients' block of the design's unscaled covariance: the moderated F
        # of coefficients 0..C-2 here is that of 1..C-1 of the whole fit, bit for bit.
        cov = np.linalg.inv(design.T @ design)[1:, 1:]
        df = np.broadcast_to(float(n - n_classes), (self.rows,))  # a view: no memory per feature
        return [
            LinearModelFit(self.head(b), cov, self.head(v), df)
            for b, v in zip(self.coefs, self.variances, strict=True)
        ]


def _zero_one(block) -> bool:
    """Every value of the block is 0 or 1 (NaN is not)."""
    block = np.asarray(block)
    if block.size == 0:
        return False
    if block.dtype.kind in "bu":  # no negative values: the largest tells
        return int(block.max()) <= 1
    # The first column answers for most blocks of continuous values without a full scan.
    first = block[:, 0]
    if not ((first == 0) | (first == 1)).all():
        return False
    return bool(((block == 0) | (block == 1)).all())


def _binary_block(block, cols, codes, kinds, carriers) -> None:
    """Kinds and carriers of a block of 0/1 columns, as the kernel gives them: a column is
    constant when it holds one value, else two-valued with its ones counted per class."""
    n = block.shape[0]
    # Sums of at most n ones: exact in any order and type.
    ones = np.stack(
        [block[codes == c].sum(axis=0, dtype=np.int64) for c in range(carriers.shape[1])]
    )
    total = ones.sum(axis=0)
    kb = kinds[cols] = np.where((total == 0) | (total == n), CONSTANT, TWO_VALUED)
    two = kb == TWO_VALUED
    carriers[cols][two] = ones.T[two]


def _counts_pass(X, counts, design, n_classes) -> FirstPass:
    """The first pass of counts: every feature of kind COUNTS (constant when its counts are)."""
    m = X.shape[1]
    fit = linear_model_fit(counts[0], design, weights=counts[1])
    kinds = np.full(m, COUNTS, np.int8)
    # Equal counts, not equal log-CPM: a gene never seen varies with the library sizes.
    low, high = column_min_max(X)  # a sparse X is not densified
    kinds[low == high] = CONSTANT
    pooled = float(np.broadcast_to(fit.df_residual, (m,)).sum())
    fit = fit_rows(fit, kinds == COUNTS)
    carriers = np.zeros((m, n_classes), np.uint8)
    return FirstPass(kinds, fit, None, carriers, np.zeros(0, np.intp), np.zeros(0), pooled)


def _scan(block, start, kernel, kinds, carriers, ties, ranks, fits) -> None:
    """The kernel over a block of columns starting at column ``start``, a sub-block at a time
    (its state stays in cache). Each sub-block is copied C-ordered: the kernel compiled for
    contiguous rows vectorizes over the columns: copy and kernel take 2.4-3.1 ns per value
    against 7.1-7.5 for the kernel on a strided view (measured, float32, 100 rows)."""
    first_pass_block, codes, sizes, spread, limits = kernel
    n = block.shape[0]
    for inner in iter_column_blocks(block.shape[1], _KERNEL_COLUMNS):
        cols = slice(start + inner.start, start + inner.stop)
        Xb = np.ascontiguousarray(block[:, inner])
        if Xb.dtype not in (np.float32, np.float64):
            Xb = Xb.astype(np.float64)
        out = first_pass_block(Xb, codes, sizes, spread)
        if not out[12].all() and not np.isfinite(Xb).all():
            bad = cols.start + np.flatnonzero(~np.isfinite(Xb).all(axis=0))
            raise ValueError(f"Input X contains NaN or infinity (columns {bad[:5].tolist()}).")
        kb = kinds[cols] = _kinds_of(out[:4] + out[5:8], n, limits)
        carriers[cols][kb == TWO_VALUED] = out[4].T[kb == TWO_VALUED]
        ranked = kb == RANKED
        if ranked.any():
            ties[0].append(cols.start + np.flatnonzero(ranked))
            if ranks is None:
                ties[1].append(tie_factor(np.asarray(Xb[:, ranked], dtype=np.float64)))
            else:  # the values' order is the same in float32: one sort gives both
                ties[1].append(ranks.add(ties[0][-1], Xb[:, ranked]))
        fits.add(out, kb == GAUSSIAN, n)


@contextmanager
def _released_on_error(ranks):
    """Release ``ranks`` (when kept) if the body raises, an interrupt included."""
    try:
        yield
    except BaseException:
        if ranks is not None:
            ranks.release()
        raise


def first_pass(X, codes, n_classes, *, spread: bool, counts=None, pooled=False) -> FirstPass:
    """Kinds, location (and spread) fits, carriers and tie factors, one block at a time.

    ``counts``: ``(log_cpm, weights)`` from :func:`widefs.stats.voom`; every feature is then of
    kind ``COUNTS`` and fitted with its precision weights. ``pooled``: also the pooled
    variances of the gaussian features (``FirstPass.pooled``). Without ``counts``, the fits
    hold the class coefficients 1..C-1 only (as coefficients 0..C-2) and the covariance of
    that block.
    """
    lazy = is_lazy_matrix(X)
    n, m = X.shape
    design = class_design(codes, n_classes)
    no_ties = np.zeros(0, np.intp), np.zeros(0)
    if counts is not None:
        return _counts_pass(X, counts, design, n_classes)
    from widefs.univariate._screen_numpy import first_pass_kernel

    first_pass_block = first_pass_kernel(float(n) * m)

    limits = shape_limits(int(n), GATE_LEVEL_SPREAD if spread else GATE_LEVEL)
    kinds = np.empty(m, np.int8)
    carriers = np.zeros((m, n_classes), np.min_scalar_type(n))
    tie_index, tie_values = [no_ties[0]], [no_ties[1]]
    codes = np.ascontiguousarray(codes, dtype=np.intp)
    sizes = np.bincount(codes, minlength=n_classes).astype(np.float64)
    n_fits = 2 if spread else 1
    # Out of core and large, the fits wait for the priors in a temporary file.
    spill = spill_file(lazy, 8 * m * (n_fits * n_classes + bool(pooled)))
    fits = _CompactFits(m, sizes, n_fits, pooled, spill)
    # float32 blocks stay float32, so an out-of-core or sparse X gets the kernel's results
    # for its in-memory copy.
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    native = np.dtype(X.dtype)
    # Kept in a temporary file as the fits are: both grow with the features.
    ranks = KeptRanks(n, spilled=spill is not None) if lazy else None
    # Out of core, a block is whole storage chunks: each chunk is decoded once. Columns
    # computed in memory (a fold's rows) gain nothing from large blocks: two of them, the one
    # being read and the last, would be the fit's peak.
    computed = isinstance(X, ComputedColumns)
    width = block_width(n, 8, _COMPUTED_BLOCK_BYTES if computed else _BLOCK_BYTES)
    # An error or an interrupt: the spill files go too.
    with closed_on_error(spill), _released_on_error(ranks):
        for outer in store_blocks(X, width) if lazy else iter_column_blocks(m, width):
            # Integers (a uint8 store of presence/absence) are read as they are stored, and
            # converted to floats only for the kernel: a block of 0/1 values never is.
            read = native if lazy and native.kind in "biu" else dtype
            block = load_columns(X, outer, read) if lazy else X[:, outer]
            if _BINARY_FAST and _zero_one(block):
                _binary_block(np.asarray(block), outer, codes, kinds, carriers)
                continue
            block = block.astype(dtype) if block.dtype != dtype and lazy else block
            kernel = (first_pass_block, codes, sizes, spread, limits)
            _scan(block, outer.start, kernel, kinds, carriers, (tie_index, tie_values), ranks, fits)
    location, *rest = fits.fits(design, n, n_classes)
    return FirstPass(
        kinds,
        location,
        rest[0] if spread else None,
        carriers,
        np.concatenate(tie_index),
        np.concatenate(tie_values),
        float(n - n_classes) * m,  # the sum of m equal integers: exact
        None if ranks is None else ranks.close(),
        None if fits.pooled is None else fits.head(fits.pooled),
        fits.buffers(),
    )
