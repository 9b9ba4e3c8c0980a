"""Attribute encoding and the vectorized generator of one-condition specializations.

Nominal attributes are encoded as category codes (-1 for missing), numeric ones as floats
(NaN for missing). A missing value satisfies no condition (neither ``a == v`` nor
``a <= t`` nor ``a > t``), so rules never impute: an example with a missing value is simply
not covered by a condition on that attribute, in training counts and in prediction alike.
No value is guessed, so no imputation model can leak into the rules' coverage counts.

:func:`specialization_counts` gives the class counts of *every* one-condition
specialization of every rule in a beam in one pass: a single ``bincount`` over all nominal
attributes and one scan of the presorted numeric values
(:func:`widefs.stumps.threshold_class_counts_many`). ``CN2Classifier`` now runs its beam
rounds in the compiled kernel of :mod:`widefs.rules._search` (same candidates, same order,
less per-round overhead); this numpy formulation is its independent reference in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from widefs.rules._rule import EQ, GT, LE
from widefs.stumps import RunLayout, SortedFeatures, run_layout, threshold_class_counts_many

__all__ = ["CandidateCounts", "FeatureEncoding", "NodeData", "specialization_counts"]


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
    layout: RunLayout | None = None  # runs of tied values of sorted_numeric

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
            layout=run_layout(sorted_numeric),
        )

    def subset(self, mask: np.ndarray) -> NodeData:
        """The same data restricted to ``mask`` (presort reused, not recomputed)."""
        sorted_numeric = self.sorted_numeric.subset(mask)
        return NodeData(
            y=self.y[mask],
            n_classes=self.n_classes,
            numeric=self.numeric[mask],
            codes=self.codes[mask],
            num_features=self.num_features,
            sorted_numeric=sorted_numeric,
            nom_features=self.nom_features,
            slots=self.slots[mask],
            slot_feature=self.slot_feature,
            slot_value=self.slot_value,
            layout=run_layout(sorted_numeric),
        )

    def condition_mask(self, feature: int, op: int, value: float) -> np.ndarray:
        if op == EQ:
            return self.codes[:, feature] == value
        col = self.numeric[:, feature]
        return col <= value if op == LE else col > value


@dataclass
class CandidateCounts:
    """One-condition specializations of one or more rules: ``feature op value`` and counts.

    ``owner[k]`` is the rule (row of the coverage matrix) candidate ``k`` specializes.
    Sorted by owner, then attribute, then operator (``==``, ``<=``, ``>``), then value.
    """

    feature: np.ndarray
    op: np.ndarray
    value: np.ndarray
    counts: np.ndarray  # (K, n_classes)
    owner: np.ndarray


def specialization_counts(data: NodeData, covered: np.ndarray) -> CandidateCounts:
    """Class counts of every condition ``a == v``, ``a <= t``, ``a > t`` within each rule.

    ``covered`` is a boolean vector (one rule) or matrix ``(n_rules, n_samples)`` (a beam).
    One ``bincount`` covers all nominal attributes of all rules at once (bin
    ``(rule * S + offset_a + v) * C + c``); numeric thresholds of all rules come from one
    scan of the presorted values (:func:`widefs.stumps.threshold_class_counts_many`).
    No per-candidate Python object is made.
    """
    C = data.n_classes
    covered = np.atleast_2d(np.asarray(covered, dtype=bool))
    B = covered.shape[0]
    n_slots = data.slot_feature.size
    parts = []  # (owner, feature, op, value, counts)
    if n_slots:
        member, row = np.nonzero(covered)
        idx = (member[:, None] * n_slots + data.slots[row]) * C + data.y[row][:, None]
        counts = np.bincount(idx.ravel(), minlength=B * n_slots * C).reshape(B, n_slots, C)
        real = np.flatnonzero(data.slot_value >= 0)
        k = real.size
        parts.append(
            (
                np.repeat(np.arange(B), k),
                np.tile(data.slot_feature[real], B),
                np.full(B * k, EQ),
                np.tile(data.slot_value[real].astype(float), B),
                counts[:, real].reshape(B * k, C),
            )
        )
    if data.num_features.size:
        tc = threshold_class_counts_many(data.sorted_numeric, data.y, C, covered, data.layout)
        feat = data.num_features[tc.feature]
        parts.append((tc.group, feat, np.full(feat.size, LE), tc.threshold, tc.left))
        parts.append((tc.group, feat, np.full(feat.size, GT), tc.threshold, tc.right))
    if not parts:
        empty = np.array([], dtype=np.intp)
        return CandidateCounts(empty, empty, np.array([]), np.zeros((0, C), np.int64), empty)
    if len(parts) == 1:  # nominal only: slots are already in generation order
        owner, feature, op, value, counts = parts[0]
        return CandidateCounts(feature, op, value, counts, owner)
    owner, feature, op, value, counts = (np.concatenate(p) for p in zip(*parts))
    # Generation order (the documented tie-break): rule, attribute, ==, <=, >, value.
    order = np.lexsort((value, op, feature, owner))
    return CandidateCounts(
        feature=feature[order],
        op=op[order],
        value=value[order],
        counts=counts[order],
        owner=owner[order],
    )
