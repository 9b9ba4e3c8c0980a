"""Shared machinery of the Set Covering Machines of decision stumps.

Conventions (Shah, Marchand & Corbeil 2010, Section II):

- The learners build a *conjunction* in "conjunction space": its positive class is
  ``classes_[1]`` for ``model_type="conjunction"`` and ``classes_[0]`` for
  ``"disjunction"`` (a disjunction is learned by exchanging the roles of the classes and
  negating the stumps).
- A stump fires for ``x > t`` (direction ``+1``) or ``x <= t`` (direction ``-1``). The paper
  writes ``(x - t) d > 0``, i.e. ``x < t`` for ``d = -1``; using ``x <= t`` lets every
  threshold be a training value (as the sample-compression setting requires) and only
  differs on the threshold value itself.
- The user-facing :attr:`rules_` are expressed in output space: for a conjunction the model
  predicts ``classes_[1]`` iff *all* rules fire, for a disjunction it predicts
  ``classes_[1]`` iff *any* rule fires (rules are the negated learned stumps).
- Ties between equally good stumps are broken by a documented, deterministic rule: the
  higher utility, then the larger decrease of training errors (covered negatives minus
  covered positives), then the **lowest feature index**, then the smallest threshold,
  then direction ``+1`` before ``-1``. This is also pyscm-ml's order, so both libraries
  learn the same rules.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import asdict, dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from widefs.exceptions import HeuristicBoundWarning
from widefs.utils import (
    block_width,
    is_lazy_matrix,
    iter_column_blocks,
    load_columns,
    validate_lazy_xy,
)

__all__ = ["StumpRule"]


def check_finite_block(Xb: np.ndarray, start: int) -> None:
    """Reject NaN/inf in one loaded block of an out-of-core ``X`` (columns ``start...``)."""
    if not np.isfinite(Xb).all():
        bad = start + np.flatnonzero(~np.isfinite(Xb).all(axis=0))
        raise ValueError(
            f"Input X contains NaN or infinity (columns {bad[:5].tolist()}"
            f"{'...' if bad.size > 5 else ''}); the Set Covering Machines need finite values."
        )


class SelectedColumns:
    """The few columns of an out-of-core ``X`` that a fitted model reads, loaded once.

    Supports ``shape`` and ``X[rows, j]`` for the loaded columns ``j``, which is all that the
    bound path, the compression set and prediction use.
    """

    def __init__(self, X, features):
        self.shape = tuple(X.shape)
        feats = sorted({int(f) for f in features})
        data = load_columns(X, np.array(feats, dtype=np.intp)) if feats else None
        if data is not None:
            check_finite_block(data, 0)
        self._columns = {f: data[:, i] for i, f in enumerate(feats)}

    def __getitem__(self, key):
        rows, f = key
        return self._columns[int(f)][rows]


@dataclass(frozen=True)
class StumpRule:
    """One decision stump of a fitted model, in output space.

    Attributes
    ----------
    feature : int
        Column index in ``X``.
    feature_name : str
        The column name (``"x<index>"`` when ``X`` had no names).
    direction : {">", "<="}
        The stump fires for ``x > threshold`` or ``x <= threshold``.
    threshold : float
        Deterministic threshold (for PAC-Bayes stumps, the middle of the margin
        interval, where the stump's firing probability crosses 1/2).
    interval : tuple of float or None
        PAC-Bayes margin interval ``[a, b]``: the threshold is uniform on it in the
        Gibbs classifier, so the firing probability rises linearly across it.
    bits : int or None
        Occam: length of the dyadic code of the threshold.
    """

    feature: int
    feature_name: str
    direction: str
    threshold: float
    interval: tuple[float, float] | None = None
    bits: int | None = None

    def fires(self, X: np.ndarray) -> np.ndarray:
        """Boolean output of the deterministic stump on the rows of ``X``."""
        x = X[:, self.feature]
        return x > self.threshold if self.direction == ">" else x <= self.threshold

    def firing_probability(self, X: np.ndarray) -> np.ndarray:
        """``sigma^d_{a,b}(x)``: the probability that a stump with threshold uniform on ``interval`` fires."""
        x = X[:, self.feature]
        if self.interval is None:
            return self.fires(X).astype(float)
        a, b = self.interval
        rise = np.clip((x - a) / (b - a), 0.0, 1.0)
        # The clip is exact outside [a, b]; inside it is the paper's linear piece.
        rise = np.where(x < a, 0.0, np.where(x > b, 1.0, rise))
        return rise if self.direction == ">" else 1.0 - rise

    def negated(self) -> StumpRule:
        return StumpRule(
            self.feature,
            self.feature_name,
            "<=" if self.direction == ">" else ">",
            self.threshold,
            self.interval,
            self.bits,
        )

    def __str__(self) -> str:
        text = f"{self.feature_name} {self.direction} {self.threshold:.6g}"
        if self.interval is not None:
            text += f" (margin [{self.interval[0]:.6g}, {self.interval[1]:.6g}])"
        return text

    def to_dict(self) -> dict:
        d = asdict(self)
        if self.interval is not None:
            d["interval"] = [float(v) for v in self.interval]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> StumpRule:
        interval = d.get("interval")
        return cls(
            feature=int(d["feature"]),
            feature_name=str(d["feature_name"]),
            direction=str(d["direction"]),
            threshold=float(d["threshold"]),
            interval=None if interval is None else (float(interval[0]), float(interval[1])),
            bits=None if d.get("bits") is None else int(d["bits"]),
        )


@dataclass
class LearnedStump:
    """A stump in conjunction space as the greedy found it (internal)."""

    feature: int
    direction: int  # +1: fires for x > t; -1: fires for x <= t
    threshold: float
    a: float
    b: float
    bits: int = 0
    covered_negatives: float = 0.0
    covered_positives: float = 0.0


def resolve_feature_range(feature_range, X: np.ndarray, estimator_name: str):
    """A-priori attribute ranges ``[A_i, B_i]`` as two arrays; warns when taken from ``X``."""
    F = X.shape[1]
    if feature_range is None:
        warnings.warn(
            f"{estimator_name}: feature_range not given, so the a-priori ranges [A_i, B_i] "
            "are the training minimum and maximum; the risk bound is then heuristic "
            "(pass feature_range=(low, high) from the data's definition to make it valid).",
            HeuristicBoundWarning,
            stacklevel=3,
        )
        if is_lazy_matrix(X):
            lo, hi = _lazy_min_max(X)
            return lo, hi
        return X.min(axis=0).astype(float), X.max(axis=0).astype(float)
    try:
        lo, hi = feature_range
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "feature_range must be a pair (low, high) of scalars or arrays of length n_features."
        ) from exc
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    lazy = is_lazy_matrix(X)
    for name, v in (("low", lo), ("high", hi)):
        if v.ndim > 1 or (v.ndim == 1 and v.shape[0] != F):
            raise ValueError(
                f"feature_range {name} must be a scalar or have one entry per feature "
                f"({F}); got shape {v.shape}."
            )
    lo = np.broadcast_to(lo, (F,)).copy()
    hi = np.broadcast_to(hi, (F,)).copy()
    if np.any(~np.isfinite(lo)) or np.any(~np.isfinite(hi)) or np.any(lo > hi):
        raise ValueError("feature_range must hold finite values with low <= high.")
    xmin, xmax = _lazy_min_max(X) if lazy else (X.min(axis=0), X.max(axis=0))
    outside = (xmin < lo) | (xmax > hi)
    if outside.any():
        j = int(np.flatnonzero(outside)[0])
        raise ValueError(
            f"feature_range does not contain the training data: feature {j} has values in "
            f"[{xmin[j]:g}, {xmax[j]:g}] outside [{lo[j]:g}, {hi[j]:g}]."
        )
    return lo, hi


def _lazy_min_max(X):
    """Column minima and maxima of an out-of-core ``X``, one block at a time."""
    F = X.shape[1]
    xmin, xmax = np.empty(F), np.empty(F)
    for b in iter_column_blocks(F, block_width(X.shape[0])):
        Xb = load_columns(X, b)
        check_finite_block(Xb, b.start)
        xmin[b], xmax[b] = Xb.min(axis=0), Xb.max(axis=0)
    return xmin, xmax


class BaseSCM(ClassifierMixin, BaseEstimator):
    """Common fit/predict logic; subclasses implement ``_learn`` and ``_bound_path``."""

    _parameter_constraints: dict = {
        "model_type": [StrOptions({"conjunction", "disjunction"})],
        "p": [Interval(numbers.Real, 0, None, closed="left")],
        "max_rules": [Interval(numbers.Integral, 1, None, closed="left")],
        "delta": [Interval(numbers.Real, 0, 1, closed="right")],
        "select": [StrOptions({"bound", "none"})],
        "feature_reuse": ["boolean"],
    }

    # -- to implement -------------------------------------------------------------------
    def _learn(self, X, y_pos):  # pragma: no cover - abstract
        raise NotImplementedError

    def _bound_path(self, X, y_pos, stumps):  # pragma: no cover - abstract
        raise NotImplementedError

    def _to_rule(self, stump: LearnedStump, names) -> StumpRule:
        rule = StumpRule(
            feature=int(stump.feature),
            feature_name=str(names[stump.feature]),
            direction=">" if stump.direction > 0 else "<=",
            threshold=float(stump.threshold),
        )
        return rule

    # -- fit ---------------------------------------------------------------------------
    def _validate_xy(self, X, y):
        """``(X, y_pos)``; an out-of-core ``X`` is returned as is (its values are checked per block)."""
        if is_lazy_matrix(X):
            y = validate_lazy_xy(self, X, y)
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        if self.classes_.size != 2:
            y_type = type_of_target(y, input_name="y")
            raise ValueError(
                f"Only binary classification is supported. The type of the target is "
                f"{y_type}: {type(self).__name__} needs y with exactly 2 classes, got "
                f"{self.classes_.size} class(es) ({self.classes_.tolist()!r})."
            )
        # Conjunction space: the class a conjunction outputs when every stump fires.
        positive_code = 1 if self.model_type == "conjunction" else 0
        return X, y_codes == positive_code

    def _finish_fit(self, X, y_pos, stumps):
        names = self.feature_names_in_ if hasattr(self, "feature_names_in_") else _DefaultNames()
        path, extra = self._bound_path(X, y_pos, stumps)
        self.bound_path_ = np.asarray(path, dtype=float)
        # argmin returns the first minimum: the shortest prefix among equal bounds.
        k = int(np.argmin(self.bound_path_)) if self.select == "bound" else len(stumps)
        self.n_rules_learned_ = len(stumps)
        kept = stumps[:k]
        self.risk_bound_ = float(self.bound_path_[k])
        self._set_extra(extra, k)
        rules = [self._to_rule(s, names) for s in kept]
        if self.model_type == "disjunction":
            rules = [r.negated() for r in rules]
        self.rules_ = rules
        self.selected_features_ = np.array([r.feature for r in rules], dtype=np.intp)
        weights = np.array([max(s.covered_negatives, 0.0) for s in kept], dtype=float)
        importances = np.zeros(X.shape[1])
        if k:
            if weights.sum() <= 0:
                weights = np.ones(k)
            np.add.at(importances, self.selected_features_, weights / weights.sum())
        self.feature_importances_ = importances
        return self

    def _set_extra(self, extra, k):
        """Store learner-specific per-prefix quantities for the kept prefix ``k``."""

    # -- predict -----------------------------------------------------------------------
    def _check_X(self, X):
        check_is_fitted(self, "rules_")
        if is_lazy_matrix(X):  # load only the columns the rules read
            if len(X.shape) != 2 or X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has shape {X.shape}; expected {self.n_features_in_} features.")
            return SelectedColumns(X, [r.feature for r in self.rules_])
        return validate_data(self, X, dtype=np.float64, reset=False)

    def _rule_outputs(self, X, rules) -> np.ndarray:
        out = np.empty((X.shape[0], len(rules)), dtype=bool)
        for i, r in enumerate(rules):
            out[:, i] = r.fires(X)
        return out

    def _combine(self, fires: np.ndarray) -> np.ndarray:
        """Output-space decision (True = ``classes_[1]``) from the rules' outputs."""
        if self.model_type == "conjunction":
            return fires.all(axis=1)
        return fires.any(axis=1)

    def predict(self, X):
        """Predict with the (deterministic) conjunction or disjunction of :attr:`rules_`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._check_X(X)
        return self.classes_[self._combine(self._rule_outputs(X, self.rules_)).astype(np.intp)]

    def staged_predict(self, X):
        """Predictions of every prefix of :attr:`rules_` (0, 1, ..., all rules).

        The greedy covering is prefix-consistent (the model with ``max_rules=v`` is the
        first ``v`` rules of a longer run), so one fit serves a whole grid of ``v``.

        Yields
        ------
        ndarray of shape (n_samples,)
        """
        X = self._check_X(X)
        fires = self._rule_outputs(X, self.rules_)
        for k in range(len(self.rules_) + 1):
            yield self.classes_[self._combine(fires[:, :k]).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # -- persistence -------------------------------------------------------------------
    def to_json(self) -> str:
        """Serialize the fitted model to self-describing JSON (see :func:`widefs.scm.from_json`)."""
        from widefs.scm._serialize import model_to_json

        return model_to_json(self)

    @classmethod
    def from_json(cls, text: str):
        """Rebuild a fitted model written by :meth:`to_json`; predictions are identical."""
        from widefs.scm._serialize import model_from_json

        model = model_from_json(text)
        if not isinstance(model, cls):
            raise TypeError(f"The JSON holds a {type(model).__name__}, not a {cls.__name__}.")
        return model


class _DefaultNames:
    """``"x<j>"`` for column j, built only for the columns asked for (not for every feature)."""

    def __getitem__(self, j):
        return f"x{int(j)}"


def errors_of_prefixes(fires: np.ndarray, y_pos: np.ndarray) -> np.ndarray:
    """Training errors of each conjunction prefix (k = 0..K) in conjunction space."""
    m, K = fires.shape
    out = np.ones(m, dtype=bool)
    errors = [int(np.sum(out != y_pos))]
    for k in range(K):
        out &= fires[:, k]
        errors.append(int(np.sum(out != y_pos)))
    return np.array(errors)


def conj_fires(X: np.ndarray, stumps: list[LearnedStump]) -> np.ndarray:
    """(m, K) outputs of the learned conjunction-space stumps."""
    out = np.empty((X.shape[0], len(stumps)), dtype=bool)
    for i, s in enumerate(stumps):
        x = X[:, s.feature]
        out[:, i] = x > s.threshold if s.direction > 0 else x <= s.threshold
    return out
