"""Memory-saving paths give the fits of the plain paths, float for float.

The errors certificate scores blocks of columns (widened to float64 one block at a time);
:meth:`DiscriminativeSelector._fit_rows` and :meth:`ClassDifferenceScreen._fit_rows` read a
fold's rows in place. Each is checked against the plain computation on a copy.
"""

import numpy as np
import pytest
from sklearn.base import clone

from widefs.univariate import DiscriminativeSelector, _search_scores


def _data(dtype, n=24, m=61, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, m)).astype(dtype)
    X[y == "b", :4] += 1.5
    X[:, 5] = 2.0  # a constant feature
    X[:, 6] = np.round(X[:, 6])  # ties
    return X, y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("cv", ["halves", 3])
def test_errors_certificate_equals_refits_over_many_blocks(monkeypatch, dtype, n_jobs, cv):
    # Blocks of 3 columns: 21 blocks, the last one short.
    monkeypatch.setattr(_search_scores, "_ERRORS_BLOCK_BYTES", 3 * 8 * 24)
    X, y = _data(dtype)
    sel = DiscriminativeSelector("all", statistic="errors", null="analytic", cv=cv,
                                 random_state=3)  # fmt: skip
    perms = np.random.default_rng(1).permuted(np.tile(np.arange(y.size), (7, 1)), axis=1)
    fast = sel.permutation_search_scores(X, y, perms, n_jobs=n_jobs)
    refits = [clone(sel).fit(X, y[p]).search_score_ for p in perms]
    assert fast.dtype == np.float64
    np.testing.assert_array_equal(fast, refits)


def test_errors_certificate_with_every_feature_constant_takes_any_features_score():
    X = np.ones((8, 5), np.float32)
    y = np.repeat([0, 1], 4)
    sel = DiscriminativeSelector("all", statistic="errors", null="analytic", random_state=0)
    perms = np.array([np.arange(8), np.arange(8)[::-1]])
    fast = sel.permutation_search_scores(X, y, perms)
    np.testing.assert_array_equal(fast, [clone(sel).fit(X, y[p]).search_score_ for p in perms])


def test_errors_certificate_leaves_constant_features_out_as_fit_does():
    # Narrow noise (ranges far below 1) beside a constant feature that scores best under
    # some relabellings: the search score is the best non-constant feature's, as in fit.
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 6)
    X = np.hstack([np.full((12, 1), 5.0), 0.01 * rng.normal(size=(12, 3))])
    sel = DiscriminativeSelector("all", statistic="errors", null="analytic", random_state=3)
    perms = np.random.default_rng(1).permuted(np.tile(np.arange(12), (40, 1)), axis=1)
    fits = [clone(sel).fit(X, y[p]) for p in perms]
    assert any(f.scores_[0] > f.scores_[1:].max() for f in fits)
    fast = sel.permutation_search_scores(X, y, perms)
    np.testing.assert_array_equal(fast, [f.search_score_ for f in fits])


@pytest.mark.parametrize("statistic", ["errors", "auto"])
def test_search_scores_take_and_refuse_the_inputs_fit_does(statistic):
    sel = DiscriminativeSelector("all", statistic=statistic, null="analytic", random_state=0)
    X, y = np.array([[0.0, 1.0], [1.0, 3.0]]), np.array(["a", "b"])
    perms = [[0, 1], [1, 0]]
    fast = sel.permutation_search_scores(X, y, perms)  # two examples: enough for fit
    np.testing.assert_array_equal(fast, [clone(sel).fit(X, y[p]).search_score_ for p in perms])
    for X_bad, y_bad in ((X[:1], y[:1]), (X, np.array([7, 7])), (X, np.array(["a", "a"]))):
        with pytest.raises(ValueError) as by_fit:
            clone(sel).fit(X_bad, y_bad)
        with pytest.raises(ValueError) as fast_error:
            sel.permutation_search_scores(X_bad, y_bad, [np.arange(y_bad.size)])
        assert str(fast_error.value) == str(by_fit.value)


