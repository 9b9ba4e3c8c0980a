import numpy as np
import pandas as pd
import pytest
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.model_selection import LeaveOneOut, cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier

from widefs.search import (
    ClassifierEvaluator,
    KNNEvaluator,
    NaiveBayesEvaluator,
    SequentialSelector,
    dissertation_k_grid,
)


def continuous(seed=0, n=36, p=10):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 1] - X[:, 6] + 0.8 * rng.normal(size=n) > 0).astype(int)
    return X, y


def integer_grid(seed, n=24, p=6, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, p)).astype(float)
    y = rng.integers(0, n_classes, size=n)
    X[:, 0] += y  # something to find
    nominal = np.zeros(p, bool)
    nominal[3] = True
    return X, y, nominal


def test_forward_equals_sklearn_sfs_with_loo():
    # Odd k, two classes, continuous data: no vote or distance ties, so scikit-learn's tie
    # rules never apply; both searches take the first best candidate.
    k = 3
    X, y = continuous(1, n=26, p=7)
    ours = SequentialSelector(n_features=3, evaluator=KNNEvaluator(k)).fit(X, y)
    ref = SequentialFeatureSelector(
        KNeighborsClassifier(k, algorithm="kd_tree"), n_features_to_select=3, cv=LeaveOneOut()
    ).fit(X, y)
    np.testing.assert_array_equal(ours.get_support(), ref.get_support())
    sk_score = cross_val_score(
        KNeighborsClassifier(k), X[:, ref.get_support()], y, cv=LeaveOneOut()
    ).mean()
    assert ours.score_ == pytest.approx(sk_score, abs=1e-15)


def test_backward_equals_sklearn_sfs_with_loo():
    X, y = continuous(5, n=26, p=7)
    ours = SequentialSelector("backward", n_features=5, evaluator=KNNEvaluator(3)).fit(X, y)
    ref = SequentialFeatureSelector(
        KNeighborsClassifier(3, algorithm="kd_tree"),
        n_features_to_select=5,
        direction="backward",
        cv=LeaveOneOut(),
    ).fit(X, y)
    np.testing.assert_array_equal(ours.get_support(), ref.get_support())


def test_naive_bayes_forward_equals_sklearn_sfs():
    X, y = continuous(2, n=26, p=7)
    ours = SequentialSelector(n_features=2, evaluator=NaiveBayesEvaluator(var_smoothing=0.0)).fit(
        X, y
    )
    ref = SequentialFeatureSelector(
        GaussianNB(var_smoothing=0.0), n_features_to_select=2, cv=LeaveOneOut()
    ).fit(X, y)
    np.testing.assert_array_equal(ours.get_support(), ref.get_support())


def test_cv_fallback_equals_fast_path():
    X, y = continuous(3, n=24, p=7)
    fast = SequentialSelector(n_features=2, evaluator=KNNEvaluator(3)).fit(X, y)
    slow = SequentialSelector(
        n_features=2, evaluator=ClassifierEvaluator(KNeighborsClassifier(3), cv=LeaveOneOut())
    ).fit(X, y)
    np.testing.assert_array_equal(fast.support_, slow.support_)
    assert [h["score"] for h in fast.history_] == [h["score"] for h in slow.history_]
    assert slow.n_neighbors_ is None


@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("seed", range(3))
def test_auto_search_equals_brute_force_greedy(brute, seed, direction):
    X, y, nominal = integer_grid(seed)
    sel = SequentialSelector(direction, evaluator=KNNEvaluator(4, categorical_features=[3])).fit(
        X, y
    )
    cols, score, trail = brute.greedy(X, y, nominal, 4, direction)
    assert np.flatnonzero(sel.support_).tolist() == cols
    assert sel.score_ == score
    steps = [(h["feature"], h["score"]) for h in sel.history_ if h["feature"] is not None]
    assert steps == trail


@pytest.mark.parametrize("kind", ["recall", "balanced"])
def test_target_class_search_equals_brute_force(brute, kind):
    X, y, nominal = integer_grid(7, n=27)
    for code, label in enumerate(["a", "b", "c"]):
        labels = np.array(["a", "b", "c"])[y]
        sel = SequentialSelector(
            evaluator=KNNEvaluator(
                3, target_class=label, class_criterion=kind, categorical_features=[3]
            )
        ).fit(X, labels)
        cols, score, _ = brute.greedy(X, y, nominal, 3, "forward", target=code, kind=kind)
        assert np.flatnonzero(sel.support_).tolist() == cols
        assert sel.score_ == pytest.approx(score, abs=1e-15)


