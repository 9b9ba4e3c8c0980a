"""The Occam Set Covering Machine: hard greedy with a dyadic threshold code (Theorem 2).

Section VI-A of Shah, Marchand & Corbeil (2010): start from the empty conjunction; at each
step add the stump of largest utility ``|Q| / |N'| - p |R| / |P| - eta l`` (``l`` bits code
a threshold in the interval of equally good thresholds), remove the negatives ``Q`` it
covers and the positives ``R`` it misclassifies, and repeat until no negative remains,
``max_rules`` stumps were added, or the best stump covers no remaining negative.

One engine, in memory and out of core: each step scans every feature's presorted row
(:mod:`widefs.scm._presorted`) with :func:`best_occam_cut`; a later block wins only with a
strictly better (utility, tie-break), so ties go to the lowest feature index either way.

Why numpy and not numba (as the PAC-Bayes and kNN kernels): a scan is a dozen passes over the
``(features, examples)`` presort, and its costly part, coding a cut with the shortest dyadic
code, is needed only for the cuts that can still win (see :func:`_best_cut_chunk`). One scan
of colon (62 x 2000) takes 7-11 ms, as a numba kernel of the same scan does (9 ms); 100 x 20,000
random values 88 ms (kernel 150 ms); madelon (2600 x 500, few distinct values) 50 ms (kernel
16 ms). The kernel would cost every fresh install ~0.9 s of compilation in its first ``widefs run``.
"""

from __future__ import annotations

import numbers
from functools import partial

import numpy as np

from widefs._compat import Interval, StrOptions
from widefs._utils import load_columns
from widefs.scm._base import (
    BaseSCM,
    LearnedPath,
    chosen_columns,
    conj_fires,
    prefix_errors,
)
from widefs.scm._bitpacked import OCCAM, PackedBinary, PackedUtility, per_range
from widefs.scm._bounds import BoundScope, dyadic_search, occam_bound
from widefs.scm._docs import scm_docs
from widefs.scm._parallel import block_pool
from widefs.scm._presorted import presorted_blocks
from widefs.scm._rules import LearnedStump
from widefs.scm._serialize import serializable

__all__ = ["OccamSCM", "occam_greedy"]

# Compact the in-memory presort once fewer than this fraction of its positions is active.
_COMPACT_BELOW = 0.5
# Presort positions scanned at once by best_occam_cut (bounds its temporaries to ~100 MB).
_CHUNK_POSITIONS = 1 << 20
_NO_CUT = (-np.inf, -np.inf, -1, 0, np.nan, np.nan)


