"""Mixed numeric / nominal input: validation, column kinds and one encoded float matrix.

Every widefs estimator that takes nominal attributes (the wrapper searches, CEFS, CN2) reads
its input through :func:`encode_fit` and :func:`encode_transform`. The encoded matrix is one
float array: numeric columns hold their values, nominal columns hold integer category codes
(categories are the sorted texts ``str(value)`` seen in ``fit``; a category met only later
gets ``UNSEEN_CODE``). What happens to a missing value (None, NaN, ``pd.NA``) is a parameter:

``missing="category"``
    A missing nominal value is a category of its own (Soares 2010, Section 5.2.1.1: the
    wrapper evaluators compare nominal values for equality, and "missing" is a value like
    any other); a missing *numeric* value is an error (``Input X contains NaN``).
``missing="propagate"``
    Missing stays missing: NaN in numeric columns, ``MISSING_CODE`` in nominal ones. CN2
    uses this: a missing value satisfies no condition, so nothing is imputed.

Which columns are nominal (``categorical_features="from_dtype"``): pandas categorical,
string, object and boolean columns, boolean arrays, and object-array columns holding
strings or booleans. An object column holding only numbers (and missing values) is numeric;
one holding anything else (a dict, a list, ...) is rejected with ``TypeError``.
"""

from __future__ import annotations

import functools
import numbers
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "MISSING_CODE",
    "UNSEEN_CODE",
    "FeatureEncoding",
    "check_classes",
    "encode_fit",
    "encode_transform",
    "feature_names_or_default",
]

MISSING_CODE = -1  # a missing nominal value under missing="propagate"
UNSEEN_CODE = -2  # a category met only after fit: it equals no training category
MISSING_TEXT = "\x00missing"  # the missing category under missing="category" (sorts first)
_MISSING_POLICIES = ("category", "propagate")
_NUMERIC_KINDS = {"integer", "floating", "mixed-integer-float", "decimal", "empty"}
_TEXT_KINDS = {"string", "boolean", "bytes", "categorical", "mixed-integer"}


def feature_names_or_default(estimator) -> NDArray[np.object_]:
    """``feature_names_in_`` of a fitted estimator, or ``x0, x1, ...`` when it has none.

    Parameters
    ----------
    estimator : fitted estimator
        Anything with ``n_features_in_``.

    Returns
    -------
    names : ndarray of str objects, shape (``n_features_in_``,)

    See Also
    --------
    encode_fit : Sets ``n_features_in_`` and ``feature_names_in_``.

    Examples
    --------
    >>> from sklearn.dummy import DummyClassifier
    >>> clf = DummyClassifier().fit([[0, 1], [1, 0]], [0, 1])
    >>> feature_names_or_default(clf).tolist()
    ['x0', 'x1']
    """
    names = getattr(estimator, "feature_names_in_", None)
    if names is None:
        names = [f"x{j}" for j in range(estimator.n_features_in_)]
    return np.asarray([str(n) for n in names], dtype=object)


def check_classes(estimator, y, *, min_classes: int = 2):
    """Classification targets as ``(classes, codes)``, with at least ``min_classes`` classes.

    Parameters
    ----------
    estimator : estimator
        Named in the error message.
    y : ndarray of shape (n_samples,)
        Validated labels.
    min_classes : int, default=2

    Returns
    -------
    classes : ndarray
        Sorted distinct labels.
    codes : ndarray of intp, shape (n_samples,)
        Index of each label in ``classes``.

    See Also
    --------
    encode_fit : Validates ``y`` together with ``X``.

    Examples
    --------
    >>> classes, codes = check_classes(None, np.array(["b", "a", "b"]))
    >>> classes.tolist(), codes.tolist()
    (['a', 'b'], [1, 0, 1])
    """
    # Integers, booleans and strings are always valid class labels: scikit-learn's target
    # check (a few hundred microseconds, much of a small CN2 fit; its module's first import
    # about a millisecond) only for other dtypes.
    if not (_label_dtype(y) and np.ndim(y) == 1):
        from sklearn.utils.multiclass import check_classification_targets

        check_classification_targets(y)
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < min_classes:
        raise ValueError(
            f"{type(estimator).__name__} needs at least {min_classes} classes; got "
            f"{classes.size} class{'es' * (classes.size != 1)} ({', '.join(map(repr, classes))})."
        )
    return classes, codes.astype(np.intp)


def _label_dtype(y) -> bool:
    """Whether ``y`` holds integers, booleans or strings only (never a continuous target)."""
    kind = getattr(y, "dtype", np.dtype(object)).kind
    if kind in "iubUS":
        return True
    if kind != "O":
        return False
    import pandas as pd

    return pd.api.types.infer_dtype(y, skipna=False) == "string"


