"""More than two classes: a decision list of binary Set Covering Machines, with one risk bound.

For classes ``c_1 < ... < c_k`` (``k > 2``) the learner builds ``k - 1`` binary machines of its
own kind. Machine ``j`` sees the training examples of the classes not yet assigned, ``R_j``,
and separates one class ``a_j`` of them (its "positive" output) from the others; prediction
walks the list and returns the class of the first machine that says so, or the last class
left. Which class a machine separates is chosen by the bound: each class of ``R_j`` is tried
and the machine with the smallest bound kept (ties: the first class); with two classes left
the machine separates the later one from the earlier, as a binary machine does, so that
with ``k = 2`` the list is exactly the binary machine.

The bound (derived step by step in ``docs/methods/scm.md``): machine ``j`` has the loss
``l_j(x, y) = 1[y in R_j and h_j errs on (x, y)]``, zero on the classes it never sees. The
list errs only where some machine that the example reaches errs on it, so
``R(list) <= sum_j E[l_j]``. ``E[l_j]`` is the risk of a 0/1 loss of ``h_j`` on all ``m``
examples, so each machine's own theorem (sample compression, Occam, PAC-Bayes) bounds it
with ``m`` examples and ``m R_S(l_j)`` errors, the errors ``h_j`` makes on ``R_j``'s
examples. A union bound over every (remaining set, separated class) pair the greedy could
meet, ``N(k)`` of them (:func:`n_candidate_machines`), at ``delta / N(k)`` each, makes all of
these bounds hold at once with probability ``1 - delta``, whatever the data chose; the
risk bound of the list is then ``min(1, sum_j B_j)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
from sklearn.base import clone

from widefs._utils import is_lazy_matrix, load_columns
from widefs.scm._bitpacked import PackedBinary
from widefs.scm._bounds import BoundScope

__all__ = [
    "ClassMachine",
    "fit_decision_list",
    "list_decisions",
    "list_probabilities",
    "n_candidate_machines",
]


@dataclass(frozen=True)
class ClassMachine:
    """One machine of a multiclass decision list.

    Attributes
    ----------
    label : object
        The class this machine predicts when it fires (its ``classes_[1]``).
    machine : SampleCompressionSCM, OccamSCM or PACBayesSCM
        Fitted on the examples of ``remaining``, with ``classes_ = [0, 1]`` (1: ``label``);
        its ``risk_bound_`` bounds its share of the list's risk (see the module notes).
    remaining : tuple
        The classes still possible when an example reaches this machine (``label`` among
        them); the last machine's other class is the list's default.
    n_examples : int
        Training examples of those classes.
    """

    label: object
    machine: object
    remaining: tuple
    n_examples: int


def n_candidate_machines(n_classes: int) -> int:
    """``N(k)``: the (remaining classes, separated class) pairs a decision list can meet.

    Every subset ``R`` of at least three classes with any of its classes, and every pair with
    its later class: ``sum_{r=3..k} C(k, r) r + C(k, 2)``. Two classes: 1 (a binary machine).

    Parameters
    ----------
    n_classes : int

    Returns
    -------
    int
        The bound of each machine of a decision list over ``n_classes`` classes holds at
        ``delta / n_candidate_machines(n_classes)``.

    See Also
    --------
    SampleCompressionSCM, OccamSCM, PACBayesSCM : Decision lists for more than two classes.

    Examples
    --------
    >>> [n_candidate_machines(k) for k in (2, 3, 4, 5)]
    [1, 6, 22, 65]
    """
    k = int(n_classes)
    return sum(comb(k, r) * r for r in range(3, k + 1)) + comb(k, 2)


class RowSubset:
    """Rows of an out-of-core zarr array or memmap, read a block of columns at a time."""

    def __init__(self, X, rows: np.ndarray):
        self.X = X
        self.rows = np.asarray(rows, dtype=np.intp)
        self.shape = (self.rows.size, X.shape[1])
        self.chunks = getattr(X, "chunks", None)
        self.dtype = np.dtype(getattr(X, "dtype", np.float64))
        self.oindex = self

    def __getitem__(self, key):
        _, columns = key
        return load_columns(self.X, columns, dtype=self.dtype)[self.rows]


def take_rows(X, rows: np.ndarray):
    """The training rows ``rows`` of ``X`` (packed, out of core or in memory)."""
    if isinstance(X, PackedBinary):
        return X.take_rows(rows)
    if is_lazy_matrix(X) and not hasattr(X, "compute"):
        return RowSubset(X, rows)
    return X[rows]  # an array, or a dask array (lazy)


def _machine(estimator, X, is_label: np.ndarray, scope: BoundScope):
    """A binary machine of ``estimator``'s kind for ``label`` against the other classes."""
    node = clone(estimator)
    for attr in ("n_features_in_", "feature_names_in_", "feature_range_"):
        if hasattr(estimator, attr):
            setattr(node, attr, getattr(estimator, attr))
    node.classes_ = np.array([0, 1])
    positive = is_label if estimator.model_type == "conjunction" else ~is_label
    return node._fit_machine(X, positive, scope)


