"""Leave-one-out evaluators against brute-force refitting (explicit loops and scikit-learn)."""

import contextlib
from collections import Counter

import numpy as np
import pytest
from sklearn.model_selection import LeaveOneOut, StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import CategoricalNB, GaussianNB
from sklearn.neighbors import KNeighborsClassifier

from widefs.search import (
    Criterion,
    CrossValidationEvaluator,
    KNNEvaluator,
    KNNLeaveOneOut,
    KNNModel,
    NaiveBayesLeaveOneOut,
    NaiveBayesModel,
    dissertation_k_grid,
)
from widefs.search._naive_bayes import _argmax_ties as argmax_ties


def brute_knn_loo(X, y, nominal, cols, k, rows):
    """LOO kNN by an explicit loop: distances summed directly on the subset, neighbours
    sorted by (distance, index), majority vote, vote tie to the first tied class met."""
    n = X.shape[0]
    preds = []
    for i in rows:
        d = np.zeros(n)
        for f in cols:
            d += (X[:, f] != X[i, f]) if nominal[f] else (X[:, f] - X[i, f]) ** 2
        order = sorted((j for j in range(n) if j != i), key=lambda j: (d[j], j))[:k]
        votes = Counter(int(y[j]) for j in order)
        top = max(votes.values())
        preds.append(next(int(y[j]) for j in order if votes[int(y[j])] == top))
    return np.array(preds)


def grid_data(seed, n=25, p=7, n_classes=3, levels=3):
    """Small-integer data: every distance is exact, so distance and vote ties are common."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, p)).astype(float)
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    nominal = np.zeros(p, bool)
    nominal[[1, 4]] = True
    return X, y, nominal


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 3, 4, 6, 12, 13, 20])
@pytest.mark.parametrize("n_classes", [2, 3])  # two classes: the kernels' vote by one sum
def test_knn_candidates_equal_brute_force_with_ties(seed, k, n_classes):
    X, y, nominal = grid_data(seed, n_classes=n_classes)
    n, p = X.shape
    rng = np.random.default_rng(100 + seed)
    current = rng.random(p) < 0.5
    ev = KNNLeaveOneOut(X, y, n_classes, nominal, np.arange(n), n_neighbors=k)
    D = ev.initial_state(current)
    np.testing.assert_array_equal(
        ev.predict_state(D), brute_knn_loo(X, y, nominal, np.flatnonzero(current), k, range(n))
    )
    outside, inside = np.flatnonzero(~current), np.flatnonzero(current)
    adds = ev.predict_moves(D, outside, add=True)
    for row, f in zip(adds, outside):
        cols = np.flatnonzero(current | (np.arange(p) == f))
        np.testing.assert_array_equal(row, brute_knn_loo(X, y, nominal, cols, k, range(n)))
    removes = ev.predict_moves(D, inside, add=False)
    for row, f in zip(removes, inside):
        cols = np.flatnonzero(current & (np.arange(p) != f))
        np.testing.assert_array_equal(row, brute_knn_loo(X, y, nominal, cols, k, range(n)))


def test_knn_two_class_vote_ties_are_really_exercised():
    # Guard for the two-class cases above: with an even k many rows' neighbours split
    # evenly, and the tie goes to the nearest's class, which is sometimes the minority of
    # the first k - 1 (so a rule "majority of k - 1" would fail the test).
    X, y, nominal = grid_data(1, n_classes=2)
    n = y.size
    d = ((X[:, None, :] - X[None, :, :]) ** 2 * ~nominal + (X[:, None] != X[None]) * nominal).sum(
        axis=2
    )
    k, ties, nearest_rules = 6, 0, 0
    for i in range(n):
        order = sorted((j for j in range(n) if j != i), key=lambda j: (d[i, j], j))[:k]
        ones = int(y[order].sum())
        if 2 * ones == k:
            ties += 1
            nearest_rules += int(y[order[0]]) != int(2 * y[order[1:]].sum() > k - 1)
    assert ties >= 3 and nearest_rules >= 1


def test_knn_ties_are_really_exercised():
    # Guard for the test above: on this data many LOO neighbourhoods have distance ties at
    # the k-th neighbour and tied votes, so both rules matter.
    X, y, nominal = grid_data(0)
    cols = np.arange(X.shape[1])
    d = ((X[:, None, :] - X[None, :, :]) ** 2 * ~nominal + (X[:, None] != X[None]) * nominal).sum(
        -1
    )
    np.fill_diagonal(d, np.inf)
    kth = np.sort(d, axis=1)[:, 2]
    assert ((d == kth[:, None]).sum(axis=1) > 1).sum() >= 5
    votes = [Counter(y[np.argsort(d[i], kind="stable")[:2]]) for i in range(len(y))]
    assert sum(len(v) == 2 for v in votes) >= 5
    # Nearest-neighbour vote tie rule differs from scikit-learn's lowest-label rule here.
    ours = brute_knn_loo(X, y, nominal, cols, 2, range(len(y)))
    assert ours.size == len(y)


@pytest.mark.parametrize("seed", range(3))
def test_knn_rows_ks_and_masks_agree(seed):
    X, y, nominal = grid_data(seed, n=30, p=6)
    rows = np.flatnonzero(y == 1)
    ev = KNNLeaveOneOut(X, y, 3, nominal, rows, n_neighbors=3)
    masks = np.random.default_rng(seed).random((5, 6)) < 0.6
    for mask, pred in zip(masks, ev.predict_masks(masks, n_jobs=2)):
        np.testing.assert_array_equal(
            pred, brute_knn_loo(X, y, nominal, np.flatnonzero(mask), 3, rows)
        )
    D = ev.initial_state(masks[0])
    ks = [7, 1, 4, 29, 2]
    for k, pred in zip(ks, ev.predict_state_ks(D, ks)):
        np.testing.assert_array_equal(
            pred, brute_knn_loo(X, y, nominal, np.flatnonzero(masks[0]), k, rows)
        )


def test_knn_parallel_chunks_identical():
    X, y, nominal = grid_data(5, n=40, p=30)
    ev = KNNLeaveOneOut(X, y, 3, nominal, np.arange(40), n_neighbors=3)
    D = ev.initial_state(np.arange(30) < 3)
    cands = np.arange(3, 30)
    np.testing.assert_array_equal(
        ev.predict_moves(D, cands, True, n_jobs=1), ev.predict_moves(D, cands, True, n_jobs=3)
    )


@pytest.mark.parametrize("k", [1, 3, 5, 7])
def test_knn_equals_sklearn_two_classes_odd_k(k):
    # Continuous data (no distance ties), two classes and odd k (no vote ties): here our
    # rules and scikit-learn's coincide, so LOO predictions must be identical.
    rng = np.random.default_rng(k)
    X = rng.normal(size=(40, 6))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    ev = KNNLeaveOneOut(X, y, 2, np.zeros(6, bool), np.arange(40), n_neighbors=k)
    for cols in ([0], [0, 3], [1, 2, 4, 5]):
        mask = np.isin(np.arange(6), cols)
        ref = cross_val_predict(
            KNeighborsClassifier(k, algorithm="kd_tree"), X[:, cols], y, cv=LeaveOneOut()
        )
        np.testing.assert_array_equal(ev.predict_state(ev.initial_state(mask)), ref)


def test_knn_equals_sklearn_multiclass_where_votes_unique():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 4))
    y = rng.integers(0, 3, 60)
    X[:, 0] += y
    ev = KNNLeaveOneOut(X, y, 3, np.zeros(4, bool), np.arange(60), n_neighbors=4)
    ours = ev.predict_state(ev.initial_state(np.ones(4, bool)))
    proba = cross_val_predict(
        KNeighborsClassifier(4, algorithm="kd_tree"), X, y, cv=LeaveOneOut(), method="predict_proba"
    )
    top = proba.max(axis=1, keepdims=True)
    unique = (proba == top).sum(axis=1) == 1
    assert unique.sum() > 30 and (~unique).sum() > 3
    np.testing.assert_array_equal(ours[unique], proba[unique].argmax(axis=1))
    # Where the vote ties, ours is the class of the nearest tied neighbour.
    np.testing.assert_array_equal(
        ours, brute_knn_loo(X, y, np.zeros(4, bool), range(4), 4, range(60))
    )


def test_knn_model_predicts_like_leave_one_out_on_new_rows():
    X, y, nominal = grid_data(3, n=30, p=5)
    cols = np.array([0, 1, 3])
    for i in (0, 7, 19):
        keep = np.arange(30) != i
        model = KNNModel(X[keep], y[keep], 3, nominal, cols, 3)
        expected = brute_knn_loo(X, y, nominal, cols, 3, [i])
        np.testing.assert_array_equal(model.predict_codes(X[[i]]), expected)


def _order_sensitive_data(rng, n, nominal_columns):
    """12 columns of magnitudes from 1e-8 to 1e8 (another order of additions rounds their
    squared differences differently), two of them nominal codes."""
    X = rng.normal(size=(n, 12)) * 10.0 ** rng.integers(-8, 9, size=(1, 12))
    nominal = np.zeros(12, dtype=bool)
    nominal[nominal_columns] = True
    X[:, nominal] = rng.integers(0, 3, size=(n, 2))
    return X, nominal


def _plain_distances(Q, X, nominal, cols):
    """Distances from the rows of Q to those of X, one column's terms added at a time."""
    expected = np.zeros((Q.shape[0], X.shape[0]))
    for f in cols:
        diff = Q[:, f][:, None] - X[:, f][None, :]
        expected = expected + ((diff != 0.0) * 1.0 if nominal[f] else diff * diff)
    return expected


