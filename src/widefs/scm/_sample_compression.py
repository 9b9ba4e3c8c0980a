"""The sample-compression Set Covering Machine (eqs. 4-5 and 8 of Shah, Marchand & Corbeil 2010).

The classic Set Covering Machine of decision stumps (Marchand & Shawe-Taylor 2002), as in
pyscm-ml: hard greedy with utility ``|Q| - p |R|`` (:mod:`widefs.scm._covering`), every
threshold the value of one training example, so that the model is rebuilt from a
compression set of one example per stump and the sample-compression bound applies.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from widefs._compat import StrOptions
from widefs.scm._base import BaseSCM, LearnedPath, chosen_columns, conj_fires, prefix_errors
from widefs.scm._bitpacked import SAMPLE_COMPRESSION, PackedBinary, PackedUtility
from widefs.scm._bounds import BoundScope, sample_compression_bound
from widefs.scm._covering import sc_greedy
from widefs.scm._docs import scm_docs
from widefs.scm._rules import LearnedStump
from widefs.scm._serialize import serializable

__all__ = ["SampleCompressionSCM", "compression_set"]


def compression_set(X, stumps: list[LearnedStump], wrong: np.ndarray) -> np.ndarray:
    """``|i| = k`` distinct training examples, one per stump, carrying the thresholds.

    Any example whose value is a stump's exact threshold (a *carrier*) rebuilds that
    stump. The bound holds for every compression set at once, so the set holds as many
    misclassified examples (``wrong``) as possible: they then do not count among the
    errors outside it. That is a maximum matching of stumps to misclassified carriers
    (augmenting paths, stumps in order, carriers by increasing row); the other stumps get
    their lowest free carrier. When one example is the only carrier of two thresholds, the
    stump served second gets the lowest unused correctly classified example instead, so
    that the set still has ``k`` distinct examples (as the bound's ``C(m, |i|)`` counts)
    and the errors outside it are not undercounted.
    """
    carriers = [np.flatnonzero(X[:, s.feature] == s.threshold).tolist() for s in stumps]
    owner: dict[int, int] = {}  # misclassified carrier -> stump

    def augment(i: int, seen: set[int]) -> bool:
        for c in carriers[i]:
            if wrong[c] and c not in seen:
                seen.add(c)
                if c not in owner or augment(owner[c], seen):
                    owner[c] = i
                    return True
        return False

    for i in range(len(stumps)):
        augment(i, set())
    chosen = np.full(len(stumps), -1, dtype=np.intp)
    for c, i in owner.items():
        chosen[i] = c
    used = set(owner)
    for i in np.flatnonzero(chosen < 0).tolist():
        free = [c for c in carriers[i] if c not in used]
        if free:
            chosen[i] = free[0]
            used.add(free[0])
    short = np.flatnonzero(chosen < 0)
    if short.size:  # pad with unused examples, correctly classified first, by row
        rest = sorted((j for j in range(X.shape[0]) if j not in used), key=lambda j: wrong[j])
        chosen[short] = rest[: short.size]
    return chosen


@serializable
@scm_docs
class SampleCompressionSCM(BaseSCM):
    """Set Covering Machine of decision stumps with the sample-compression bound.

    Greedy covering with utility ``|Q| - p |R|`` (eq. 8 of Shah, Marchand & Corbeil 2010);
    every threshold is the attribute value of one training example, so the model is
    reconstructed from a compression set of one example per stump and the bound of
    eqs. 4-5 applies. This is the classic Set Covering Machine of decision stumps
    (Marchand & Shawe-Taylor 2002) as in pyscm-ml, with the same rules and tie order.

    The greedy stops when no negative remains, after ``max_rules`` stumps, or when the
    best utility is not positive: a stump that does not remove more than ``p`` negatives
    per positive it misclassifies is never added. pyscm-ml, whose candidates include a
    stump that covers nothing (utility 0), then adds such do-nothing stumps until
    ``max_rules``; neither library ever adds a stump that makes the training error worse.

    Parameters
    ----------
    %(model_type)s
    %(p_covered)s
    max_rules : int, default=10
        Maximum number of stumps ``s``.
    %(delta)s
    %(select_prefix)s
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
        The rules' features, in rule order.
    feature_importances_ : ndarray of shape (n_features,)
        Share of the training negatives covered by each kept stump when it was added.
    risk_bound_ : float
        The sample-compression bound of the kept model on the training set.
    bound_path_ : ndarray of shape (``n_rules_learned_ + 1``,)
        Bound of the first k stumps, k = 0 .. ``n_rules_learned_`` (two classes; each
        machine of a decision list has its own).
    empirical_risk_ : float
        Training error rate of the kept model.
    search_score_ : float
        ``1 - empirical_risk_``, the training accuracy of the kept model (higher is
        better): the score :func:`widefs.model_selection.search_certificate` certifies.
        %(certified)s
    compression_set_ : ndarray of int
        ``len(rules_)`` distinct training rows; row ``compression_set_[i]`` has the
        threshold of ``rules_[i]`` as its value (unless another rule took the only such
        row: it then pads the set with a correctly classified row).
    %(fitted_common)s

    See Also
    --------
    OccamSCM : Thresholds on a dyadic grid, Occam's razor bound.
    PACBayesSCM : Margin intervals and the PAC-Bayes bound.
    sample_compression_bound : The bound of eqs. 4-5.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    >>> clf = SampleCompressionSCM().fit(X, [0, 0, 1, 1])
    >>> [str(r) for r in clf.rules_], clf.predict(X).tolist(), clf.get_support().tolist()
    (['x0 > 1'], [0, 0, 1, 1], [True, False])

    Three classes: a decision list of two machines.

    >>> clf = SampleCompressionSCM().fit(np.arange(6.0)[:, None], ["a", "a", "b", "b", "c", "c"])
    >>> [(str(cm.label), [str(r) for r in cm.machine.rules_]) for cm in clf.machines_]
    [('a', ['x0 <= 1']), ('c', ['x0 > 3'])]
    >>> clf.predict([[0.5], [2.5], [4.5]]).tolist()
    ['a', 'b', 'c']
    """

    _rule_extra = None
    _per_rule_arrays = ("compression_set_",)
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

    def _packed_utility(self, X: PackedBinary) -> PackedUtility:
        F = X.shape[1]

        def stump(f, direction, q, r):
            # Both stumps of a 0/1 feature cut after its 0s: the threshold is the value 0
            # of a training example, as on the float path.
            return LearnedStump(f, direction, 0.0, int(q), int(r))

        return PackedUtility(
            SAMPLE_COMPRESSION, float(self.p), np.zeros(F), np.ones(F, dtype=bool), stump
        )

    def _learn(self, X, y_pos, scope: BoundScope) -> LearnedPath:
        stumps = self._stumps(X, y_pos, partial(sc_greedy, X, y_pos, p=float(self.p)))
        X = chosen_columns(X, stumps)
        n = X.shape[1]
        wrong = prefix_errors(conj_fires(X, stumps), y_pos)
        sets, bounds = [], []
        for k in range(len(stumps) + 1):
            chosen = compression_set(X, stumps[:k], wrong[k])
            sets.append(chosen)
            bounds.append(
                sample_compression_bound(
                    int(wrong[k].sum() - wrong[k][chosen].sum()),
                    scope.m,
                    n,
                    k,
                    scope.delta,
                    message_prior=self.message_prior,
                    feature_reuse=bool(self.feature_reuse),
                )
            )
        risk = wrong.sum(axis=1) / X.shape[0]
        return LearnedPath(stumps, np.array(bounds), risk, compression_sets=sets)
