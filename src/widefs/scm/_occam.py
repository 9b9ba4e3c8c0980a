"""The Occam Set Covering Machine: hard greedy with a dyadic threshold code (Theorem 2).

Section VI-A of Shah, Marchand & Corbeil (2010): start from the empty conjunction; at each
step add the stump of largest utility ``|Q| / |N'| - p |R| / |P| - eta l`` (``l`` bits code
a threshold in the interval of equally good thresholds), remove the negatives ``Q`` it
covers and the positives ``R`` it misclassifies, and repeat until no negative remains,
``max_rules`` stumps were added, or the best stump covers no remaining negative.

One engine, in memory and out of core: each step scans every feature's presorted row
(:mod:`widefs.scm._presorted`) with the numba kernel
:func:`widefs.scm._occam_kernels.best_occam_cut`; a later block wins only with a strictly
better (utility, tie-break), so ties go to the lowest feature index either way.
"""

from __future__ import annotations

import numbers
from importlib import import_module

import numpy as np

from widefs._compat import Interval, StrOptions
from widefs.scm._base import (
    BaseSCM,
    LearnedPath,
    chosen_columns,
    conj_fires,
    prefix_errors,
)
from widefs.scm._bounds import occam_bound
from widefs.scm._parallel import block_pool
from widefs.scm._presorted import presorted_blocks
from widefs.scm._rules import LearnedStump
from widefs.scm._serialize import serializable
from widefs.utils import is_lazy_matrix, load_columns

__all__ = ["OccamSCM", "occam_greedy"]

# Compact the in-memory presort once fewer than this fraction of its positions is active.
_COMPACT_BELOW = 0.5


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
    kern = import_module("widefs.scm._occam_kernels")  # numba: imported (compiled) on first use
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
                got = kern.best_occam_cut(
                    order, values, y_pos, active, n_positions, lo[span], hi[span],
                    p, eta, n_neg, p_norm, next_all, unused[span],
                )  # fmt: skip
                return span.start, got

            best = None
            for start, (s, t, j, side, a, b) in pool.map(scan, blocks.presorts(active, unused)):
                # Blocks in feature order: a later one wins only when strictly better.
                if j >= 0 and (best is None or s > best[0] or (s == best[0] and t > best[1])):
                    best = (s, t, start + j, side, a, b)
            if best is None:
                break
            _, _, f, side, a, b = best
            x = load_columns(X, [f])[:, 0] if lazy else X[:, f]
            # Every value equal to a is left of the cut: the left part is {x <= a}.
            covered = np.flatnonzero(active & ((x <= a) if side == 0 else (x > a)))
            q = int(np.sum(~y_pos[covered]))
            if q == 0:  # the best stump covers no remaining negative: no progress
                break
            bits, t = kern.dyadic_bits_nb(a, b, lo[f], hi[f])
            stumps.append(
                LearnedStump(
                    feature=f,
                    direction=1 if side == 0 else -1,
                    threshold=float(t),
                    covered_negatives=q,
                    covered_positives=int(covered.size - q),
                    bits=int(bits),
                )
            )
            active[covered] = False
            unused[f] = feature_reuse
    return stumps


@serializable
class OccamSCM(BaseSCM):
    """Set Covering Machine of decision stumps with the Occam's razor bound (Theorem 2).

    Greedy covering with utility ``|Q| / |N'| - p |R| / |P| - eta * l`` (Section VI of Shah,
    Marchand & Corbeil 2010), where ``l`` is the number of bits of the shortest dyadic code
    of a threshold inside the interval of equally good thresholds; the threshold is that
    grid point of ``[A_i, B_i]``. The greedy stops when no negative remains, after
    ``max_rules`` stumps, or when the best stump covers no remaining negative.

    Parameters
    ----------
    model_type : {"conjunction", "disjunction"}, default="conjunction"
        Learn a conjunction, or a disjunction (the conjunction of the negated stumps for
        the swapped classes).
    p : float, default=1.0
        Penalty for each positive example a stump covers (misclassifies).
    eta : float, default=0.01
        Cost of each code bit in the utility.
    max_rules : int, default=10
        Maximum number of stumps ``v``.
    delta : float, default=0.05
        The bound holds with probability ``1 - delta``.
    select : {"bound", "none"}, default="bound"
        ``"bound"``: keep the prefix (number of stumps) whose bound is smallest (first
        minimum); ``"none"``: keep every stump the greedy added.
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
    bound_path_ : ndarray of shape (n_rules_learned_ + 1,)
        Bound of the first k stumps, k = 0 .. n_rules_learned_.
    empirical_risk_ : float
        Training error rate of the kept model.
    n_rules_learned_ : int
        Stumps the greedy added before ``select``.
    feature_range_ : tuple of ndarray
        The ranges used.
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.

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

    def _learn(self, X, y_pos) -> LearnedPath:
        lo, hi = self.feature_range_
        stumps = occam_greedy(
            X,
            y_pos,
            lo,
            hi,
            p=float(self.p),
            eta=float(self.eta),
            max_rules=int(self.max_rules),
            positives=self.positives,
            threshold_interval=self.threshold_interval,
            feature_reuse=bool(self.feature_reuse),
            lazy=is_lazy_matrix(X),
        )
        X = chosen_columns(X, stumps)
        m, n = X.shape
        errors = prefix_errors(conj_fires(X, stumps), y_pos).sum(axis=1)
        bits = [s.bits for s in stumps]
        bounds = [
            occam_bound(
                int(errors[k]), m, n, bits[:k], float(self.delta), feature_reuse=self.feature_reuse
            )
            for k in range(len(stumps) + 1)
        ]
        return LearnedPath(stumps, np.array(bounds), errors / m)