@pytest.mark.parametrize("block_bytes", [8 * 5 * 7, 8 * 5 * 7 * 3, 2**22])
def test_distances_add_columns_one_at_a_time_in_order(monkeypatch, block_bytes):
    # Against a plain loop (one column's terms added at a time, in the order given), with
    # magnitudes from 1e-8 to 1e8 so that another order of additions rounds differently,
    # nominal columns (0/1 mismatch) and column blocks of one, three or all columns.
    import widefs._utils

    monkeypatch.setattr(widefs._utils, "DEFAULT_BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(5)
    X, nominal = _order_sensitive_data(rng, 7, [2, 9])
    Q = X[:5] + rng.normal(size=(5, 12)) * (rng.random((5, 12)) < 0.5)
    Q[:, nominal] = rng.integers(0, 3, size=(5, 2))
    cols = rng.permutation(12)
    expected = _plain_distances(Q, X, nominal, cols)
    model = KNNModel(X, np.zeros(7, int), 1, nominal, cols, 1)
    got = model.distances_to(np.ascontiguousarray(Q.T), cols)
    assert got.tobytes() == expected.tobytes()
    reordered = model.distances_to(np.ascontiguousarray(Q.T), cols[::-1])
    assert not np.array_equal(reordered, expected)  # the order matters on these values


@pytest.mark.parametrize("threshold", [1, 10**9])
def test_leave_one_out_distances_add_columns_in_order(monkeypatch, threshold):
    # Both the compiled path (large subsets) and the numpy path (small ones) add each
    # column's terms one at a time, in the order given: against a plain loop, with
    # magnitudes from 1e-8 to 1e8 that round differently in another order.
    import widefs.search._knn as knn

    monkeypatch.setattr(knn, "_COMPILED_DISTANCE_TERMS", threshold)
    rng = np.random.default_rng(6)
    X, nominal = _order_sensitive_data(rng, 9, [3, 8])
    cols = rng.permutation(12)
    expected = _plain_distances(X, X, nominal, cols)
    ev = KNNLeaveOneOut(X, np.zeros(9, int), 1, nominal, np.arange(9))
    got = ev.distances(cols)
    assert got.tobytes() == expected.tobytes()
    assert not np.array_equal(ev.distances(cols[::-1]), expected)  # the order matters
    np.testing.assert_array_equal(ev.distances(cols[:0]), np.zeros((9, 9)))


def test_dissertation_grid():
    assert dissertation_k_grid(235) == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 25, 58, 117, 176)
    assert dissertation_k_grid(2) == (1,)


# ----------------------------------------------------------------------------- naive Bayes


def brute_nb_loo(X, y, nominal, n_categories, cols, var_smoothing, alpha):
    """LOO by refitting scikit-learn's GaussianNB / CategoricalNB on each fold.

    Our smoothing is var_smoothing times the largest variance of any numeric column of
    the full data (fixed); GaussianNB's own epsilon is replaced by it after fitting.
    Returns the joint log-likelihoods (n, C)."""
    n, C = len(y), int(y.max()) + 1
    num = [f for f in cols if not nominal[f]]
    nom = [f for f in cols if nominal[f]]
    all_num = np.flatnonzero(~nominal)
    eps = var_smoothing * np.var(X[:, all_num], axis=0).max() if all_num.size else 0.0
    jll = np.full((n, C), -np.inf)
    for i in range(n):
        keep = np.arange(n) != i
        classes = np.unique(y[keep])
        prior = np.log(np.bincount(y[keep], minlength=C)[classes] / (n - 1))
        total = prior.copy()
        if num:
            g = GaussianNB(var_smoothing=0.0).fit(X[keep][:, num], y[keep])
            g.var_ = g.var_ + eps
            total += g.predict_joint_log_proba(X[[i]][:, num])[0] - prior
        if nom:
            m = CategoricalNB(alpha=alpha, min_categories=n_categories[nom]).fit(
                X[keep][:, nom].astype(int), y[keep]
            )
            total += m.predict_joint_log_proba(X[[i]][:, nom].astype(int))[0] - prior
        jll[i, classes] = total
    return jll


