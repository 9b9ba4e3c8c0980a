"""SampleCompressionSCM against a literal transcription of pyscm-ml 1.1.2's greedy.

pyscm-ml (PyPI ``pyscm-ml==1.1.2``, github.com/aldro61/pyscm, GPL-3.0) needs numpy < 2 and
a C++ build, so it cannot run in the test environment (``benchmarks/bench_scm.py`` runs the
real package in its own venv). ``pyscm_fit`` below transcribes, statement by statement,
``BaseSetCoveringMachine.fit`` (pyscm/scm.py, without logging, callbacks and rule
importances) and the C++ ``find_max`` / ``update_optimal_solution`` (cpp_extensions/
solver.cpp), ``BestUtility`` (best_utility.h) and the tolerant comparisons of
double_utils.h (``TOL = 1e-7``) of that release.

pyscm-ml scores, for every feature, the cut after every distinct value *including the
largest*: one side of that cut holds every remaining example, the other none (utility 0:
a stump that covers nothing). So when no stump has a positive utility, pyscm-ml adds such
a do-nothing stump (utility 0) and keeps adding it until ``max_rules``; widefs stops
instead. Both never add a stump of negative utility. The cut after the largest value can
also win with a positive utility (it covers every remaining example, when more than ``p``
negatives per positive remain and no proper cut does better); widefs does not consider it.
"""

import itertools
import math

import numpy as np
import pytest

from widefs.scm import SampleCompressionSCM

# --- transcription of pyscm-ml 1.1.2 ------------------------------------------------------
TOL = 1e-7  # double_utils.h


def _equal(x, y):
    return abs(x - y) <= TOL


def _not_equal(x, y):
    return abs(x - y) > TOL


def _less(x, y):
    if abs(x) == math.inf or abs(y) == math.inf:
        return x < y
    return abs(x - y) > TOL and x < y


class _BestUtility:
    """best_utility.h: the best utility and the list of equivalent rules."""

    def __init__(self):
        self.best_utility = -math.inf
        self.feat_idx, self.threshold, self.kind, self.N, self.P_bar = [], [], [], [], []

    def clear(self):
        self.feat_idx, self.threshold, self.kind, self.N, self.P_bar = [], [], [], [], []

    def add_equivalent(self, feature_idx, threshold, kind, N, P_bar):
        self.feat_idx.append(feature_idx)
        self.threshold.append(threshold)
        self.kind.append(kind)
        self.N.append(N)
        self.P_bar.append(P_bar)

    def __lt__(self, utility):  # BestUtility::operator<
        return _less(self.best_utility, utility)

    def __eq__(self, utility):  # BestUtility::operator==
        return _equal(utility, self.best_utility)


def _update_optimal_solution(
    best, feature_idx, threshold, N, P_bar, p, feature_weight, n_negative, n_positive
):
    utility_0 = (float(N) - p * float(P_bar)) * feature_weight
    if best < utility_0:
        best.clear()
        best.best_utility = utility_0
        best.add_equivalent(feature_idx, threshold, 0, N, P_bar)
    elif best == utility_0:
        best.add_equivalent(feature_idx, threshold, 0, N, P_bar)
    N_1 = n_negative - N
    P_bar_1 = n_positive - P_bar
    utility_1 = (float(N_1) - p * float(P_bar_1)) * feature_weight
    if best < utility_1:
        best.clear()
        best.best_utility = utility_1
        best.add_equivalent(feature_idx, threshold, 1, N_1, P_bar_1)
    elif best == utility_1:
        best.add_equivalent(feature_idx, threshold, 1, N_1, P_bar_1)


