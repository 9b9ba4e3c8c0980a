"""PAC-Bayes Set Covering Machine: soft greedy over margin intervals (Shah et al. 2010, Section V-VI).

The posterior keeps each chosen attribute and direction and draws its threshold uniformly
in a margin interval ``[a, b]``; ``sigma^d_{a,b}(x)`` is the probability that such a stump
fires. With ``w(x) = prod_j sigma_j(x_j)`` over the stumps chosen so far, the soft greedy
adds the stump and interval maximising

``U = C / N_rem - p E / |P| - eta ln((B - A) / (b - a))``,

``C = sum_neg (1 - sigma(x)) w(x)`` (covering contribution), ``E`` the same over positives,
``N_rem = sum_neg w(x)``. For a feature with ``G`` distinct (remaining) values and prefix
sums of ``w`` and ``w x`` per class along the sorted order, ``C`` and ``E`` of an interval
are O(1), so one step costs O(n G^2) instead of the paper's O(n m^3).
"""

from __future__ import annotations

import math
import numbers
from functools import partial
from importlib import import_module

import numpy as np
from sklearn.utils import check_random_state

from widefs._compat import Interval
from widefs._utils import load_columns
from widefs.scm._base import BaseSCM, LearnedPath, chosen_columns
from widefs.scm._bitpacked import PAC_BAYES, PackedBinary, PackedUtility, per_range
from widefs.scm._bounds import BoundScope, pac_bayes_bound
from widefs.scm._docs import scm_docs
from widefs.scm._multiclass import list_decisions, list_probabilities
from widefs.scm._parallel import block_pool
from widefs.scm._presorted import presorted_blocks
from widefs.scm._rules import LearnedStump, StumpRule, firing_probability
from widefs.scm._serialize import serializable

__all__ = ["PACBayesSCM", "soft_greedy"]

_COMPACT_BELOW = 0.75


def soft_greedy(
    X,
    y_pos: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    *,
    p: float,
    eta: float,
    max_rules: int,
    margin: float | None = None,
    feature_reuse: bool = False,
    lazy: bool = False,
    block_bytes: int | None = None,
) -> list[LearnedStump]:
    """The soft greedy of Section VI-B (``margin=None``) or the fixed-margin heuristic.

    Ties go to the first maximum in the order (feature index, interval start, interval
    end, direction +1 before -1). Returns stumps in conjunction space with their margin
    interval ``[a, b]`` and deterministic threshold (middle of the interval).

    With ``lazy=True``, ``X`` is an out-of-core matrix (dask, zarr, memmap): every step
    reads it one block of columns at a time (``block_bytes`` per loaded block), presorts
    and scans the block, and keeps the best interval; a later block wins only with a
    strictly larger utility, so the result is the in-memory one.
    """
    kern = import_module("widefs.scm._pac_bayes_kernels")  # numba: imported (compiled) on first use
    m, F = X.shape
    w = np.ones(m)
    n_pos_total = max(float(y_pos.sum()), 1.0)
    unused = np.ones(F, dtype=np.bool_)  # one stump per attribute (Section II)
    blocks = presorted_blocks(X, lazy=lazy, compact_below=_COMPACT_BELOW, block_bytes=block_bytes)
    stumps: list[LearnedStump] = []

    def scan(block, n_rem):
        """``(utility, feature, direction, a, b, threshold or None)`` of the block's best."""
        span, order, values, n_positions = block
        args = (order, values, w, y_pos, n_positions, lo[span], hi[span], p, eta, n_rem)
        if margin is None:
            u, f, d, a, b, _ = kern.soft_step(*args, n_pos_total, unused[span])
            t = None
        else:
            u, f, d, a, b, t, _ = kern.fixed_step(*args, n_pos_total, margin, unused[span])
        return u, (f + span.start if f >= 0 else -1), d, a, b, t

    with block_pool(blocks.threads) as pool:
        while len(stumps) < max_rules:
            n_rem = float(np.sum(w[~y_pos]))
            if n_rem <= 0.0:
                break  # every negative is totally covered
            best = (-np.inf, -1, 0, np.nan, np.nan, None)
            for got in pool.map(partial(scan, n_rem=n_rem), blocks.presorts(w > 0, unused)):
                if got[1] >= 0 and got[0] > best[0]:  # strict: the lower feature keeps ties
                    best = got
            _, f, d, a, b, t = best
            if f < 0:
                break
            stump = _apply(X, y_pos, w, f, d, a, b, t, lazy=lazy)
            if stump is None:
                break  # the best interval covers no remaining negative weight: no progress
            stumps.append(stump)
            unused[f] = feature_reuse
    return stumps