def mixed_data(seed, n=30, n_classes=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n // n_classes)
    X = np.empty((n, 6))
    X[:, :3] = rng.normal(size=(n, 3)) + 0.7 * y[:, None]
    X[:, 3:] = rng.integers(0, 3, size=(n, 3))
    nominal = np.array([False, False, False, True, True, True])
    n_cat = np.array([0, 0, 0, 3, 3, 3])
    return X, y, nominal, n_cat


@pytest.mark.parametrize("var_smoothing", [0.0, 1e-9, 0.05])
@pytest.mark.parametrize("seed", range(3))
def test_naive_bayes_equals_sklearn_refits(seed, var_smoothing):
    X, y, nominal, n_cat = mixed_data(seed)
    ev = NaiveBayesLeaveOneOut(X, y, 3, nominal, n_cat, np.arange(30), var_smoothing, 1.0)
    for cols in ([0], [3], [0, 4], [1, 2, 3, 5], list(range(6))):
        mask = np.isin(np.arange(6), cols)
        ref = brute_nb_loo(X, y, nominal, n_cat, cols, var_smoothing, 1.0)
        state = ev.initial_state(mask)
        np.testing.assert_allclose(state, ref, rtol=1e-10, atol=1e-10)
        np.testing.assert_array_equal(ev.predict_state(state), argmax_ties(ref, axis=1))


def test_naive_bayes_moves_equal_refits_and_sklearn_predict():
    X, y, nominal, n_cat = mixed_data(4)
    ev = NaiveBayesLeaveOneOut(X, y, 3, nominal, n_cat, np.arange(30), 0.0, 1.0)
    current = np.array([True, False, False, True, False, False])
    T = ev.initial_state(current)
    for add, cands in ((True, np.flatnonzero(~current)), (False, np.flatnonzero(current))):
        preds = ev.predict_moves(T, cands, add=add)
        for row, f in zip(preds, cands):
            mask = current.copy()
            mask[f] = add
            ref = brute_nb_loo(X, y, nominal, n_cat, list(np.flatnonzero(mask)), 0.0, 1.0)
            np.testing.assert_array_equal(row, argmax_ties(ref, axis=1))
    # Continuous data only: compare with GaussianNB's own predict (no ties possible).
    cols = [0, 1, 2]
    ref = cross_val_predict(GaussianNB(var_smoothing=0.0), X[:, cols], y, cv=LeaveOneOut())
    np.testing.assert_array_equal(ev.predict_state(ev.initial_state(np.isin(range(6), cols))), ref)


def test_categorical_nb_ties_follow_lowest_class_rule():
    # Classes of 11 and 10 with alpha=1 on binary columns: (n0 - 1)/(n0 + 1) equals
    # n1/(n1 + 2), so a held-out row of the larger class whose value occurs once more in
    # its class than in the other has exactly tied posteriors.
    rng = np.random.default_rng(11)
    y = np.repeat([0, 1], [11, 10])
    X = rng.integers(0, 2, size=(21, 3)).astype(float)
    nominal = np.ones(3, bool)
    n_cat = np.array([2, 2, 2])
    ev = NaiveBayesLeaveOneOut(X, y, 2, nominal, n_cat, np.arange(21), 1e-9, 1.0)
    n_ties = 0
    for cols in ([0], [1], [0, 2], [0, 1, 2]):
        ref = brute_nb_loo(X, y, nominal, n_cat, cols, 1e-9, 1.0)
        pred = ev.predict_state(ev.initial_state(np.isin(range(3), cols)))
        np.testing.assert_array_equal(pred, argmax_ties(ref, axis=1))
        n_ties += int(np.sum(np.isclose(ref[:, 0], ref[:, 1], rtol=1e-12, atol=0)))
        clear = ~np.isclose(ref[:, 0], ref[:, 1], rtol=1e-9, atol=0)
        sk = cross_val_predict(
            CategoricalNB(alpha=1.0, min_categories=n_cat[cols]),
            X[:, cols].astype(int),
            y,
            cv=LeaveOneOut(),
        )
        np.testing.assert_array_equal(pred[clear], sk[clear])
    assert n_ties > 0


def test_naive_bayes_masks_and_model():
    X, y, nominal, n_cat = mixed_data(2)
    rows = np.flatnonzero(y == 2)
    ev = NaiveBayesLeaveOneOut(X, y, 3, nominal, n_cat, rows, 1e-9, 1.0)
    masks = np.random.default_rng(0).random((6, 6)) < 0.5
    for mask, pred in zip(masks, ev.predict_masks(masks)):
        np.testing.assert_array_equal(pred, ev.predict_state(ev.initial_state(mask)))
    cols = np.array([0, 3, 5])
    for i in (0, 12, 29):
        keep = np.arange(30) != i
        model = NaiveBayesModel(X[keep], y[keep], 3, nominal, n_cat, cols, 1e-9, 1.0)
        ref = NaiveBayesLeaveOneOut(X, y, 3, nominal, n_cat, [i], 1e-9, 1.0)
        # Same epsilon: the model's comes from the 29 rows, the evaluator's from all 30.
        ref.stats.epsilon = model.stats.epsilon
        ref.L = ref.stats.loglik(X[[i]], leave_out=y[[i]])
        expected = ref.predict_state(ref.initial_state(np.isin(range(6), cols)))
        np.testing.assert_array_equal(model.predict_codes(X[[i]]), expected)


# ----------------------------------------------------------------------- criterion, CV


def test_criterion_recall_and_balanced():
    y = np.array([0, 0, 1, 1, 1, 2])
    pred = np.array([[0, 1, 1, 1, 0, 1], [1, 1, 1, 1, 1, 1]])
    assert Criterion(y).score(pred).tolist() == [3 / 6, 3 / 6]
    rec = Criterion(y, target=1)
    np.testing.assert_array_equal(rec.rows, [2, 3, 4])
    assert rec.score(pred[:, rec.rows]).tolist() == [2 / 3, 1.0]
    bal = Criterion(y, target=1, kind="balanced")
    # recall 2/3, specificity 1/3 (only row 0 of the three others is not called 1).
    assert bal.score(pred).tolist() == [0.5 * (2 / 3 + 1 / 3), 0.5 * (1.0 + 0.0)]


def test_cross_validation_evaluator_matches_cross_val_predict():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    y = rng.integers(0, 2, 30)
    est = KNeighborsClassifier(3)
    ev = CrossValidationEvaluator(est, X, y, np.arange(30), cv=5)
    mask = np.array([True, False, True, False])
    ref = cross_val_predict(est, X[:, mask], y, cv=StratifiedKFold(5))
    np.testing.assert_array_equal(ev.predict_state(mask), ref)
    moves = ev.predict_moves(mask, np.array([1, 3]), add=True, n_jobs=2)
    for row, f in zip(moves, [1, 3]):
        m = mask.copy()
        m[f] = True
        np.testing.assert_array_equal(
            row, cross_val_predict(est, X[:, m], y, cv=StratifiedKFold(5))
        )


def test_knn_many_k_both_ranking_paths():
    # k <= 32 ranks by insertion, larger k by a stable sort: both must match brute force.
    X, y, nominal = grid_data(9, n=50, p=5)
    ev = KNNLeaveOneOut(X, y, 3, nominal, np.arange(50), n_neighbors=1)
    D = ev.initial_state(np.ones(5, bool))
    for ks in ([3, 32], [33, 49], [1, 45, 20]):
        for k, pred in zip(ks, ev.predict_state_ks(D, ks)):
            np.testing.assert_array_equal(
                pred, brute_knn_loo(X, y, nominal, range(5), k, range(50))
            )
    model = KNNModel(X[:40], y[:40], 3, nominal, np.arange(5), 36)
    expected = [
        brute_knn_loo(
            np.vstack([X[:40], X[[i]]]), np.append(y[:40], 0), nominal, range(5), 36, [40]
        )[0]
        for i in range(40, 50)
    ]
    np.testing.assert_array_equal(model.predict_codes(X[40:]), expected)


@pytest.mark.parametrize("seed", range(3))
def test_shared_neighbour_lists_vote_like_the_direct_path(seed):
    """Inside sharing_label_free_work the fourth request of a position is answered by stored
    neighbour lists and a vote: with relabelled y, held-out rows of one class and tie-heavy
    data, the predictions equal the direct kernel's (outside the block) and the brute
    force, for any k, whichever k the stored lists were computed for."""
    from widefs._utils import sharing_label_free_work

    X, y, nominal = grid_data(seed, n=30, p=8)
    p = X.shape[1]
    rng = np.random.default_rng(seed)
    current = rng.random(p) < 0.4
    cands = np.flatnonzero(~current)
    with sharing_label_free_work() as cache:
        for _ in range(4):
            yp = rng.permutation(y)
            rows = np.flatnonzero(yp == 1)
            for k in (1, 12, 4):  # lists stored for K = 10, replaced for k = 12
                shared = KNNLeaveOneOut(X, yp, 3, nominal, rows, n_neighbors=k)
                got = shared.predict_moves(shared.initial_state(current), cands, add=True)
                assert got.dtype == np.int64
                for row, f in zip(got, cands):
                    cols = np.flatnonzero(current | (np.arange(p) == f))
                    np.testing.assert_array_equal(row, brute_knn_loo(X, yp, nominal, cols, k, rows))
                direct = KNNLeaveOneOut(X, yp, 3, nominal, rows, n_neighbors=k)
                assert direct._shared is shared._shared
        assert cache.hits >= 2 * 2 * 2  # distances and neighbour lists, 3 k, 4 relabellings
    plain = KNNLeaveOneOut(X, yp, 3, nominal, rows, n_neighbors=4)
    assert plain._shared is None
    np.testing.assert_array_equal(
        plain.predict_moves(plain.initial_state(current), cands, True), got
    )


def test_shared_lists_wait_for_a_third_request_and_hold_the_grids_largest_k(monkeypatch):
    """Neighbour lists for every row cost many bounded passes: a position reached twice
    scores with bounded passes only; the third request computes the lists once, as long as
    the largest k of the grid ``choose_k`` saw, so a later request with a larger k (another
    relabelling's choice) votes on them instead of recomputing."""
    from widefs._utils import sharing_label_free_work

    X, y, nominal = grid_data(3, n=30, p=8)
    calls = []
    original = KNNLeaveOneOut.candidate_neighbours

    def counting(self, D, candidates, add, k, **kw):
        calls.append(k)
        return original(self, D, candidates, add, k, **kw)

    monkeypatch.setattr(KNNLeaveOneOut, "candidate_neighbours", counting)
    rng = np.random.default_rng(0)
    empty = np.zeros(X.shape[1], dtype=bool)
    cands = np.arange(X.shape[1])
    got = []
    with sharing_label_free_work():
        for t, k in enumerate((1, 3, 2, 14, 5)):
            yp = rng.permutation(y)
            ev = KNNLeaveOneOut(X, yp, 3, nominal, np.arange(30), n_neighbors=1)
            ev.choose_k(Criterion(yp), [1, 2, 3, 5, 14, 20], empty)  # grid up to 20
            ev.n_neighbors = k
            got.append((yp, k, ev.predict_moves(ev.initial_state(empty), cands, add=True)))
            assert calls == ([] if t < 2 else [20])  # once, on the third request, K = 20
        once = KNNLeaveOneOut(X, y, 3, nominal, np.arange(30), n_neighbors=1)
        twice = once.initial_state(np.arange(X.shape[1]) == 0)
        for _ in range(2):  # another position, reached twice: no lists
            once.predict_moves(twice, cands[1:], add=True)
        assert calls == [20]
    for yp, k, pred in got:  # the same votes as outside the block
        plain = KNNLeaveOneOut(X, yp, 3, nominal, np.arange(30), n_neighbors=k)
        np.testing.assert_array_equal(
            plain.predict_moves(plain.initial_state(empty), cands, True), pred
        )


def test_early_stopping_scan_is_exercised_and_exact():
    """Forward moves scan each row in current-distance order and stop early; on data where
    many candidate distances tie at the k-th neighbour the lists equal a full sort by
    (distance, index)."""
    X, y, nominal = grid_data(4, n=35, p=12, levels=2)
    ev = KNNLeaveOneOut(X, y, 3, nominal, np.arange(35), n_neighbors=3)
    current = np.arange(12) < 5
    D = ev.initial_state(current)
    cands = np.flatnonzero(~current)
    lists = ev.candidate_neighbours(D, cands, True, 3)
    for t, f in enumerate(cands):
        Df = D + ev.contribution(f)
        for i in range(35):
            ref = sorted((j for j in range(35) if j != i), key=lambda j: (Df[i, j], j))[:3]
            assert lists[t, i].tolist() == ref
    # Ties at the k-th distance are frequent here, so the (distance, index) rule matters.
    Df = D + ev.contribution(int(cands[0]))
    np.fill_diagonal(Df, np.inf)
    kth = np.sort(Df, axis=1)[:, 2]
    assert ((Df == kth[:, None]).sum(axis=1) > 1).sum() >= 10


@pytest.mark.parametrize("k", [11, 12, 15, 34])
def test_many_neighbours_listed_in_order_and_bounded_scores_exact(k):
    """With many neighbours (the overall searches' k on colon), lists equal a full sort by
    (distance, index) for added and removed features, and bounded scores keep the first
    maximum and its score of the unbounded ones (three criteria)."""
    from widefs.search._criterion import Criterion

    X, y, nominal = grid_data(5, n=35, p=12, levels=2)
    ev = KNNLeaveOneOut(X, y, 3, nominal, np.arange(35), n_neighbors=k)
    current = np.arange(12) < 5
    D = ev.initial_state(current)
    for add, cands, sign in [(True, np.flatnonzero(~current), 1), (False, np.arange(5), -1)]:
        lists = ev.candidate_neighbours(D, cands, add, k)
        for t, f in enumerate(cands):
            Df = D + sign * ev.contribution(f)
            for i in range(35):
                ref = sorted((j for j in range(35) if j != i), key=lambda j: (Df[i, j], j))[:k]
                assert lists[t, i].tolist() == ref
        for target in (None, 0, 2):
            crit = Criterion(y, target, "recall")
            ev_t = KNNLeaveOneOut(X, y, 3, nominal, crit.rows, n_neighbors=k)
            full = crit.score(ev_t.predict_moves(D, cands, add))
            bounded = ev_t.score_moves(D, cands, add, crit)
            assert int(np.argmax(bounded)) == int(np.argmax(full))
            assert bounded.max() == full.max()
            kept = np.isfinite(bounded)
            np.testing.assert_array_equal(bounded[kept], full[kept])


def _vote_lists_in_order(lists, y, k):
    """Two-class votes of the first k of each list: the majority, a tie to the nearest's."""
    ones = y[lists[..., :k]].sum(axis=-1)
    return np.where(2 * ones == k, y[lists[..., 0]], (2 * ones > k).astype(np.int64))


@pytest.mark.parametrize("k", [4, 5, 8, 9, 14, 21])
def test_two_class_threshold_votes_equal_the_votes_of_ordered_lists(k):
    """Two-class votes of k >= 8 neighbours (k >= 3 on unordered scans: removing features)
    come from a distance threshold; they equal the
    votes of the neighbour lists found in order (adding and removing features, bounded or
    not), where distances tie at the k-th neighbour, where the vote ties, and with a NaN
    distance (the threshold then gives way to the ordered scan)."""
    from widefs.search._criterion import Criterion

    rng = np.random.default_rng(k)
    n, p = 40, 12
    X = rng.integers(-6, 7, size=(n, p)) * 0.5  # exact distances: some tie at the k-th
    X[:, 8:] = rng.normal(size=(n, 4))  # and some never do
    y = (X[:, 5] + rng.normal(0, 1, n) > 0).astype(int)
    nominal = np.zeros(p, bool)
    ev = KNNLeaveOneOut(X, y, 2, nominal, np.arange(n), n_neighbors=k)
    ties = gaps = 0
    for current in (np.arange(p) < 2, np.arange(p) >= 9):
        D = ev.initial_state(current)
        D_nan = D.copy()
        D_nan[[4, 7], [7, 4]] = np.nan
        for state in (D, D_nan):
            for add in (True, False):
                cands = np.flatnonzero(current != add)
                lists = ev.candidate_neighbours(state, cands, add, k + 1)
                expected = _vote_lists_in_order(lists, y, k)
                np.testing.assert_array_equal(ev.predict_moves(state, cands, add), expected)
                crit = Criterion(y)
                _check_first_best(ev.score_moves(state, cands, add, crit), crit.score(expected))
                for t, f in enumerate(cands):  # distances of the k-th and (k+1)-th
                    Df = state + (1 if add else -1) * ev.contribution(f)
                    kth = np.take_along_axis(Df, lists[t, :, k - 1 : k + 1], axis=1)
                    tied = kth[:, 0] == kth[:, 1]
                    ties, gaps = ties + tied.sum(), gaps + (~tied).sum()
    # The paths are really taken: most rows have a gap at the k-th distance (threshold),
    # many a tie there (ordered scan), and an even k ties votes.
    assert gaps > 4 * ties > 400
    lists = ev.candidate_neighbours(D, np.flatnonzero(~current), True, k)
    tied_votes = (2 * y[lists].sum(axis=-1) == k).sum()
    assert tied_votes > 10 if k % 2 == 0 else tied_votes == 0


def test_engines_share_one_read_only_transposed_copy_of_equal_data():
    """Inside a sharing block the engines of equal data (any object) share one transposed
    copy from the second on; other data, or no block, get their own; always read-only."""
    from widefs._utils import sharing_label_free_work

    X, y, nominal = grid_data(0)
    changed = X.copy()
    changed[3, 2] += 1.0
    with sharing_label_free_work():
        evs = [KNNLeaveOneOut(X.copy(), y, 3, nominal, np.arange(25)) for _ in range(3)]
        other = KNNLeaveOneOut(changed, y, 3, nominal, np.arange(25))
    outside = KNNLeaveOneOut(X, y, 3, nominal, np.arange(25))
    shared = np.shares_memory
    assert shared(evs[1].XT, evs[2].XT) and not shared(evs[0].XT, evs[1].XT)
    assert not shared(other.XT, evs[2].XT) and not shared(outside.XT, evs[2].XT)
    np.testing.assert_array_equal(other.XT, changed.T)
    for ev in (*evs, other, outside):
        assert not ev.XT.flags.writeable and ev.XT.flags.c_contiguous
        np.testing.assert_array_equal(ev.XT, (changed if ev is other else X).T)
    assert X.flags.writeable  # the caller's data untouched


# ------------------------------------------------- mutation-testing kills (docs/testing.md)


def test_interface_docstrings_fill_only_missing_ones():
    """A subclass method without a docstring gets the interface's; one with its own keeps
    it; a method or attribute the interface lacks is left alone (subclasses created here,
    so ``__init_subclass__`` runs inside the test)."""
    from widefs.search._interface import _Evaluator, _SubsetModel

    class Probe(_Evaluator):
        limit = 3  # not callable: untouched

        def initial_state(self, mask):
            return mask

        def apply_move(self, state, f, add):
            """Own words."""
            return state

        def helper(self):
            return None

    class Model(_SubsetModel):
        def predict_codes(self, X):
            return X

    assert Probe.initial_state.__doc__ == _Evaluator.initial_state.__doc__
    assert "The search state of the subset" in Probe.initial_state.__doc__
    assert Probe.apply_move.__doc__ == "Own words."
    assert Probe.helper.__doc__ is None
    assert Model.predict_codes.__doc__ == _SubsetModel.predict_codes.__doc__
    assert "Class codes for the rows" in Model.predict_codes.__doc__
    # The library's own classes: inherited where silent, their own where documented.
    assert KNNLeaveOneOut.initial_state.__doc__ == _Evaluator.initial_state.__doc__
    assert "n_neighbors" in KNNLeaveOneOut.predict_state.__doc__
    assert KNNModel.predict_codes.__doc__ == _SubsetModel.predict_codes.__doc__


@pytest.mark.parametrize("n_masks", [0, 1, 4, 9])
def test_knn_predict_masks_returns_one_row_per_mask(n_masks):
    """Shapes where the mask count differs from the feature count (6), including 0 and 1."""
    X, y, nominal = grid_data(3, n=20, p=6)
    rows = np.flatnonzero(y != 0)
    ev = KNNLeaveOneOut(X, y, 3, nominal, rows, n_neighbors=3)
    masks = np.random.default_rng(n_masks).random((n_masks, 6)) < 0.5
    got = ev.predict_masks(masks, n_jobs=2)
    assert got.shape == (n_masks, rows.size)
    for mask, pred in zip(masks, got):
        np.testing.assert_array_equal(
            pred, brute_knn_loo(X, y, nominal, np.flatnonzero(mask), 3, rows)
        )


def test_choose_k_keeps_exactly_the_valid_k():
    """Valid k are 1 .. n - 1 (leave-one-out leaves n - 1 neighbours); nothing valid -> k = 1."""
    X, y, nominal = grid_data(1, n=8, p=6)
    ev = KNNLeaveOneOut(X, y, 3, nominal, np.arange(8), n_neighbors=1)
    crit = Criterion(y)
    mask = np.ones(6, bool)
    k, scores = ev.choose_k(crit, [0, 7, 1, 8, 9, 6, -1], mask)
    assert sorted(scores) == [1, 6, 7]
    for kk, s in scores.items():
        expected = np.mean(brute_knn_loo(X, y, nominal, range(6), kk, range(8)) == y)
        assert s == pytest.approx(expected, abs=0)
    assert k == min(kk for kk, s in scores.items() if s == max(scores.values()))
    k, scores = ev.choose_k(crit, [0, 8, 20], mask)
    assert k == 1 and list(scores) == [1]


def test_naive_bayes_moves_in_small_blocks_equal_one_block(monkeypatch):
    """The candidate loop in blocks of ``_BLOCK_ELEMENTS`` floats: with one candidate per
    block the predictions are those of a single block."""
    from widefs.search import _naive_bayes

    X, y, nominal, n_cat = mixed_data(4)
    ev = NaiveBayesLeaveOneOut(X, y, 3, nominal, n_cat, np.arange(30), 1e-9, 1.0)
    state = ev.initial_state(np.array([True, False, False, True, False, False]))
    for add, cands in ((True, np.array([1, 2, 4, 5])), (False, np.array([0, 3]))):
        whole = ev.predict_moves(state, cands, add)
        monkeypatch.setattr(_naive_bayes, "_BLOCK_ELEMENTS", 1)
        blocked = ev.predict_moves(state, cands, add)
        monkeypatch.undo()
        np.testing.assert_array_equal(blocked, whole)
        assert blocked.shape == (cands.size, 30)


def test_naive_bayes_model_defaults_are_sklearns(gaussian_queries):
    """Defaults var_smoothing=1e-9 and alpha=1 give GaussianNB() / CategoricalNB()'s
    predictions; other values change them (so the comparison can fail)."""
    X, y, Q = gaussian_queries(0)
    cols = np.array([0, 2, 3])
    zeros = np.zeros(4, dtype=bool), np.zeros(4, dtype=np.int64)
    model = NaiveBayesModel(X, y, 3, *zeros, cols)
    sk = GaussianNB().fit(X[:, cols], y).predict(Q[:, cols])
    np.testing.assert_array_equal(model.predict_codes(Q), sk)
    other = NaiveBayesModel(X, y, 3, *zeros, cols, var_smoothing=1.0)
    assert np.any(other.predict_codes(Q) != sk)

    rng = np.random.default_rng(1)
    Xc = rng.integers(0, 4, size=(30, 3)).astype(float)
    yc = np.repeat(np.arange(2), 15)
    Xc[yc == 1, 0] = rng.integers(2, 4, size=15)
    Qc = rng.integers(0, 4, size=(300, 3)).astype(float)
    nominal, n_cat = np.ones(3, dtype=bool), np.full(3, 4)
    model = NaiveBayesModel(Xc, yc, 2, nominal, n_cat, [0, 1, 2])
    assert model.stats.alpha == CategoricalNB().alpha == 1.0
    sk = CategoricalNB(min_categories=4).fit(Xc, yc).predict(Qc)
    np.testing.assert_array_equal(model.predict_codes(Qc), sk)
    other = NaiveBayesModel(Xc, yc, 2, nominal, n_cat, [0, 1, 2], alpha=20.0)
    assert np.any(other.predict_codes(Qc) != sk)


def test_evaluators_accept_lists_and_return_int64_codes():
    """The documented types: masks and indices may be lists (0/1 ints for masks), and
    every prediction is an int64 array of class codes whatever the input types."""
    X, y, nominal = grid_data(7, n=24, p=6)
    rows = np.array([0, 3, 4, 10, 23])
    mask_b = np.array([True, False, True, True, False, False])
    mask_i = mask_b.astype(int).tolist()
    masks_b = np.random.default_rng(0).random((3, 6)) < 0.5
    masks_i = masks_b.astype(int).tolist()

    ev = KNNLeaveOneOut(X, y, 3, nominal, rows.tolist(), n_neighbors=3)
    assert ev.rows.dtype == np.int64
    D = ev.initial_state(mask_b)
    np.testing.assert_array_equal(ev.initial_state(mask_i), D)
    ref = [brute_knn_loo(X, y, nominal, np.flatnonzero(m), 3, rows) for m in masks_b]
    for got in (ev.predict_masks(masks_b), ev.predict_masks(masks_i)):
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, ref)
    Ds = np.stack([ev.initial_state(m) for m in masks_b])
    got = ev.predict_states(Ds)
    assert got.dtype == np.int64 and got.shape == (3, rows.size)
    np.testing.assert_array_equal(got, ref)
    for ks in ([3, 1, 5], (2.0, 4.0)):
        got = ev.predict_state_ks(D, ks)
        assert got.dtype == np.int64
        for k, pred in zip(ks, got):
            np.testing.assert_array_equal(
                pred, brute_knn_loo(X, y, nominal, np.flatnonzero(mask_b), int(k), rows)
            )
    # state_from with 0/1 integer masks: one feature removed and one added.
    other_b = mask_b.copy()
    other_b[[0, 1]] = [False, True]
    for a, b in ((mask_b, other_b), (mask_i, other_b.astype(int).tolist())):
        np.testing.assert_array_equal(ev.state_from(D, a, b), ev.initial_state(other_b))
    moves = ev.predict_moves(D, [1, 4], True)
    assert moves.dtype == np.int64
    near = ev.candidate_neighbours(D, [1, 4], True, 3)
    assert near.dtype == np.int32 and near.shape == (2, 24, 3)
    # k beyond n - 1: every other row, nearest first (the full sort by distance, index).
    near = ev.candidate_neighbours(D, [1], True, 40)
    assert near.shape == (1, 24, 23)
    D1 = ev.initial_state(mask_b | (np.arange(6) == 1))
    for i in range(24):
        others = [j for j in range(24) if j != i]
        assert near[0, i].tolist() == sorted(others, key=lambda j: (D1[i, j], j))

    model = KNNModel(X.astype(int), y.tolist(), 3, nominal.tolist(), [0, 2], 3)
    got = model.predict_codes(X[:5].astype(int).tolist())
    assert got.dtype == np.int64
    np.testing.assert_array_equal(
        got, KNNModel(X, y, 3, nominal, np.array([0, 2]), 3).predict_codes(X[:5])
    )

    Xm, ym, nom, n_cat = mixed_data(5)
    nb = NaiveBayesLeaveOneOut(Xm, ym.tolist(), 3, nom, n_cat, rows.tolist())
    T = nb.initial_state(mask_b)
    np.testing.assert_array_equal(nb.initial_state(mask_i), T)
    for got in (
        nb.predict_masks(masks_b),
        nb.predict_masks(masks_i),
        nb.predict_moves(T, [1, 4], True),
    ):
        assert got.dtype == np.int64
    np.testing.assert_array_equal(
        nb.predict_masks(masks_i), [nb.predict_state(nb.initial_state(m)) for m in masks_b]
    )
    nbm = NaiveBayesModel(Xm, ym.tolist(), 3, nom, n_cat, [0, 3])
    got = nbm.predict_codes(Xm[:6].tolist())
    assert got.dtype == np.int64
    np.testing.assert_array_equal(
        got, NaiveBayesModel(Xm, ym, 3, nom, n_cat, np.array([0, 3])).predict_codes(Xm[:6])
    )

    from widefs.search import SubsetClassifier

    fitted = KNeighborsClassifier(1).fit(X[:, [0, 2]], y.astype(float))  # float labels
    sub = SubsetClassifier(fitted, [0, 2])
    assert sub.cols.dtype == np.int64
    got = sub.predict_codes(X[:5])
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, fitted.predict(X[:5, [0, 2]]))

    cv = CrossValidationEvaluator(KNeighborsClassifier(1), X, y, rows, cv=3)
    state = cv.initial_state(mask_i)
    assert state.dtype == bool
    np.testing.assert_array_equal(state, mask_b)
    got = cv.predict_masks(masks_b)
    assert got.dtype == np.int64 and got.shape == (3, rows.size)
    ref = [cross_val_predict(KNeighborsClassifier(1), X[:, m], y, cv=3)[rows] for m in masks_b]
    np.testing.assert_array_equal(got, ref)