def test_tol_stops_small_gains(brute):
    X, y, nominal = integer_grid(1)
    _, _, trail = brute.greedy(X, y, nominal, 4, "forward")
    gains = np.diff([s for _, s in trail])
    assert gains.size >= 1
    tol = float(gains.min()) + 1e-12  # the smallest accepted gain is no longer enough
    sel = SequentialSelector(tol=tol, evaluator=KNNEvaluator(4, categorical_features=[3])).fit(X, y)
    first_small = int(np.argmax(gains <= tol))
    assert len(sel.history_) == first_small + 1


def test_ties_go_to_lowest_index_and_fewer_features():
    X, y = continuous(4, p=7)
    X[:, 6] = X[:, 1]  # column 6 duplicates column 1
    sel = SequentialSelector(n_features=1, evaluator=KNNEvaluator(3)).fit(X, y)
    assert sel.history_[0]["feature"] == 1
    # Backward: removing either copy scores the same; the lower index goes first.
    X2 = np.column_stack([X[:, 1], X[:, 1], X[:, 1]])
    back = SequentialSelector("backward", evaluator=KNNEvaluator(3)).fit(X2, y)
    assert back.support_.tolist() == [False, False, True]
    assert [h["feature"] for h in back.history_] == [None, 0, 1]


def test_auto_k_is_the_best_on_all_features(brute):
    X, y, nominal = integer_grid(2, n=30)
    sel = SequentialSelector(n_features=1, evaluator=KNNEvaluator(categorical_features=[3])).fit(
        X, y
    )
    grid = dissertation_k_grid(30)
    scores = [brute.score(X, y, nominal, range(6), k) for k in grid]
    assert sel.n_neighbors_ == grid[int(np.argmax(scores))]
    assert list(sel.k_scores_) == list(grid)
    np.testing.assert_allclose(list(sel.k_scores_.values()), scores, rtol=0, atol=1e-15)
    custom = SequentialSelector(
        n_features=1, evaluator=KNNEvaluator(k_grid=[2, 5], categorical_features=[3])
    ).fit(X, y)
    assert custom.n_neighbors_ in (2, 5)


def test_fraction_and_history_shapes():
    X, y = continuous(6, p=10)
    sel = SequentialSelector(n_features=0.3, evaluator=KNNEvaluator(1)).fit(X, y)
    assert sel.support_.sum() == 3 and len(sel.history_) == 3
    back = SequentialSelector("backward", n_features=7, evaluator=KNNEvaluator(1)).fit(X, y)
    assert back.support_.sum() == 7
    assert [h["n_features"] for h in back.history_] == [10, 9, 8, 7]


