"""The screen's moderated branch: limma's moderated F of the gaussian (or counts) features.

The first pass's fits hold the modelled features' rows only, in feature order. The priors
need every variance (:func:`widefs.stats.fit_f_dist` reads them a block at a time); the tests
then run a block of features at a time, each feature's p-value depending only on its own fit
and the priors. The results go into the first pass's own arrays (``FirstPass.buffers``), from
the last block back: a block's results take its features' places, at or after its fit rows,
and never the rows of the blocks before it. Beyond its blocks the fit allocates no array per
feature that the first pass did not already hold. When the first pass spilled its fits to a
temporary file (a large out-of-core matrix), the branch reads them back a block at a time
and writes its results to new arrays: the fits never are in memory whole; the statistics
then go to the screen's own temporary file (``spill``), the p-values only to memory.
"""

from __future__ import annotations

import numpy as np

from widefs._utils import feature_blocks
from widefs._utils._spill import SpilledArray
from widefs._utils._streaming import median
from widefs.stats import fit_f_dist, moderated_f
from widefs.univariate._kinds import COUNTS, GAUSSIAN, fit_rows
from widefs.univariate._screen_select import CodedValues

__all__ = [
    "SPREAD_WEIGHT_NARROW",
    "SPREAD_WEIGHT_WIDE",
    "WIDE_VARIANCE",
    "fits_spilled",
    "moderated_branch",
    "spread_shares",
    "wide_spread",
]

#: Gaussian features with ``spread_weight="auto"``: the share is SPREAD_WEIGHT_WIDE when the
#: feature's pooled variance (no labels) is at least WIDE_VARIANCE times the median over the
#: gaussian features, else SPREAD_WEIGHT_NARROW. Classes whose SDs differ by a factor r widen
#: the pooled variance to (1 + r^2) / 2 of the narrower class's at equal sizes: 2 at r = 1.7.
SPREAD_WEIGHT_WIDE = 0.5
SPREAD_WEIGHT_NARROW = 0.02
WIDE_VARIANCE = 2.0
#: Temporaries of the per-feature steps after the first pass, a block of features at a time.
_BLOCK_BYTES = 4 * 2**20


def spread_shares(pooled, ref) -> np.ndarray:
    """Share of the level of each gaussian feature's spread test under ``spread_weight="auto"``.

    ``SPREAD_WEIGHT_WIDE`` where the pooled variance is at least ``WIDE_VARIANCE`` times
    ``ref``, the median over the modelled features, ``SPREAD_WEIGHT_NARROW`` elsewhere. The pooled
    variance does not look at the labels; for the unmoderated F statistics of the class means
    and of the absolute deviations, which are location and scale invariant, it is independent
    of them under the Gaussian null (Basu's theorem: the mean and the total sum of squares are
    complete sufficient), so the weighted Bonferroni keeps its level feature by feature.
    """
    return np.where(wide_spread(pooled, ref), SPREAD_WEIGHT_WIDE, SPREAD_WEIGHT_NARROW)


def wide_spread(pooled, ref) -> np.ndarray:
    """The features :func:`spread_shares` gives the wide share (one byte each)."""
    return pooled >= WIDE_VARIANCE * ref if ref > 0 else np.zeros(pooled.shape, bool)


def fits_spilled(passed) -> bool:
    """Whether the first pass kept its fits in a temporary file (out of core and large)."""
    return any(isinstance(a, SpilledArray) for a in _arrays(passed))


def moderated_branch(screen, passed, spill=None) -> None:
    """Set the screen's ``pvalues_``, statistics, ``prior_`` and the codes of its
    ``min_pvalues_`` and ``spread_weights_`` from the first pass ``passed`` (whose fits and
    buffers it consumes); only the modelled features get p-values here (1 elsewhere).
    Fits spilled to a temporary file are read back a block at a time, and the file is
    closed (removed) when the branch ends, by an error too. With ``spill`` (a
    :class:`~widefs._utils._spill.SpillFile`), the statistics are written to it."""
    spilled = [a for a in _arrays(passed) if isinstance(a, SpilledArray)]
    try:
        _branch(screen, passed, spill)
    finally:
        for a in spilled:
            a.spill.close()


def _arrays(passed) -> list:
    """The per-feature arrays of the first pass's fits."""
    fits = [f for f in (passed.location, passed.spread) if f is not None]
    return [passed.pooled] + [a for f in fits for a in (f.coefficients, f.variances)]