def test_class_codes_given_as_floats_are_read_as_codes():
    """Codes that arrive as a float array (0.0, 1.0, ...) work like integer codes."""
    X, y, nominal = grid_data(8, n=24, p=6)
    mask = np.array([True, True, False, False, True, False])
    yf = y.astype(float)
    ev = KNNLeaveOneOut(X, yf, 3, nominal, np.arange(24), 3)
    ref = KNNLeaveOneOut(X, y, 3, nominal, np.arange(24), 3)
    np.testing.assert_array_equal(ev.predict_subset(mask), ref.predict_subset(mask))
    model = KNNModel(X, yf, 3, nominal, [0, 1, 4], 3)
    np.testing.assert_array_equal(
        model.predict_codes(X[:6]), KNNModel(X, y, 3, nominal, [0, 1, 4], 3).predict_codes(X[:6])
    )
    Xm, ym, nom, n_cat = mixed_data(7)
    nb = NaiveBayesModel(Xm, ym.astype(float), 3, nom, n_cat, [0, 3])
    np.testing.assert_array_equal(
        nb.predict_codes(Xm), NaiveBayesModel(Xm, ym, 3, nom, n_cat, [0, 3]).predict_codes(Xm)
    )
    nb = NaiveBayesLeaveOneOut(Xm, ym.astype(float), 3, nom, n_cat, np.arange(30))
    ref = NaiveBayesLeaveOneOut(Xm, ym, 3, nom, n_cat, np.arange(30))
    np.testing.assert_array_equal(
        nb.predict_subset(np.ones(6, bool)), ref.predict_subset(np.ones(6, bool))
    )
    cv = CrossValidationEvaluator(KNeighborsClassifier(3), X, yf, np.arange(24), cv=3)
    got = cv.predict_subset(mask)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(
        got, cross_val_predict(KNeighborsClassifier(3), X[:, mask], y, cv=3)
    )