def best_occam_cut(
    order, values, y_pos, active, n_positions, lo, hi, p, eta, n_rem, p_norm, next_all, use
):
    """Best Occam cut over the features of one block: ``(score, tie, feature, side, a, b)``.

    For every feature with ``use[f]``, every cut between two consecutive *active* values
    ``a < b`` of its sorted row (``order[f, :n_positions]``, ``values[f, :n_positions]``) is
    scored for both parts (Section VI-A of Shah, Marchand & Corbeil 2010):
    ``U = |Q| / |N'| - p |R| / p_norm - eta l`` with ``l`` the shortest dyadic code of a
    threshold in ``[a, b)`` (cuts with no code up to ``MAX_BITS`` bits are skipped); side 0
    is the left part ``x <= a`` (covered by the stump ``x > t``), side 1 the right part. With
    ``next_all``, ``b`` is the next value of any example, active or not. The best is the
    highest score, then the highest tie-break ``|Q| - |R|``, then the first cut, left part
    first, then the lowest feature; ``feature`` is -1 (score -inf) when there is no cut.
    """
    total_neg = float(np.sum(active & ~y_pos))
    total_pos = float(np.sum(active & y_pos))
    feats = np.flatnonzero(use)
    step = max(1, _CHUNK_POSITIONS // max(int(n_positions), 1))
    best = _NO_CUT
    for start in range(0, feats.size, step):
        got = _best_cut_chunk(
            feats[start : start + step], order, values, y_pos, active, n_positions, lo, hi,
            p, eta, n_rem, p_norm, next_all, total_neg, total_pos,
        )  # fmt: skip
        if _beats(got, best):  # a later chunk (higher features) only when strictly better
            best = got
    return best


def _beats(got, best) -> bool:
    """``got`` is a cut, and better than ``best`` by (score, tie-break); ties keep ``best``."""
    return got[2] >= 0 and (got[0] > best[0] or (got[0] == best[0] and got[1] > best[1]))


def _best_cut_chunk(
    feats, order, values, y_pos, active, P, lo, hi, p, eta, n_rem, p_norm, next_all,
    total_neg, total_pos,
):  # fmt: skip
    """:func:`best_occam_cut` over the features ``feats`` (increasing).

    Works on the ``(features, positions)`` grid: a cut sits at an active position whose value
    exceeds the last active value before it (``a``). Coding a cut (the dyadic search) is the
    costly part, and a score is at most the utility before the penalty, ``u``
    (``fl(u - eta l) <= u``): the cut of highest ``u`` is coded first, then only the cuts
    with ``u`` at least its score can still win or tie, and only they are coded. Exact,
    whatever the penalty.
    """
    if feats.size == 0 or P == 0:
        return _NO_CUT
    rows = order[feats, :P]
    vals = values[feats, :P]
    act = active[rows]
    neg = act & ~y_pos[rows]
    pos = act & y_pos[rows]
    # Active negatives / positives before each position: the left part of a cut there.
    q_left = np.cumsum(neg, axis=1, dtype=np.int32) - neg
    r_left = np.cumsum(pos, axis=1, dtype=np.int32) - pos
    # The last active position before each position (-1: none): a cut's left value a.
    last = np.maximum.accumulate(np.where(act, np.arange(P, dtype=np.int32), -1), axis=1)
    before = np.empty_like(last)
    before[:, 0] = -1
    before[:, 1:] = last[:, :-1]
    prev = np.take_along_axis(vals, np.maximum(before, 0), axis=1)
    cut = act & (before >= 0) & (vals > prev)
    # Utility before the penalty of the left (side 0) and right part: as the scalar formula
    # |Q| / |N'| - p |R| / p_norm, in the same float operations.
    u0 = q_left / n_rem - p * r_left / p_norm
    u1 = (total_neg - q_left) / n_rem - p * (total_pos - r_left) / p_norm
    u = np.where(cut, np.maximum(u0, u1), -np.inf).ravel()
    if not cut.any():
        return _NO_CUT

    def code(flat):
        """Code lengths (-1: none) and ``b`` of the cuts at flat grid positions ``flat``."""
        fi = flat // P
        a = prev.ravel()[flat]
        b = vals.ravel()[flat]
        if next_all:
            # The first value above a among all examples: rows are sorted and never compacted
            # with next_all, so a binary search between a's position and the cut's.
            low, high = before.ravel()[flat] + 1, flat % P
            while np.any(low < high):
                mid = (low + high) // 2
                above = vals[fi, mid] > a
                high = np.where(above, mid, high)
                low = np.where(above, low, mid + 1)
            b = vals[fi, low]
        bits, _ = dyadic_search(a, b, lo[feats[fi]], hi[feats[fi]])
        return bits, b

    # A floor: the score of the cut of highest u (-inf in the rare case it has no code).
    top = int(np.argmax(u))
    top_bits, _ = code(np.array([top]))
    floor = u[top] - eta * top_bits[0] if top_bits[0] >= 0 else -np.inf
    flat = np.flatnonzero(cut.ravel() & (u >= floor))  # the cuts that can reach it, in order
    bits, b = code(flat)
    ok = bits >= 0
    flat, bits, b = flat[ok], bits[ok], b[ok]
    if flat.size == 0:
        return _NO_CUT
    q0 = q_left.ravel()[flat].astype(np.float64)
    r0 = r_left.ravel()[flat].astype(np.float64)
    # (cut, side) pairs in scan order, left part first; the scores as the scalar formula.
    pen = eta * bits
    score = np.stack([u0.ravel()[flat] - pen, u1.ravel()[flat] - pen], axis=1).ravel()
    tie = np.stack([q0 - r0, (total_neg - q0) - (total_pos - r0)], axis=1).ravel()
    top = score == score.max()
    j = int(np.flatnonzero(top & (tie == tie[top].max()))[0])
    c, side = divmod(j, 2)
    a = prev.ravel()[flat[c]]
    return float(score[j]), float(tie[j]), int(feats[flat[c] // P]), side, float(a), float(b[c])


def occam_greedy(
    X,
    y_pos: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    *,
    p: float,
    eta: float,
    max_rules: int,
    positives: str = "all",
    threshold_interval: str = "remaining",
    feature_reuse: bool = False,
    lazy: bool = False,
    block_bytes: int | None = None,
) -> list[LearnedStump]:
    """Greedy covering with the Occam utility; thresholds on the dyadic grid of ``[lo, hi]``.

    Parameters
    ----------
    X : ndarray of shape (m, n), or an out-of-core matrix with ``lazy=True``
    y_pos : ndarray of bool, shape (m,)
        Conjunction-space labels (True = the class a conjunction outputs when all fire).
    lo, hi : ndarray of shape (n,)
        A-priori attribute ranges ``[A_i, B_i]``.
    p, eta : float
        Penalty per covered positive; cost per code bit.
    max_rules : int
    positives : {"all", "remaining"}
        Normaliser ``|P|`` of the covered positives (all positives, the paper's) or ``|P'|``.
    threshold_interval : {"remaining", "all"}
        The interval ``[a, b)`` of equally good thresholds is the gap between the values of
        the examples still uncovered around the cut, or between consecutive values of all
        training examples.
    feature_reuse : bool
        Allow several stumps on one attribute; the paper uses each attribute at most once.
    lazy : bool
        ``X`` is out of core (dask, zarr, memmap); read one block of columns at a time.
    block_bytes : int, optional
        Out of core: bytes of one loaded block.

    Returns
    -------
    list of LearnedStump
    """
    m, F = X.shape
    next_all = threshold_interval == "all"
    # threshold_interval="all" needs the values of removed examples: never compact then.
    blocks = presorted_blocks(
        X, lazy=lazy, compact_below=0.0 if next_all else _COMPACT_BELOW, block_bytes=block_bytes
    )
    active = np.ones(m, dtype=bool)
    n_pos_total = max(float(y_pos.sum()), 1.0)
    unused = np.ones(F, dtype=bool)  # one stump per attribute (Section II)
    stumps: list[LearnedStump] = []
    with block_pool(blocks.threads) as pool:
        while len(stumps) < max_rules:
            n_neg = float(np.sum(active & ~y_pos))
            if n_neg == 0:
                break
            p_norm = n_pos_total if positives == "all" else max(float(np.sum(active & y_pos)), 1.0)

            def scan(block, n_neg=n_neg, p_norm=p_norm):
                span, order, values, n_positions = block
                got = best_occam_cut(
                    order, values, y_pos, active, n_positions, lo[span], hi[span],
                    p, eta, n_neg, p_norm, next_all, unused[span],
                )  # fmt: skip
                return span.start, got

            best = _NO_CUT
            for start, got in pool.map(scan, blocks.presorts(active, unused)):
                # Blocks in feature order: a later one wins only when strictly better.
                if _beats(got, best):
                    best = (*got[:2], start + got[2], *got[3:])
            stump = None if best[2] < 0 else _occam_stump(X, y_pos, active, best, lo, hi, lazy)
            if stump is None:
                break  # no cut, or the best stump covers no remaining negative: no progress
            stumps.append(stump)
            unused[stump.feature] = feature_reuse
    return stumps


def _occam_stump(X, y_pos, active, best, lo, hi, lazy) -> LearnedStump | None:
    """The stump of the best cut; deactivates the examples it covers (None: it covers no
    remaining negative, and nothing changes)."""
    _, _, f, side, a, b = best
    x = load_columns(X, [f])[:, 0] if lazy else X[:, f]
    # Every value equal to a is left of the cut: the left part is {x <= a}.
    covered = np.flatnonzero(active & ((x <= a) if side == 0 else (x > a)))
    q = int(np.sum(~y_pos[covered]))
    if q == 0:
        return None
    bits, t = dyadic_search(a, b, lo[f], hi[f])
    active[covered] = False
    return LearnedStump(
        feature=f,
        direction=1 if side == 0 else -1,
        threshold=float(t),
        covered_negatives=q,
        covered_positives=int(covered.size - q),
        bits=int(bits),
    )


@serializable
@scm_docs
class OccamSCM(BaseSCM):
    """Set Covering Machine of decision stumps with the Occam's razor bound (Theorem 2).

    Greedy covering with utility ``|Q| / |N'| - p |R| / |P| - eta * l`` (Section VI of Shah,
    Marchand & Corbeil 2010), where ``l`` is the number of bits of the shortest dyadic code
    of a threshold inside the interval of equally good thresholds; the threshold is that
    grid point of ``[A_i, B_i]``. The greedy stops when no negative remains, after
    ``max_rules`` stumps, or when the best stump covers no remaining negative.

    Parameters
    ----------
    %(model_type)s
    %(p_covered)s
    eta : float, default=0.01
        Cost of each code bit in the utility.
    max_rules : int, default=10
        Maximum number of stumps ``v``.
    %(delta)s
    %(select_prefix)s
    feature_range : (low, high) or None, default=None
        A-priori range ``[A_i, B_i]`` of every attribute (scalars or arrays of length
        n_features), from the data's definition. ``None`` uses the training minimum and
        maximum and warns (:class:`~widefs.exceptions.HeuristicBoundWarning`): the bound
        is then heuristic.
    positives : {"all", "remaining"}, default="all"
        Normalise the covered positives by all positives ``|P|`` (the paper) or by the
        remaining ones ``|P'|``.
    threshold_interval : {"remaining", "all"}, default="remaining"
        Interval of equally good thresholds: between the uncovered examples' values
        around the cut, or between consecutive values of all training examples.
    feature_reuse : bool, default=False
        Allow several stumps on the same attribute; the bound then uses the prior
        ``1 / C(2n + k - 1, k)`` over multisets of (attribute, direction) pairs.

    Attributes
    ----------
    rules_ : list of StumpRule
        The kept stumps in the order they were added; each has ``bits``.
    selected_features_ : ndarray of int
        The rules' features, in rule order.
    feature_importances_ : ndarray of shape (n_features,)
        Share of the training negatives covered by each kept stump when it was added.
    risk_bound_ : float
        The Occam bound of the kept model on the training set.
    bound_path_ : ndarray of shape (``n_rules_learned_ + 1``,)
        Bound of the first k stumps, k = 0 .. ``n_rules_learned_`` (two classes; each
        machine of a decision list has its own).
    empirical_risk_ : float
        Training error rate of the kept model.
    search_score_ : float
        ``1 - empirical_risk_``, the training accuracy of the kept model (higher is
        better): the score :func:`widefs.model_selection.search_certificate` certifies.
        %(certified)s
    feature_range_ : tuple of ndarray
        The ranges used.
    %(fitted_common)s

    See Also
    --------
    SampleCompressionSCM : Thresholds at training values, sample-compression bound.
    PACBayesSCM : Margin intervals and the PAC-Bayes bound.
    occam_bound : The bound of Theorem 2.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> clf = OccamSCM(feature_range=(0.0, 4.0)).fit(X, [0, 0, 1, 1])
    >>> [str(r) for r in clf.rules_], clf.rules_[0].bits
    (['x0 > 1'], 1)
    """

    _rule_extra = "bits"
    _per_rule_arrays = ()
    _parameter_constraints: dict = {
        **BaseSCM._parameter_constraints,
        "eta": [Interval(numbers.Real, 0, None, closed="left")],
        "feature_range": [None, tuple, list],
        "positives": [StrOptions({"all", "remaining"})],
        "threshold_interval": [StrOptions({"remaining", "all"})],
    }

    def __init__(
        self,
        model_type="conjunction",
        *,
        p=1.0,
        eta=0.01,
        max_rules=10,
        delta=0.05,
        select="bound",
        feature_range=None,
        positives="all",
        threshold_interval="remaining",
        feature_reuse=False,
    ):
        self.model_type = model_type
        self.p = p
        self.eta = eta
        self.max_rules = max_rules
        self.delta = delta
        self.select = select
        self.feature_range = feature_range
        self.positives = positives
        self.threshold_interval = threshold_interval
        self.feature_reuse = feature_reuse

    def _packed_utility(self, X: PackedBinary) -> PackedUtility:
        # Each 0/1 feature's cut has the interval [0, 1) of equally good thresholds
        # (whichever examples remain): one code per feature, from its range.
        def code(lo, hi):
            bits, t = dyadic_search(0.0, 1.0, lo, hi)
            return float(bits), float(t)

        coded, usable = per_range(*self.feature_range_, code, 2)
        usable &= coded[:, 0] >= 0  # (a cut with no code up to MAX_BITS bits is skipped)
        bits = np.where(usable, coded[:, 0], 0).astype(np.int64)
        t = coded[:, 1]

        def stump(f, direction, q, r):
            return LearnedStump(f, direction, float(t[f]), int(q), int(r), bits=int(bits[f]))

        penalty = float(self.eta) * bits  # the float path's eta * l
        return PackedUtility(OCCAM, float(self.p), penalty, usable, stump, self.positives)

    def _learn(self, X, y_pos, scope: BoundScope) -> LearnedPath:
        lo, hi = self.feature_range_
        greedy = partial(
            occam_greedy, X, y_pos, lo, hi, p=float(self.p), eta=float(self.eta),
            positives=self.positives, threshold_interval=self.threshold_interval,
        )  # fmt: skip
        stumps = self._stumps(X, y_pos, greedy)
        X = chosen_columns(X, stumps)
        n = X.shape[1]
        errors = prefix_errors(conj_fires(X, stumps), y_pos).sum(axis=1)
        bits = [s.bits for s in stumps]
        bounds = [
            occam_bound(
                int(errors[k]), scope.m, n, bits[:k], scope.delta, feature_reuse=self.feature_reuse
            )
            for k in range(len(stumps) + 1)
        ]
        return LearnedPath(stumps, np.array(bounds), errors / X.shape[0])