def _branch(screen, passed, spill=None) -> None:
    kinds = screen.kinds_
    m = kinds.size
    loc = passed.location
    spr = passed.spread  # None unless the first pass fitted the spread (spread_weight_ > 0)
    screen._min_pvalues = CodedValues(m, (0.0, 1.0))
    screen._spread_weights = CodedValues(
        m, (0.0, screen.spread_weight_, SPREAD_WEIGHT_WIDE, SPREAD_WEIGHT_NARROW)
    )
    # Masks and codes a block at a time: no temporary per feature beside the first pass's.
    blocks = list(feature_blocks(m, 128, _BLOCK_BYTES))
    for b in blocks:
        screen._min_pvalues.codes[b][kinds[b] == 0] = 1
    starts = np.cumsum([0] + [int(np.count_nonzero(_modelled(kinds, b))) for b in blocks])
    if spr is not None:
        _share_codes(screen._spread_weights.codes, passed, kinds, blocks, starts)
    priors = [fit_f_dist(loc.variances, loc.df_residual)]
    if spr is not None:
        priors.append(fit_f_dist(spr.variances, spr.df_residual))
    screen.prior_ = {"location": priors[0], "spread": priors[1] if spr is not None else None}
    buffers, passed.buffers = list(passed.buffers), ()
    new = np.empty if spill is None else spill.array
    screen.location_statistics_ = buffers.pop(0) if buffers else new(m)
    if spr is not None:
        screen.spread_statistics_ = buffers.pop(0) if buffers else new(m)
    else:  # zeros not written: they cost no memory (nor space in the file) until written
        screen.spread_statistics_ = np.zeros(m) if spill is None else spill.zeros(m)
    screen.pvalues_ = buffers.pop(0) if buffers else np.empty(m)
    del buffers
    for i in range(len(blocks) - 1, -1, -1):
        rows = slice(int(starts[i]), int(starts[i + 1]))
        mk = _modelled(kinds, blocks[i])
        _tests(screen, blocks[i], mk, rows, (loc, spr), priors, passed.pooled_df)
    passed.location = passed.spread = None


def _modelled(kinds, block) -> np.ndarray:
    """The features of ``block`` the moderated tests score (gaussian, or counts)."""
    k = kinds[block]
    return (k == GAUSSIAN) | (k == COUNTS)


def _share_codes(codes, passed, kinds, blocks, starts) -> None:
    """The spread share of every modelled feature as its code of ``spread_weights_``: 1 (the
    nominal share) or, with ``spread_weight="auto"``, 2 or 3 (wide or narrow) by its pooled
    variance against their median (which needs them all once; no copy of them is made)."""
    pooled, ref = passed.pooled, None
    if pooled is not None:

        def pieces():  # the median's passes, a block at a time
            return (pooled[b] for b in feature_blocks(pooled.size, 24, _BLOCK_BYTES))

        ref = median(pieces, pooled.size)  # NaN without any: every share narrow
    for i, block in enumerate(blocks):
        at = codes[block]
        if ref is None:
            at[_modelled(kinds, block)] = 1
        else:
            wide = wide_spread(pooled[int(starts[i]) : int(starts[i + 1])], ref)
            at[_modelled(kinds, block)] = np.where(wide, 2, 3)
    passed.pooled = None


def _tests(screen, block, mk, rows, fits, priors, pooled_df) -> None:
    """The moderated tests of the modelled features ``mk`` of ``block`` (fit ``rows``),
    written to the block's places once its fit rows are read."""
    C = screen.classes_.size
    p = location = spread = None
    if rows.stop > rows.start:
        fits = [fit_rows(f, rows) for f in fits if f is not None]
        # The tested coefficients are the fit's last C - 1 (the gaussian fits keep only those).
        k = fits[0].coefficients.shape[1]
        coefs = list(range(k - (C - 1), k))
        test = moderated_f(fits[0], coefs, prior=priors[0], pooled_df=pooled_df)
        p, location = test.pvalues, test.statistics
        if len(fits) > 1:
            w = screen._spread_weights[block][mk]  # each feature's share
            p /= 1.0 - w
            # The spread's p-value counts only where q / w < p: the others are not computed
            # (most, with the narrow share 0.02), and are inf here, so that p stays.
            test = moderated_f(
                fits[1], coefs, prior=priors[1], pooled_df=pooled_df, only_below=p * w
            )
            spread, q = test.statistics, test.pvalues
            q /= w
            np.minimum(p, q, out=p)
        np.minimum(p, 1.0, out=p)
    outputs = [(screen.pvalues_, 1.0, p), (screen.location_statistics_, 0.0, location)]
    if len(priors) > 1:
        outputs.append((screen.spread_statistics_, 0.0, spread))
    for out, fill, values in outputs:
        part = np.full(block.stop - block.start, fill)
        if values is not None:
            part[mk] = values
        out[block] = part  # one write of the block: an array in a file too
