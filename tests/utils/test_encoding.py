"""The one input encoding of the estimators with nominal attributes, both missing policies."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from widefs._utils import (
    MISSING_CODE,
    UNSEEN_CODE,
    check_classes,
    encode_fit,
    encode_transform,
    feature_names_or_default,
)

FRAME = pd.DataFrame(
    {
        "cat": pd.Categorical(["a", None, "b", "a"]),
        "text": pd.Series(["x", "y", None, "y"], dtype="str"),
        "obj": pd.Series(["1", 2, None, 2], dtype=object),
        "num": [1.5, np.nan, 3.0, 0.5],
        "flag": [True, False, True, True],
        "objnum": pd.Series([1, 2.5, None, 4], dtype=object),
        "codes": pd.Categorical([3, 1, 3, 2]),
    }
)


def test_kinds_from_dtypes_and_values():
    est = BaseEstimator()
    Xe, _, enc = encode_fit(est, FRAME, None, "from_dtype", missing="propagate")
    # Categorical (also with integer categories), string, object holding a string and
    # booleans are nominal; floats and an object column of numbers are numeric.
    assert enc.nominal.tolist() == [True, True, True, False, True, False, True]
    assert enc.categories[2].tolist() == ["1", "2"]  # compared through their text
    assert enc.categories[4].tolist() == ["False", "True"]
    assert enc.categories[6].tolist() == ["1", "2", "3"]
    assert Xe[:, 0].tolist() == [0, MISSING_CODE, 1, 0]
    assert Xe[:, 1].tolist() == [0, 1, MISSING_CODE, 1]
    assert Xe[:, 2].tolist() == [0, 1, MISSING_CODE, 1]
    np.testing.assert_array_equal(Xe[:, 3], [1.5, np.nan, 3.0, 0.5])
    np.testing.assert_array_equal(Xe[:, 5], [1, 2.5, np.nan, 4])
    assert Xe[:, 6].tolist() == [2, 0, 2, 1]
    assert est.feature_names_in_.tolist() == list(FRAME.columns)
    # The same values as an object array: dtypes are gone, values decide.
    arr = FRAME.drop(columns="codes").to_numpy(dtype=object)
    _, _, enc2 = encode_fit(BaseEstimator(), arr, None, "from_dtype", missing="propagate")
    assert enc2.nominal.tolist() == [True, True, True, False, True, False]


def test_missing_category_policy():
    X = FRAME[["cat", "text"]]
    Xe, _, enc = encode_fit(BaseEstimator(), X, None, "from_dtype", missing="category")
    # The missing category sorts first; every row gets a code, none is negative.
    assert enc.categories[0].tolist() == ["\x00missing", "a", "b"]
    assert Xe[:, 0].tolist() == [1, 0, 2, 1]
    assert Xe[:, 1].tolist() == [1, 2, 0, 2]
    # A numeric NaN is an error under this policy (scikit-learn's own message).
    with pytest.raises(ValueError, match="Input X contains NaN"):
        encode_fit(BaseEstimator(), FRAME[["cat", "num"]], None, "from_dtype", missing="category")
    with pytest.raises(ValueError, match="Input X contains NaN"):
        encode_fit(BaseEstimator(), np.array([[np.nan]]), None, "from_dtype", missing="category")


@pytest.mark.parametrize("missing", ["category", "propagate"])
def test_transform_matches_fit_and_marks_unseen(missing):
    X = np.array([["x", 1.0], ["y", 2.0], [None, 3.0]], dtype=object)
    est = BaseEstimator()
    Xe, _, enc = encode_fit(est, X, None, "from_dtype", missing=missing)
    np.testing.assert_array_equal(encode_transform(est, X, enc), Xe)
    Xq = np.array([["y", 0.0], ["z", 1.0], [np.nan, 2.0], ["x", 3.0]], dtype=object)
    got = encode_transform(est, Xq, enc)[:, 0].tolist()
    if missing == "propagate":
        assert got == [1, UNSEEN_CODE, MISSING_CODE, 0]
    else:  # categories: missing, x, y
        assert got == [2, UNSEEN_CODE, 0, 1]
    with pytest.raises(ValueError, match="was numeric when the model was fitted"):
        encode_transform(est, np.array([["x", "abc"]], dtype=object), enc)
    with pytest.raises(ValueError, match="features"):
        encode_transform(est, np.zeros((2, 3)), enc)


def test_plain_numeric_input_is_scikit_learn_validated():
    est = BaseEstimator()
    X = np.arange(6.0).reshape(3, 2)
    Xe, y, enc = encode_fit(est, X, [0, 1, 0], "from_dtype", missing="category")
    assert Xe is not None and not enc.nominal.any() and y.tolist() == [0, 1, 0]
    np.testing.assert_array_equal(Xe, X)
    with pytest.raises(ValueError, match="infinity"):
        encode_fit(est, [[np.inf, 1.0], [0.0, 1.0]], None, "from_dtype", missing="propagate")
    with pytest.raises(ValueError, match=r"0 feature\(s\)"):
        encode_fit(est, np.empty((3, 0)), None, "from_dtype", missing="category")
    with pytest.raises(ValueError, match=r"Found array with 1 sample\(s\)"):
        encode_fit(est, [[1.0]], None, "from_dtype", missing="category", ensure_min_samples=2)
    # A boolean array is nominal (as pandas boolean columns are).
    _, _, enc_b = encode_fit(
        est, np.array([[True], [False]]), None, "from_dtype", missing="category"
    )
    assert enc_b.nominal.tolist() == [True]


def test_explicit_specification_and_errors():
    X = pd.DataFrame({"a": [1.0, 2.0, 1.0], "b": [0.5, 0.1, 0.7]})
    for spec in ([0], [-2], ["a"], np.array([True, False])):
        _, _, enc = encode_fit(BaseEstimator(), X, None, spec, missing="propagate")
        assert enc.nominal.tolist() == [True, False], spec
        assert enc.categories[0].tolist() == ["1.0", "2.0"]
    _, _, none = encode_fit(BaseEstimator(), X, None, None, missing="propagate")
    assert not none.nominal.any()
    for spec, msg in [
        ([5], "index 5 is out of range for 2 features"),
        (["z"], "names 'z', which is not a column"),
        (np.array([True]), "boolean mask needs 2 entries"),
        ([1.5], "must be column indices, names or a boolean mask"),
    ]:
        with pytest.raises(ValueError, match=msg):
            encode_fit(BaseEstimator(), X, None, spec, missing="propagate")
    with pytest.raises(ValueError, match="missing must be one of"):
        encode_fit(BaseEstimator(), X, None, None, missing="drop")


def test_objects_that_are_neither_numbers_nor_labels_are_rejected():
    X = np.array([[1.0, "a"], [{"foo": "bar"}, "b"]], dtype=object)
    # The message scikit-learn's check_dtype_object expects.
    with pytest.raises(TypeError, match=r"argument must be a string.* number"):
        encode_fit(BaseEstimator(), X, None, "from_dtype", missing="propagate")


def test_names_and_classes():
    est = BaseEstimator()
    encode_fit(est, np.zeros((2, 3)), None, "from_dtype", missing="category")
    assert feature_names_or_default(est).tolist() == ["x0", "x1", "x2"]
    classes, codes = check_classes(est, np.array(["b", "a", "b"]))
    assert classes.tolist() == ["a", "b"] and codes.tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="BaseEstimator needs at least 2 classes; got 1 class"):
        check_classes(est, np.array(["a", "a"]))
    with pytest.raises(ValueError, match="Unknown label type"):
        check_classes(est, np.array([0.5, 1.5]))


def test_check_classes_keeps_sklearns_target_check_where_labels_could_be_continuous():
    """Integer, boolean and string labels skip scikit-learn's target check (they are always
    class labels); anything else still goes through it."""
    for y in (np.array([3, 1, 3]), np.array([True, False]), np.array(["b", "a"], dtype=object)):
        classes, codes = check_classes(None, y, min_classes=1)
        assert classes[codes].tolist() == y.tolist()
    for y in (np.array([0.5, 1.5, 2.25]), np.array([0.5, 1.5, 2.25], dtype=object)):
        with pytest.raises(ValueError, match="Unknown label type"):
            check_classes(None, y)
    mixed = np.array(["a", 1.5, "b"], dtype=object)
    with pytest.raises((ValueError, TypeError)):
        check_classes(None, mixed)


def _frames():
    rng = np.random.default_rng(0)
    n = 12
    yield pd.DataFrame(
        {
            "colour": np.array(["red", None, "blue"] * 4, dtype=object),
            "size": rng.normal(size=n),
            "count": rng.integers(0, 5, n),
            "flag": rng.random(n) > 0.5,
            "grade": pd.Categorical(rng.choice(["a", "b", "c"], n)),
            "codes": pd.Categorical(rng.integers(0, 3, n)),
            "mixed": np.array([1, "x", 2.5, None] * 3, dtype=object),
        }
    )
    yield pd.DataFrame({"only": pd.Categorical(["u", "v"] * 6), "f": np.arange(12.0)})
    yield pd.DataFrame({"s": np.array(["a"] * 12, dtype=object)}, index=np.arange(12)[::-1])


@pytest.mark.parametrize("with_y", [False, True])
def test_plain_frames_validate_like_scikit_learn(with_y):
    """encode_fit's shortcut for DataFrames of plain columns (their object array validated
    after the names) gives scikit-learn's array, names and messages."""
    from sklearn.utils.validation import validate_data

    from widefs._utils._encoding import _frame_kinds, _validate_mixed

    for X in _frames():
        y = np.arange(len(X)) % 2 if with_y else None
        kw = {"y": y, "ensure_min_samples": 2}
        a, b = BaseEstimator(), BaseEstimator()
        fast = _validate_mixed(a, X, _frame_kinds(X), kw)
        full = validate_data(b, X, dtype=None, ensure_all_finite=False, **kw)
        fast_X, full_X = (fast[0], full[0]) if with_y else (fast, full)
        assert fast_X.dtype == full_X.dtype == object and fast_X.shape == full_X.shape
        assert pd.DataFrame(fast_X).equals(pd.DataFrame(full_X))
        if with_y:
            np.testing.assert_array_equal(fast[1], full[1])
        assert a.n_features_in_ == b.n_features_in_
        assert a.feature_names_in_.tolist() == b.feature_names_in_.tolist()
        kw1 = {"y": None if y is None else y[:1], "ensure_min_samples": 2}
        with pytest.raises(ValueError, match=r"Found array with 1 sample\(s\)") as mine:
            _validate_mixed(BaseEstimator(), X.iloc[:1], _frame_kinds(X), kw1)
        with pytest.raises(ValueError) as theirs:
            validate_data(BaseEstimator(), X.iloc[:1], dtype=None, ensure_all_finite=False, **kw1)
        assert str(mine.value) == str(theirs.value)


def test_n_categories_counts_each_columns_categories_once_and_is_read_only():
    X = np.array(
        [["red", 1.5, "a"], [None, 2.0, "a"], ["blue", 0.5, "b"], ["green", 0.5, "c"]],
        dtype=object,
    )
    for missing, expected in [("propagate", [3, 0, 3]), ("category", [4, 0, 3])]:
        _, _, enc = encode_fit(BaseEstimator(), X, None, "from_dtype", missing=missing)
        counts = enc.n_categories
        assert counts.tolist() == [c.size for c in enc.categories] == expected
        assert enc.n_categories is counts  # computed once per encoding
        with pytest.raises(ValueError, match="read-only"):
            counts[0] = 0
