"""The screen's rank branch: rank statistics with permutation nulls pooled among alike features.

Skewed, heavy-tailed and tied features are scored on their mid-ranks. A rank statistic's
permutation distribution depends on nothing but the tie pattern: every feature without ties
has *exactly* the same null (that of the ranks 1..n): their p-values come from draws of the
statistic on 1..n under random labellings, independent of the data, as many as Bonferroni over
all features needs (up to MAX_UNTIED_DRAWS), so they are exact. Given an ``UntiedDecision``
(the screen's selection with every other p-value fixed), those draws stop as soon as the
selection is settled: see ``_untied_pvalues``. With two classes where numba is loaded, one
compiled pass (``_rank_kernels``) draws and scores them, the same labellings and the same floats as the
numpy path, without a matrix of labellings. Tied features are grouped into
strata of similar tie factor ``sum(t^3 - t) / (n^3 - n)`` (the share of the rank variance the
ties remove: a zero-inflated count with half its values at 0 has about 0.25), and draws are
pooled only within a stratum. The tie factor is computed without the labels, so a feature's
stratum does not depend on them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from widefs._utils import block_width, is_lazy_matrix, iter_column_blocks, load_columns
from widefs.stats import pooled_permutation_pvalues

__all__ = ["RankBranch", "rank_branch"]

#: Null draws pooled in every stratum (the p-value floor is 1 / (draws + 1)).
STRATUM_DRAWS = 100_000
#: Features per stratum of tied features, at least (fewer strata when there are fewer).
STRATUM_FEATURES = 50
MAX_STRATA = 40
#: Tie factor below which a feature's rank null is that of untied ranks (a few tied pairs of
#: n >= 10 values change the rank variance by less than 0.01 %).
NEGLIGIBLE_TIES = 1e-4
_UNTIED_CHUNK = 50_000  # labellings of the untied null scored at once, at most
#: Draws of the untied null before its first check; each later chunk doubles the draws (up to
#: _UNTIED_CHUNK more), so checks are few (8 up to 200,000 draws) and cost nothing beside them.
FIRST_UNTIED_DRAWS = 2_000
#: Chance, over one whole fit, that a stopped selection differs from the selection the exact
#: p-values (infinitely many draws) give: spread evenly over every check and untied feature.
SETTLE_ERROR = 1e-3
#: Most draws of the untied null (its floor then reaches alpha / M up to M = 10,000).
MAX_UNTIED_DRAWS = 200_000
#: Most ranks of the compiled untied null: its class sums of e^2 (e <= 2 n^2) stay exact
#: integers below 2**53 (4 n^5 <= 2**53), so any order of summation gives the same floats.
EXACT_RANKS = 1_000


@dataclass(frozen=True)
class RankBranch:
    """p-values, floors, statistics and strata of the ranked features (in their order)."""

    pvalues: NDArray[np.float64]
    min_pvalues: NDArray[np.float64]
    location: NDArray[np.float64]
    spread: NDArray[np.float64]
    strata: NDArray[np.intp]
    untied_drawn: int = 0


def strata_of(ties: NDArray[np.float64]) -> NDArray[np.intp]:
    """Stratum 0 for features without ties; tied ones in equal-count bins of their tie factor."""
    strata = np.zeros(ties.size, np.intp)
    tied = np.flatnonzero(ties > NEGLIGIBLE_TIES)
    if tied.size == 0:
        return strata
    n_bins = int(min(MAX_STRATA, max(1, tied.size // STRATUM_FEATURES)))
    order = tied[np.argsort(ties[tied], kind="stable")]
    strata[order] = 1 + (np.arange(order.size) * n_bins) // order.size
    return strata


def _logsf_f(F, d1, d2):
    """``log P(F(d1, d2) > F)`` once per distinct value (rank statistics repeat a lot)."""
    from scipy import stats

    values, inverse = np.unique(F, return_inverse=True)
    # A leading 0 (outside the open support: its value is set, not computed) keeps scipy
    # from broadcasting d1 and d2 to every value, for which its generic logsf computes the
    # median (an inverse of the cdf) once per value; each value's logsf is the same either way.
    return stats.f.logsf(np.concatenate([[0.0], values]), d1, d2)[1:][inverse].reshape(F.shape)


def _scores(R, labels, n_classes, counts, log_w):
    """Combined score ``max(log w_loc - log P(F > F_loc), log w_spr - log P(F > F_spr))``."""
    from widefs.univariate._screen_numpy import rank_f_kernel

    n = R.shape[0]
    if labels.shape[1] != n:
        # The kernel does not check bounds: it would read past the end of the labels.
        raise ValueError(f"{labels.shape[1]} labels for {n} ranks.")
    rank_f_scores = rank_f_kernel(float(labels.shape[0]) * R.size)
    F_loc, F_spr = rank_f_scores(
        np.ascontiguousarray(R, dtype=np.float64),
        labels,
        np.ascontiguousarray(counts, dtype=np.float64),
        bool(np.isfinite(log_w[1])),
    )
    return _combined(F_loc, F_spr, n_classes, n, log_w), F_loc, F_spr


def _combined(F_loc, F_spr, n_classes, n, log_w):
    """The score of the location and spread F of n ranks (``_scores``)."""
    d1, d2 = n_classes - 1, n - n_classes
    score = log_w[0] - _logsf_f(F_loc, d1, d2)
    if np.isfinite(log_w[1]):
        score = np.maximum(score, log_w[1] - _logsf_f(F_spr, d1, d2))
    return score


def _read(X, columns, lazy):
    from scipy.stats import rankdata

    if getattr(X, "mid_ranks", False):  # mid-ranks kept by the first pass: their own
        return load_columns(X, columns)
    block = load_columns(X, columns) if lazy else np.asarray(X[:, columns], dtype=np.float64)
    return rankdata(block, axis=0)


def untied_chunk_ends(draws: int) -> list[int]:
    """Where the untied null's chunks end (its checks): FIRST_UNTIED_DRAWS, then each chunk as
    large as all the draws before it, at most _UNTIED_CHUNK, up to ``draws``."""
    ends = [min(FIRST_UNTIED_DRAWS, draws)]
    for _ in range(draws):  # each chunk adds at least one draw: a bounded loop
        if ends[-1] >= draws:
            break
        ends.append(min(draws, ends[-1] + min(_UNTIED_CHUNK, ends[-1])))
    return ends


def _exact_bounds_of(obs, codes, counts, log_w):
    """Exact bounds of the untied p-values with two classes (None: too costly)."""
    from widefs.univariate._rank_exact import exact_bounds

    return exact_bounds(obs, codes, counts, log_w, _scores)


def _fused(n: int, n_classes: int, work: float) -> bool:
    """Whether the untied null runs the compiled one-pass kernel: two classes, its sums
    exact (up to EXACT_RANKS ranks), and numba loaded already or the work paying for loading
    it (``_screen_numpy``'s rule; the numpy path needs no numba at all)."""
    from widefs.univariate._screen_numpy import NUMBA_MIN_WORK

    fits = n_classes == 2 and n <= EXACT_RANKS
    return fits and ("numba" in sys.modules or work >= NUMBA_MIN_WORK)


def _untied_scores(codes, n_classes, counts, log_w, k, gen):
    """Scores of k labellings of the ranks 1..n, drawn by ``gen`` as
    ``gen.permuted(np.tile(codes, (k, 1)), axis=1)`` draws them (the same draws either way)."""
    n = codes.size
    if not _fused(n, n_classes, float(k) * n):
        labels = gen.permuted(np.tile(codes, (k, 1)), axis=1)
        R = np.arange(1.0, n + 1.0)[:, None]
        return _scores(R, labels, n_classes, counts, log_w)[0].ravel()
    from widefs.univariate._rank_kernels import untied_rank_f

    bits = gen.bit_generator.ctypes
    F_loc, F_spr = untied_rank_f(
        codes.astype(np.int64), np.ascontiguousarray(counts, dtype=np.float64),
        bool(np.isfinite(log_w[1])), int(k), bits.next_uint32, bits.state_address,
        np.empty(n, dtype=np.int64),
    )  # fmt: skip
    return _combined(F_loc, F_spr, n_classes, n, log_w)


def _untied_pvalues(obs, codes, n_classes, counts, log_w, draws, gen, decision):
    """p-values of the features without ties and the labellings drawn.

    Every feature without ties has the null of the ranks 1..n (its mid-ranks are a
    permutation of them), drawn here in chunks of labellings, independent of the features:
    the p-value ``(1 + b) / (1 + B)`` counts the ``b`` of ``B`` draws at least the observed
    score. The generator's labellings do not depend on the chunks, so the p-values over all
    ``draws`` are those of one pool of them. With a ``decision``, drawing stops after the
    first chunk at which it is settled (``UntiedDecision.settled``), with the p-values of the
    draws made so far; with two classes, the check uses the p-values' exact bounds too."""
    if np.isnan(obs).any():
        raise ValueError("observed and null must not contain NaN.")
    if decision is not None and n_classes == 2:
        bounds = _exact_bounds_of(obs, codes, counts, log_w)
        if bounds is not None:
            decision = decision.bounded(*bounds)
    ends = untied_chunk_ends(draws)
    # Every check of every feature gets an equal share of the error (a union bound).
    error = SETTLE_ERROR / (max(1, len(ends) - 1) * max(1, obs.size))
    order = np.argsort(obs)  # sorted queries walk the sorted null in order
    at_least = np.zeros(obs.size)
    drawn = 0
    for end in ends:
        null = np.sort(_untied_scores(codes, n_classes, counts, log_w, end - drawn, gen))
        at_least[order] += null.size - np.searchsorted(null, obs[order], side="left")
        drawn = end
        if decision is not None and end < draws and decision.settled(at_least, drawn, error):
            break
    return (1.0 + at_least) / (1.0 + drawn), drawn


def _tied_pvalues(obs, strata, null):
    """p-values and floors of the tied features against their strata's pools (1 for the
    untied ones)."""
    pvalues = np.ones(obs.size)
    floors = np.ones(obs.size)
    for s in range(1, len(null)):
        if null[s]:
            pool = np.sort(np.concatenate(null[s]))
            members = strata == s
            pvalues[members] = pooled_permutation_pvalues(obs[members], pool, assume_sorted=True)
            floors[members] = 1.0 / (pool.size + 1.0)
    return pvalues, floors


def rank_branch(
    X,
    columns,
    ties,
    codes,
    n_classes,
    spread_weight,
    rng,
    *,
    draws=STRATUM_DRAWS,
    untied_draws=STRATUM_DRAWS,
    decision=None,
) -> RankBranch:
    """Pooled-within-stratum permutation p-values of the ranked features ``columns``.

    Parameters
    ----------
    X : matrix (n_samples, n_features), in memory or out of core
    columns : ndarray of int
        The ranked features, ascending.
    ties : ndarray of float
        Their tie factors.
    codes : ndarray of int
        Class codes.
    n_classes : int
    spread_weight : float
        Share of the level given to the spread statistic (0: location only).
    rng : RandomState
        Seeds every stratum's permutations.
    draws : int
        Null draws per stratum of tied features.
    untied_draws : int
        Null draws of the features without ties, at most (one exact null for all of them).
    decision : UntiedDecision, optional
        The selection to settle: the untied draws stop once it is (None: all the draws).

    Returns
    -------
    RankBranch
    """
    strata = strata_of(ties)
    counts = np.bincount(codes, minlength=n_classes).astype(np.float64)
    with np.errstate(divide="ignore"):
        log_w = np.log([1.0 - spread_weight, spread_weight])
    sizes = np.bincount(strata)
    # Fisher-Yates shuffles of the labels (no sort), seeded from rng: identical for a seed.
    gen = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
    # Labellings of the narrowest integers: the shuffles draw the same random numbers
    # whatever the type, and move fewer bytes.
    codes = codes.astype(np.min_scalar_type(n_classes - 1))
    perms = [
        gen.permuted(np.tile(codes, (max(2, -(-draws // g)), 1)), axis=1) if g and s else None
        for s, g in enumerate(sizes)
    ]
    obs, loc, spr = (np.empty(columns.size) for _ in range(3))
    null = [[] for _ in sizes]
    lazy = is_lazy_matrix(X)
    for part in iter_column_blocks(columns.size, block_width(codes.size, 8 * 4)):
        R = _read(X, columns[part], lazy)
        score, F_loc, F_spr = _scores(R, codes[None, :], n_classes, counts, log_w)
        obs[part], loc[part], spr[part] = score[0], F_loc[0], F_spr[0]
        for s in np.unique(strata[part]):
            if s:
                in_s = strata[part] == s
                null[s].append(_scores(R[:, in_s], perms[s], n_classes, counts, log_w)[0].ravel())
    pvalues, floors = _tied_pvalues(obs, strata, null)
    untied, drawn = strata == 0, 0
    if sizes[0]:
        # Its labellings follow the tied strata's in the generator's stream; the decision
        # needs the observed scores and the tied features' p-values first.
        if decision is not None:
            decision = decision.including(pvalues[~untied])
        pvalues[untied], drawn = _untied_pvalues(
            obs[untied], codes, n_classes, counts, log_w, untied_draws, gen, decision
        )
        floors[untied] = 1.0 / (drawn + 1.0)
    return RankBranch(pvalues, floors, loc, spr, strata, drawn)