def _apply(X, y_pos, w, f, d, a, b, t, *, lazy) -> LearnedStump | None:
    """Multiply the weights ``w`` by the chosen stump's firing probability (in place); the
    stump, or None when it covers no remaining negative weight."""
    if t is None:
        t = a + (b - a) / 2.0
    alive = np.flatnonzero(w > 0)
    x = load_columns(X, [f])[:, 0] if lazy else X[:, f]
    sig = firing_probability(x[alive], d, a, b)
    # Direct sums (exactly 0 when nothing is covered, unlike the prefix-sum form).
    lost = w[alive] * (1.0 - sig)
    c = float(np.sum(lost[~y_pos[alive]]))
    if not c > 0.0:
        return None
    w[alive] *= sig
    return LearnedStump(
        feature=int(f),
        direction=int(d),
        threshold=float(t),
        covered_negatives=c,
        covered_positives=float(np.sum(lost[y_pos[alive]])),
        interval=(float(a), float(b)),
    )


@serializable
@scm_docs
class PACBayesSCM(BaseSCM):
    """Conjunction of decision stumps with margin intervals and the PAC-Bayes bound (Theorem 5).

    Soft greedy of Shah, Marchand & Corbeil (2010): each stump's threshold is uniform on a
    learned interval ``[a, b]``, trading sparsity against margins. :meth:`predict` is the
    Bayes classifier (``prod_k sigma_k(x) > 1/2``), :meth:`predict_gibbs` draws one
    classifier from the posterior, :meth:`predict_proba` returns ``prod_k sigma_k(x)``
    (the probability that a posterior draw outputs the conjunction's class).

    The soft greedy stops when no negative weight remains, after ``max_rules`` stumps, or
    when the best interval covers no remaining negative weight.

    Parameters
    ----------
    %(model_type)s
    p : float, default=1.0
        Penalty on the positive-side error ``E``.
    eta : float, default=0.01
        Weight of the margin term ``ln((B - A) / (b - a))``.
    max_rules : int, default=10
        Maximum number of stumps ``v``.
    %(delta)s
    select : {"bound", "none"}, default="bound"
        ``"bound"``: keep the prefix with the smallest Theorem 5 bound (first minimum);
        ``"none"``: keep every stump the greedy added.
    feature_range : (low, high) or None, default=None
        A-priori ranges ``[A_i, B_i]``; ``None`` takes the training minimum and maximum and
        warns (:class:`~widefs.exceptions.HeuristicBoundWarning`).
    margin : None or float in (0, 0.5], default=None
        ``None``: learn the intervals (the PAC-Bayes learner). A float ``gamma``: the
        fixed-margin heuristic (Table IV): ``[t - gamma (B - A), t + gamma (B - A)]`` with ``t``
        between consecutive values, clipped to the range; :meth:`predict` then uses the
        deterministic thresholds ``t``.
    feature_reuse : bool, default=False
        Allow several stumps on one attribute (bound prior ``1 / C(2n + k - 1, k)``).

    Attributes
    ----------
    rules_ : list of StumpRule
        Kept stumps with their ``interval`` and middle ``threshold``.
    risk_bound_ : float
        Theorem 5 bound on the Gibbs risk of the kept model.
    bayes_risk_bound_ : float
        ``min(1, 2 risk_bound_)``, the bound on the Bayes classifier.
    bound_path_ : ndarray
        Gibbs bound of the first k stumps, k = 0 .. ``n_rules_learned_``.
    gibbs_risk_ : float
        Empirical Gibbs risk of the kept model on the training set.
    search_score_ : float
        ``1 - gibbs_risk_``, the training Gibbs accuracy of the kept model (higher is
        better): the score :func:`widefs.model_selection.search_certificate` certifies.
        %(certified)s
    margin_ratios_ : ndarray
        ``(b_k - a_k) / (B_k - A_k)`` of the kept stumps.
    selected_features_ : ndarray of int
        The rules' features, in rule order.
    feature_importances_ : ndarray of shape (n_features,)
        Share of the negative weight covered by each kept stump when it was added.
    feature_range_ : tuple of ndarray
        The ranges used.
    %(fitted_common)s

    See Also
    --------
    SampleCompressionSCM : Thresholds at training values, sample-compression bound.
    OccamSCM : Thresholds on a dyadic grid, Occam's razor bound.
    pac_bayes_bound : The bound of Theorem 5.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> clf = PACBayesSCM(feature_range=(0.0, 3.0), select="none").fit(X, [0, 0, 1, 1])
    >>> str(clf.rules_[0]), clf.predict(X).tolist()
    ('x0 > 1.5 (margin [1, 2])', [0, 0, 1, 1])
    >>> clf.predict_proba(X)[:, 1].tolist()
    [0.0, 0.0, 1.0, 1.0]
    """

    _rule_extra = "interval"
    _per_rule_arrays = ("margin_ratios_",)
    _training_risk_attribute = "gibbs_risk_"
    _parameter_constraints: dict = {
        **BaseSCM._parameter_constraints,
        "eta": [Interval(numbers.Real, 0, None, closed="left")],
        "feature_range": [None, tuple, list],
        "margin": [None, Interval(numbers.Real, 0, 0.5, closed="right")],
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
        margin=None,
        feature_reuse=False,
    ):
        self.model_type = model_type
        self.p = p
        self.eta = eta
        self.max_rules = max_rules
        self.delta = delta
        self.select = select
        self.feature_range = feature_range
        self.margin = margin
        self.feature_reuse = feature_reuse

    @property
    def bayes_risk_bound_(self) -> float:
        """``min(1, 2 risk_bound_)``: the bound on the Bayes classifier (Theorem 5)."""
        return min(1.0, 2.0 * self.risk_bound_)

    def _packed_utility(self, X: PackedBinary) -> PackedUtility | None:
        """The soft greedy on 0/1 features: each feature's only interval is ``[0, 1]``, on which
        a stump's firing probability is 0 or 1, so the weights stay 0/1 and the step is a hard
        one. Only with learned margins and ranges starting at 0 (the sums of the float
        kernel are then exact integers, as here); otherwise None (the float path)."""
        lo, hi = self.feature_range_
        if self.margin is not None or np.any(lo[lo < hi] != 0.0):
            return None
        # The kernel's eta (ln(B - A) - ln(b - a)) with the values shifted by A = 0.
        pen, usable = per_range(lo, hi, lambda a, b: (math.log(b - a) - math.log(1.0),), 1)
        penalty = float(self.eta) * np.where(usable, pen[:, 0], 0.0)

        def stump(f, direction, q, r):
            return LearnedStump(f, direction, 0.5, q, r, interval=(0.0, 1.0))

        return PackedUtility(PAC_BAYES, float(self.p), penalty, usable, stump)

    def _learn(self, X, y_pos, scope: BoundScope) -> LearnedPath:
        lo, hi = self.feature_range_
        margin = None if self.margin is None else float(self.margin)
        greedy = partial(
            soft_greedy, X, y_pos, lo, hi, p=float(self.p), eta=float(self.eta), margin=margin
        )
        stumps = self._stumps(X, y_pos, greedy)
        X = chosen_columns(X, stumps)
        n = X.shape[1]
        prod = np.ones(X.shape[0])
        gibbs, ratios, bounds = [], [], []
        for k in range(len(stumps) + 1):
            if k:
                s = stumps[k - 1]
                a, b = s.interval
                prod = prod * firing_probability(X[:, s.feature], s.direction, a, b)
                ratios.append(min(1.0, (b - a) / (hi[s.feature] - lo[s.feature])))
            # Gibbs risk on (x, y): prod for a negative, 1 - prod for a positive (eq. 6).
            losses = np.where(y_pos, 1.0 - prod, prod)
            gibbs.append(float(np.mean(losses)))
            # Over scope.m examples: those of other classes (a decision list) count as 0.
            risk = float(np.sum(losses)) / scope.m if scope.m != X.shape[0] else gibbs[-1]
            bounds.append(
                pac_bayes_bound(
                    min(max(risk, 0.0), 1.0),
                    scope.m,
                    n,
                    ratios,
                    scope.delta,
                    feature_reuse=bool(self.feature_reuse),
                )
            )
        return LearnedPath(
            stumps, np.array(bounds), np.array(gibbs), margin_ratios=np.array(ratios, dtype=float)
        )

    # -- prediction ----------------------------------------------------------------------
    def _proba_positive(self, X, rules):
        """Probability of ``classes_[1]`` under the posterior, for the given rules."""
        prod = np.ones(X.shape[0])
        if self.model_type == "conjunction":
            for r in rules:
                prod *= r.firing_probability(X)
            return prod
        # Disjunction: rules are negated conjunction-space stumps; classes_[0] needs all
        # conjunction-space stumps to fire, i.e. none of the rules.
        for r in rules:
            prod *= 1.0 - r.firing_probability(X)
        return 1.0 - prod

    def _bayes(self, X, rules):
        p1 = self._proba_positive(X, rules)
        if self.model_type == "conjunction":
            return p1 > 0.5
        return (1.0 - p1) <= 0.5

    def _decide(self, X) -> np.ndarray:
        """The Bayes classifier (majority vote of the posterior; eq. 7), or with ``margin`` set
        (fixed-margin heuristic) the deterministic conjunction of the middle thresholds."""
        if self.margin is not None:
            return super()._decide(X)
        return self._bayes(X, self.rules_)

    def staged_predict(self, X):
        """Predictions of every prefix of :attr:`rules_` (0, 1, ..., all rules); two classes.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of shape (n_samples,)
        """
        if self.margin is not None:
            yield from super().staged_predict(X)
            return
        X = self._check_X(X)
        self._binary_only("staged_predict")
        for k in range(len(self.rules_) + 1):
            yield self.classes_[self._bayes(X, self.rules_[:k]).astype(np.intp)]

    def predict_proba(self, X):
        """``[P(classes_[0]), P(classes_[1])]`` where ``P`` is the posterior probability.

        For a conjunction ``P(classes_[1] | x) = prod_k sigma_k(x_k)``: the probability that
        a classifier drawn from the posterior (the Gibbs classifier) predicts ``classes_[1]``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        X = self._check_X(X)
        if self.classes_.size > 2:
            return list_probabilities(self, X)
        p1 = self._proba_positive(X, self.rules_)
        return np.column_stack([1.0 - p1, p1])

    def staged_predict_proba(self, X):
        """:meth:`predict_proba` of every prefix of :attr:`rules_`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of shape (n_samples, 2)
        """
        X = self._check_X(X)
        self._binary_only("staged_predict_proba")
        for k in range(len(self.rules_) + 1):
            p1 = self._proba_positive(X, self.rules_[:k])
            yield np.column_stack([1.0 - p1, p1])

    def predict_gibbs(self, X, random_state=None):
        """Gibbs classifier: draw one classifier from the posterior and apply it.

        Each rule's threshold is drawn uniformly on its margin interval (one draw per
        call, shared by all rows), then the deterministic conjunction/disjunction predicts.
        Its expected error on ``(X, y)`` is the mean of ``|1{y = classes_[1]} - P|`` with
        ``P = predict_proba(X)[:, 1]``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        random_state : int, RandomState instance or None, default=None
            Seed of the draw.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._check_X(X)
        rng = check_random_state(random_state)
        if self.classes_.size > 2:  # one draw per machine of the decision list
            codes = list_decisions(self, X, decide=lambda machine: machine._gibbs_decide(X, rng))
            return self.classes_[codes]
        return self.classes_[self._gibbs_decide(X, rng).astype(np.intp)]

    def _gibbs_decide(self, X, rng) -> np.ndarray:
        """Where one classifier drawn from the posterior predicts ``classes_[1]``."""
        drawn = [
            StumpRule(
                r.feature,
                r.feature_name,
                r.direction,
                float(rng.uniform(r.interval[0], r.interval[1])),
            )
            for r in self.rules_
        ]
        return self._combine(self._rule_outputs(X, drawn))
