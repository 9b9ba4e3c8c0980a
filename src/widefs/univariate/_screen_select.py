"""The screen's selection rules and summaries without temporaries as long as the features.

Tarone's testable set and the Benjamini-Hochberg cut of :class:`ClassDifferenceScreen`,
equal to :func:`widefs.stats.tarone_testable` and :func:`widefs.stats.benjamini_hochberg`
applied to the eligible features (the same floating-point operations on the same values),
but read a block of features at a time: on 10^8 features a sort of every p-value and its
order would cost more memory than the p-values themselves.

- Tarone: the two-valued features' floors depend only on their number of carriers, so they
  take few distinct values; their counts give ``reach(K)`` for every multiplicity K.
- Benjamini-Hochberg rejects the p-values up to the largest ``p_(j)`` with
  ``p_(j) m / j <= alpha``; every such ``p_(j)`` is at most about alpha, so only the
  p-values below (a hair above) alpha are sorted, in one array of their exact size (at most
  8 bytes per feature, when every p-value is that small), and ``p_(j) m / j`` is computed a
  block of positions at a time from the last.

:func:`summarize` and :func:`select` set the fit's per-feature results a block at a time,
into arrays in memory or in a temporary file (an out-of-core fit above the spill threshold),
which :func:`map_spilled` then exposes as read-only maps of that file.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from widefs._utils import feature_blocks
from widefs._utils._spill import SpilledArray
from widefs.univariate._thresholds import top_k

__all__ = [
    "SPILLED",
    "CodedValues",
    "bh_cut",
    "map_spilled",
    "scores",
    "select",
    "summarize",
    "tarone",
]

TWO_VALUED = 1  # the kind code of _kinds (not imported: _kinds loads the screen's kernels)
# Candidates of the Benjamini-Hochberg cut: p <= alpha * (1 + _MARGIN) holds every p-value
# whose scaled value p m / j (rounded twice) can be <= alpha.
_MARGIN = 1e-9
_BLOCK_BYTES = 4 * 2**20  # temporaries of a block of features


class CodedValues:
    """A float64 array of few distinct values, kept as one small integer code per element.

    The screen's ``min_pvalues_`` take few values (0, 1, one floor per number of carriers of
    the two-valued features, one per stratum of the ranked ones) and its ``spread_weights_``
    four: a code of one byte (two or four when there are more distinct values) stands for
    the eight bytes of each value. Indexing gives the values; unset elements are ``table[0]``.

    Parameters
    ----------
    size : int
        Number of elements.
    table : sequence of float
        The first values; ``set`` adds the others.
    """

    def __init__(self, size: int, table=(0.0,)):
        self.table = np.asarray(table, dtype=np.float64)
        self.codes = np.zeros(size, np.uint8)  # zeros: no memory until written
        self._index = {float(v): i for i, v in enumerate(self.table)}

    @property
    def size(self) -> int:
        return self.codes.size

    def set(self, rows, values) -> None:
        """``self[rows] = values`` for ascending indices ``rows``: each distinct value gets a
        code (the table grows); codes kept in a spill file are written there."""
        distinct, inverse = np.unique(np.asarray(values, dtype=np.float64), return_inverse=True)
        new = [float(v) for v in distinct if float(v) not in self._index]
        if new:
            for v in new:
                self._index[v] = len(self._index)
            self.table = np.concatenate([self.table, new])
            wanted = np.min_scalar_type(self.table.size - 1)
            if np.dtype(wanted).itemsize > self.codes.dtype.itemsize:
                self.codes = self.codes.astype(wanted)
        mapped = np.array([self._index[float(v)] for v in distinct], dtype=self.codes.dtype)
        self.codes.put(rows, mapped[inverse.ravel()])  # an ndarray's or a SpilledArray's

    def __getitem__(self, key) -> np.ndarray:
        return self.table[self.codes[key]]

    def __getstate__(self) -> dict:
        # Codes in a read-only map of a temporary file are pickled as a plain array.
        state = dict(self.__dict__)
        if isinstance(state["codes"], np.memmap):
            state["codes"] = np.array(state["codes"])
        return state

    def toarray(self) -> np.ndarray:
        """All the values, float64."""
        out = np.empty(self.codes.size)
        for block in feature_blocks(self.codes.size, 16, _BLOCK_BYTES):
            np.take(self.table, self.codes[block], out=out[block])
        return out


def tarone(kinds, min_pvalues, alpha: float, out=None) -> tuple[NDArray[np.bool_], int]:
    """Tarone's testable features and multiplicity K among the non-constant ones.

    The floors are the two-valued features' ``min_pvalues``, 0 for the other non-constant
    kinds (their tests reach every level); constant features are never testable.

    Parameters
    ----------
    kinds : ndarray of int8, shape (n_features,)
        Read a block at a time (a spilled array too).
    min_pvalues : ndarray or CodedValues of shape (n_features,)
        Read a block at a time.
    alpha : float
    out : array of bool, shape (n_features,), optional
        Where ``testable`` is written, a block at a time (a spilled array too); a new
        array when None.

    Returns
    -------
    testable : array of bool, shape (n_features,)
        ``out`` when given.
    K : int
        0 when no feature is eligible.
    """
    m = 0
    values, counts = [np.zeros(0)], [np.zeros(0, np.int64)]
    for block in feature_blocks(kinds.size, 16, _BLOCK_BYTES):
        k = kinds[block]
        m += int(np.count_nonzero(k))
        v, c = np.unique(min_pvalues[block][k == TWO_VALUED], return_counts=True)
        values.append(v)
        counts.append(c)
    testable = np.empty(kinds.size, bool) if out is None else out
    if m == 0:
        for block in feature_blocks(kinds.size, 16, _BLOCK_BYTES):
            testable[block] = False
        return testable, 0
    floors, inverse = np.unique(np.concatenate(values), return_inverse=True)
    weight = np.bincount(inverse, weights=np.concatenate(counts), minlength=floors.size)
    below = np.cumsum(weight).astype(np.int64)  # two-valued floors <= floors[i]
    zeros = m - (int(below[-1]) if below.size else 0)
    k_star = _smallest_multiplicity(floors, below, zeros, m, alpha)
    for block in feature_blocks(kinds.size, 16, _BLOCK_BYTES):
        k = kinds[block]
        testable[block] = (k != 0) & ((k != TWO_VALUED) | (min_pvalues[block] <= alpha / k_star))
    return testable, k_star


def _smallest_multiplicity(floors, below, zeros: int, m: int, alpha: float) -> int:
    """The smallest K in 1..m with ``reach(K) <= K`` (reach: floors <= alpha / K), by
    bisection: reach falls and K grows, so the condition holds from some K on."""

    def reach(K: int) -> int:
        i = int(np.searchsorted(floors, alpha / K, side="right"))
        # The zero floors reach every level; two-valued floors are positive.
        return zeros + (int(below[i - 1]) if i else 0)

    lo, hi = 1, m  # reach(m) <= m always holds
    while lo < hi:
        mid = (lo + hi) // 2
        if reach(mid) <= mid:
            hi = mid
        else:
            lo = mid + 1
    return lo


def bh_cut(pvalues, testable, alpha: float) -> float:
    """The Benjamini-Hochberg cut among the ``testable`` p-values: the largest ``p_(j)`` with
    ``p_(j) m / j <= alpha`` (-1 when none), so that the rejected features are those with
    ``p <= cut``.

    Parameters
    ----------
    pvalues : ndarray of shape (n_features,)
    testable : ndarray of bool, shape (n_features,)
    alpha : float in (0, 1)

    Returns
    -------
    cut : float
    """
    low = alpha * (1.0 + _MARGIN)
    blocks = list(feature_blocks(pvalues.size, 16, _BLOCK_BYTES))
    m = size = 0
    for block in blocks:  # counted first: the candidates' array gets its exact size
        t = testable[block]
        m += int(np.count_nonzero(t))
        size += int(np.count_nonzero(t & (pvalues[block] <= low)))
    if m == 0:
        return -1.0
    ordered = np.empty(size)
    at = 0
    for block in blocks:
        p = pvalues[block]
        found = p[testable[block] & (p <= low)]
        ordered[at : at + found.size] = found
        at += found.size
    ordered.sort()
    # As benjamini_hochberg computes it: (p * m) / j, the positions j counted from 1; the
    # largest passing j is sought from the end, a block of positions at a time.
    width = _BLOCK_BYTES // 16
    for stop in range(size, 0, -width):
        start = max(0, stop - width)
        scaled = ordered[start:stop] * m
        scaled /= np.arange(start + 1, stop + 1)
        passing = np.flatnonzero(scaled <= alpha)
        if passing.size:
            return float(ordered[start + passing[-1]])
    return -1.0


def scores(pvalues) -> np.ndarray:
    """``-log10`` of the p-values, floored at 1e-300 (the screen's ``scores_``)."""
    with np.errstate(divide="ignore"):
        out = np.maximum(pvalues, 1e-300)
        np.log10(out, out=out)
        np.negative(out, out=out)
    return out


def _best_score(pvalues, constant) -> float:
    """``max(scores_)`` over the non-constant features (-inf without any), a block at a time."""
    best = -np.inf
    for block in feature_blocks(pvalues.size, 8, _BLOCK_BYTES):
        keep = ~constant[block]
        if keep.any():
            best = max(best, float(scores(pvalues[block][keep]).max()))
    return best


def _kept(mask, new):
    """``mask`` in an array made by ``new`` (itself when that makes arrays in memory)."""
    if new is np.empty:
        return mask
    out = new(mask.shape, mask.dtype)
    out[:] = mask
    return out


def _kind_counts(kinds, n_kinds: int) -> np.ndarray:
    """Features of each kind, a block at a time (``kinds`` may be in a file)."""
    counts = np.zeros(n_kinds, np.int64)
    for block in feature_blocks(kinds.size, 16, _BLOCK_BYTES):
        counts += np.bincount(kinds[block], minlength=n_kinds)
    return counts


def map_spilled(screen, spill) -> None:
    """Every per-feature array of ``screen`` kept in ``spill`` becomes its read-only view in
    the file's map; the file object is closed (the map keeps the data while it lives)."""
    whole = spill.map()
    for name in SPILLED:
        kept = getattr(screen, name)
        if isinstance(kept, CodedValues):
            kept = kept.codes
            if isinstance(kept, SpilledArray):
                getattr(screen, name).codes = kept.mapped(whole)
        elif isinstance(kept, SpilledArray):
            setattr(screen, name, kept.mapped(whole))


#: The fitted per-feature arrays an out-of-core fit above the spill threshold keeps on disk.
SPILLED = (
    "kinds_",
    "location_statistics_",
    "spread_statistics_",
    "constant_features_",
    "testable_",
    "support_",
    "_min_pvalues",
    "_spread_weights",
)


def summarize(screen, new) -> None:
    """Kinds counted, constant features, best score and the selection, a block at a
    time; ``new(shape, dtype)`` makes the per-feature arrays (in memory or a file)."""
    m = screen.kinds_.size
    screen.constant_features_ = new(m, bool)
    for block in feature_blocks(m, 16, _BLOCK_BYTES):
        screen.constant_features_[block] = screen.kinds_[block] == 0
    counts = _kind_counts(screen.kinds_, len(screen.kind_names_))
    screen.n_scored_ = int(m - counts[0])
    screen.kind_counts_ = {name: int(counts[k]) for k, name in enumerate(screen.kind_names_)}
    screen.search_score_ = _best_score(screen.pvalues_, screen.constant_features_)
    screen.testable_, screen.threshold_, screen.support_ = select(
        screen, screen.threshold, screen.alpha, new
    )


def select(screen, threshold, alpha: float, new=np.empty) -> tuple:
    """``(testable, threshold, support)`` of a rule, a block at a time; ``new(shape,
    dtype)`` makes the per-feature arrays (in memory or a file)."""
    m = screen.kinds_.size
    if not isinstance(threshold, str):
        eligible = np.empty(m, bool)
        for block in feature_blocks(m, 16, _BLOCK_BYTES):
            eligible[block] = screen.kinds_[block] != 0
        mask = top_k(threshold, screen.pvalues_, eligible)
        cut = float(screen.pvalues_[mask].max()) if mask.any() else 0.0
        return _kept(eligible, new), cut, _kept(mask, new)
    # Tarone counts out the features whose *test* cannot reach a level: the exact floors of
    # two-valued features. A ranked feature's floor is a Monte Carlo resolution, not a
    # property of its test: it stays counted.
    testable, K = tarone(screen.kinds_, screen._min_pvalues, alpha, out=new(m, bool))
    if threshold == "bonferroni":
        cut = alpha / K if K else -1.0
    else:
        cut = bh_cut(screen.pvalues_, testable, alpha)
    support, best = new(m, bool), -np.inf
    for block in feature_blocks(m, 16, _BLOCK_BYTES):
        p = screen.pvalues_[block]
        mask = support[block] = testable[block] & (p <= cut)
        if mask.any():
            best = max(best, float(p[mask].max()))
    return testable, (best if best > -np.inf else 0.0), support