@pytest.mark.filterwarnings("ignore:DiscriminativeSelector.*is deprecated:FutureWarning")
@pytest.mark.parametrize("statistic", ["errors", "location"])
def test_search_scores_of_half_precision_data_are_fits_float64_scores(statistic):
    # fit converts float16 to float64; the fast path must read the same numbers.
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    X = (rng.normal(size=(20, 30)) * 3 + 2 * y[:, None] * (np.arange(30) < 3)).astype(np.float16)
    sel = DiscriminativeSelector("all", statistic=statistic, null="analytic", random_state=0)
    perms = np.random.default_rng(1).permuted(np.tile(np.arange(20), (6, 1)), axis=1)
    fast = sel.permutation_search_scores(X, y, perms)
    np.testing.assert_array_equal(fast, [clone(sel).fit(X, y[p]).search_score_ for p in perms])


@pytest.mark.filterwarnings("ignore::widefs.exceptions.NothingSelectedWarning")
@pytest.mark.filterwarnings("ignore:DiscriminativeSelector.*is deprecated:FutureWarning")
@pytest.mark.parametrize("statistic", ["errors", "location", "distribution"])
@pytest.mark.parametrize("storage", ["array", "memmap", "constant"])
def test_search_scores_equal_refits_for_every_statistic_and_storage(
    tmp_path, monkeypatch, statistic, storage
):
    """Every statistic's fast path, and a memory-mapped matrix refitted per relabelling
    (never read whole: the fast path's scorers are not called); every feature constant:
    fit's search score, that of any feature."""
    X, y = _data(np.float64, n=20, m=12)
    X[:, 2] *= np.where(y == "b", 3.0, 1.0)  # a spread difference
    if storage == "constant":
        X[:] = 1.5
    if storage == "memmap":
        mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
        mm[:] = X
        X = mm

        def refuse(*args, **kwargs):
            raise AssertionError("a lazy matrix is refitted, not scored whole")

        monkeypatch.setattr(_search_scores, "best_scores", refuse)
        monkeypatch.setattr(_search_scores, "score_block", refuse)
    sel = DiscriminativeSelector(3, statistic=statistic, n_permutations=20, random_state=1)
    perms = np.random.default_rng(3).permuted(np.tile(np.arange(20), (5, 1)), axis=1)
    fast = sel.permutation_search_scores(X, y, perms)
    refits = [clone(sel).fit(X, y[p]).search_score_ for p in perms]
    assert fast.dtype == np.float64 and fast.shape == (5,)
    np.testing.assert_array_equal(fast, refits)


def _fitted_state(est):
    """Every fitted attribute, arrays as lists (a dict to compare)."""
    out = {}
    for k, v in vars(est).items():
        if k.endswith("_") and not k.startswith("_"):
            if isinstance(v, dict):
                v = {a: vars(b) if hasattr(b, "__dict__") else b for a, b in v.items()}
            out[k] = v
    return out


def _assert_same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        va, vb = a[k], b[k]
        if isinstance(va, dict):
            _assert_same(va, vb)
        elif isinstance(va, np.ndarray):
            np.testing.assert_array_equal(va, vb, err_msg=k)
            assert va.dtype == vb.dtype, k
        else:
            assert va == vb or (va != va and vb != vb), k


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "params",
    [
        dict(threshold="mgm"),
        dict(threshold="max_chance", null="analytic"),
        dict(threshold="fdr", statistic="errors", n_permutations=50),
        dict(threshold=3, statistic="errors", scorer="stump", cv=4),
    ],
)
def test_selector_fit_rows_equals_fit_on_the_copy(monkeypatch, dtype, params):
    from widefs.univariate import _error_counts

    # Blocks of 4 columns: the rows are read in 16 blocks (the copy is scored in one).
    monkeypatch.setattr(_error_counts, "block_width", lambda *args, **kwargs: 4)
    X, y = _data(dtype)
    rows = np.random.default_rng(2).permutation(y.size)[:18]
    sel = DiscriminativeSelector(random_state=5, **params)
    plain = clone(sel).fit(X[rows], y[rows])
    in_place = clone(sel)._fit_rows(X, y[rows], rows)
    _assert_same(_fitted_state(plain), _fitted_state(in_place))
    np.testing.assert_array_equal(plain.transform(X), in_place.transform(X))