def _find_max(p, X, y, Xas, example_idx):
    n_examples, n_features = X.shape
    feature_weights = np.ones(n_features)
    example_is_included = np.zeros(n_examples, dtype=bool)
    example_is_included[example_idx] = True
    n_negative = int(np.sum(example_is_included & (y == 0)))
    n_positive = int(np.sum(example_is_included & (y != 0)))
    best = _BestUtility()
    for i in range(n_features):
        N = P_bar = prev_N = prev_P_bar = 0
        prev_threshold = -math.inf
        for j in range(n_examples):
            idx = Xas[i, j]
            if example_is_included[idx]:
                label = y[idx]
                threshold = X[idx, i]
                if prev_threshold != -math.inf and _not_equal(threshold, prev_threshold):
                    _update_optimal_solution(
                        best,
                        i,
                        prev_threshold,
                        N,
                        P_bar,
                        p,
                        feature_weights[i],
                        n_negative,
                        n_positive,
                    )
                if label == 1:
                    P_bar = prev_P_bar + 1
                    N = prev_N
                else:
                    P_bar = prev_P_bar
                    N = prev_N + 1
                prev_N = N
                prev_P_bar = P_bar
                prev_threshold = threshold
        _update_optimal_solution(
            best, i, prev_threshold, N, P_bar, p, feature_weights[i], n_negative, n_positive
        )
    return (
        best.best_utility,
        np.array(best.feat_idx),
        np.array(best.threshold),
        np.array(best.kind),
        np.array(best.N),
        np.array(best.P_bar),
    )


class _DecisionStump:
    """pyscm/rules.py ``DecisionStump``: ``classify`` and ``inverse``."""

    def __init__(self, feature_idx, threshold, kind="greater"):
        self.feature_idx = feature_idx
        self.threshold = threshold
        self.kind = kind

    def classify(self, X):
        if self.kind == "greater":
            return X[:, self.feature_idx] > self.threshold
        return X[:, self.feature_idx] <= self.threshold

    def inverse(self):
        kind = "greater" if self.kind == "less_equal" else "less_equal"
        return _DecisionStump(self.feature_idx, self.threshold, kind)


def pyscm_fit(X, y, *, p=1.0, model_type="conjunction", max_rules=10):
    X = np.asarray(X, dtype=np.double)
    _classes, y = np.unique(y, return_inverse=True)
    if model_type == "conjunction":
        pos_ex_idx, neg_ex_idx = np.where(y == 1)[0], np.where(y == 0)[0]
    else:
        pos_ex_idx, neg_ex_idx = np.where(y == 0)[0], np.where(y == 1)[0]
    y = np.zeros(len(y), dtype=int)
    y[pos_ex_idx] = 1
    y[neg_ex_idx] = 0
    X_argsort_by_feature_T = np.argsort(X, axis=0).T.copy()
    rules, utilities = [], []
    remaining_example_idx = np.arange(len(y))
    remaining_negative_example_idx = neg_ex_idx
    while len(remaining_negative_example_idx) > 0 and len(rules) < max_rules:
        opti_utility, opti_feat_idx, opti_threshold, opti_kind, opti_N, opti_P_bar = _find_max(
            p, X.copy(), y.copy(), X_argsort_by_feature_T.copy(), remaining_example_idx.copy()
        )
        if len(opti_feat_idx) > 1:
            training_risk_decrease = 1.0 * opti_N - opti_P_bar
            keep_idx = np.where(training_risk_decrease == training_risk_decrease.max())[0][0]
        else:
            keep_idx = 0
        stump = _DecisionStump(
            feature_idx=int(opti_feat_idx[keep_idx]),
            threshold=float(opti_threshold[keep_idx]),
            kind="greater" if opti_kind[keep_idx] == 0 else "less_equal",
        )
        added = stump.inverse() if model_type == "disjunction" else stump  # _add_attribute_to_model
        rules.append((added.feature_idx, added.kind, added.threshold))
        utilities.append(opti_utility)
        remaining_example_idx = remaining_example_idx[stump.classify(X[remaining_example_idx])]
        remaining_negative_example_idx = remaining_negative_example_idx[
            stump.classify(X[remaining_negative_example_idx])
        ]
    return rules, utilities


