"""The template every Set Covering Machine follows: validate, learn, keep a prefix.

Conventions (Shah, Marchand & Corbeil 2010, Section II):

- The learners build a *conjunction* in "conjunction space": its positive class is
  ``classes_[1]`` for ``model_type="conjunction"`` and ``classes_[0]`` for
  ``"disjunction"`` (a disjunction is learned by exchanging the roles of the classes and
  negating the stumps).
- The user-facing :attr:`rules_` are expressed in output space: for a conjunction the model
  predicts ``classes_[1]`` iff *all* rules fire, for a disjunction it predicts
  ``classes_[1]`` iff *any* rule fires (rules are the negated learned stumps).
- Ties between equally good stumps are broken by a documented, deterministic rule: the
  higher utility, then the larger decrease of training errors (covered negatives minus
  covered positives), then the **lowest feature index**, then the smallest threshold,
  then direction ``+1`` before ``-1``. This is also pyscm-ml's order, so both libraries
  learn the same rules.

:meth:`BaseSCM.fit` reads top-down: validate ``X`` and ``y`` (and the a-priori feature
ranges where the bound needs them), call the learner's ``_learn``, which returns a
:class:`LearnedPath`, and keep the prefix that ``select`` chooses.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, replace

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from widefs._compat import Interval, StrOptions, fit_context
from widefs._utils import (
    block_width,
    check_classes,
    column_major,
    is_lazy_matrix,
    iter_column_blocks,
    load_columns,
    validate_lazy_xy,
)
from widefs.exceptions import HeuristicBoundWarning
from widefs.scm._bitpacked import PackedBinary, pack_binary, packed_greedy
from widefs.scm._bounds import BoundScope
from widefs.scm._equivalence import equivalent_stumps
from widefs.scm._multiclass import fit_decision_list, list_decisions
from widefs.scm._rules import LearnedStump, StumpRule
from widefs.scm._serialize import model_from_json, model_to_json

__all__ = ["BaseSCM", "LearnedPath"]


@dataclass(frozen=True)
class LearnedPath:
    """What a learner's ``_learn`` returns: its stumps and, for every prefix, bound and risk.

    Attributes
    ----------
    stumps : list of LearnedStump
        In the order the greedy added them (``K`` stumps), in conjunction space.
    bounds : ndarray of shape (K + 1,)
        Risk bound of the first ``k`` stumps, ``k = 0 .. K``.
    training_risk : ndarray of shape (K + 1,)
        Training risk of each prefix (0/1 risk; the Gibbs risk for PAC-Bayes).
    compression_sets : list of ndarray, optional
        Sample compression: the compression set of each prefix.
    margin_ratios : ndarray of shape (K,), optional
        PAC-Bayes: ``(b - a) / (B - A)`` of each stump.
    """

    stumps: list[LearnedStump]
    bounds: np.ndarray
    training_risk: np.ndarray
    compression_sets: list[np.ndarray] | None = None
    margin_ratios: np.ndarray | None = None


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


def chosen_columns(X, stumps: list[LearnedStump]):
    """``X`` itself in memory or packed; out of core, only the columns the stumps read (loaded once)."""
    return SelectedColumns(X, [s.feature for s in stumps]) if is_lazy_matrix(X) else X


def narrow_array(X) -> bool:
    """A 2-D numpy array of booleans or integers: read as it is (never copied to float64
    whole), packed when every value is 0 or 1."""
    return isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "biu"


def plain_float_xy(X, y) -> bool:
    """A finite 2-D float numpy array with two rows or more, and a 1-D numpy array of
    integer, boolean or string labels, one per row.

    For such an input ``validate_data`` checks only shapes and finiteness; taking it
    without ``validate_data`` spares the data-frame detection it runs first, whose first
    call in a process scans every installed package's entry points (milliseconds, several
    times a small fit). Anything else goes through ``validate_data`` and its messages.
    """
    if not (type(X) is np.ndarray and type(y) is np.ndarray):  # (no subclasses)
        return False
    if X.ndim != 2 or X.dtype.kind != "f" or y.ndim != 1 or y.dtype.kind not in "iubUS":
        return False
    if X.shape[0] < 2 or X.shape[1] < 1 or y.shape[0] != X.shape[0]:
        return False
    # A finite sum means finite entries (an overflow to inf only sends X the long way).
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(X.sum()))


def with_equivalents(X, rules: list[StumpRule]) -> list[StumpRule]:
    """The rules, each with the other features that split the training examples as it does."""
    if not rules:
        return rules
    cols = chosen_columns(X, rules)
    found = equivalent_stumps(X, [r.fires(cols) for r in rules])
    return [
        replace(r, equivalent=tuple(e for e in eq if e[0] != r.feature))
        for r, eq in zip(rules, found, strict=True)
    ]


def conj_fires(X, stumps: list[LearnedStump]) -> np.ndarray:
    """``(m, K)`` outputs of the learned conjunction-space stumps."""
    out = np.empty((X.shape[0], len(stumps)), dtype=bool)
    for i, s in enumerate(stumps):
        out[:, i] = s.fires(X[:, s.feature])
    return out


def prefix_errors(fires: np.ndarray, y_pos: np.ndarray) -> np.ndarray:
    """``(K + 1, m)`` misclassified training examples of each conjunction prefix, k = 0..K."""
    m, K = fires.shape
    out = np.ones(m, dtype=bool)
    wrong = np.empty((K + 1, m), dtype=bool)
    wrong[0] = out != y_pos
    for k in range(K):
        out &= fires[:, k]
        wrong[k + 1] = out != y_pos
    return wrong


def resolve_feature_range(feature_range, X, estimator_name: str):
    """A-priori attribute ranges ``[A_i, B_i]`` as two arrays; warns when taken from ``X``."""
    F = X.shape[1]
    lazy = is_lazy_matrix(X)
    if feature_range is None:
        warnings.warn(
            f"{estimator_name}: feature_range not given, so the a-priori ranges [A_i, B_i] "
            "are the training minimum and maximum; the risk bound is then heuristic "
            "(pass feature_range=(low, high) from the data's definition to make it valid).",
            HeuristicBoundWarning,
            stacklevel=4,
        )
        return _min_max(X, lazy)
    try:
        lo, hi = feature_range
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "feature_range must be a pair (low, high) of scalars or arrays of length n_features."
        ) from exc
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
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
    xmin, xmax = _min_max(X, lazy)
    outside = (xmin < lo) | (xmax > hi)
    if outside.any():
        j = int(np.flatnonzero(outside)[0])
        raise ValueError(
            f"feature_range does not contain the training data: feature {j} has values in "
            f"[{xmin[j]:g}, {xmax[j]:g}] outside [{lo[j]:g}, {hi[j]:g}]."
        )
    return lo, hi


def _min_max(X, lazy: bool):
    """Column minima and maxima (float); an out-of-core ``X`` one block at a time."""
    if isinstance(X, PackedBinary):
        return X.min_max()
    if not lazy:
        return X.min(axis=0).astype(float), X.max(axis=0).astype(float)
    F = X.shape[1]
    xmin, xmax = np.empty(F), np.empty(F)
    for b in iter_column_blocks(F, block_width(X.shape[0])):
        Xb = load_columns(X, b)
        check_finite_block(Xb, b.start)
        xmin[b], xmax[b] = Xb.min(axis=0), Xb.max(axis=0)
    return xmin, xmax


class _DefaultNames:
    """``"x<j>"`` for column j, built only for the columns asked for (not for every feature)."""

    def __getitem__(self, j):
        return f"x{int(j)}"


class BaseSCM(ClassifierMixin, BaseEstimator):
    """Fit template, prediction and persistence shared by the Set Covering Machines.

    Subclasses implement ``_learn(X, y_pos, scope) -> LearnedPath``: the greedy and the
    bound of every prefix, computed with ``scope.m`` examples at confidence ``scope.delta``
    (:class:`~widefs.scm._bounds.BoundScope`), and ``_packed_utility(X)``: how their greedy
    runs on presence/absence data (None: it does not). ``X`` is validated (array,
    DataFrame, out-of-core matrix, or packed bits), ``y_pos`` is the conjunction-space label.
    More than two classes make a decision list of such machines (:mod:`widefs.scm._multiclass`).
    """

    _parameter_constraints: dict = {
        "model_type": [StrOptions({"conjunction", "disjunction"})],
        "p": [Interval(numbers.Real, 0, None, closed="left")],
        "max_rules": [Interval(numbers.Integral, 1, None, closed="left")],
        "delta": [Interval(numbers.Real, 0, 1, closed="right")],
        "select": [StrOptions({"bound", "none"})],
        "feature_reuse": ["boolean"],
    }
    # Fitted attribute holding the training risk of the kept prefix.
    _training_risk_attribute = "empirical_risk_"
    # Fitted attributes of only one of the two layouts (binary machine, decision list).
    _layout_attributes = ("machines_", "bound_path_", "compression_set_", "margin_ratios_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # read a block of columns at a time, as out of core
        return tags

    def _learn(self, X, y_pos: np.ndarray, scope: BoundScope) -> LearnedPath:  # pragma: no cover
        raise NotImplementedError

    def _packed_utility(self, X: PackedBinary):  # pragma: no cover - abstract
        raise NotImplementedError

    # -- fit ---------------------------------------------------------------------------
    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the stumps greedily, then keep the prefix chosen by ``select``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite values: an array, a DataFrame, a scipy sparse matrix or array (read as CSC)
            or an out-of-core matrix (a dask or zarr array, a numpy memmap), which is read one
            block of columns at a time and never loaded or densified whole; the fitted model
            is the same as in memory. A matrix whose values
            are all 0 or 1 (presence/absence) is packed in bits and learned by population
            counts, with the same rules.
        y : array_like of shape (n_samples,)
            Two classes, or more: a decision list of binary machines with a combined bound.

        Returns
        -------
        self
        """
        for attr in self._layout_attributes:
            self.__dict__.pop(attr, None)
        X, codes = self._validate_xy(X, y)
        if self.classes_.size > 2:
            return fit_decision_list(self, X, codes)
        # Conjunction space: the class a conjunction outputs when every stump fires.
        positive_code = 1 if self.model_type == "conjunction" else 0
        scope = BoundScope(X.shape[0], float(self.delta))
        return self._fit_machine(X, codes == positive_code, scope)

    def _stumps(self, X, y_pos: np.ndarray, float_greedy) -> list[LearnedStump]:
        """The greedy's stumps: by population counts on packed bits when the learner has a
        packed utility for these settings, else ``float_greedy(lazy=..., max_rules=...,
        feature_reuse=...)``, the learner's own engine."""
        kwargs = {"max_rules": int(self.max_rules), "feature_reuse": bool(self.feature_reuse)}
        util = self._packed_utility(X) if isinstance(X, PackedBinary) else None
        if util is not None:
            return packed_greedy(X, y_pos, util, **kwargs)
        return float_greedy(lazy=is_lazy_matrix(X), **kwargs)

    def _rule_columns(self, X):
        """``X`` as the rules read it: itself, or its rule columns loaded once out of core."""
        return chosen_columns(X, self.rules_)

    def _fit_machine(self, X, y_pos: np.ndarray, scope: BoundScope):
        """Learn one binary machine and keep the prefix that ``select`` chooses."""
        return self._keep_prefix(self._learn(X, y_pos, scope), X)

    def _validate_xy(self, X, y):
        """``(X, class codes)``; sets ``classes_`` and, where the learner has one, ``feature_range_``.

        An out-of-core ``X`` is returned as is (its values are checked per block); a 0/1
        matrix packed (:class:`~widefs.scm._bitpacked.PackedBinary`) when the learner's
        greedy runs on packed bits with these settings.
        """
        if is_lazy_matrix(X) or narrow_array(X):
            X = column_major(X)  # sparse: CSC once, then densified a block of columns at a time
            y = validate_lazy_xy(self, X, y)
        elif plain_float_xy(X, y):
            X = self._accept_plain(X)
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self.classes_, codes = check_classes(self, y, min_classes=2)
        packed = pack_binary(X)
        if "feature_range" in self._parameter_constraints:
            self.feature_range_ = resolve_feature_range(
                self.feature_range, X if packed is None else packed, type(self).__name__
            )
        if packed is not None and self._packed_utility(packed) is not None:
            return packed, codes
        if narrow_array(X):
            X = np.asarray(X, dtype=np.float64)
        return X, codes

    def _accept_plain(self, X: np.ndarray) -> np.ndarray:
        """What ``validate_data`` does for an input that passed :func:`plain_float_xy`."""
        self.n_features_in_ = X.shape[1]
        self.__dict__.pop("feature_names_in_", None)  # a plain array has no column names
        return X.astype(np.float64, copy=False)

    def _keep_prefix(self, path: LearnedPath, X):
        """Store the prefix chosen by ``select`` and its bound, risk and rules."""
        self.bound_path_ = np.asarray(path.bounds, dtype=float)
        self.n_rules_learned_ = len(path.stumps)
        # argmin returns the first minimum: the shortest prefix among equal bounds.
        k = int(np.argmin(self.bound_path_)) if self.select == "bound" else len(path.stumps)
        kept = path.stumps[:k]
        self.risk_bound_ = float(self.bound_path_[k])
        setattr(self, self._training_risk_attribute, float(path.training_risk[k]))
        # The certified score: training accuracy of the kept prefix (higher is better).
        self.search_score_ = 1.0 - float(path.training_risk[k])
        if path.compression_sets is not None:
            self.compression_set_ = np.asarray(path.compression_sets[k], dtype=np.intp)
        if path.margin_ratios is not None:
            self.margin_ratios_ = np.asarray(path.margin_ratios[:k], dtype=float)
        names = getattr(self, "feature_names_in_", _DefaultNames())
        negate = self.model_type == "disjunction"
        rules = [s.to_rule(names[s.feature], negate=negate) for s in kept]
        self.rules_ = with_equivalents(X, rules)
        self.selected_features_ = np.array([r.feature for r in self.rules_], dtype=np.intp)
        weights = np.array([max(s.covered_negatives, 0.0) for s in kept], dtype=float)
        importances = np.zeros(self.n_features_in_)
        if k:
            if weights.sum() <= 0:
                weights = np.ones(k)
            np.add.at(importances, self.selected_features_, weights / weights.sum())
        self.feature_importances_ = importances
        return self

    # -- which features ---------------------------------------------------------------
    def get_support(self, indices=False):
        """The features the kept rules read (as ``SelectorMixin.get_support``).

        Parameters
        ----------
        indices : bool, default=False
            Return sorted column indices instead of a boolean mask.

        Returns
        -------
        ndarray
            Boolean mask of shape (n_features_in_,), or the indices of its True entries.
        """
        check_is_fitted(self, "rules_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[[r.feature for r in self.rules_]] = True
        return np.flatnonzero(mask) if indices else mask

    # -- predict -----------------------------------------------------------------------
    def _check_X(self, X):
        check_is_fitted(self, "rules_")
        if is_lazy_matrix(X) or narrow_array(X):  # load only the columns the rules read
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

    def _decide(self, X) -> np.ndarray:
        """Where a binary machine predicts ``classes_[1]``, on checked ``X``."""
        return self._combine(self._rule_outputs(X, self.rules_))

    def _binary_only(self, method: str) -> None:
        if self.classes_.size > 2:
            raise ValueError(
                f"{method} is defined for two classes; this {type(self).__name__} is a "
                f"decision list over {self.classes_.size} classes (see machines_)."
            )

    def predict(self, X):
        """Predict with the conjunction or disjunction of :attr:`rules_` (or the decision list).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._check_X(X)
        if self.classes_.size > 2:
            return self.classes_[list_decisions(self, X)]
        return self.classes_[self._decide(X).astype(np.intp)]

    def staged_predict(self, X):
        """Predictions of every prefix of :attr:`rules_` (0, 1, ..., all rules); two classes.

        The greedy covering is prefix-consistent (the model with ``max_rules=v`` is the
        first ``v`` rules of a longer run), so one fit serves a whole grid of ``v``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of shape (n_samples,)
        """
        X = self._check_X(X)
        self._binary_only("staged_predict")
        fires = self._rule_outputs(X, self.rules_)
        for k in range(len(self.rules_) + 1):
            yield self.classes_[self._combine(fires[:, :k]).astype(np.intp)]

    # -- persistence -------------------------------------------------------------------
    def to_json(self) -> str:
        """Serialize the fitted model to self-describing JSON.

        Returns
        -------
        str
            Read back with :func:`widefs.scm.from_json` or ``type(model).from_json``.
        """
        return model_to_json(self)

    @classmethod
    def from_json(cls, text: str, *, allow_edited: bool = False):
        """Rebuild a fitted model written by :meth:`to_json`; predictions are identical.

        Parameters
        ----------
        text : str
        allow_edited : bool, default=False
            Load a file whose ``content_hash`` does not match its values (edited after it was
            written, or written without a hash), with a warning; by default it is refused.

        Returns
        -------
        estimator
            An instance of this class (``TypeError`` when the JSON holds another one).
        """
        model = model_from_json(text, allow_edited=allow_edited)
        if not isinstance(model, cls):
            raise TypeError(f"The JSON holds a {type(model).__name__}, not a {cls.__name__}.")
        return model