def test_empty_subsets_rows_and_candidates():
    """No features, no held-out rows, no candidates: valid calls with empty answers, and a
    model without features votes among the lowest-index training rows (kNN: every
    distance is 0) or predicts the most frequent class (naive Bayes)."""
    from sklearn.dummy import DummyClassifier

    from widefs.search import SubsetClassifier

    X, y, nominal = grid_data(9, n=21, p=6)
    ev = KNNLeaveOneOut(X, y, 3, nominal, np.arange(21), 3)
    np.testing.assert_array_equal(ev.distances([]), np.zeros((21, 21)))
    D = ev.initial_state(np.array([True, False, True, False, False, False]))
    assert ev.candidate_neighbours(D, [], True, 3).shape == (0, 21, 3)
    assert ev.candidate_neighbours(D, [1], True, 3, rows=[]).shape == (1, 0, 3)
    no_rows = KNNLeaveOneOut(X, y, 3, nominal, [], 3)
    assert no_rows.predict_subset(np.ones(6, dtype=bool)).shape == (0,)

    Q = X[:4]
    got = KNNModel(X, y, 3, nominal, [], 3).predict_codes(Q)
    # All distances 0: the three lowest-index rows vote, as for held-out row 20.
    np.testing.assert_array_equal(got, np.full(4, brute_knn_loo(X, y, nominal, [], 3, [20])[0]))

    Xm, ym, nom, n_cat = mixed_data(6)
    ym = ym.copy()
    ym[:4] = 2  # class 2 the most frequent
    got = NaiveBayesModel(Xm, ym, 3, nom, n_cat, []).predict_codes(Xm[:5])
    assert got.tolist() == [2] * 5
    nb = NaiveBayesLeaveOneOut(Xm, ym, 3, nom, n_cat, [])
    assert nb.predict_subset(np.ones(6, dtype=bool)).shape == (0,)

    dummy = DummyClassifier(strategy="most_frequent").fit(np.zeros((21, 0)), y)
    got = SubsetClassifier(dummy, []).predict_codes(X[:3])
    assert got.tolist() == [int(np.bincount(y).argmax())] * 3
    cv = CrossValidationEvaluator(KNeighborsClassifier(1), X, y, [], cv=3)
    assert cv.predict_subset(np.ones(6, dtype=bool)).shape == (0,)


def test_shared_cache_keys_tell_data_masks_and_moves_apart():
    """Inside one sharing block, evaluators whose data differ only in X or only in which
    columns are nominal, with k from 1 to beyond n - 1, asked three times each (a value
    is stored on its second request; a list stored for k = 4, i.e. K = 10, is replaced
    for k = 12) for distances, updated distances and candidate moves (the same candidates
    from two states, in both directions): every answer equals the one computed without
    sharing, and without sharing the moves equal the brute force."""
    from widefs._utils import sharing_label_free_work

    X1, y, nominal = grid_data(11, n=20, p=6)
    X2 = X1.copy()
    X2[:, [0, 2]] = X2[::-1, [0, 2]]
    nominal_b = nominal.copy()
    nominal_b[[0, 2]] = True
    datasets = [(X1, nominal), (X2, nominal), (X1, nominal_b)]
    masks = [
        np.array([True, False, True, False, False, True]),
        np.array([False, True, True, True, False, False]),
    ]
    other = np.array([True, True, False, False, False, True])  # adds 1, removes 2 from masks[0]
    ks = (1, 4, 12, 19, 25)

    def answers(ev):
        out = []
        for m in masks:
            D = ev.initial_state(m)
            out += [D, ev.predict_moves(D, np.flatnonzero(~m), True)]
            out += [ev.predict_moves(D, np.flatnonzero(m), False)]
            out += [ev.predict_moves(D, [4], True), ev.predict_moves(D, [4], False)]
        D0 = ev.initial_state(masks[0])
        out += [ev.predict_moves(D0, [1], True), ev.predict_moves(D0, [3], True)]
        out += [ev.state_from(D0, masks[0], other), ev.state_from(D0, masks[0], masks[1])]
        # Updates that share all but one part of their key: the added features, the
        # removed ones, or the starting state (feature 4 is in neither subset).
        D1 = ev.initial_state(masks[1])
        with_f = [masks[0] | (np.arange(6) == f) for f in (1, 3, 4)]
        without_f = [masks[0] & (np.arange(6) != f) for f in (0, 5)]
        out += [ev.state_from(D0, masks[0], m) for m in with_f + without_f]
        out += [ev.state_from(D1, masks[1], masks[1] | (np.arange(6) == 4))]
        return out

    plain = {}
    for d, (X, nom) in enumerate(datasets):
        for k in ks:
            ev = KNNLeaveOneOut(X, y, 3, nom, np.arange(20), k)
            plain[d, k] = answers(ev)
            D = ev.initial_state(masks[1])
            for cands in ([0, 4], [4]):  # one candidate: the single-row answer is filled too
                for f, pred in zip(cands, ev.predict_moves(D, cands, True)):
                    cols = np.flatnonzero(masks[1] | (np.arange(6) == f))
                    expected = brute_knn_loo(X, y, nom, cols, k, range(20))
                    np.testing.assert_array_equal(pred, expected)
    with sharing_label_free_work() as cache:
        for _ in range(3):
            for k in ks:
                for d, (X, nom) in enumerate(datasets):
                    ev = KNNLeaveOneOut(X, y, 3, nom, np.arange(20), k)
                    for got, ref in zip(answers(ev), plain[d, k]):
                        np.testing.assert_array_equal(got, ref)
        assert cache.hits > 0


def test_default_k_is_one_and_default_cv_is_five_folds():
    X, y, nominal = grid_data(12, n=30, p=6)
    ev = KNNLeaveOneOut(X, y, 3, nominal, np.arange(30))
    mask = np.ones(6, dtype=bool)
    np.testing.assert_array_equal(
        ev.predict_subset(mask), brute_knn_loo(X, y, nominal, range(6), 1, range(30))
    )
    rng = np.random.default_rng(0)
    Xc = rng.normal(size=(60, 3)) + np.repeat([0.0, 0.6], 30)[:, None]
    yc = np.repeat([0, 1], 30)
    ev = CrossValidationEvaluator(KNeighborsClassifier(1), Xc, yc, np.arange(60))
    assert ev.cv.get_n_splits() == 5
    expected = cross_val_predict(KNeighborsClassifier(1), Xc, yc, cv=StratifiedKFold(5))
    np.testing.assert_array_equal(ev.predict_subset(np.ones(3, dtype=bool)), expected)