@dataclass(frozen=True)
class FeatureEncoding:
    """Column kinds and category lists learnt in ``fit``, applied to later inputs.

    Parameters
    ----------
    nominal : ndarray of bool, shape (n_features,)
        Which columns are nominal.
    categories : tuple of ndarray
        Per column, the sorted category texts (empty for numeric columns); under
        ``missing="category"`` a column that had missing values lists ``MISSING_TEXT`` first.
    missing : {"category", "propagate"}
        The missing-value policy (see the module docstring).
    texts : pandas.Index or None
        Every category text seen in ``fit`` (``None`` without nominal columns).
    lookup : ndarray of intp, shape (n_nominal, len(texts) + 1)
        Category code of each text in each nominal column (``UNSEEN_CODE`` where the
        column never had it; the last column serves texts unseen in every column).

    See Also
    --------
    encode_fit : Learns an encoding and encodes the training data.
    encode_transform : Encodes later data with a fitted encoding.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> X = np.array([["red", 1.5], [None, 2.0], ["blue", 0.5]], dtype=object)
    >>> Xe, _, enc = encode_fit(BaseEstimator(), X, None, "from_dtype", missing="propagate")
    >>> enc.nominal.tolist(), enc.categories[0].tolist(), Xe[:, 0].tolist()
    ([True, False], ['blue', 'red'], [1.0, -1.0, 0.0])
    """

    nominal: NDArray[np.bool_]
    categories: tuple
    missing: str
    texts: object = None
    lookup: NDArray[np.intp] | None = None

    @functools.cached_property
    def n_categories(self) -> NDArray[np.int64]:
        """Categories per column (0 for numeric columns); read-only, computed once (a search
        asks for it at every evaluator it builds)."""
        counts = np.array([c.size for c in self.categories], dtype=np.int64)
        counts.setflags(write=False)
        return counts

    def encode(self, Xv: np.ndarray, names) -> NDArray[np.float64]:
        """Encode a validated 2-D array (numeric values, category codes) as float64.

        Parameters
        ----------
        Xv : ndarray of shape (n_samples, n_features)
            Validated input, any dtype.
        names : sequence of str
            Feature names, for error messages.

        Returns
        -------
        Xe : ndarray of float64, shape (n_samples, n_features)
        """
        return self._encode(Xv, names)

    def _encode(self, Xv: np.ndarray, names, nominal_codes=None) -> NDArray[np.float64]:
        """:meth:`encode`, with the nominal block's codes given when ``fit`` has them."""
        out = np.empty(Xv.shape, dtype=np.float64)
        numeric = np.flatnonzero(~self.nominal)
        if numeric.size:
            out[:, numeric] = _numeric_block(Xv, numeric, names)
            _check_finite(out[:, numeric], allow_nan=self.missing == "propagate")
        nom = np.flatnonzero(self.nominal)
        if nom.size and nominal_codes is not None:
            out[:, nom] = nominal_codes
        elif nom.size:
            text, missing = _nominal_text(Xv, nom, self.missing)
            g = self.texts.get_indexer(text)  # -1 (unseen everywhere) reads the last column
            out[:, nom] = _codes(self.lookup, g, missing)
        return np.ascontiguousarray(out)


def _is_frame(X) -> bool:
    return hasattr(X, "dtypes") and hasattr(X, "columns") and hasattr(X, "iloc")


def _frame_kinds(X) -> list:
    """Per DataFrame column: True (nominal), False (numeric) or None (object: look at values)."""
    import pandas as pd

    kinds = []
    for dt in X.dtypes:
        # Plain numpy dtypes answered directly (pandas' dtype tests cost ~20 us a column).
        if isinstance(dt, np.dtype) and dt.kind in "biufO":
            kinds.append(True if dt.kind == "b" else None if dt.kind == "O" else False)
        elif isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dt):
            kinds.append(True)
        elif pd.api.types.is_numeric_dtype(dt):
            kinds.append(False)
        elif pd.api.types.is_object_dtype(dt):
            kinds.append(None)
        else:
            kinds.append(True)  # string and other non-numeric extension dtypes
    return kinds