def test_selector_fit_rows_gives_fits_messages_and_shares_within_a_fold():
    from widefs._utils import sharing_fits

    X, y = _data(np.float32)
    with pytest.raises(ValueError, match="at least 2 classes"):
        DiscriminativeSelector()._fit_rows(X, y[:3], np.arange(3))
    rows = np.arange(20)
    with sharing_fits() as memo:
        a = DiscriminativeSelector("mgm", random_state=0)._fit_rows(X, y[rows], rows)
        b = DiscriminativeSelector("max_chance", random_state=0)._fit_rows(X, y[rows], rows)
        c = DiscriminativeSelector("mgm", random_state=0)._fit_rows(X, y[rows], rows[::-1])
    assert memo.hits == 1  # b reused a's fit; c (other rows order) did not
    np.testing.assert_array_equal(a.n_errors_, b.n_errors_)
    plain = DiscriminativeSelector("mgm", random_state=0).fit(X[rows[::-1]], y[rows])
    np.testing.assert_array_equal(c.n_errors_, plain.n_errors_)


def _screen_data(dtype):
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1, 2], 10)
    X = rng.normal(size=(30, 90)).astype(dtype)
    X[y == 1, :6] += 1.5
    X[:, 10:20] = rng.integers(0, 2, size=(30, 10))  # two-valued
    X[:, 20:30] = rng.poisson(1.0, size=(30, 10))  # tied: ranked
    X[:, 30:35] = rng.standard_t(1, size=(30, 5))  # heavy tails
    X[:, 35] = 3.0  # constant
    return X, y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("threshold", ["fdr", "bonferroni", 4])
def test_screen_fit_rows_equals_fit_on_the_copy(monkeypatch, dtype, threshold):
    from widefs.univariate import ClassDifferenceScreen, _kinds

    # Blocks of 8 columns when read in place.
    monkeypatch.setattr(_kinds, "block_width", lambda *args, **kwargs: 8)
    X, y = _screen_data(dtype)
    rows = np.random.default_rng(3).permutation(30)[:24]
    screen = ClassDifferenceScreen(threshold, counts=False, random_state=2)
    plain = clone(screen).fit(X[rows], y[rows])
    in_place = clone(screen)._fit_rows(X, y[rows], rows)
    assert in_place.kind_counts_ == plain.kind_counts_ and plain.kind_counts_["ranked"] > 0
    for name in ("pvalues_", "min_pvalues_", "location_statistics_", "spread_statistics_",
                 "kinds_", "testable_", "spread_weights_"):  # fmt: skip
        np.testing.assert_array_equal(getattr(plain, name), getattr(in_place, name), name)
    np.testing.assert_array_equal(plain.get_support(), in_place.get_support())
    assert (plain.threshold_, plain.n_features_in_) == (
        in_place.threshold_,
        in_place.n_features_in_,
    )


def test_screen_reads_a_folds_rows_in_blocks_smaller_than_a_stores(monkeypatch, tmp_path):
    # Two blocks are alive at once (the one read, the last): 64 MB blocks of a fold's rows
    # were most of a worker's memory in a 10^6-feature comparison.
    from widefs.univariate import ClassDifferenceScreen, _kinds

    real, seen = _kinds.block_width, []
    monkeypatch.setattr(_kinds, "block_width", lambda *a: seen.append(a[-1]) or real(*a))
    X, y = _screen_data(np.float64)
    stored = np.lib.format.open_memmap(tmp_path / "x.npy", "w+", np.float64, X[:20].shape)
    stored[:] = X[:20]
    in_place = ClassDifferenceScreen(counts=False, random_state=0)._fit_rows(
        X, y[:20], np.arange(20)
    )
    out_of_core = ClassDifferenceScreen(counts=False, random_state=0).fit(stored, y[:20])
    assert seen == [_kinds._COMPUTED_BLOCK_BYTES, _kinds._BLOCK_BYTES]
    assert _kinds._COMPUTED_BLOCK_BYTES <= _kinds._BLOCK_BYTES // 8
    np.testing.assert_array_equal(in_place.pvalues_, out_of_core.pvalues_)