def fit_decision_list(estimator, X, codes: np.ndarray):
    """Fit the decision list of ``estimator`` (classes ``estimator.classes_``) on ``X``.

    Sets ``machines_``, ``rules_`` (every machine's rules, in list order),
    ``selected_features_``, ``feature_importances_``, ``n_rules_learned_``, ``risk_bound_``,
    the training risk (``empirical_risk_`` or ``gibbs_risk_``) and ``search_score_``.
    """
    classes = estimator.classes_
    m = X.shape[0]
    scope = BoundScope(m, float(estimator.delta) / n_candidate_machines(classes.size))
    remaining = list(range(classes.size))
    machines = []
    while len(remaining) >= 2:
        rows = np.flatnonzero(np.isin(codes, remaining))
        Xr, yr = take_rows(X, rows), codes[rows]
        best = None
        for a in remaining if len(remaining) > 2 else remaining[-1:]:
            fitted = _machine(estimator, Xr, yr == a, scope)
            if best is None or fitted.risk_bound_ < best[1].risk_bound_:
                best = (a, fitted)
        a, fitted = best
        if hasattr(fitted, "compression_set_"):  # rows of X, not of the subset
            fitted.compression_set_ = rows[fitted.compression_set_]
        machines.append(ClassMachine(classes[a], fitted, tuple(classes[remaining]), rows.size))
        remaining.remove(a)
    _finish(estimator, X, codes, machines)
    return estimator


def _finish(estimator, X, codes, machines: list[ClassMachine]) -> None:
    """The list's fitted attributes: rules, importances, bound and training risk."""
    estimator.machines_ = machines
    estimator.rules_ = [r for cm in machines for r in cm.machine.rules_]
    estimator.selected_features_ = np.array([r.feature for r in estimator.rules_], dtype=np.intp)
    estimator.n_rules_learned_ = sum(cm.machine.n_rules_learned_ for cm in machines)
    estimator.feature_importances_ = combined_importances(machines, estimator.n_features_in_)
    estimator.risk_bound_ = min(1.0, float(sum(cm.machine.risk_bound_ for cm in machines)))
    Xc = estimator._rule_columns(X)
    if estimator._training_risk_attribute == "gibbs_risk_":
        correct = list_probabilities(estimator, Xc)[np.arange(codes.size), codes]
        risk = float(np.mean(1.0 - correct))
    else:
        risk = float(np.mean(list_decisions(estimator, Xc) != codes))
    setattr(estimator, estimator._training_risk_attribute, risk)
    estimator.search_score_ = 1.0 - risk


def combined_importances(machines: list[ClassMachine], n_features: int) -> np.ndarray:
    """The machines' importances weighted by the examples each sees, summing to 1 (or 0)."""
    total = np.zeros(n_features)
    for cm in machines:
        total += cm.n_examples * cm.machine.feature_importances_
    s = total.sum()
    return total / s if s > 0 else total


def list_decisions(estimator, Xc, decide=None) -> np.ndarray:
    """Class codes predicted by the list on checked ``Xc`` (first machine that fires).

    ``decide(machine)``: where a machine fires (default: its own decision on ``Xc``).
    """
    classes = list(estimator.classes_)
    last = estimator.machines_[-1]
    default = classes.index(next(c for c in last.remaining if c != last.label))
    out = np.full(Xc.shape[0], default, dtype=np.intp)
    open_ = np.ones(Xc.shape[0], dtype=bool)
    for cm in estimator.machines_:
        fires = cm.machine._decide(Xc) if decide is None else decide(cm.machine)
        out[open_ & fires] = classes.index(cm.label)
        open_ &= ~fires
    return out


def list_probabilities(estimator, Xc) -> np.ndarray:
    """``(n, k)`` probabilities that the Gibbs list (one draw per machine) predicts each class.

    A draw reaches machine ``j`` with probability ``prod_{i<j} (1 - P_i)``, where ``P_i`` is
    machine ``i``'s probability of firing (``predict_proba`` of a binary machine).
    """
    classes = list(estimator.classes_)
    out = np.zeros((Xc.shape[0], len(classes)))
    reach = np.ones(Xc.shape[0])
    for cm in estimator.machines_:
        fire = cm.machine._proba_positive(Xc, cm.machine.rules_)
        out[:, classes.index(cm.label)] = reach * fire
        reach = reach * (1.0 - fire)
    last = estimator.machines_[-1]
    out[:, classes.index(next(c for c in last.remaining if c != last.label))] = reach
    return out