# --- comparisons ------------------------------------------------------------------------------
KINDS = {">": "greater", "<=": "less_equal"}


def _widefs_rules(X, y, p, model_type, max_rules):
    clf = SampleCompressionSCM(
        model_type, p=p, max_rules=max_rules, select="none", feature_reuse=True
    ).fit(X, y)
    return [(r.feature, KINDS[r.direction], r.threshold) for r in clf.rules_], clf


def _covers_all(X, y, model_type, rules, k):
    """Whether pyscm's k-th rule classifies every example still remaining as negative."""
    pos = (y == y.max()) if model_type == "conjunction" else (y == y.min())
    remaining = np.ones(len(y), bool)
    for f, kind, t in rules[:k]:
        fires = X[:, f] > t if kind == "greater" else X[:, f] <= t
        remaining &= fires if model_type == "conjunction" else ~fires
    f, kind, t = rules[k]
    fires = X[:, f] > t if kind == "greater" else X[:, f] <= t
    stays = fires if model_type == "conjunction" else ~fires
    return not np.any(stays & remaining) and np.any(remaining & ~pos)


def test_same_rules_as_pyscm_until_it_adds_a_rule_of_utility_zero():
    compared = stopped = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        m, n = int(rng.integers(8, 40)), int(rng.integers(1, 8))
        X = rng.integers(0, rng.integers(2, 8), size=(m, n)).astype(float)
        y = rng.integers(0, 2, m)
        if len(set(y.tolist())) < 2:
            continue
        p = float(rng.choice([1.0, 1.5, 2.0, 3.0]))  # utilities exact: no tolerance effects
        model_type = str(rng.choice(["conjunction", "disjunction"]))
        ref, utilities = pyscm_fit(X, y, p=p, model_type=model_type, max_rules=6)
        ours, _ = _widefs_rules(X, y, p, model_type, 6)
        k = next((i for i, u in enumerate(utilities) if u <= 0), len(ref))
        whole = next((i for i in range(k) if _covers_all(X, y, model_type, ref, i)), None)
        if whole is not None:  # pyscm covered every remaining example (see the docstring)
            assert ours[:whole] == ref[:whole]
            continue
        assert ours == ref[:k], seed
        assert all(u > 0 for u in utilities[:k])
        compared += k
        stopped += k < len(ref)  # pyscm went on with utility-0 stumps; widefs stopped
    assert compared >= 50 and stopped >= 30  # the comparison is not vacuous


def test_issue_example_stops_instead_of_adding_a_worse_rule():
    X, y = [[1.0], [2.0], [3.0]], [1, 0, 1]
    ours, clf = _widefs_rules(np.array(X), np.array(y), 10.0, "conjunction", 1)
    assert ours == []  # every stump has a negative utility: none is added
    assert clf.predict(X).tolist() == [1, 1, 1]  # the empty conjunction: 1 error, not 2
    ref, utilities = pyscm_fit(X, y, p=10.0, max_rules=1)
    # pyscm adds "x0 <= 3", which covers nothing (utility 0): the same predictions
    assert ref == [(0, "less_equal", 3.0)] and utilities == [0.0]
    fires = np.array(X)[:, 0] <= 3.0
    assert np.where(fires, 1, 0).tolist() == clf.predict(X).tolist()


@pytest.mark.parametrize("seed", range(5))
def test_a_rule_is_added_only_if_it_lowers_the_training_error(seed):
    # With p >= 1 a positive utility |Q| - p |R| > 0 means |Q| > |R|: every added stump
    # lowers the training error, and staged predictions never get worse.
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(30, 4)).astype(float)
    y = rng.integers(0, 2, 30)
    ours, clf = _widefs_rules(X, y, 1.0, "conjunction", 10)
    errors = [int(np.sum(pred != y)) for pred in clf.staged_predict(X)]
    assert all(b < a for a, b in itertools.pairwise(errors))
    assert len(ours) >= 1