def test_screen_fit_rows_fits_the_copy_when_counts_are_to_be_read(monkeypatch):
    from widefs.univariate import ClassDifferenceScreen, _rows

    X, y = _screen_data(np.float64)
    seen = []
    monkeypatch.setattr(_rows, "RowsOf", lambda *a: seen.append(1) or _rows.RowsOf(*a))
    for counts in ("auto", True):
        X_counts = np.abs(np.round(X * 3))
        screen = ClassDifferenceScreen(counts=counts, random_state=0)
        a = clone(screen)._fit_rows(X_counts, y[:20], np.arange(20))
        b = clone(screen).fit(X_counts[:20], y[:20])
        np.testing.assert_array_equal(a.pvalues_, b.pvalues_)
    assert seen == []


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("scorer", ["gaussian_nb", "stump"])
def test_float32_data_are_scored_as_their_float64_copy_by_blocks(monkeypatch, n_jobs, scorer):
    from widefs.univariate import _error_counts

    X, y = _data(np.float32)
    sel = DiscriminativeSelector("mgm", scorer=scorer, n_permutations=30, random_state=1)
    whole = _fitted_state(clone(sel).fit(X.astype(np.float64), y))
    monkeypatch.setattr(_error_counts, "block_width", lambda *args, **kwargs: 5)
    blocks = clone(sel).set_params(n_jobs=n_jobs).fit(X, y)
    _assert_same(whole, _fitted_state(blocks))


def _outcome(fit):
    """A fit's fitted state, or its error's type and message."""
    try:
        return _fitted_state(fit())
    except ValueError as error:
        return {"error": (type(error).__name__, str(error))}


def _same_outcome(a, b):
    if "error" in a or "error" in b:
        assert a == b
    else:
        _assert_same(a, b)


@pytest.mark.filterwarnings("ignore::widefs.exceptions.NothingSelectedWarning")
@pytest.mark.filterwarnings("ignore:DiscriminativeSelector.*is deprecated:FutureWarning")
@pytest.mark.parametrize(
    "case, in_place",
    [
        ("errors", True),
        ("location", False),
        ("two jobs", False),
        ("integers", False),
        ("other length", False),
        ("one row", False),
        ("two rows", True),
        ("one class", False),
    ],
)
def test_selector_fit_rows_reads_in_place_where_it_can_and_fits_the_copy_elsewhere(
    monkeypatch, case, in_place
):
    """The errors statistic of a float matrix, one job, at least two rows of two classes
    and labels for every row: read in place; otherwise fit's result or message, on the copy."""
    from widefs.univariate import _rows

    seen = []
    real = _rows.RowsOf
    monkeypatch.setattr(_rows, "RowsOf", lambda *a: seen.append(1) or real(*a))
    X, y = _data(np.float32)
    rows = np.arange(2, 22)
    params = {"statistic": "errors", "n_permutations": 20, "random_state": 0}
    if case == "location":
        params.update(statistic="location", threshold=3)
    if case == "two jobs":
        params.update(n_jobs=2)
    if case == "integers":
        X = np.round(X * 4).astype(np.int64)
    y_rows = y[rows]
    if case == "other length":
        y_rows = y_rows[:-1]
    if case in ("one row", "two rows"):
        rows = rows[[0, -1]] if case == "two rows" else rows[:1]
        y_rows = y[rows]
    if case == "one class":
        y_rows = np.full(rows.size, "a")
    sel = DiscriminativeSelector(**params)
    by_rows = _outcome(lambda: clone(sel)._fit_rows(X, y_rows, rows))
    assert bool(seen) == in_place
    _same_outcome(by_rows, _outcome(lambda: clone(sel).fit(X[rows], y_rows)))


