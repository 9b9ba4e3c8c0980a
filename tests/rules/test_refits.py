"""CN2 refitted on many labellings: the shared table gives the plain refits' rules exactly."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from widefs.rules import CN2Classifier
from widefs.rules._refits import _plain_predictions, _prepared, fold_model
from widefs.rules._table import CandidateTable


def _tied_data(rng, n, F, nominal_share):
    """Integer values (ties everywhere), NaN, -0.0 beside 0.0, and nominal code columns."""
    X = rng.integers(-2, 3, size=(n, F)).astype(float)
    X[rng.random((n, F)) < 0.1] = np.nan
    zeros = X == 0
    X[zeros] = rng.choice([0.0, -0.0], size=zeros.sum())
    nominal = rng.random(F) < nominal_share
    n_categories = np.zeros(F, dtype=np.intp)
    for f in np.flatnonzero(nominal):
        X[:, f] = rng.integers(-1, 4, size=n)  # -1: missing
        n_categories[f] = 4
    return X, nominal, n_categories


def _own_codes(X, rows, nominal, n_categories):
    """The rows with each nominal column coded among the categories they take (as encoding
    the rows alone does), and those category counts."""
    Xs = X[rows].copy()
    counts = n_categories.copy()
    for f in np.flatnonzero(nominal):
        codes = Xs[:, f].astype(int)
        seen = np.unique(codes[codes >= 0])
        new = np.full(n_categories[f] + 1, -1)
        new[seen] = np.arange(seen.size)
        Xs[:, f] = np.where(codes >= 0, new[codes], -1)
        counts[f] = seen.size
    return Xs, counts


def _candidates_on_rows(table, rows_bins):
    """(feature, operator, value) of each static candidate whose bin some row takes."""
    taken = set(rows_bins[rows_bins >= 0].tolist())
    return [
        (int(f), int(op), float(v))
        for f, op, v, b in zip(table.cand_feature, table.cand_op, table.cand_value, table.cand_bin)
        if int(b) in taken
    ]


@pytest.mark.parametrize("n, F, keep", [(12, 5, 0.6), (30, 40, 0.8), (7, 3, 0.5), (9, 4, 1.0)])
def test_the_table_of_all_rows_walks_a_folds_rows_as_a_table_built_on_them(n, F, keep):
    """What a fold's fit on the table of all rows relies on (its other rows are never
    covered): each attribute's walk passes the fold's rows in the order of a table built on
    them, and the static candidates on the bins they take are, in generation order, that
    table's candidates (by value)."""
    rng = np.random.default_rng(n * F)
    nominal, n_categories = np.zeros(F, dtype=bool), np.zeros(F, dtype=np.intp)
    for _ in range(10):
        X, _, _ = _tied_data(rng, n, F, 0.0)
        rows = rng.random(n) < keep
        rows[rng.integers(n)] = True
        full = CandidateTable.build(X, nominal, n_categories)
        built = CandidateTable.build(X[rows], nominal, n_categories)
        kept = np.flatnonzero(rows)
        for f in range(F):
            walk = full.walk_rows[f][rows[full.walk_rows[f]]]
            assert np.array_equal(walk, kept[built.walk_rows[f]]), f
            assert np.array_equal((full.walk_bins[f] >= 0)[rows[full.walk_rows[f]]],
                                  built.walk_bins[f] >= 0), f  # fmt: skip
        ours = _candidates_on_rows(full, full.bins[rows])
        assert ours == _candidates_on_rows(built, built.bins)
        assert len(ours) == built.cand_bin.size
        # An attribute walked as distinct-valued is distinct on the rows.
        assert not (full.walk_distinct & ~built.walk_distinct).any()


def _labellings(y, n, rng, n_splits):
    from widefs.model_selection._cross_validated import stratified_folds

    Y = np.array([y[rng.permutation(y.size)] for _ in range(n)])
    return Y, np.array([stratified_folds(row, n_splits, 11) for row in Y])


@pytest.mark.parametrize(
    "params",
    [{}, {"stopping": "poe"}, {"stopping": "poe1"}, {"mode": "unordered"},
     {"quality": "entropy", "alpha": None}, {"max_rule_length": 2, "min_covered": 2}],
)  # fmt: skip
def test_fold_rules_are_the_plain_refits_rules(params):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(24, 15)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.repeat(["a", "b", "c"], 8)
    est = CN2Classifier(**params)
    base, Xe, _ = _prepared(est, X, y)
    for _ in range(6):
        train = rng.random(y.size) < 0.75
        y_train = y[rng.permutation(y.size)][train]
        shared = fold_model(base, Xe, train, y_train)
        plain = clone(est).fit(X[train], y_train)
        assert shared.format_rules() == plain.format_rules()
        assert [r.conditions for r in shared.rules_] == [r.conditions for r in plain.rules_]
        assert shared.search_score_ == plain.search_score_


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_out_of_fold_predictions_equal_the_refit_loop(n_jobs):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 25)).round(1)  # rounded: ties
    X[:, :3] += np.repeat([0.0, 1.5], 15)[:, None]
    y = np.repeat([0, 1], 15)
    Y, folds = _labellings(y, 4, rng, 3)
    Y[0] = y  # the real labels too
    for est in (CN2Classifier(), CN2Classifier(stopping="poe", mode="unordered")):
        fast = est.out_of_fold_predictions(X, Y, folds, n_jobs=n_jobs)
        assert np.array_equal(fast, _plain_predictions(est, X, Y, folds))


def test_out_of_fold_predictions_nominal_and_frames():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue", "pink"], size=20),
            "size": rng.integers(0, 5, size=20).astype(float),
        }
    )
    y = np.array(["x", "y"] * 10)
    Y, folds = _labellings(y, 3, rng, 4)
    est = CN2Classifier(alpha=None)
    # A nominal column takes the refit loop (a fold codes only the categories it sees).
    assert np.array_equal(
        est.out_of_fold_predictions(frame, Y, folds), _plain_predictions(est, frame, Y, folds)
    )
    numeric = frame[["size"]]
    assert np.array_equal(
        est.out_of_fold_predictions(numeric, Y, folds), _plain_predictions(est, numeric, Y, folds)
    )


def test_out_of_fold_predictions_checks_shapes():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match=r"shape \(n_labellings, 4\)"):
        CN2Classifier().out_of_fold_predictions(X, np.zeros((2, 4)), np.zeros((2, 3), int))
    assert CN2Classifier().out_of_fold_predictions(X, np.zeros((0, 4)), np.zeros((0, 4))).shape == (
        0,
        4,
    )


def test_shared_table_is_the_built_table_and_writable():
    from widefs._utils import sharing_label_free_work

    rng = np.random.default_rng(3)
    X, nominal, n_categories = _tied_data(rng, 20, 6, 0.3)
    built = CandidateTable.build(X, nominal, n_categories)
    with sharing_label_free_work():
        tables = [CandidateTable.shared(X, nominal, n_categories) for _ in range(3)]
    for table in [*tables, CandidateTable.shared(X, nominal, n_categories)]:
        assert table.max_conditions == built.max_conditions
        for name in ("bins", "walk_rows", "walk_bins", "cand_value", "cand_bin"):
            a, b = getattr(table, name), getattr(built, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), name
            assert a.flags.writeable, name  # (numba compiles read-only arrays anew)
    assert tables[1].bins is not tables[2].bins  # copies of the one stored
