"""Attribute encoding and the vectorized generator of one-condition specializations.

Nominal attributes are encoded as category codes (-1 for missing), numeric ones as floats
(NaN for missing). A missing value satisfies no condition (neither ``a == v`` nor
``a <= t`` nor ``a > t``), so rules never impute: an example with a missing value is simply
not covered by a condition on that attribute (the CN2 convention of treating "unknown" as
matching nothing).

:func:`specialization_counts` gives the class counts of *every* one-condition
specialization of a rule in one pass: a single ``bincount`` over all nominal attributes
and one sorted scan (:func:`widefs.stumps.threshold_class_counts`) over all numeric ones.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from widefs.rules._rule import EQ, GT, LE
from widefs.stumps import SortedFeatures, threshold_class_counts

__all__ = ["CandidateCounts", "FeatureEncoding", "NodeData", "specialization_counts"]


def _is_missing(values: np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(values), dtype=bool)


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
    present = col[~_is_missing(col)]
    return any(not isinstance(v, numbers.Real) or isinstance(v, bool | np.bool_) for v in present)


def _as_text(values: np.ndarray) -> np.ndarray:
    return np.array([str(v) for v in values], dtype=object)


@dataclass
class FeatureEncoding:
    """Per-column kinds and category lists learned in ``fit``, applied in ``predict``.

    Nominal values are compared through their text (``str(value)``), so categories are
    sorted strings and print as they read.
    """

    nominal: np.ndarray  # bool, (n_features,)
    categories: list  # per feature: ndarray of str (empty for numeric columns)
    names: list  # per feature: display name

    @classmethod
    def fit(cls, columns: list, nominal_spec, names: list) -> FeatureEncoding:
        n_features = len(columns)
        if isinstance(nominal_spec, str):  # "auto"
            nominal = np.array([_column_is_nominal(c) for c in columns], dtype=bool)
        else:
            nominal = _nominal_mask(nominal_spec, n_features, names)
        categories = []
        for j, col in enumerate(columns):
            if nominal[j]:
                values = np.asarray(col, dtype=object)
                present = values[~_is_missing(values)]
                categories.append(np.unique(_as_text(present)).astype(object))
            else:
                categories.append(np.array([], dtype=object))
        return cls(nominal=nominal, categories=categories, names=names)

    def transform(self, columns: list) -> tuple[np.ndarray, np.ndarray]:
        """``numeric`` (n, F) float with NaN, ``codes`` (n, F) int: -1 missing, -2 unseen."""
        n = len(columns[0]) if columns else 0
        n_features = len(columns)
        numeric = np.full((n, n_features), np.nan)
        codes = np.full((n, n_features), -1, dtype=np.intp)
        for j, col in enumerate(columns):
            values = np.asarray(col, dtype=object) if self.nominal[j] else col
            if self.nominal[j]:
                missing = _is_missing(values)
                text = _as_text(values[~missing])
                cats = self.categories[j]
                pos = np.searchsorted(cats, text) if cats.size else np.zeros(text.size, int)
                pos = np.minimum(pos, max(cats.size - 1, 0))
                found = cats[pos] == text if cats.size else np.zeros(text.size, bool)
                codes[~missing, j] = np.where(found, pos, -2)
            else:
                try:
                    arr = np.asarray(pd.Series(values).astype(object), dtype=object)
                    arr = np.where(_is_missing(arr), np.nan, arr).astype(float)
                except (TypeError, ValueError) as exc:
                    raise ValueError(
                        f"Feature {self.names[j]!r} was numeric when the model was fitted "
                        f"but holds non-numeric values now: {exc}"
                    ) from exc
                numeric[:, j] = arr
        return numeric, codes


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


@dataclass
class NodeData:
    """The examples a rule search runs on, with the per-attribute encodings it scans."""

    y: np.ndarray  # (n,) class codes
    n_classes: int
    numeric: np.ndarray  # (n, F) floats
    codes: np.ndarray  # (n, F) category codes
    num_features: np.ndarray  # indices of numeric attributes
    sorted_numeric: SortedFeatures  # presort of numeric[:, num_features]
    nom_features: np.ndarray  # indices of nominal attributes
    slots: np.ndarray  # (n, A_nom): offset + code; missing goes to a dropped slot
    slot_feature: np.ndarray  # (S,) attribute of each slot
    slot_value: np.ndarray  # (S,) category code of each slot (-1 for missing slots)

    @classmethod
    def build(
        cls,
        y: np.ndarray,
        n_classes: int,
        numeric: np.ndarray,
        codes: np.ndarray,
        nominal: np.ndarray,
        n_categories: np.ndarray,
        sorted_numeric: SortedFeatures,
    ) -> NodeData:
        nom = np.flatnonzero(nominal)
        sizes = n_categories[nom] + 1  # one extra slot per attribute for missing values
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        c = codes[:, nom]
        slots = offsets + np.where(c >= 0, c, n_categories[nom])
        slot_feature = np.repeat(nom, sizes)
        slot_value = np.concatenate(
            [np.append(np.arange(k), -1) for k in n_categories[nom]] or [np.array([], int)]
        ).astype(np.intp)
        return cls(
            y=y,
            n_classes=n_classes,
            numeric=numeric,
            codes=codes,
            num_features=np.flatnonzero(~nominal),
            sorted_numeric=sorted_numeric,
            nom_features=nom,
            slots=slots,
            slot_feature=slot_feature,
            slot_value=slot_value,
        )

    def subset(self, mask: np.ndarray) -> NodeData:
        """The same data restricted to ``mask`` (presort reused, not recomputed)."""
        return NodeData(
            y=self.y[mask],
            n_classes=self.n_classes,
            numeric=self.numeric[mask],
            codes=self.codes[mask],
            num_features=self.num_features,
            sorted_numeric=self.sorted_numeric.subset(mask),
            nom_features=self.nom_features,
            slots=self.slots[mask],
            slot_feature=self.slot_feature,
            slot_value=self.slot_value,
        )

    def condition_mask(self, feature: int, op: int, value: float) -> np.ndarray:
        if op == EQ:
            return self.codes[:, feature] == value
        col = self.numeric[:, feature]
        return col <= value if op == LE else col > value


@dataclass
class CandidateCounts:
    """All one-condition specializations of one rule: ``feature op value`` and class counts.

    Sorted by attribute, then operator (``==``, ``<=``, ``>``), then value.
    """

    feature: np.ndarray
    op: np.ndarray
    value: np.ndarray
    counts: np.ndarray  # (K, n_classes)


def specialization_counts(data: NodeData, covered: np.ndarray) -> CandidateCounts:
    """Class counts of every condition ``a == v``, ``a <= t``, ``a > t`` within ``covered``.

    One ``bincount`` covers all nominal attributes at once (slot ``offset_a + v``, class
    ``c`` -> bin ``slot * C + c``); numeric thresholds come from one scan of the presorted
    values restricted to the covered examples. No per-candidate Python object is made.
    """
    C = data.n_classes
    y = data.y[covered]
    n_slots = data.slot_feature.size
    parts_f, parts_op, parts_v, parts_c = [], [], [], []
    if n_slots:
        idx = data.slots[covered] * C + y[:, None]
        counts = np.bincount(idx.ravel(), minlength=n_slots * C).reshape(n_slots, C)
        real = data.slot_value >= 0
        parts_f.append(data.slot_feature[real])
        parts_op.append(np.full(int(real.sum()), EQ))
        parts_v.append(data.slot_value[real].astype(float))
        parts_c.append(counts[real])
    if data.num_features.size:
        tc = threshold_class_counts(data.sorted_numeric, data.y, C, covered)
        feat = data.num_features[tc.feature]
        parts_f += [feat, feat]
        parts_op += [np.full(feat.size, LE), np.full(feat.size, GT)]
        parts_v += [tc.threshold, tc.threshold]
        parts_c += [tc.left, tc.right]
    if not parts_f:
        empty = np.array([], dtype=np.intp)
        return CandidateCounts(empty, empty, np.array([]), np.zeros((0, C), np.int64))
    feature = np.concatenate(parts_f).astype(np.intp)
    op = np.concatenate(parts_op).astype(np.intp)
    value = np.concatenate(parts_v).astype(float)
    # Generation order (the documented tie-break): attribute, then ==, <=, >, then value.
    order = np.lexsort((value, op, feature))
    return CandidateCounts(
        feature=feature[order],
        op=op[order],
        value=value[order],
        counts=np.concatenate(parts_c).astype(np.int64)[order],
    )