@pytest.mark.filterwarnings("ignore::widefs.exceptions.NothingSelectedWarning")
@pytest.mark.parametrize(
    "case, in_place", [("float", True), ("integers", False), ("one row", False), ("two rows", True)]
)
def test_screen_fit_rows_reads_in_place_where_it_can_and_fits_the_copy_elsewhere(
    monkeypatch, case, in_place
):
    from widefs.univariate import ClassDifferenceScreen, _rows

    seen = []
    real = _rows.RowsOf
    monkeypatch.setattr(_rows, "RowsOf", lambda *a: seen.append(1) or real(*a))
    X, y = _screen_data(np.float64)
    rows = np.arange(3, 27)
    if case == "integers":
        X = np.round(X * 4).astype(np.int64)
    if case in ("one row", "two rows"):
        rows = rows[[0, -1]] if case == "two rows" else rows[:1]
    screen = ClassDifferenceScreen("fdr", counts=False, random_state=2)
    by_rows = _outcome(lambda: clone(screen)._fit_rows(X, y[rows], rows))
    assert bool(seen) == in_place
    _same_outcome(by_rows, _outcome(lambda: clone(screen).fit(X[rows], y[rows])))


@pytest.mark.filterwarnings("ignore::widefs.exceptions.NothingSelectedWarning")
def test_selector_fit_rows_shares_only_fits_of_the_same_matrix_labels_and_rows():
    import pandas as pd

    from widefs._utils import sharing_fits

    X, y = _data(np.float32)
    rows = np.arange(20)
    other_X = X[::-1].copy()
    other_y = y[rows][::-1].copy()
    fits = []
    with sharing_fits() as memo:
        for X_, y_, rows_ in ((X, y[rows], rows), (other_X, y[rows], rows),
                              (X, other_y, rows), (X, y[rows], rows + 2)):  # fmt: skip
            fits.append(DiscriminativeSelector("mgm", random_state=0)._fit_rows(X_, y_, rows_))
    assert memo.hits == 0
    for fit, (X_, y_, rows_) in zip(
        fits, ((X, y[rows], rows), (other_X, y[rows], rows), (X, other_y, rows),
               (X, y[rows], rows + 2)), strict=True,
    ):  # fmt: skip
        plain = DiscriminativeSelector("mgm", random_state=0).fit(X_[rows_], y_)
        np.testing.assert_array_equal(fit.n_errors_, plain.n_errors_)
    # A selector fitted on named columns, then on rows of an array: no names, as fit.
    names = [f"g{j}" for j in range(X.shape[1])]
    sel = DiscriminativeSelector("mgm", random_state=0).fit(
        pd.DataFrame(X[rows], columns=names), y[rows]
    )
    assert hasattr(sel, "feature_names_in_")
    assert not hasattr(sel._fit_rows(X, y[rows], rows), "feature_names_in_")


def test_a_fit_counts_its_scored_features_and_warns_only_when_nothing_is_selected():
    import warnings

    from widefs.exceptions import NothingSelectedWarning

    X, y = _data(np.float64)  # feature 5 constant, features 0-3 shifted
    sel = DiscriminativeSelector("mgm", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NothingSelectedWarning)
        sel._fit_rows(X, y, np.arange(y.size))
    assert sel.support_.any() and sel.n_scored_ == X.shape[1] - 1
    noise = np.random.default_rng(4).normal(size=(24, 30))
    with pytest.warns(NothingSelectedWarning, match="^No feature passed the 'max_chance'"):
        DiscriminativeSelector("max_chance", random_state=0)._fit_rows(noise, y, np.arange(24))


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_selector_fit_rows_refuses_missing_or_infinite_values_in_the_folds_rows(value):
    X, y = _data(np.float32)
    X[3, 7] = value
    rows = np.arange(20)
    with pytest.raises(ValueError, match=r"Input X contains (NaN|infinity)"):
        DiscriminativeSelector("mgm", random_state=0).fit(X[rows], y[rows])
    with pytest.raises(ValueError, match=r"NaN or infinity \(columns \[7\]"):
        DiscriminativeSelector("mgm", random_state=0)._fit_rows(X, y[rows], rows)
    # A value outside the fold's rows is not read.
    fit = DiscriminativeSelector("mgm", random_state=0)._fit_rows(X, y[4:], np.arange(4, 24))
    assert np.isfinite(fit.scores_).all()