@pytest.mark.parametrize(
    ("class_sizes", "cv", "n_splits"),
    [((6, 6), 5, 5), ((6, 3), 5, 3), ((6, 2), 5, 2), ((6, 1), 5, 2), ((6, 6), 2, 2), ((), 5, 2)],
)
def test_cross_validation_folds_capped_by_the_smallest_class(class_sizes, cv, n_splits):
    y = np.repeat(np.arange(len(class_sizes)), class_sizes).astype(int)
    X = np.arange(2.0 * y.size).reshape(-1, 2)
    ev = CrossValidationEvaluator(KNeighborsClassifier(1), X, y, np.arange(y.size), cv=cv)
    assert ev.cv.get_n_splits() == n_splits


def test_argmax_ties_tolerance_is_relative_and_inclusive():
    """Values within 1e-10 (1 + |max|) of the row maximum tie, the bound itself included."""
    rows = np.array(
        [
            [-1000.0, -1000.0 + 1e-8],  # |max| = 1000: 1e-8 is inside 1.0001e-7 -> tie
            [-1000.0, -1000.0 + 1e-6],  # outside -> the larger
            [-1.5e-10, 0.0],  # at max 0 the tolerance is 1e-10: outside
            [-1e-10, 0.0],  # exactly at the bound: inside
            [-np.inf, -np.inf],
        ]
    )
    assert argmax_ties(rows).tolist() == [0, 1, 1, 0, 0]
    assert argmax_ties(rows.T, axis=0).tolist() == [0, 1, 1, 0, 0]


def _small_class_data(seed, scale=0.01):
    """Class sizes 1, 2, 9, 8; numeric columns with variances far below 1; nominal columns
    with one category (first and last) and with three."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(4), [1, 2, 9, 8])
    rng.shuffle(y)
    n = y.size
    X = np.empty((n, 5))
    X[:, 0] = 0.0  # nominal, one category
    X[:, 1] = scale * (rng.normal(size=n) + 0.8 * y)
    X[:, 2] = rng.integers(0, 3, size=n)
    X[:, 3] = scale * (rng.normal(size=n) - 0.5 * y)
    X[:, 4] = 0.0  # nominal, one category
    nominal = np.array([True, False, True, False, True])
    n_cat = np.array([1, 0, 3, 0, 1])
    return X, y, nominal, n_cat


@pytest.mark.parametrize("seed", range(3))
def test_naive_bayes_classes_of_one_and_two_members_equal_refits(seed):
    """Leave-one-out where the held-out row is its class's only member (the class is absent
    from the fold) or one of two (one member left, no variance); one-category nominal
    columns; variances far below 1: the joint log-likelihoods equal scikit-learn refits."""
    X, y, nominal, n_cat = _small_class_data(seed)
    ev = NaiveBayesLeaveOneOut(X, y, 4, nominal, n_cat, np.arange(y.size), 1e-9, 1.0)
    for cols in ([1], [1, 3], [0, 2, 4], [0, 1, 2, 3, 4]):
        ref = brute_nb_loo(X, y, nominal, n_cat, cols, 1e-9, 1.0)
        state = ev.initial_state(np.isin(np.arange(5), cols))
        # rtol 1e-5: with one member left the variance is ~1e-13 and the values reach 1e10
        np.testing.assert_allclose(state, ref, rtol=1e-5, atol=1e-9)
        np.testing.assert_array_equal(ev.predict_state(state), argmax_ties(ref, axis=1))
    assert np.isneginf(state[y == 0, 0]).all() and np.isfinite(state[y == 1, 1]).all()


def test_naive_bayes_unseen_category_and_absent_class():
    """A query category code of -1 (not seen in training) counts 0 in every class:
    log(alpha) - log(n_c + alpha K); a class code with no training row is never predicted
    and leaves the other classes' predictions as they are."""
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], [7, 5])
    X = np.column_stack([rng.integers(0, 3, 12), rng.normal(size=12) + y]).astype(float)
    nominal, n_cat = np.array([True, False]), np.array([3, 0])
    model = NaiveBayesModel(X, y, 2, nominal, n_cat, [0, 1], 1e-9, 0.5)
    Q = np.array([[-1.0, 0.3], [1.0, 0.3]])
    L = model.stats.loglik(Q)
    np.testing.assert_allclose(L[0, :, 0], np.log(0.5) - np.log(np.array([7, 5]) + 0.5 * 3))
    count = np.array([np.sum(X[y == c, 0] == 1) for c in (0, 1)])
    np.testing.assert_allclose(L[1, :, 0], np.log(count + 0.5) - np.log(np.array([7, 5]) + 1.5))

    Q = rng.normal(size=(50, 2)) + np.array([1.0, 0.5])
    Q[:, 0] = rng.integers(-1, 3, 50)
    two = NaiveBayesModel(X, y, 2, nominal, n_cat, [0, 1]).predict_codes(Q)
    three = NaiveBayesModel(X, y, 3, nominal, n_cat, [0, 1])
    assert np.isfinite(three.stats.loglik(Q)[:, :2]).all()
    np.testing.assert_array_equal(three.predict_codes(Q), two)


def test_naive_bayes_leave_one_out_defaults_and_integer_nominal_flags():
    # Numeric variances ~1e-4 below the nominal columns' (~0.7): epsilon, taken over the
    # numeric columns only, changes if integer flags are misread as all numeric.
    X, y, nominal, n_cat = _small_class_data(4)
    rows = np.arange(y.size)
    mask = np.ones(5, dtype=bool)
    default = NaiveBayesLeaveOneOut(X, y, 4, nominal, n_cat, rows)
    explicit = NaiveBayesLeaveOneOut(X, y, 4, nominal, n_cat, rows, 1e-9, 1.0)
    np.testing.assert_array_equal(default.initial_state(mask), explicit.initial_state(mask))
    other = NaiveBayesLeaveOneOut(X, y, 4, nominal, n_cat, rows, 1.0, 1.0)
    assert not np.allclose(other.initial_state(mask), explicit.initial_state(mask))
    other = NaiveBayesLeaveOneOut(X, y, 4, nominal, n_cat, rows, 1e-9, 2.0)
    assert not np.allclose(other.initial_state(mask), explicit.initial_state(mask))
    flags = NaiveBayesLeaveOneOut(X, y, 4, nominal.astype(int), n_cat, rows, 1e-9, 1.0)
    np.testing.assert_array_equal(flags.initial_state(mask), explicit.initial_state(mask))


# --------------------------------------------------------------------- bounded greedy steps
@pytest.mark.parametrize("kind", ["recall", "balanced"])
@pytest.mark.parametrize("target", [None, 0, 2])
def test_row_weights_give_the_score_as_a_weighted_count(kind, target):
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, 30)
    crit = Criterion(y, target=target, kind=kind)
    weight, want, negate = crit.row_weights()
    pred = rng.integers(0, 3, size=(200, crit.rows.size))
    count = (((pred == want) != negate) * weight).sum(axis=1)
    if target is None or kind == "recall":
        expected = count / crit.rows.size
    else:
        pos = y[crit.rows] == target
        expected = count / (2 * pos.sum() * (~pos).sum())
    np.testing.assert_allclose(crit.score(pred), expected, rtol=0, atol=1e-15)
    # A larger count is a larger score, beyond rounding (equal counts may differ by an ulp:
    # that is why the bound abandons only candidates strictly below the best).
    scores = crit.score(pred)
    levels = np.unique(count)
    lo = np.array([scores[count == c].min() for c in levels])
    hi = np.array([scores[count == c].max() for c in levels])
    assert np.all(hi[:-1] < lo[1:])


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
def test_row_weights_empty_when_a_balanced_group_is_empty():
    crit = Criterion(np.zeros(6, dtype=int), target=0, kind="balanced")
    assert all(a.size == 0 for a in crit.row_weights())
    # No bound: the scores are the plain ones (NaN specificity, as criterion.score).
    ev = KNNLeaveOneOut(np.arange(12.0).reshape(6, 2), np.zeros(6, int), 1, np.zeros(2, bool),
                        crit.rows, n_neighbors=1)  # fmt: skip
    D = ev.initial_state(np.array([True, False]))
    full = crit.score(ev.predict_moves(D, [1], True))
    np.testing.assert_array_equal(ev.score_moves(D, [1], True, crit), full)


