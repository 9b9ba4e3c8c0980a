"""CN2 rule induction with optional process-oriented stopping (Domingos 1999).

CN2 (Clark & Niblett 1989; Clark & Boswell 1991) learns rules one at a time by a beam
search over conjunctions of conditions. Domingos (IJCAI 1999, Sec. 3-4) stops each rule's
search with the process-oriented estimate of Eq. 13: the more rule versions the search has
generated, the more the best rule's observed error is pulled towards the prior error.

Each beam round (count every one-condition specialization of every beam member, rank them,
keep the best distinct conjunctions) is one compiled call,
:func:`widefs.rules._search.beam_round`; this module keeps the stopping rules and the
rule lists. The first fit on a machine compiles it (a few seconds, cached on disk).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_consistent_length, column_or_1d
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from widefs.rules._conditions import FeatureEncoding
from widefs.rules._poe import effective_hypotheses, poe1_estimate, poe_combine
from widefs.rules._rule import EQ, OP_SYMBOLS, Condition, Rule, format_value
from widefs.rules._search import QUALITY_CODES, CandidateTable, beam_round, quality_of

__all__ = ["CN2Classifier"]


class _Found:
    """A rule version: sorted static condition ids, covered rows (full training set), counts."""

    __slots__ = ("counts", "covered", "quality", "sids")

    def __init__(self, sids: np.ndarray, covered: np.ndarray, counts: np.ndarray, quality: float):
        self.sids = sids
        self.covered = covered
        self.counts = counts
        self.quality = quality


class CN2Classifier(ClassifierMixin, BaseEstimator):
    """CN2 rule induction, with classic or process-oriented (POE) stopping.

    Rules are learned one at a time by beam search (Clark & Niblett 1989). Each round
    specializes every rule version in the beam by one condition (``a == v`` for a nominal
    attribute, ``a <= t`` or ``a > t`` at an observed value ``t`` for a numeric one) and keeps
    the ``beam_width`` best by ``quality``; the best version seen so far is the rule's
    candidate.

    - ``stopping="significance"`` (classic CN2): search until the beam is exhausted (or
      ``max_rule_length``); the candidate must pass the likelihood-ratio test at ``alpha``.
      Induction stops when no candidate is found.
    - ``stopping="poe"`` (CN2-POE2, Domingos 1999): round 1 is the empty rule (``m_1 = 1``);
      after round ``k`` the best rule so far gets
      ``E_k = eps_hat / m'_k + (1 - 1/m'_k) eps_prior`` (Eq. 13), with ``m_k`` the rule
      versions generated so far for this rule, ``m' = max(1, log2 m)``, ``eps_hat`` the
      rule's m-estimate error (``m = poe_m``) and ``eps_prior`` the default error (predict
      the majority class) of the examples not yet covered. The search stops at the first
      round with ``E_k >= E_{k-1}`` and keeps round ``k-1``'s rule. Induction stops when
      that rule is the empty rule.
    - ``stopping="poe1"``: the same rounds with the earlier POE1 estimate (Domingos 1998;
      common error rate, uniform prior) of the rule's error from its training errors and
      ``m'_k``.

    In ``mode="ordered"`` the rules form a decision list: each rule predicts the majority
    class of the examples it covers, covered examples are removed, and the default rule
    predicts the majority of what is left. In ``mode="unordered"`` rules are learned per
    class on the full set (removing only that class's covered examples) and a prediction
    sums the training class counts of all firing rules (Clark & Boswell 1991).

    Missing values are not imputed: a missing value satisfies no condition, so an example
    lacking attribute ``a`` is never covered by a condition on ``a`` (in training counts and
    in prediction alike). Categories unseen in training match no ``a == v`` condition.

    Parameters
    ----------
    stopping : {"significance", "poe", "poe1"}, default="significance"
    mode : {"ordered", "unordered"}, default="ordered"
    beam_width : int, default=5
        Rule versions kept per round (5 in the distributed CN2).
    quality : {"laplace", "m_estimate", "entropy"}, default="laplace"
        Ranking of rule versions: Laplace accuracy ``(n_c + 1) / (n + C)`` of the predicted
        class (the majority class in ordered mode, the target class in unordered mode),
        the m-estimate ``(n_c + m / C) / (n + m)``, or minus the class entropy of the covered
        examples (ordered mode only). Ties go to the version covering more examples, then
        to the first generated (beam members in rank order; within one, lowest attribute
        index, then ``==``, ``<=``, ``>``, then increasing value).
    m : float, default=2.0
        The ``m`` of ``quality="m_estimate"``.
    poe_m : float or "laplace", default=2.0
        The ``m`` of the m-estimate error ``(e + m (C-1)/C) / (n + m)`` (Eq. 14) fed to Eq. 13;
        ``"laplace"`` uses ``m = C`` as CN2 does (Domingos used m = 2 with POE).
    poe_effective : {"log2", "log", "log10", "identity"}, default="log2"
        ``m' = max(1, g(m))``; ``"identity"`` is the unmodified Eq. 13.
    poe_prior : {"uncovered", "class", "all"}, default="uncovered"
        ``eps_prior`` of Eq. 13: the default error (predict the majority class) of the
        examples not yet covered by earlier rules (the paper's choice as restated in
        FORMULAS.md) or of the whole training set (``"all"``). ``"class"`` is the error of
        the empty rule that starts the search, on the examples the search runs on: in
        unordered mode, where every version of a rule for class ``c`` predicts ``c``, it is
        ``1 - p_c`` (so minority-class rules get the larger prior their hypotheses have);
        in ordered mode, where the empty rule predicts the majority class, it equals
        ``"uncovered"``.
    alpha : float, None or "auto", default="auto"
        Level of the likelihood-ratio test ``2 sum f_i ln(f_i / e_i) ~ chi2(C - 1)`` of a
        rule's class counts against those of the examples it is learned from. ``"auto"``:
        0.05 for ``stopping="significance"``, no test for the POE stoppings; ``None``: no
        test.
    max_rule_length : int or None, default=None
        Most conditions per rule.
    min_covered : int, default=1
        Fewest training examples a rule version must cover.
    nominal_features : "auto" or array-like, default="auto"
        Which columns are nominal: ``"auto"`` takes pandas categorical, string, object and
        boolean columns and object-array columns holding non-numbers; otherwise a boolean
        mask, column indices or column names.

    Attributes
    ----------
    rules_ : list of Rule
        The learned rules in order (without the default rule); ``str(rule)`` reads
        ``IF a == v AND b <= 3 THEN class  [counts]``.
    default_class_ : object
        Prediction when no rule fires.
    default_counts_ : ndarray of int
        Class counts behind the default rule.
    theory_size_ : int
        Total number of conditions over all rules (Table 1 of Domingos 1999).
    classes_ : ndarray
    nominal_features_ : ndarray of bool
    categories_ : list of ndarray
        Sorted category texts of each nominal column (empty for numeric columns).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"outlook": ["sun", "sun", "rain", "rain", "cloud", "cloud"],
    ...                   "temp": [30, 25, 18, 12, 20, 15]})
    >>> y = ["no", "no", "yes", "yes", "yes", "yes"]
    >>> model = CN2Classifier(alpha=None).fit(X, y)
    >>> print(model)
    CN2Classifier: 1 rule, 1 condition, ordered, stopping=significance
      1. IF temp <= 20 THEN yes  [0, 4]
      default: no  [2, 0]
    >>> model.predict(pd.DataFrame({"outlook": ["sun", "rain"], "temp": [10, 30]})).tolist()
    ['yes', 'no']
    """

    _parameter_constraints: dict = {
        "stopping": [StrOptions({"significance", "poe", "poe1"})],
        "mode": [StrOptions({"ordered", "unordered"})],
        "beam_width": [Interval(numbers.Integral, 1, None, closed="left")],
        "quality": [StrOptions({"laplace", "m_estimate", "entropy"})],
        "m": [Interval(numbers.Real, 0, None, closed="left")],
        "poe_m": [StrOptions({"laplace"}), Interval(numbers.Real, 0, None, closed="left")],
        "poe_effective": [StrOptions({"log2", "log", "log10", "identity"})],
        "poe_prior": [StrOptions({"uncovered", "class", "all"})],
        "alpha": [StrOptions({"auto"}), Interval(numbers.Real, 0, 1, closed="neither"), None],
        "max_rule_length": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "min_covered": [Interval(numbers.Integral, 1, None, closed="left")],
        "nominal_features": [StrOptions({"auto"}), "array-like"],
    }

    def __init__(
        self,
        stopping="significance",
        *,
        mode="ordered",
        beam_width=5,
        quality="laplace",
        m=2.0,
        poe_m=2.0,
        poe_effective="log2",
        poe_prior="uncovered",
        alpha="auto",
        max_rule_length=None,
        min_covered=1,
        nominal_features="auto",
    ):
        self.stopping = stopping
        self.mode = mode
        self.beam_width = beam_width
        self.quality = quality
        self.m = m
        self.poe_m = poe_m
        self.poe_effective = poe_effective
        self.poe_prior = poe_prior
        self.alpha = alpha
        self.max_rule_length = max_rule_length
        self.min_covered = min_covered
        self.nominal_features = nominal_features

    # ------------------------------------------------------------------ input handling
    def _columns(self, X, *, reset: bool):
        """Validate ``X`` and split it into per-column 1-D arrays (dtype kept per column)."""
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, reset=reset, skip_check_array=True)
            if X.shape[0] == 0:
                raise ValueError(
                    f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required."
                )
            if X.shape[1] == 0:
                raise ValueError(
                    f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is required."
                )
            cols = [col for _, col in X.items()]
            return cols, [str(c) for c in X.columns]
        X = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan")
        if X.dtype.kind not in "biufO":
            X = X.astype(object)
        if X.dtype.kind in "biuf" and np.isinf(X).any():
            raise ValueError("Input X contains infinity or a value too large for dtype('float64').")
        names = (
            [str(c) for c in self.feature_names_in_]
            if hasattr(self, "feature_names_in_")
            else [f"x{j}" for j in range(X.shape[1])]
        )
        return [X[:, j] for j in range(X.shape[1])], names

    def _encode(self, X, *, reset: bool):
        columns, names = self._columns(X, reset=reset)
        if reset:
            self._encoding, numeric, codes = FeatureEncoding.fit_transform(
                columns, self.nominal_features, names
            )
        else:
            numeric, codes = self._encoding.transform(columns)
        if np.isinf(numeric).any():
            raise ValueError("Input X contains infinity in a numeric column.")
        return numeric, codes

    # ------------------------------------------------------------------ scoring
    def _alpha(self):
        if self.alpha == "auto":
            return 0.05 if self.stopping == "significance" else None
        return self.alpha

    def _poe_m(self, n_classes: int) -> float:
        return float(n_classes) if self.poe_m == "laplace" else float(self.poe_m)

    def _predicted(self, counts: np.ndarray, target) -> np.ndarray:
        if target is None:
            return np.argmax(counts, axis=-1)  # ties to the lower class code
        return np.full(counts.shape[:-1], target)

    def _quality(self, counts: np.ndarray, target) -> np.ndarray:
        counts = np.asarray(counts, dtype=float)
        C = counts.shape[-1]
        n = counts.sum(axis=-1)
        hit = counts.max(axis=-1) if target is None else counts[..., target]
        if self.quality == "laplace":
            return (hit + 1.0) / (n + C)
        if self.quality == "m_estimate":
            return (hit + self.m / C) / (n + self.m)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = counts / n[..., None]
            ent = -np.sum(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0), axis=-1)
        return -ent

    def _significant(self, counts: np.ndarray, base: np.ndarray, alpha) -> np.ndarray:
        """Likelihood-ratio test of covered class counts against the base distribution."""
        if alpha is None:
            return np.ones(counts.shape[0], dtype=bool)
        counts = np.asarray(counts, dtype=float)
        p = base / base.sum()
        expected = counts.sum(axis=1, keepdims=True) * p
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(counts > 0, counts * np.log(counts / expected), 0.0)
        lrs = 2.0 * terms.sum(axis=1)
        df = int((p > 0).sum()) - 1
        if df < 1:
            return np.zeros(counts.shape[0], dtype=bool)
        return lrs > stats.chi2.isf(alpha, df)

    def _error_estimate(self, counts: np.ndarray, target, n_classes: int) -> float:
        """The m-estimate error of Eq. 14, ``(e + m E_0) / (n + m)``, ``E_0 = (C-1)/C``."""
        n = float(counts.sum())
        hit = counts.max() if target is None else counts[target]
        m = self._poe_m(n_classes)
        e0 = (n_classes - 1) / n_classes
        if n + m == 0:
            return e0
        return float((n - hit + m * e0) / (n + m))

    def _round_estimate(self, counts: np.ndarray, m_k: int, prior: float, target, C: int) -> float:
        if self.stopping == "poe1":
            n = int(counts.sum())
            hit = counts.max() if target is None else counts[target]
            m_eff = effective_hypotheses(m_k, self.poe_effective)
            return float(poe1_estimate(n, n - int(hit), m_eff))
        eps_hat = self._error_estimate(counts, target, C)
        return float(poe_combine(eps_hat, m_k, prior, effective=self.poe_effective))

    # ------------------------------------------------------------------ rule search
    def _find_rule(self, table: CandidateTable, y, C: int, active, target, prior: float):
        """Beam search for one rule on the ``active`` rows; returns (found or None, m, E).

        Each round is one compiled call (:func:`widefs.rules._search.beam_round`) that
        counts, ranks and keeps the specializations; this loop applies the stopping rules.
        """
        alpha = self._alpha()
        base = np.bincount(y[active], minlength=C)
        kind = QUALITY_CODES[self.quality]
        tgt = -1 if target is None else int(target)
        m = float(self.m)
        root_quality = float(quality_of(base, tgt, kind, m, np.zeros(C)))
        base_p = base / base.sum()
        test = alpha is not None
        df = int((base_p > 0).sum()) - 1
        threshold = float(stats.chi2.isf(alpha, df)) if test and df >= 1 else np.inf
        cov = active[None, :].copy()
        conds = np.zeros((1, table.max_conditions), dtype=np.intp)
        lens = np.zeros(1, dtype=np.intp)
        counts = base[None, :]
        poe = self.stopping in ("poe", "poe1")
        empty = np.zeros(0, dtype=np.intp)
        best = _Found(empty, active.copy(), base, root_quality) if poe else None
        m_k = 1
        estimate = self._round_estimate(base, 1, prior, target, C) if poe else None
        max_len = 0 if self.max_rule_length is None else int(self.max_rule_length)
        # Pure versions only have pure, smaller (so worse and less significant)
        # descendants: none could replace the best rule, so classic CN2 stops there.
        all_pure = (np.count_nonzero(base) <= 1) if target is None else base[target] == base.sum()
        while True:
            if all_pure and not poe:
                break
            (
                n_ok,
                cov,
                conds,
                lens,
                new_counts,
                _,
                found,
                best_cov,
                best_conds,
                best_len,
                best_counts,
                best_quality,
                all_pure,
            ) = beam_round(
                table.bins,
                y,
                C,
                table.feature_nominal,
                table.feature_offset,
                table.feature_n_bins,
                table.feature_first_candidate,
                table.cand_feature,
                table.cand_op,
                table.cand_bin,
                table.n_bins_total,
                cov,
                conds,
                lens,
                counts,
                max_len,
                kind,
                m,
                tgt,
                int(self.min_covered),
                test,
                base_p,
                threshold,
                int(self.beam_width),
            )
            if n_ok == 0:
                break
            counts = new_counts
            m_new = m_k + n_ok
            round_best = None
            if found and (best is None or best_quality > best.quality):
                round_best = _Found(best_conds[:best_len], best_cov, best_counts, best_quality)
            if poe:
                candidate = round_best if round_best is not None else best
                new_estimate = self._round_estimate(candidate.counts, m_new, prior, target, C)
                if new_estimate >= estimate:
                    break
                best, estimate = candidate, new_estimate
            elif round_best is not None:
                best = round_best
            m_k = m_new
        return best, m_k, estimate

    def _make_rule(self, entry: _Found, counts, prediction_code, m_k, estimate) -> Rule:
        conditions = []
        table = self._table
        for s in entry.sids.tolist():
            feature = int(table.cand_feature[s])
            op = int(table.cand_op[s])
            value = float(table.cand_value[s])
            name = self._encoding.names[feature]
            if op == EQ:
                label = str(self._encoding.categories[feature][int(value)])
            else:
                label = format_value(value)
            conditions.append(Condition(feature, OP_SYMBOLS[op], value, name, label))
        poe = self.stopping in ("poe", "poe1")
        return Rule(
            conditions=tuple(conditions),
            prediction=self.classes_[prediction_code],
            class_counts=np.asarray(counts, dtype=np.int64),
            poe_error=estimate if poe else None,
            n_hypotheses=int(m_k) if poe else None,
        )

    # ------------------------------------------------------------------ fit / predict
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the rule list (or unordered rule set) from ``X`` and ``y``.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Numeric and nominal columns; NaN/None mark missing values.
        y : array_like of shape (n_samples,)

        Returns
        -------
        self
        """
        if self.quality == "entropy" and self.mode == "unordered":
            raise ValueError(
                "quality='entropy' ranks rules by class purity and is defined for "
                "mode='ordered' only; use 'laplace' or 'm_estimate' with mode='unordered'."
            )
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        numeric, codes = self._encode(X, reset=True)
        y = column_or_1d(np.asarray(y) if not hasattr(y, "iloc") else y.to_numpy(), warn=True)
        check_consistent_length(numeric, y)
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        y_codes = y_codes.astype(np.intp)
        self.nominal_features_ = self._encoding.nominal.copy()
        self.categories_ = [c.copy() for c in self._encoding.categories]
        C = self.classes_.size
        n_cats = np.array([c.size for c in self._encoding.categories], dtype=np.intp)
        table = CandidateTable.build(numeric, codes, self._encoding.nominal, n_cats)
        self._table = table
        totals = np.bincount(y_codes, minlength=C)
        all_prior = 1.0 - totals.max() / totals.sum()
        self.rules_ = []
        if self.mode == "ordered":
            active = np.ones(y_codes.size, dtype=bool)
            while active.any():
                remaining = np.bincount(y_codes[active], minlength=C)
                if np.count_nonzero(remaining) <= 1:
                    break  # the default rule already classifies the rest without error
                prior = 1.0 - remaining.max() / remaining.sum()
                entry, m_k, est = self._find_rule(
                    table,
                    y_codes,
                    C,
                    active,
                    None,
                    all_prior if self.poe_prior == "all" else prior,
                )
                if entry is None or not entry.sids.size:
                    break
                self.rules_.append(
                    self._make_rule(entry, entry.counts, int(np.argmax(entry.counts)), m_k, est)
                )
                active &= ~entry.covered
            left = np.bincount(y_codes[active], minlength=C)
            self.default_counts_ = left if left.sum() else totals
        else:
            for t in range(C):
                active = np.ones(y_codes.size, dtype=bool)
                while (active & (y_codes == t)).any():
                    remaining = np.bincount(y_codes[active], minlength=C)
                    prior = {
                        "uncovered": 1.0 - remaining.max() / remaining.sum(),
                        "class": 1.0 - remaining[t] / remaining.sum(),
                        "all": all_prior,
                    }[self.poe_prior]
                    entry, m_k, est = self._find_rule(table, y_codes, C, active, t, prior)
                    if entry is None or not entry.sids.size or entry.counts[t] == 0:
                        break
                    # Unordered rules report their counts on the whole training set.
                    counts = np.bincount(y_codes[table.coverage(entry.sids)], minlength=C)
                    self.rules_.append(self._make_rule(entry, counts, t, m_k, est))
                    active &= ~(entry.covered & (y_codes == t))
            self.default_counts_ = totals
        self.default_class_ = self.classes_[int(np.argmax(self.default_counts_))]
        self.theory_size_ = int(sum(r.length for r in self.rules_))
        return self

    def _class_scores(self, X) -> np.ndarray:
        check_is_fitted(self)
        numeric, codes = self._encode(X, reset=False)
        n, C = numeric.shape[0], self.classes_.size
        scores = np.zeros((n, C))
        if self.mode == "ordered":
            undecided = np.ones(n, dtype=bool)
            for rule in self.rules_:
                fire = undecided & rule.mask(numeric, codes)
                scores[fire] = rule.class_counts
                undecided &= ~fire
            scores[undecided] = self.default_counts_
        else:
            for rule in self.rules_:
                scores[rule.mask(numeric, codes)] += rule.class_counts
            none = scores.sum(axis=1) == 0
            scores[none] = self.default_counts_
        return scores

    def predict_proba(self, X):
        """Class distribution of the deciding rule (ordered) or of the summed firing rules."""
        scores = self._class_scores(X)
        return scores / scores.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Predicted class labels (ties to the first class in ``classes_``)."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self._class_scores(X), axis=1)]

    # ------------------------------------------------------------------ display
    def format_rules(self) -> str:
        """The fitted rules, one per line, with the default rule last."""
        check_is_fitted(self)
        n_rules = len(self.rules_)
        head = (
            f"{type(self).__name__}: {n_rules} rule{'s' * (n_rules != 1)}, "
            f"{self.theory_size_} condition{'s' * (self.theory_size_ != 1)}, "
            f"{self.mode}, stopping={self.stopping}"
        )
        lines = [head]
        lines += [f"  {i}. {rule}" for i, rule in enumerate(self.rules_, 1)]
        counts = ", ".join(str(int(c)) for c in self.default_counts_)
        lines.append(f"  default: {self.default_class_}  [{counts}]")
        return "\n".join(lines)

    def __str__(self) -> str:
        try:
            return self.format_rules()
        except NotFittedError:
            return self.__repr__()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags
