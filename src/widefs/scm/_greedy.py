"""Hard greedy set covering of decision stumps: the sample-compression and Occam learners.

Section VI of Shah, Marchand & Corbeil (2010): start from the empty conjunction; at each
step add the stump of largest utility, remove the negatives ``Q`` it covers (classifies 0)
and the positives ``R`` it misclassifies, and repeat until no negative remains, ``max_rules``
stumps were added, or the best stump covers no remaining negative (no progress).

Each step is one streaming pass over every feature's presorted order and both directions;
``X`` is sorted once per fit and never copied per step; removed examples are skipped and
compacted away lazily. The sample-compression utility runs on numpy alone
(:mod:`widefs.scm._covering`: packed presort, rank tables, pruning); the Occam utility, whose
score depends on the threshold interval, on the numba scan
:func:`widefs.stumps.scan_best_cuts`, imported only when needed. An out-of-core ``X`` is
read block by block (:func:`lazy_hard_greedy` for the numba scan).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from widefs.scm._base import (
    BaseSCM,
    LearnedStump,
    SelectedColumns,
    StumpRule,
    check_finite_block,
    conj_fires,
    errors_of_prefixes,
    resolve_feature_range,
)
from widefs.scm._bounds import occam_bound, sample_compression_bound
from widefs.scm._covering import sc_greedy, sc_greedy_supported
from widefs.stumps import presort_features, scan_best_cuts
from widefs.utils import block_width, is_lazy_matrix, iter_column_blocks, load_columns

__all__ = ["OccamSCM", "SampleCompressionSCM", "hard_greedy"]

# Compact the sorted rows once fewer than this fraction of their entries is still active.
_COMPACT_BELOW = 0.5


def _kernels():
    """The numba scorers (Occam; the sample-compression twin of the generic scan), loaded on use.

    numba is imported only then: the sample-compression learner runs on numpy alone
    (:mod:`widefs.scm._covering`), so importing widefs or fitting it needs no JIT.
    """
    from widefs.scm import _greedy_kernels

    return _greedy_kernels


def hard_greedy(
    X: np.ndarray,
    y_pos: np.ndarray,
    *,
    utility: str,
    p: float,
    max_rules: int,
    eta: float = 0.0,
    feature_range: tuple[np.ndarray, np.ndarray] | None = None,
    positives: str = "all",
    threshold_interval: str = "remaining",
    feature_reuse: bool = False,
    engine: str = "auto",
    lazy: bool = False,
) -> list[LearnedStump]:
    """Greedy covering with the sample-compression (``"sc"``) or Occam (``"occam"``) utility.

    Parameters
    ----------
    X : ndarray of shape (m, n)
    y_pos : ndarray of bool, shape (m,)
        Conjunction-space labels (True = the class a conjunction outputs when all fire).
    utility : {"sc", "occam"}
    p, eta : float
        Penalty per covered positive; Occam's cost per code bit.
    max_rules : int
    feature_range : (lo, hi), needed for ``"occam"``
    positives : {"all", "remaining"}
        Occam's normaliser ``|P|`` (all positives, the paper's) or ``|P'|`` (remaining).
    threshold_interval : {"remaining", "all"}
        Occam: the interval ``[a, b)`` of equally good thresholds is the gap between the
        values of the examples still uncovered around the cut, or between consecutive
        values of all training examples.
    feature_reuse : bool
        Allow several stumps on one attribute (pyscm-ml does); the paper uses each
        attribute at most once.
    engine : {"auto", "numpy", "numba"}
        ``"sc"`` runs on the numpy engine of :mod:`widefs.scm._covering` (packed presort,
        rank tables, pruning) unless its rank table would be too large (thousands of
        examples) or ``"numba"`` is asked; ``"occam"`` always uses the numba scan
        :func:`widefs.stumps.scan_best_cuts`. Both give the same stumps.
    lazy : bool
        ``X`` is out of core (dask, zarr, memmap); read one block of columns at a time.

    Returns
    -------
    list of LearnedStump
    """
    if engine not in ("auto", "numpy", "numba"):
        raise ValueError(f"engine must be 'auto', 'numpy' or 'numba', got {engine!r}.")
    if utility == "sc" and engine != "numba" and (engine == "numpy" or sc_greedy_supported(y_pos)):
        return sc_greedy(X, y_pos, p=p, max_rules=max_rules, feature_reuse=feature_reuse, lazy=lazy)
    if lazy:
        return lazy_hard_greedy(
            X,
            y_pos,
            utility=utility,
            p=p,
            max_rules=max_rules,
            eta=eta,
            feature_range=feature_range,
            positives=positives,
            threshold_interval=threshold_interval,
            feature_reuse=feature_reuse,
        )
    m, F = X.shape
    sf = presort_features(X)
    active = np.ones(m, dtype=bool)
    channels = np.zeros((m, 2))
    channels[:, 0] = ~y_pos
    channels[:, 1] = y_pos
    n_pos_total = max(float(y_pos.sum()), 1.0)
    lo, hi = (np.zeros(F), np.zeros(F)) if feature_range is None else feature_range
    next_value = "all" if (utility == "occam" and threshold_interval == "all") else "active"
    kern = _kernels()
    scorer = kern.sc_scorer if utility == "sc" else kern.occam_scorer
    n_positions = m
    # One stump per attribute (Section II; the bounds' prior counts attribute subsets).
    unused = np.ones(F, dtype=bool)
    stumps: list[LearnedStump] = []
    while len(stumps) < max_rules:
        n_neg = float(np.sum(active & ~y_pos))
        if n_neg == 0:
            break
        # Lazy compaction, fused into the scan that follows enough removals. Rows of used
        # features are then left as they are, so those features stay masked from now on
        # (without feature_reuse), or no feature is masked (with it).
        n_active = int(np.sum(active))
        compact = next_value == "active" and n_active < _COMPACT_BELOW * n_positions
        if utility == "sc":
            params = np.array([p])
        else:
            p_norm = n_pos_total if positives == "all" else max(float(np.sum(active & y_pos)), 1.0)
            params = np.array([p, eta, n_neg, p_norm])
        scan = scan_best_cuts(
            sf,
            channels,
            scorer,
            params,
            active=active,
            n_positions=n_positions,
            feature_range=(lo, hi),
            next_value=next_value,
            feature_mask=unused,
            compact=compact,
        )
        if compact:
            n_positions = n_active
        f = scan.best_feature()
        if f < 0:
            break
        pos = int(scan.position[f])
        row = sf.order[f, :n_positions]
        covered = row[:pos] if scan.side[f] == 0 else row[pos:]
        covered = covered[active[covered]]
        q = int(np.sum(~y_pos[covered]))
        if q == 0:  # the best stump covers no remaining negative: no progress
            break
        a, b = float(scan.left_value[f]), float(scan.right_value[f])
        if utility == "sc":
            # The threshold is the value of a training example (the compression set).
            bits, t = 0, a
        else:
            bits, t = kern.dyadic_bits_nb(a, b, lo[f], hi[f])
        stumps.append(
            LearnedStump(
                feature=f,
                direction=1 if scan.side[f] == 0 else -1,
                threshold=float(t),
                a=a,
                b=b,
                bits=int(bits),
                covered_negatives=q,
                covered_positives=int(covered.size - q),
            )
        )
        active[covered] = False
        unused[f] = feature_reuse
    return stumps


def lazy_hard_greedy(
    X,
    y_pos: np.ndarray,
    *,
    utility: str,
    p: float,
    max_rules: int,
    eta: float = 0.0,
    feature_range: tuple[np.ndarray, np.ndarray] | None = None,
    positives: str = "all",
    threshold_interval: str = "remaining",
    feature_reuse: bool = False,
    block_bytes: int | None = None,
) -> list[LearnedStump]:
    """:func:`hard_greedy` on an out-of-core ``X``: each step reads ``X`` one block of columns at a time.

    Each block is presorted and scanned with :func:`widefs.stumps.scan_best_cuts`; blocks
    are visited in feature order and a later block wins only with a strictly better
    (utility, tie-break), so ties go to the lowest feature index exactly as in memory.
    Only one block (and its presort) is in memory at a time.
    """
    m, F = X.shape
    width = block_width(m) if block_bytes is None else block_width(m, max_bytes=block_bytes)
    active = np.ones(m, dtype=bool)
    channels = np.zeros((m, 2))
    channels[:, 0] = ~y_pos
    channels[:, 1] = y_pos
    n_pos_total = max(float(y_pos.sum()), 1.0)
    lo, hi = (np.zeros(F), np.zeros(F)) if feature_range is None else feature_range
    next_value = "all" if (utility == "occam" and threshold_interval == "all") else "active"
    kern = _kernels()
    scorer = kern.sc_scorer if utility == "sc" else kern.occam_scorer
    unused = np.ones(F, dtype=bool)
    stumps: list[LearnedStump] = []
    while len(stumps) < max_rules:
        n_neg = float(np.sum(active & ~y_pos))
        if n_neg == 0:
            break
        if utility == "sc":
            params = np.array([p])
        else:
            p_norm = n_pos_total if positives == "all" else max(float(np.sum(active & y_pos)), 1.0)
            params = np.array([p, eta, n_neg, p_norm])
        best = None
        for b in iter_column_blocks(F, width):
            if not unused[b].any():
                continue
            Xb = load_columns(X, b)
            check_finite_block(Xb, b.start)
            scan = scan_best_cuts(
                presort_features(Xb),
                channels,
                scorer,
                params,
                active=active,
                feature_range=(lo[b], hi[b]),
                next_value=next_value,
                feature_mask=unused[b],
            )
            j = scan.best_feature()
            if j < 0:
                continue
            s, t = float(scan.score[j]), float(scan.tiebreak[j])
            if best is None or s > best[0] or (s == best[0] and t > best[1]):
                side = int(scan.side[j])
                best = (
                    s,
                    t,
                    b.start + j,
                    side,
                    float(scan.left_value[j]),
                    float(scan.right_value[j]),
                )
        if best is None:
            break
        _, _, f, side, a, b = best
        x = load_columns(X, [f])[:, 0]
        # Every value equal to a is left of the cut: the left part is {x <= a}.
        covered = np.flatnonzero(active & ((x <= a) if side == 0 else (x > a)))
        q = int(np.sum(~y_pos[covered]))
        if q == 0:
            break
        bits, t = (0, a) if utility == "sc" else kern.dyadic_bits_nb(a, b, lo[f], hi[f])
        stumps.append(
            LearnedStump(
                feature=f,
                direction=1 if side == 0 else -1,
                threshold=float(t),
                a=a,
                b=b,
                bits=int(bits),
                covered_negatives=q,
                covered_positives=int(covered.size - q),
            )
        )
        active[covered] = False
        unused[f] = feature_reuse
    return stumps


class _HardSCM(BaseSCM):
    def _fit_hard(self, X, y, *, utility, **kw):
        lazy = is_lazy_matrix(X)
        X, y_pos = self._validate_xy(X, y)
        self._m, self._n = X.shape
        feature_range = None
        if utility == "occam":
            self.feature_range_ = resolve_feature_range(self.feature_range, X, type(self).__name__)
            feature_range = self.feature_range_
        stumps = hard_greedy(
            X,
            y_pos,
            utility=utility,
            p=float(self.p),
            max_rules=int(self.max_rules),
            feature_range=feature_range,
            feature_reuse=bool(self.feature_reuse),
            lazy=lazy,
            **kw,
        )
        if lazy:  # the bound path and the compression set need only the chosen columns
            X = SelectedColumns(X, [s.feature for s in stumps])
        return self._finish_fit(X, y_pos, stumps)

    def _set_extra(self, extra, k):
        self.empirical_risk_ = float(extra["errors"][k]) / self._m


class SampleCompressionSCM(_HardSCM):
    """Set Covering Machine of decision stumps with the sample-compression bound.

    Greedy covering with utility ``|Q| - p |R|`` (eq. 8 of Shah, Marchand & Corbeil 2010);
    every threshold is the attribute value of one training example, so the model is
    reconstructed from a compression set of one example per stump and the bound of
    eqs. 4-5 applies. This is the classic Set Covering Machine of decision stumps
    (Marchand & Shawe-Taylor 2002) as in pyscm-ml, with the same rules and tie order.

    Parameters
    ----------
    model_type : {"conjunction", "disjunction"}, default="conjunction"
    p : float, default=1.0
        Penalty for each positive example a stump covers (misclassifies).
    max_rules : int, default=10
        Maximum number of stumps ``s``.
    delta : float, default=0.05
        The bound holds with probability ``1 - delta``.
    select : {"bound", "none"}, default="bound"
        ``"bound"``: keep the prefix (number of stumps) whose bound is smallest (first
        minimum); ``"none"``: keep every stump the greedy added.
    message_prior : {"paper", "ordered"}, default="paper"
        Message prior of the bound: ``1 / (C(n, k) 2^k)`` (eq. 5), or additionally
        ``1 / k!`` (``"ordered"``).
    feature_reuse : bool, default=False
        Allow several stumps on the same attribute (as pyscm-ml does). The paper uses each
        attribute at most once; with reuse the bounds use the prior ``1 / C(2n + k - 1, k)``
        over multisets of (attribute, direction) pairs.

    Attributes
    ----------
    rules_ : list of StumpRule
        The kept stumps, readable (``str(rule)``), in the order they were added.
    selected_features_ : ndarray of int
    feature_importances_ : ndarray of shape (n_features,)
        Share of the training negatives covered by each kept stump when it was added.
    risk_bound_ : float
        The sample-compression bound of the kept model on the training set.
    bound_path_ : ndarray of shape (n_rules_learned_ + 1,)
        Bound of the first k stumps, k = 0 .. n_rules_learned_.
    empirical_risk_ : float
    compression_set_ : ndarray of int
        Training rows whose values are the kept thresholds.
    n_rules_learned_ : int
    classes_, n_features_in_, feature_names_in_

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    >>> clf = SampleCompressionSCM().fit(X, [0, 0, 1, 1])
    >>> [str(r) for r in clf.rules_], clf.predict(X).tolist()
    (['x0 > 1'], [0, 0, 1, 1])
    """

    _parameter_constraints: dict = {
        **BaseSCM._parameter_constraints,
        "message_prior": [StrOptions({"paper", "ordered"})],
    }

    def __init__(
        self,
        model_type="conjunction",
        *,
        p=1.0,
        max_rules=10,
        delta=0.05,
        select="bound",
        message_prior="paper",
        feature_reuse=False,
    ):
        self.model_type = model_type
        self.p = p
        self.max_rules = max_rules
        self.delta = delta
        self.select = select
        self.message_prior = message_prior
        self.feature_reuse = feature_reuse

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the stumps greedily, then keep the prefix chosen by ``select``.

        ``X`` may be an array, a DataFrame, or an out-of-core matrix (a dask or zarr array, a
        numpy memmap), which is read one block of columns at a time and never loaded whole;
        the fitted model is the same as in memory.
        """
        return self._fit_hard(X, y, utility="sc")

    def _bound_path(self, X, y_pos, stumps):
        fires = conj_fires(X, stumps)
        errors = errors_of_prefixes(fires, y_pos)
        m, n = X.shape
        path, sets = [], []
        for k in range(len(stumps) + 1):
            out = fires[:, :k].all(axis=1)
            wrong = out != y_pos
            chosen = _compression_set(X, stumps[:k], wrong)
            outside = int(wrong.sum() - wrong[chosen].sum())
            sets.append(chosen)
            path.append(
                sample_compression_bound(
                    outside,
                    m,
                    n,
                    k,
                    float(self.delta),
                    message_prior=self.message_prior,
                    feature_reuse=bool(self.feature_reuse),
                )
            )
        return path, {"errors": errors, "sets": sets}

    def _set_extra(self, extra, k):
        super()._set_extra(extra, k)
        self.compression_set_ = np.asarray(extra["sets"][k], dtype=np.intp)


def _compression_set(X, stumps, wrong) -> list[int]:
    """One training example per stump whose value is the threshold, distinct when possible.

    Any example with that exact value reconstructs the stump; the bound holds for every
    compression set at once, so misclassified examples are preferred (they then do not
    count among the errors outside the set). Ties go to the lowest row index.
    """
    used: set[int] = set()
    chosen = []
    for s in stumps:
        cand = np.flatnonzero(X[:, s.feature] == s.threshold)
        free = [i for i in cand.tolist() if i not in used]
        pool = free or cand.tolist()
        bad = [i for i in pool if wrong[i]]
        i = (bad or pool)[0]
        used.add(i)
        chosen.append(i)
    return chosen


class OccamSCM(_HardSCM):
    """Set Covering Machine of decision stumps with the Occam's razor bound (Theorem 2).

    Greedy covering with utility ``|Q| / |N'| - p |R| / |P| - eta * l`` (Section VI of Shah,
    Marchand & Corbeil 2010), where ``l`` is the number of bits of the shortest dyadic code
    of a threshold inside the interval of equally good thresholds; the threshold is that
    grid point of ``[A_i, B_i]``.

    Parameters
    ----------
    model_type : {"conjunction", "disjunction"}, default="conjunction"
    p : float, default=1.0
    eta : float, default=0.01
        Cost of each code bit in the utility.
    max_rules : int, default=10
        Maximum number of stumps ``v``.
    delta : float, default=0.05
    select : {"bound", "none"}, default="bound"
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
        As in :class:`SampleCompressionSCM`.

    Attributes
    ----------
    rules_, selected_features_, feature_importances_, risk_bound_, bound_path_,
    empirical_risk_, n_rules_learned_, classes_, n_features_in_, feature_names_in_
        As in :class:`SampleCompressionSCM`; every rule also has ``bits``.
    feature_range_ : tuple of ndarray
        The ranges used.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> clf = OccamSCM(feature_range=(0.0, 4.0)).fit(X, [0, 0, 1, 1])
    >>> [str(r) for r in clf.rules_], clf.rules_[0].bits
    (['x0 > 1'], 1)
    """

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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the stumps greedily, then keep the prefix chosen by ``select``.

        ``X`` may be an array, a DataFrame, or an out-of-core matrix (a dask or zarr array, a
        numpy memmap), which is read one block of columns at a time and never loaded whole;
        the fitted model is the same as in memory.
        """
        return self._fit_hard(
            X,
            y,
            utility="occam",
            eta=float(self.eta),
            positives=self.positives,
            threshold_interval=self.threshold_interval,
        )

    def _to_rule(self, stump, names):
        r = super()._to_rule(stump, names)
        return StumpRule(r.feature, r.feature_name, r.direction, r.threshold, bits=stump.bits)

    def _bound_path(self, X, y_pos, stumps):
        fires = conj_fires(X, stumps)
        errors = errors_of_prefixes(fires, y_pos)
        m, n = X.shape
        bits = [s.bits for s in stumps]
        path = [
            occam_bound(
                int(errors[k]), m, n, bits[:k], float(self.delta), feature_reuse=self.feature_reuse
            )
            for k in range(len(stumps) + 1)
        ]
        return path, {"errors": errors}