def _check_first_best(got, full):
    """The bounded scores ``got`` against the full evaluation's ``full``: the first maximum
    and its score are exact, every finished candidate is exact, and an abandoned one (-inf)
    scores below the best or ties it after it. Returns (abandoned, abandoned ties)."""
    b = int(np.argmax(full))
    assert int(np.argmax(got)) == b and got[b] == full[b]
    kept = np.isfinite(got)
    np.testing.assert_array_equal(got[kept], full[kept])
    after = np.arange(full.size) > b
    assert np.all((full[~kept] < full[b]) | ((full[~kept] == full[b]) & after[~kept]))
    return int((~kept).sum()), int(((~kept) & (full == full[b])).sum())


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["recall", "balanced"])
def test_score_moves_keeps_the_first_best_exactly(seed, kind):
    """Bounded scores: the argmax and its score equal the full evaluation's; every
    abandoned candidate (-inf) really scores below the best or ties it later in the
    candidate order (it cannot be the first best); the others are exact. Repeated calls
    scan the candidates in the order of their last scores: the same results."""
    rng = np.random.default_rng(seed)
    n, p = 40, 60
    X = rng.integers(0, 4, size=(n, p)).astype(float)
    X[:, 5:] += rng.normal(0, 0.3, size=(n, p - 5)).round(1)
    y = rng.integers(0, 3, size=n)
    nominal = np.zeros(p, bool)
    nominal[[0, 3]] = True
    target = [None, 0, 1][seed % 3]
    crit = Criterion(y, target=target, kind=kind)
    pruned_any = ties_any = False
    for k in (1, 2, 4, 9):
        ev = KNNLeaveOneOut(X, y, 3, nominal, crit.rows, n_neighbors=k)
        for trial in range(3):
            current = rng.random(p) < [0.0, 0.05, 0.3][trial]
            D = ev.initial_state(current)
            for add in (True, False):
                cands = np.flatnonzero(current != add)
                if cands.size == 0:
                    continue
                full = crit.score(ev.predict_moves(D, cands, add))
                for jobs in (1, 3, 1):
                    got = ev.score_moves(D, cands, add, crit, n_jobs=jobs)
                    pruned, ties = _check_first_best(got, full)
                    pruned_any |= pruned > 0
                    ties_any |= ties > 0
    assert pruned_any  # the bound is active on these problems
    assert ties_any  # a tie after the first best is abandoned too


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("shared", [False, True])
def test_score_moves_with_a_baseline_finishes_only_moves_that_beat_it(seed, shared):
    """With ``baseline`` (predictions to beat), a move is abandoned (-inf) when it cannot
    beat the baseline's weighted successes or cannot be the first best; a finished move
    is exact and beats the baseline, and the first best is exact whenever some move beats
    the baseline, so a step taken only on an improvement decides as before. ``shared``: the
    vote over stored neighbour lists (third request)."""
    from widefs._utils import sharing_label_free_work

    rng = np.random.default_rng(seed)
    n, p = 36, 50
    X = rng.integers(0, 4, size=(n, p)).astype(float) + rng.normal(0, 0.2, size=(n, p)).round(1)
    y = rng.integers(0, 2, size=n)
    crit = Criterion(y, target=[None, 1][seed % 2], kind="balanced")
    weight, want, negate = crit.row_weights()

    def count(pred):
        return (((pred == want) != negate) * weight).sum(axis=-1)

    abandoned_any = False
    with sharing_label_free_work() if shared else contextlib.nullcontext():
        for k in (1, 3):
            ev = KNNLeaveOneOut(X, y, 2, np.zeros(p, bool), crit.rows, n_neighbors=k)
            for size in (1, 3):
                current = np.zeros(p, bool)
                current[rng.choice(p, size, replace=False)] = True
                D = ev.initial_state(current)
                cands = np.flatnonzero(~current)
                full_pred = ev.predict_moves(D, cands, True)
                full, counts = crit.score(full_pred), count(full_pred)
                perfect = np.where(negate, 1 - want, want)  # every row a success
                # The current predictions, changed, the best move's own (a tie), perfect.
                for flips in (0, 2, 6, "best", None):
                    if flips == "best":
                        base = full_pred[int(np.argmax(full))].copy()
                    else:
                        base = ev.predict_state(D) if flips is not None else perfect.copy()
                    if flips and flips != "best":
                        rows = rng.choice(n, flips, replace=False)
                        base[rows] = 1 - base[rows]
                    base_count = count(base)
                    for _ in range(3 if shared else 1):  # a third request votes stored lists
                        got = ev.score_moves(D, cands, True, crit, baseline=base)
                    kept = np.isfinite(got)
                    np.testing.assert_array_equal(got[kept], full[kept])
                    assert np.all(counts[kept] > base_count)  # only what beats it is finished
                    # Abandoned: not beating the baseline, or not the first best.
                    b = int(np.argmax(full))
                    later = np.arange(full.size) > b
                    assert np.all(
                        (counts[~kept] <= base_count)
                        | (full[~kept] < full[b])
                        | ((full[~kept] == full[b]) & later[~kept])
                    )
                    if counts.max() > base_count:  # some move beats it: the argmax is exact
                        assert int(np.argmax(got)) == b and got[b] == full[b]
                    abandoned_any |= bool(
                        ((~kept) & (counts == base_count) & (counts == counts.max())).any()
                    )
    assert abandoned_any  # a best move that only ties the baseline was abandoned


def test_score_moves_default_is_the_criterion_of_the_predictions():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 6))
    y = rng.integers(0, 2, 20)
    crit = Criterion(y)
    nb = NaiveBayesLeaveOneOut(X, y, 2, np.zeros(6, bool), np.zeros(6, int), crit.rows)
    T = nb.initial_state(np.array([True, False, False, False, False, False]))
    np.testing.assert_array_equal(
        nb.score_moves(T, [1, 2, 3], True, crit), crit.score(nb.predict_moves(T, [1, 2, 3], True))
    )


def test_bound_abandons_a_candidate_at_the_first_row_it_cannot_recover():
    from widefs.search._kernels import knn_candidate_neighbours

    y = np.array([0, 0, 0, 1, 1, 1])
    # Feature 0 predicts every row; on feature 1 row 0's nearest neighbour is row 3.
    X = np.array([[0, 0], [0.1, 9], [0.2, 9], [5, 0.1], [5.1, 9], [5.2, 9.5]])
    rows = np.arange(6)
    votes = np.full((2, 6), 9, dtype=np.int64)
    weight, want, negate = Criterion(y).row_weights()
    D = np.zeros((6, 6))
    D.setflags(write=False)  # as the evaluators pass it (and the lists given)
    no_given = np.empty((0, 0, 0), np.int32)
    no_given.setflags(write=False)
    knn_candidate_neighbours(
        D, np.empty((0, 0), np.int64), np.ascontiguousarray(X.T),
        np.zeros(2, bool), np.array([0, 1]), 1.0, rows, 1, y, 2, weight, want, negate,
        np.int64(-1), np.empty(0, np.int64), no_given, np.empty((0, 6, 1), np.int32), votes,
    )  # fmt: skip
    assert votes[0].tolist() == y.tolist()
    # 0 of 1 so far + 5 rows left < 6: abandoned after row 0, nothing more written.
    assert votes[1].tolist() == [-1, 9, 9, 9, 9, 9]
    # Without a bound every row is voted.
    empty = np.empty(0, np.int64)
    knn_candidate_neighbours(
        D, np.empty((0, 0), np.int64), np.ascontiguousarray(X.T),
        np.zeros(2, bool), np.array([0, 1]), 1.0, rows, 1, y, 2, empty, empty,
        np.empty(0, bool), np.int64(-1), empty, no_given, np.empty((0, 6, 1), np.int32), votes,
    )  # fmt: skip
    assert votes[1, 0] == 1 and np.all(votes[1] >= 0)


@pytest.mark.parametrize("seed", range(3))
def test_score_moves_on_shared_lists_keeps_the_first_best(seed):
    """The vote over stored neighbour lists is bounded too: inside a sharing block (the
    third request of a position reads stored lists) the argmax and its score equal the
    full evaluation's, and abandoned candidates score below the best or tie it later."""
    from widefs._utils import sharing_label_free_work

    rng = np.random.default_rng(seed)
    n, p = 36, 50
    X = rng.integers(0, 5, size=(n, p)).astype(float)
    nominal = np.zeros(p, bool)
    current = rng.random(p) < 0.1
    cands = np.flatnonzero(~current)
    pruned = ties = 0
    with sharing_label_free_work() as cache:
        for _ in range(5):
            yp = rng.integers(0, 2, size=n)
            for kind, target in (("recall", None), ("balanced", 1), ("recall", 0)):
                crit = Criterion(yp, target=target, kind=kind)
                for k in (1, 3):
                    ev = KNNLeaveOneOut(X, yp, 2, nominal, crit.rows, n_neighbors=k)
                    D = ev.initial_state(current)
                    full = crit.score(ev.predict_moves(D, cands, True))
                    for _ in range(2):  # in index order, then in the order of these scores
                        got = ev.score_moves(D, cands, True, crit)
                        abandoned, tied = _check_first_best(got, full)
                        pruned += abandoned
                        ties += tied
        assert cache.hits > 0
    assert pruned > 0 and ties > 0  # ties after the first best are abandoned too


def test_forward_auto_passes_the_current_subsets_predictions_as_baseline(monkeypatch):
    """SequentialSelector's forward "auto" steps give score_moves the current subset's
    predictions (whose score is the current score); the selection is the one without."""
    from widefs.search import SequentialSelector

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 40))
    y = (X[:, 3] + X[:, 7] + 0.5 * rng.normal(size=30) > 0).astype(int)
    seen = []
    original = KNNLeaveOneOut.score_moves

    def spy(self, state, cands, add, crit, n_jobs=None, baseline=None):
        if baseline is not None:
            seen.append(float(crit.score(baseline)))
        return original(self, state, cands, add, crit, n_jobs=n_jobs, baseline=baseline)

    monkeypatch.setattr(KNNLeaveOneOut, "score_moves", spy)
    sel = SequentialSelector(evaluator=KNNEvaluator(1)).fit(X, y)
    history = [h["score"] for h in sel.history_]
    assert len(seen) == len(history) >= 2  # every step after the first had a baseline
    assert seen == history  # each baseline scores as the subset it came from

    def plain(self, state, cands, add, crit, n_jobs=None, baseline=None):
        return original(self, state, cands, add, crit, n_jobs=n_jobs)

    monkeypatch.setattr(KNNLeaveOneOut, "score_moves", plain)
    ref = SequentialSelector(evaluator=KNNEvaluator(1)).fit(X, y)
    np.testing.assert_array_equal(sel.get_support(), ref.get_support())


@pytest.mark.parametrize(
    ("n", "k", "rows"),
    [(1, 1, [0]), (2, 1, [0, 1]), (3, 1, [1]), (3, 5, [0, 1, 2]), (4, 3, []), (6, 4, [2]),
     (7, 2, [0, 6])],
)  # fmt: skip
def test_predict_states_at_the_edges(n, k, rows):
    # One example (no other votes: class 0), two or three (k capped at n - 1), no rows,
    # one row: int64 votes of shape (states, rows), as the brute-force loop.
    rng = np.random.default_rng(n * 10 + k)
    X = rng.integers(0, 3, size=(n, 4)).astype(float)
    y = np.arange(n) % 2 if n > 1 else np.array([1])
    nominal = np.array([False, True, False, False])
    ev = KNNLeaveOneOut(X, y, 2, nominal, np.array(rows, dtype=np.int64), n_neighbors=k)
    masks = np.array([[True, True, False, True], [False, True, True, False], [True] * 4])
    got = ev.predict_states(np.stack([ev.initial_state(m) for m in masks]))
    assert got.dtype == np.int64 and got.shape == (3, len(rows))
    for pred, m in zip(got, masks):
        expected = (
            np.zeros(len(rows), dtype=np.int64)
            if n == 1
            else brute_knn_loo(X, y, nominal, np.flatnonzero(m), min(k, n - 1), rows)
        )
        np.testing.assert_array_equal(pred, expected)