def _object_column_is_nominal(col: np.ndarray, name) -> bool:
    """Strings or booleans make an object column nominal; numbers alone keep it numeric."""
    import pandas as pd

    kind = pd.api.types.infer_dtype(col, skipna=True)
    if kind in _NUMERIC_KINDS:
        return False
    if kind in _TEXT_KINDS:
        return True
    # "mixed" and exotic kinds: labels and numbers may mix, anything else may not.
    for value in col:
        if value is None or isinstance(value, str | bool | np.bool_ | numbers.Number | bytes):
            continue
        if pd.api.types.is_scalar(value) and pd.isna(value):
            continue
        try:
            float(value)
        except TypeError as exc:
            raise TypeError(
                f"{exc} (column {name!r} holds a {type(value).__name__}, which is neither a "
                "number nor a category label)."
            ) from None
    return True


def _array_column_is_nominal(Xv: np.ndarray, j: int, name) -> bool:
    if Xv.dtype.kind in "iuf":
        return False
    if Xv.dtype.kind == "b":
        return True
    return _object_column_is_nominal(Xv[:, j], name)


def _nominal_from_spec(spec, n_features: int, names) -> NDArray[np.bool_]:
    """Turn an explicit ``categorical_features`` value into a boolean mask."""
    arr = np.asarray(spec)
    if arr.dtype == bool:
        if arr.shape != (n_features,):
            raise ValueError(
                f"categorical_features as a boolean mask needs {n_features} entries, "
                f"got shape {arr.shape}."
            )
        return arr.copy()
    mask = np.zeros(n_features, dtype=bool)
    known = None if names is None else [str(n) for n in names]
    for item in arr.ravel().tolist():
        if isinstance(item, str):
            if known is None or item not in known:
                raise ValueError(
                    f"categorical_features names {item!r}, which is not a column of X."
                )
            mask[known.index(item)] = True
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
            if not -n_features <= int(item) < n_features:
                raise ValueError(
                    f"categorical_features index {int(item)} is out of range for "
                    f"{n_features} features."
                )
            mask[int(item)] = True
        else:
            raise ValueError(
                "categorical_features entries must be column indices, names or a boolean "
                f"mask; got {item!r}."
            )
    return mask


def _check_finite(values: np.ndarray, *, allow_nan: bool) -> None:
    from sklearn.utils import assert_all_finite

    assert_all_finite(values, allow_nan=allow_nan, input_name="X")


def _numeric_block(Xv: np.ndarray, cols: np.ndarray, names) -> np.ndarray:
    """Numeric columns as float (NaN for missing values of an object column)."""
    if Xv.dtype.kind in "biuf":
        return Xv[:, cols].astype(np.float64)
    out = np.empty((Xv.shape[0], cols.size))
    for t, j in enumerate(cols):
        col = Xv[:, j]
        try:
            out[:, t] = np.asarray(col, dtype=np.float64)  # fast path: None/NaN -> NaN
        except (TypeError, ValueError):
            import pandas as pd

            try:
                obj = np.asarray(col, dtype=object)
                out[:, t] = np.where(pd.isna(obj), np.nan, obj).astype(np.float64)
            except (TypeError, ValueError) as exc:
                raise ValueError(
                    f"Feature {names[j]!r} was numeric when the model was fitted but holds "
                    f"non-numeric values now: {exc}"
                ) from exc
    return out


def _nominal_text(Xv: np.ndarray, nom: np.ndarray, missing: str):
    """Texts of the nominal block (row-major) and its missing mask (n, len(nom)).

    Under ``missing="category"`` missing values read as ``MISSING_TEXT`` and the returned
    mask is all False.
    """
    import pandas as pd

    block = np.asarray(Xv[:, nom], dtype=object)
    is_missing = np.asarray(pd.isna(block), dtype=bool)
    present = block[~is_missing]
    if pd.api.types.infer_dtype(present, skipna=False) != "string":
        present = np.array([str(v) for v in present], dtype=object)
    if missing == "category":
        text = np.full(block.shape, MISSING_TEXT, dtype=object)
        text[~is_missing] = present
        return text.ravel(), np.zeros(block.shape, dtype=bool)
    return present, is_missing