def test_pandas_mixed_input_and_feature_names():
    rng = np.random.default_rng(0)
    n = 40
    y = np.repeat(["no", "yes"], n // 2)
    df = pd.DataFrame(
        {
            "noise": rng.normal(size=n),
            "colour": np.where(y == "yes", "red", "blue"),
            "size": rng.normal(size=n),
        }
    )
    df.loc[[0, 5], "colour"] = None  # a missing nominal value is its own category
    sel = SequentialSelector(n_features=1, evaluator=KNNEvaluator(1)).fit(df, y)
    assert sel.categorical_features_.tolist() == [False, True, False]
    assert sel.get_feature_names_out().tolist() == ["colour"]
    assert sel.transform(df).shape == (n, 1)
    nb = SequentialSelector(n_features=1, evaluator=NaiveBayesEvaluator()).fit(df, y)
    assert nb.get_feature_names_out().tolist() == ["colour"]
    # The same data as an object array: string columns are detected as nominal.
    obj = SequentialSelector(n_features=1, evaluator=KNNEvaluator(1)).fit(
        df.to_numpy(dtype=object), y
    )
    assert obj.categorical_features_.tolist() == [False, True, False]
    # Named columns can be declared nominal explicitly.
    named = SequentialSelector(
        n_features=1, evaluator=KNNEvaluator(categorical_features=["colour"])
    ).fit(df, y)
    assert named.categorical_features_.tolist() == [False, True, False]


def test_errors():
    X, y = continuous(0)
    with pytest.raises(ValueError, match="target_class='z' is not one of the classes"):
        SequentialSelector(evaluator=KNNEvaluator(target_class="z")).fit(X, y)
    with pytest.raises(ValueError, match=r"n_features=11 must be smaller .* 10 feature\(s\)"):
        SequentialSelector(n_features=11).fit(X, y)
    for direction in ("forward", "backward"):  # as scikit-learn's SequentialFeatureSelector
        with pytest.raises(ValueError, match=r"n_features=10 must be smaller"):
            SequentialSelector(direction, n_features=10).fit(X, y)
    with pytest.raises(ValueError, match="needs at least 2 classes"):
        SequentialSelector().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="index 12 is out of range"):
        SequentialSelector(evaluator=KNNEvaluator(categorical_features=[12])).fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        X2 = X.copy()
        X2[0, 0] = np.nan
        SequentialSelector().fit(X2, y)


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_every_step_takes_the_best_candidate_by_refitting(direction):
    # Naive Bayes without smoothing is GaussianNB(var_smoothing=0): each step's score must
    # be the best leave-one-out accuracy of all candidate subsets, scored here by refitting
    # scikit-learn per left-out example, and the feature taken the first such candidate.
    X, y = continuous(8, n=26, p=7)
    sel = SequentialSelector(
        direction, n_features=3, evaluator=NaiveBayesEvaluator(var_smoothing=0.0)
    ).fit(X, y)
    current = set() if direction == "forward" else set(range(7))
    steps = [h for h in sel.history_ if h["feature"] is not None]
    assert len(steps) == (3 if direction == "forward" else 4)
    for step in steps:
        cands = [f for f in range(7) if (f in current) != (direction == "forward")]
        scores = []
        for f in cands:
            cols = sorted(current | {f}) if direction == "forward" else sorted(current - {f})
            loo = cross_val_score(GaussianNB(var_smoothing=0.0), X[:, cols], y, cv=LeaveOneOut())
            scores.append(loo.mean())
        assert step["score"] == pytest.approx(max(scores), abs=1e-12)
        assert step["feature"] == cands[int(np.argmax(scores))]
        assert len(set(np.round(scores, 12))) > 1  # a wrong choice would show
        current = (
            current | {step["feature"]} if direction == "forward" else current - {step["feature"]}
        )


@pytest.mark.parametrize("make", ["sfs", "cefs"])
def test_threads_share_the_label_free_work_of_their_block(make, monkeypatch):
    """permutation_search_scores over 2 threads, and CEFS's per-class searches in 2 threads
    inside a sharing block: evaluators built in the worker threads reach the block's cache
    (the threads run in copies of its context), lookups are answered, and the scores
    equal plain refits."""
    import threading

    from sklearn.base import clone

    from widefs._utils import sharing_label_free_work
    from widefs.ensemble import ClassSpecificEnsemble
    from widefs.search import KNNLeaveOneOut

    built = []  # (in a worker thread, saw a cache) of every kNN evaluator
    init = KNNLeaveOneOut.__init__

    def spy(self, *args, **kwargs):
        init(self, *args, **kwargs)
        worker = threading.current_thread() is not threading.main_thread()
        built.append((worker, self._shared is not None))

    monkeypatch.setattr(KNNLeaveOneOut, "__init__", spy)
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(24, 8)).astype(float)
    y = np.arange(24) % 3
    perms = np.array([rng.permutation(24) for _ in range(4)])
    with sharing_label_free_work() as cache:
        if make == "sfs":
            est = SequentialSelector(n_features=2, evaluator=KNNEvaluator(3))
            scores = est.permutation_search_scores(X, y, perms, n_jobs=2)
        else:
            est = ClassSpecificEnsemble(SequentialSelector(n_features=1), n_jobs=2)
            scores = [clone(est).fit(X, y[p]).search_score_ for p in perms]
    workers = [shared for worker, shared in built if worker]
    assert workers and all(workers) and cache.hits > 0
    monkeypatch.undo()
    assert list(scores) == [clone(est).fit(X, y[p]).search_score_ for p in perms]