def test_predict_states_of_one_row():
    X = np.array([[0.0], [0.1], [5.0], [5.1], [5.3]])
    ev = KNNLeaveOneOut(X, np.array([0, 0, 1, 1, 1]), 2, np.zeros(1, bool), [3])
    D = ev.initial_state(np.ones(1, bool))
    np.testing.assert_array_equal(ev.predict_states(np.stack([D, D * 0.0])), [[1], [0]])
    np.testing.assert_array_equal(ev.predict_state_ks(D, [1, 3]), [[1], [1]])
    np.testing.assert_array_equal(ev.predict_state(D), [1])
    first = KNNLeaveOneOut(X, np.array([0, 0, 1, 1, 1]), 2, np.zeros(1, bool), [0])
    D = first.initial_state(np.ones(1, bool))
    assert [first.predict_state(D, k).tolist() for k in (1, 3)] == [[0], [1]]


@pytest.mark.parametrize(
    ("n", "budget", "k", "n_candidates", "shared_k", "expected"),
    [
        (30, 2**29, 3, 5, 0, 10),  # at least _SHARED_MIN_K neighbours
        (30, 2**29, 12, 5, 0, 12),  # k itself when larger
        (30, 2**29, 3, 5, 20, 20),  # the largest k of choose_k's grid
        (8, 2**29, 3, 5, 0, 7),  # at most n - 1
        (8, 2**29, 3, 5, 9, 7),
        (30, 28807, 3, 5, 0, 6),  # an eighth of the budget: 28807 // 8 // (4 * 5 * 30)
        (30, 24, 1, 0, 0, 3),  # no candidates: 24 // 8 // 1
        (30, 24, 2, 0, 0, 3),
    ],
)
def test_shared_list_length(n, budget, k, n_candidates, shared_k, expected):
    from widefs.utils import sharing_label_free_work

    X = np.arange(2.0 * n).reshape(n, 2)
    with sharing_label_free_work(budget_bytes=budget):
        ev = KNNLeaveOneOut(X, np.arange(n) % 2, 2, np.zeros(2, bool), np.arange(n))
        ev._shared_k = shared_k
        got = ev._shared_list_length(k, n_candidates)
    assert type(got) is int and got == expected


def test_evaluator_defaults_and_parameters_round_trip():
    from sklearn.base import clone

    from widefs.search import ClassifierEvaluator, KNNEvaluator, NaiveBayesEvaluator

    assert ClassifierEvaluator(KNeighborsClassifier()).cv == 5
    assert NaiveBayesEvaluator().get_params() == {
        "alpha": 1.0, "var_smoothing": 1e-9, "target_class": None, "class_criterion": "recall",
        "categorical_features": "from_dtype", "n_jobs": None,
    }  # fmt: skip
    given = [
        KNNEvaluator(3, k_grid=[1, 3], target_class="a", class_criterion="balanced",
                     categorical_features=[0], n_jobs=2),
        NaiveBayesEvaluator(var_smoothing=0.5, alpha=2.5, target_class=1,
                            class_criterion="balanced", categorical_features=None, n_jobs=3),
        ClassifierEvaluator(KNeighborsClassifier(2), cv=4, target_class=0,
                            class_criterion="balanced", categorical_features=None, n_jobs=2),
    ]  # fmt: skip
    for evaluator in given:
        params = evaluator.get_params(deep=False)
        assert params["n_jobs"] in (2, 3) and params["class_criterion"] == "balanced"
        copy = clone(evaluator).get_params(deep=False)
        assert copy.keys() == params.keys()
        for name, value in params.items():
            if name == "estimator":
                assert copy[name].get_params() == value.get_params()
            else:
                assert copy[name] == value


def test_knn_fit_model_needs_an_int_k():
    from widefs.search import KNNEvaluator

    X, y = np.array([[0.0], [1.0]]), np.array([0, 1])
    message = (
        "n_neighbors='auto' is chosen by a search; fit_model needs an int k "
        "(a fitted selector's evaluator_ holds the chosen one)."
    )
    with pytest.raises(ValueError) as info:
        KNNEvaluator().fit_model(X, y, n_classes=2, support=np.array([True]))
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("n", "rows"), [(1, [0]), (2, [0, 1]), (3, [1]), (4, []), (6, [2]), (9, [0, 4, 8])]
)
@pytest.mark.parametrize("ks", [[1], [5], [0], [2, 1], [0, 9, 2], []])
def test_predict_state_ks_at_the_edges(n, rows, ks):
    # k clipped to 1 .. n - 1; one example votes class 0; int64 of shape (len(ks), rows).
    rng = np.random.default_rng(n)
    X = rng.integers(0, 3, size=(n, 3)).astype(float)
    y = (np.arange(n) * 7 // 3) % 3 if n > 1 else np.array([2])
    nominal = np.array([False, True, False])
    ev = KNNLeaveOneOut(X, y, 3, nominal, np.array(rows, dtype=np.int64))
    mask = np.array([True, True, False])
    D = ev.initial_state(mask)
    got = ev.predict_state_ks(D, ks)
    assert got.dtype == np.int64 and got.shape == (len(ks), len(rows))
    for k, pred in zip(ks, got):
        expected = (
            np.zeros(len(rows), dtype=np.int64)
            if n == 1
            else brute_knn_loo(X, y, nominal, [0, 1], min(max(k, 1), n - 1), rows)
        )
        np.testing.assert_array_equal(pred, expected)
        single = ev.predict_state(D, k)
        assert single.dtype == np.int64
        np.testing.assert_array_equal(single, expected)


@pytest.mark.parametrize(
    ("y", "target", "kind", "weight", "want", "negate"),
    [
        ([0, 2, 1, 1], None, "recall", [1, 1, 1, 1], [0, 2, 1, 1], [0, 0, 0, 0]),
        ([0, 2, 1, 1], 1, "recall", [1, 1], [1, 1], [0, 0]),
        ([0, 2, 1, 1], 1, "balanced", [2, 2, 2, 2], [1, 1, 1, 1], [1, 1, 0, 0]),
        ([0, 2, 1, 0, 0], 1, "balanced", [1, 1, 4, 1, 1], [1] * 5, [1, 1, 0, 1, 1]),
        ([0, 0, 0], 1, "balanced", [], [], []),  # no instance of the target
        ([1, 1], 1, "balanced", [], [], []),  # no other instance
    ],
)
def test_row_weights(y, target, kind, weight, want, negate):
    # Exact arrays and dtypes, and the weighted count of successes is the score's numerator.
    crit = Criterion(np.array(y), target=target, kind=kind)
    got = crit.row_weights()
    assert [a.dtype for a in got] == [np.int64, np.int64, np.bool_]
    np.testing.assert_array_equal(got[0], weight)
    np.testing.assert_array_equal(got[1], want)
    np.testing.assert_array_equal(got[2], np.array(negate, dtype=bool))
    if len(weight):
        n_pos = y.count(target)
        balanced = target is not None and kind == "balanced"
        total = 2 * n_pos * (len(y) - n_pos) if balanced else len(weight)
        rng = np.random.default_rng(0)
        for pred in rng.integers(0, 3, size=(20, crit.rows.size)):
            hits = (pred == got[1]) != got[2]
            assert crit.score(pred[None])[0] == pytest.approx(got[0][hits].sum() / total)


def test_moves_of_no_candidate():
    from widefs._utils import sharing_label_free_work

    X, y, nominal = grid_data(3, n=12, p=5)
    for sharing in (False, True):
        with sharing_label_free_work() if sharing else contextlib.nullcontext():
            ev = KNNLeaveOneOut(X, y, 3, nominal, [1, 4, 5])
            D = ev.initial_state(np.array([True, False, True, False, False]))
            for add in (True, False):
                got = ev.predict_moves(D, [], add)
                assert got.dtype == np.int64 and got.shape == (0, 3)


def test_distances_compiled_from_two_to_the_twenty_terms(monkeypatch):
    # columns x rows^2 >= 2^20: the compiled update kernel (from zero); fewer: numpy.
    import widefs.search._kernels as kernels

    calls = []
    original = kernels.update_distances

    def spy(D_ref, XT, nominal, add, remove, D):
        calls.append((D_ref.copy(), add.copy(), remove.size))
        return original(D_ref, XT, nominal, add, remove, D)

    monkeypatch.setattr(kernels, "update_distances", spy)
    X = np.random.default_rng(0).normal(size=(32, 1024))
    ev = KNNLeaveOneOut(X, np.arange(32) % 2, 2, np.zeros(1024, bool), np.arange(32))
    numpy_path = ev.distances(np.arange(1023))
    assert calls == []
    compiled = ev.distances(np.arange(1024))
    assert len(calls) == 1
    D_ref, add, n_removed = calls[0]
    assert not D_ref.any() and D_ref.shape == (32, 32) and n_removed == 0
    np.testing.assert_array_equal(add, np.arange(1024))
    np.testing.assert_allclose(compiled, numpy_path + ev.contribution(1023), rtol=1e-12)
    np.testing.assert_array_equal(np.diag(compiled), 0.0)


@pytest.mark.parametrize("seed", range(3))
def test_bounded_scores_in_candidate_chunks(seed):
    # With the bound, each thread's chunk of candidates is visited in the order of their
    # last scores: in one, two or three chunks the first best candidate and its score are
    # those of the unbounded pass, and every candidate not abandoned keeps its exact score.
    X, y, nominal = grid_data(seed, n=40, p=31)
    crit = Criterion(y)
    mask = np.zeros(31, dtype=bool)
    mask[[0, 5]] = True
    cands = np.flatnonzero(~mask)
    for n_jobs in (1, 2, 3):
        ev = KNNLeaveOneOut(X, y, 3, nominal, crit.rows, n_neighbors=3)
        D = ev.initial_state(mask)
        reference = crit.score(ev.predict_moves(D, cands, True))
        for _ in range(2):  # the second pass visits the best of the first one first
            got = ev.score_moves(D, cands, True, crit, n_jobs=n_jobs)
            kept = np.isfinite(got)
            np.testing.assert_array_equal(got[kept], reference[kept])
            assert got.max() == reference.max()
            assert int(np.argmax(got)) == int(np.argmax(reference))
            assert (~kept).any()  # the bound abandoned some candidates
