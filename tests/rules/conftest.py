"""The numpy reference of CN2's candidate generation, shared by the rules tests.

``CN2Classifier`` counts the one-condition specializations of a beam in a compiled kernel
(``widefs.rules._search.beam_round``); this is the independent formulation it is checked
against: one ``bincount`` over all nominal attributes and one scan of the presorted numeric
values (``widefs.stumps.threshold_class_counts_many``) per beam.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest

from widefs.rules._rule import EQ, GT, LE
from widefs.stumps import RunLayout, SortedFeatures, run_layout
from widefs.stumps._scan import threshold_class_counts_many


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


def quality(counts: np.ndarray, target, kind: str, m: float = 2.0) -> np.ndarray:
    """Rule quality of class-count rows, in numpy (``target`` None: the majority class)."""
    counts = np.asarray(counts, dtype=float)
    C = counts.shape[-1]
    n = counts.sum(axis=-1)
    hit = counts.max(axis=-1) if target is None else counts[..., target]
    if kind == "laplace":
        return (hit + 1.0) / (n + C)
    if kind == "m_estimate":
        return (hit + m / C) / (n + m)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = counts / n[..., None]
        ent = -np.sum(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0), axis=-1)
    return -ent


@pytest.fixture
def reference():
    """The numpy references: ``NodeData``, ``specialization_counts`` and ``quality``."""
    return SimpleNamespace(
        NodeData=NodeData, specialization_counts=specialization_counts, quality=quality
    )
