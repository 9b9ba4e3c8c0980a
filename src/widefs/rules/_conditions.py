"""Attribute encoding and the vectorized generator of one-condition specializations.

Nominal attributes are encoded as category codes (-1 for missing), numeric ones as floats
(NaN for missing). A missing value satisfies no condition (neither ``a == v`` nor
``a <= t`` nor ``a > t``), so rules never impute: an example with a missing value is simply
not covered by a condition on that attribute, in training counts and in prediction alike.
No value is guessed, so no imputation model can leak into the rules' coverage counts.

``CN2Classifier`` generates and counts the one-condition specializations of a beam in the
compiled kernel of :mod:`widefs.rules._search`; its independent numpy reference lives in
``tests/rules/conftest.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["FeatureEncoding"]


def _is_missing(values: np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(values), dtype=bool)


_NUMERIC_KINDS = {"integer", "floating", "mixed-integer-float", "decimal", "empty"}


def _column_is_nominal(col) -> bool:
    """Nominal: pandas categorical/string/object/bool columns, or object arrays with non-numbers."""
    if isinstance(col, pd.Series):
        dt = col.dtype
        if isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dt):
            return True
        if pd.api.types.is_numeric_dtype(dt):
            return False
        col = col.to_numpy(dtype=object)
    col = np.asarray(col)
    if col.dtype.kind in "biufc":
        return col.dtype.kind == "b"
    # infer_dtype scans in C; booleans and strings (or a mix) make the column nominal.
    return pd.api.types.infer_dtype(col, skipna=True) not in _NUMERIC_KINDS


def _as_text(values: np.ndarray) -> np.ndarray:
    if pd.api.types.infer_dtype(values, skipna=False) == "string":
        return values  # already all str: skip the per-element conversion
    return np.array([str(v) for v in values], dtype=object)


def _nominal_block(columns: list, index: np.ndarray):
    """Stack nominal columns as objects: (values (n, A), missing mask, text of the present)."""
    if index.size == 0:
        return None, None, np.array([], dtype=object)
    obj = np.column_stack([np.asarray(columns[j], dtype=object) for j in index])
    missing = _is_missing(obj)
    return obj, missing, _as_text(obj[~missing])


@dataclass
class FeatureEncoding:
    """Per-column kinds and category lists learned in ``fit``, applied in ``predict``.

    Nominal values are compared through their text (``str(value)``), so categories are
    sorted strings and print as they read. All nominal columns are factorized together
    (one hash pass); ``lookup`` maps a global text id to each column's category code.
    """

    nominal: np.ndarray  # bool, (n_features,)
    categories: list  # per feature: ndarray of str (empty for numeric columns)
    names: list  # per feature: display name
    texts: pd.Index | None = None  # every category text seen in fit
    lookup: np.ndarray | None = None  # (n_nominal, n_texts + 1): code, -2 if absent

    @classmethod
    def fit(cls, columns: list, nominal_spec, names: list) -> FeatureEncoding:
        return cls.fit_transform(columns, nominal_spec, names)[0]

    @classmethod
    def fit_transform(cls, columns: list, nominal_spec, names: list):
        """Learn the encoding and encode the same columns: ``(encoding, numeric, codes)``."""
        n_features = len(columns)
        if isinstance(nominal_spec, str):  # "auto"
            nominal = np.array([_column_is_nominal(c) for c in columns], dtype=bool)
        else:
            nominal = _nominal_mask(nominal_spec, n_features, names)
        nom = np.flatnonzero(nominal)
        categories = [np.array([], dtype=object) for _ in range(n_features)]
        _, missing, text = _nominal_block(columns, nom)
        gcodes, uniques = pd.factorize(text)
        uniques = np.asarray(uniques, dtype=object)
        G = uniques.size
        lookup = np.full((nom.size, G + 1), -2, dtype=np.intp)  # last column: unseen text
        if nom.size:
            col_of = np.nonzero(~missing)[1]
            pairs = np.unique(col_of * G + gcodes)
            for a, j in enumerate(nom):
                g = pairs[pairs // G == a] % G
                order = np.argsort(uniques[g])
                categories[j] = uniques[g][order]
                lookup[a, g[order]] = np.arange(g.size)
        enc = cls(nominal, categories, names, pd.Index(uniques, dtype=object), lookup)
        n = len(columns[0]) if columns else 0
        codes = np.full((n, n_features), -1, dtype=np.intp)
        if nom.size:
            block = np.full(missing.shape, -1, dtype=np.intp)
            block[~missing] = lookup[col_of, gcodes]
            codes[:, nom] = block
        return enc, enc._numeric(columns), codes

    def transform(self, columns: list) -> tuple[np.ndarray, np.ndarray]:
        """``numeric`` (n, F) float with NaN, ``codes`` (n, F) int: -1 missing, -2 unseen."""
        n = len(columns[0]) if columns else 0
        codes = np.full((n, len(columns)), -1, dtype=np.intp)
        nom = np.flatnonzero(self.nominal)
        if nom.size:
            _, missing, text = _nominal_block(columns, nom)
            g = self.texts.get_indexer(text)  # -1 (unseen) reads the last lookup column
            col_of = np.nonzero(~missing)[1]
            block = np.full(missing.shape, -1, dtype=np.intp)
            block[~missing] = self.lookup[col_of, g]
            codes[:, nom] = block
        return self._numeric(columns), codes

    def _numeric(self, columns: list) -> np.ndarray:
        n = len(columns[0]) if columns else 0
        numeric = np.full((n, len(columns)), np.nan)
        for j in np.flatnonzero(~self.nominal):
            col = columns[j]
            try:
                numeric[:, j] = np.asarray(col, dtype=float)  # fast path: NaN for missing
            except (TypeError, ValueError):
                try:
                    arr = np.asarray(pd.Series(col).astype(object), dtype=object)
                    numeric[:, j] = np.where(_is_missing(arr), np.nan, arr).astype(float)
                except (TypeError, ValueError) as exc:
                    raise ValueError(
                        f"Feature {self.names[j]!r} was numeric when the model was fitted "
                        f"but holds non-numeric values now: {exc}"
                    ) from exc
        return numeric


def _nominal_mask(spec, n_features: int, names: list) -> np.ndarray:
    spec = np.asarray(spec)
    if spec.dtype == bool:
        if spec.shape != (n_features,):
            raise ValueError(
                f"nominal_features as a boolean mask needs {n_features} entries, got {spec.size}."
            )
        return spec.copy()
    mask = np.zeros(n_features, dtype=bool)
    for item in spec.ravel().tolist():
        if isinstance(item, str):
            if item not in names:
                raise ValueError(f"nominal_features names an unknown column {item!r}.")
            mask[names.index(item)] = True
        else:
            if not 0 <= int(item) < n_features:
                raise ValueError(
                    f"nominal_features index {item} is out of range for {n_features} features."
                )
            mask[int(item)] = True
    return mask