def _codes(lookup: np.ndarray, g: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """Category codes of the nominal block from global text ids ``g`` of its present values."""
    col_of = np.nonzero(~missing)[1]
    block = np.full(missing.shape, MISSING_CODE, dtype=np.intp)
    block[~missing] = lookup[col_of, g]
    return block


def _fit_encoding(Xv, nominal, missing) -> tuple[FeatureEncoding, np.ndarray | None]:
    """Learn the categories of the nominal columns (one hash pass over all of them); also
    the nominal block's codes (``None`` without nominal columns), which
    :meth:`FeatureEncoding.encode` would compute again from the same texts."""
    import pandas as pd

    n_features = nominal.size
    categories = [np.array([], dtype=object) for _ in range(n_features)]
    nom = np.flatnonzero(nominal)
    if not nom.size:
        return FeatureEncoding(nominal, tuple(categories), missing), None
    text, is_missing = _nominal_text(Xv, nom, missing)
    gcodes, uniques = pd.factorize(text)
    uniques = np.asarray(uniques, dtype=object)
    G = uniques.size
    lookup = np.full((nom.size, G + 1), UNSEEN_CODE, dtype=np.intp)  # last: unseen text
    col_of = np.nonzero(~is_missing)[1]
    pairs = np.unique(col_of * G + gcodes)  # sorted: column by column
    bounds = np.searchsorted(pairs, np.arange(nom.size + 1) * G)
    for a, j in enumerate(nom):
        g = pairs[bounds[a] : bounds[a + 1]] % G
        order = np.argsort(uniques[g])
        categories[j] = uniques[g][order]
        lookup[a, g[order]] = np.arange(g.size)
    encoding = FeatureEncoding(
        nominal, tuple(categories), missing, pd.Index(uniques, dtype=object), lookup
    )
    # factorize's codes are the texts' positions in ``uniques``: what encode's get_indexer
    # finds for the same texts.
    return encoding, _codes(lookup, gcodes, is_missing)


def _plain_numeric(X, categorical_features, frame_kinds=None) -> bool:
    """True when no column can be nominal: the float fast path (sklearn's own validation).
    ``frame_kinds``: :func:`_frame_kinds` of ``X`` when the caller has them."""
    if categorical_features is None:
        return True
    if not (isinstance(categorical_features, str) and categorical_features == "from_dtype"):
        spec = np.asarray(categorical_features)
        return spec.size == 0 or (spec.dtype == bool and not spec.any())
    if frame_kinds is not None or _is_frame(X):
        kinds = _frame_kinds(X) if frame_kinds is None else frame_kinds
        return not any(k is not False for k in kinds)
    dtype = getattr(X, "dtype", None)
    return dtype is not None and dtype.kind in "iuf"


def _validate_mixed(estimator, X, frame_kinds, kw):
    """``validate_data(estimator, X, dtype=None, ensure_all_finite=False, **kw)``.

    A DataFrame of plain numpy columns (object, numbers, booleans) and categoricals is the
    object array ``np.asarray`` makes of it either way; validated as that array, after its
    names are recorded, it skips scikit-learn's per-column pandas checks (about 0.3 ms, a
    tenth of a small CN2 fit). Other frames (nullable and string dtypes) take the full path.
    """
    import pandas as pd
    from sklearn.utils.validation import check_array, check_X_y, validate_data

    plain = frame_kinds is not None and all(
        isinstance(dt, pd.CategoricalDtype) or (isinstance(dt, np.dtype) and dt.kind in "biufO")
        for dt in X.dtypes
    )
    if not plain:
        return validate_data(estimator, X, dtype=None, ensure_all_finite=False, **kw)
    y = kw["y"]
    # Names, n_features_in_ and the "requires y" error, as validate_data does them first.
    validate_data(estimator, X, y=y, skip_check_array=True)
    Xa = X.to_numpy(dtype=object)
    check = {"dtype": None, "ensure_all_finite": False, "estimator": estimator}
    check["ensure_min_samples"] = kw["ensure_min_samples"]
    if y is None:
        return check_array(Xa, input_name="X", **check)
    return check_X_y(Xa, y, **check)


def encode_fit(estimator, X, y, categorical_features, *, missing: str, ensure_min_samples: int = 1):
    """Validate ``X`` (and ``y``) for ``estimator``, find the nominal columns and encode.

    The one input preamble of the estimators that accept nominal attributes: it sets
    ``n_features_in_`` and ``feature_names_in_`` as ``validate_data`` does, with
    scikit-learn's own messages for empty, non-finite or complex input.

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator being fitted.
    X : array_like or DataFrame of shape (n_samples, n_features)
    y : array_like of shape (n_samples,) or None
    categorical_features : "from_dtype", None, or array-like
        ``"from_dtype"``: see the module docstring; ``None``: every column numeric;
        otherwise column indices, names or a boolean mask.
    missing : {"category", "propagate"}
        The missing-value policy.
    ensure_min_samples : int, default=1

    Returns
    -------
    Xe : ndarray of float64, shape (n_samples, n_features)
        Numeric values and category codes.
    y : ndarray or None
        Validated ``y``.
    encoding : FeatureEncoding

    See Also
    --------
    encode_transform : The same encoding applied to later data.
    FeatureEncoding : The fitted column kinds and categories.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> import pandas as pd
    >>> df = pd.DataFrame({"colour": ["red", None, "red"], "size": [1.0, 2.0, 3.0]})
    >>> est = BaseEstimator()
    >>> Xe, y, enc = encode_fit(est, df, [0, 1, 0], "from_dtype", missing="category")
    >>> Xe.tolist(), enc.categories[0].tolist()
    ([[1.0, 1.0], [0.0, 2.0], [1.0, 3.0]], ['\\x00missing', 'red'])
    >>> est.feature_names_in_.tolist()
    ['colour', 'size']
    """
    from sklearn.utils.validation import validate_data

    if missing not in _MISSING_POLICIES:
        raise ValueError(f"missing must be one of {_MISSING_POLICIES}; got {missing!r}.")
    allow_nan = missing == "propagate"
    kw = {"y": y, "ensure_min_samples": ensure_min_samples}  # y=None: X only (or "y required")
    frame_kinds = _frame_kinds(X) if _is_frame(X) else None
    if _plain_numeric(X, categorical_features, frame_kinds):
        out = validate_data(
            estimator,
            X,
            dtype=np.float64,
            ensure_all_finite="allow-nan" if allow_nan else True,
            **kw,
        )
        Xv, y = out if y is not None else (out, None)
        nominal = np.zeros(Xv.shape[1], dtype=bool)
        none = np.array([], dtype=object)  # one shared empty array, not one per column
        encoding = FeatureEncoding(nominal, (none,) * nominal.size, missing)
        return np.ascontiguousarray(Xv), y, encoding
    out = _validate_mixed(estimator, X, frame_kinds, kw)
    Xv, y = out if y is not None else (out, None)
    if Xv.dtype.kind not in "biufO":
        Xv = Xv.astype(object)
    names = feature_names_or_default(estimator)
    nominal = _nominal_columns(Xv, categorical_features, frame_kinds, names)
    encoding, nominal_codes = _fit_encoding(Xv, nominal, missing)
    return encoding._encode(Xv, names, nominal_codes), y, encoding


def _nominal_columns(Xv, categorical_features, frame_kinds, names) -> NDArray[np.bool_]:
    """The nominal columns of validated data: as specified, or ``"from_dtype"``."""
    if not (isinstance(categorical_features, str) and categorical_features == "from_dtype"):
        return _nominal_from_spec(categorical_features, Xv.shape[1], names)
    # A DataFrame's dtypes decide first (validation may have turned a categorical column
    # into plain integers); object columns are judged by their values.
    return np.array(
        [
            k if k is not None else _array_column_is_nominal(Xv, j, names[j])
            for j, k in enumerate(frame_kinds or [None] * Xv.shape[1])
        ],
        dtype=bool,
    )


def encode_transform(estimator, X, encoding: FeatureEncoding) -> NDArray[np.float64]:
    """Validate ``X`` against the fitted ``estimator`` and encode it like the training data.

    Parameters
    ----------
    estimator : fitted estimator
        Its ``n_features_in_`` and ``feature_names_in_`` are checked.
    X : array_like or DataFrame of shape (n_samples, n_features)
    encoding : FeatureEncoding
        What :func:`encode_fit` returned.

    Returns
    -------
    Xe : ndarray of float64, shape (n_samples, n_features)

    See Also
    --------
    encode_fit : Learns the encoding.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> est = BaseEstimator()
    >>> X = np.array([["a", 1.0], ["b", 2.0]], dtype=object)
    >>> _, _, enc = encode_fit(est, X, None, "from_dtype", missing="category")
    >>> encode_transform(est, np.array([["b", 5.0], ["z", 0.0]], dtype=object), enc).tolist()
    [[1.0, 5.0], [-2.0, 0.0]]
    """
    from sklearn.utils.validation import validate_data

    allow_nan = encoding.missing == "propagate"
    if not encoding.nominal.any():
        Xv = validate_data(
            estimator,
            X,
            dtype=np.float64 if not _is_frame(X) or _plain_numeric(X, "from_dtype") else None,
            ensure_all_finite=False,
            reset=False,
        )
        if Xv.dtype.kind == "f":
            _check_finite(Xv, allow_nan=allow_nan)
            return np.ascontiguousarray(Xv)
    else:
        Xv = validate_data(estimator, X, dtype=None, ensure_all_finite=False, reset=False)
    if Xv.dtype.kind not in "biufO":
        Xv = Xv.astype(object)
    return encoding.encode(Xv, feature_names_or_default(estimator))
