"""CN2 rule induction with optional process-oriented stopping (Domingos 1999).

CN2 (Clark & Niblett 1989; Clark & Boswell 1991) learns rules one at a time by a beam
search over conjunctions of conditions. Domingos (IJCAI 1999, Sec. 3-4) stops each rule's
search with the process-oriented estimate of Eq. 13: the more rule versions the search has
generated, the more the best rule's observed error is pulled towards the prior error.

Each beam round (count every one-condition specialization of every beam member, rank them,
keep the best distinct conjunctions) is one call of :func:`widefs.rules._beam.beam_round`
and its compiled steps; the search for one rule (:mod:`widefs.rules._rule_search`)
applies the stopping rules between rounds, and this module keeps the rule lists. The first
fit on a machine compiles the rounds (a few seconds, cached on disk); importing this module
does not.

``fit`` reads top-down: validate and encode the input (:func:`widefs._utils.encode_fit`,
missing values kept missing), build the candidate table, learn the rules
(``_learn_ordered`` / ``_learn_unordered``, each returning a :class:`_RuleSet`), store them.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from widefs._compat import Interval, StrOptions, fit_context
from widefs._utils import (
    SupportMixin,
    check_classes,
    encode_fit,
    encode_transform,
    feature_names_or_default,
    refuse_sparse,
)
from widefs.rules._poe import combine_unchecked, effective_hypotheses, poe1_estimate
from widefs.rules._rule import EQ, OP_SYMBOLS, Condition, Rule, format_value
from widefs.rules._rule_search import find_rule
from widefs.rules._shared_rounds import rounds_key
from widefs.rules._table import CandidateTable

__all__ = ["CN2Classifier"]


@dataclass(frozen=True)
class _RuleSet:
    """What a learning loop returns: the rules, the class counts of the default rule and,
    for a decision list, how many training rows it classifies correctly (each rule predicts
    its majority class on the rows it takes, the default rule on the rest)."""

    rules: list
    default_counts: np.ndarray
    n_correct: int | None = None


class CN2Classifier(SupportMixin, ClassifierMixin, BaseEstimator):
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
    categorical_features : "from_dtype", None or array-like, default="from_dtype"
        Which columns are nominal: ``"from_dtype"`` takes pandas categorical, string, object
        and boolean columns, boolean arrays and object-array columns holding strings or
        booleans; ``None``: every column numeric; otherwise a boolean mask, column indices
        or column names (as in :class:`widefs.search.SequentialSelector`).

    Attributes
    ----------
    rules_ : list of Rule
        The learned rules in order (without the default rule); ``str(rule)`` reads
        ``IF a == v AND b <= 3 THEN class  [counts]``.
    default_class_ : object
        Prediction when no rule fires.
    default_counts_ : ndarray of int
        Class counts behind the default rule.
    class_counts_ : ndarray of int
        Training examples of each class: the prediction for a row whose every value is
        missing (no rule can use it, and the default rule of a decision list only speaks
        for the examples no rule took).
    theory_size_ : int
        Total number of conditions over all rules (Table 1 of Domingos 1999).
    search_score_ : float
        Training accuracy of the learned rules with the default rule (higher is better):
        the score :func:`widefs.model_selection.search_certificate` certifies, for every
        ``stopping`` (the POE estimate is a correction of its own, not what is certified).
    classes_ : ndarray
        Class labels.
    categorical_features_ : ndarray of bool
        Columns treated as nominal.
    categories_ : list of ndarray
        Sorted category texts of each nominal column (empty for numeric columns).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    See Also
    --------
    widefs.rules.poe_combine : The process-oriented estimate (Eq. 13).
    widefs.rules.rules_summary : CN2-POE on a held-out split, ready to print.
    get_support : The features the rules test.

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
        "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
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
        categorical_features="from_dtype",
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
        self.categorical_features = categorical_features

    # ------------------------------------------------------------------ scoring
    def _alpha(self):
        if self.alpha == "auto":
            return 0.05 if self.stopping == "significance" else None
        return self.alpha

    def _poe_m(self, n_classes: int) -> float:
        return float(n_classes) if self.poe_m == "laplace" else float(self.poe_m)

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
        # (poe_combine without its checks: the estimate and prior lie in [0, 1], m_k >= 1.)
        return combine_unchecked(eps_hat, m_k, prior, self.poe_effective)

    def _make_rule(self, entry, counts, prediction_code, m_k, estimate) -> Rule:
        conditions = []
        table = self._table
        for s in entry.sids.tolist():
            feature = int(table.cand_feature[s])
            op = int(table.cand_op[s])
            value = float(table.cand_value[s])
            name = self._names[feature]
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
    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the rule list (or unordered rule set) from ``X`` and ``y``.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Numeric and nominal columns; NaN/None mark missing values.
        y : array_like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        refuse_sparse(self, X)  # before any work: one line saying what to do
        self._check_quality_mode()
        Xe, y, self._encoding = encode_fit(
            self, X, y, self.categorical_features, missing="propagate"
        )
        self.classes_, y_codes = check_classes(self, y, min_classes=1)
        self.categorical_features_ = self._encoding.nominal.copy()
        self.categories_ = [c.copy() for c in self._encoding.categories]
        self._names = [str(n) for n in feature_names_or_default(self)]
        self._table = CandidateTable.shared(Xe, self._encoding.nominal, self._encoding.n_categories)
        # Inside a sharing block, fits on the same data share their beam rounds.
        self._rounds_key = rounds_key(Xe, self._encoding)
        return self._learn_codes(Xe, y_codes)

    def permutation_search_scores(self, X, y, permutations, n_jobs=None):
        """``search_score_`` of the rules re-learned on each permuted labelling.

        Equal to ``clone(self).fit(X, y[perm]).search_score_`` for every row ``perm`` of
        ``permutations`` (the refit loop is its test oracle), but the encoding and the
        table of candidate conditions, which do not depend on the labels, are built once.
        Used by :func:`widefs.model_selection.search_certificate`.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Training data.
        y : array_like of shape (n_samples,)
            Class labels.
        permutations : ndarray of int, shape (n_permutations, n_samples)
            Index arrays; row ``i`` gives the labelling ``y[permutations[i]]``.
        n_jobs : int, default=None
            Permutations learned in parallel threads. Results do not depend on it.

        Returns
        -------
        scores : ndarray of float, shape (n_permutations,)
        """
        from widefs.rules._refits import permutation_search_scores

        return permutation_search_scores(self, X, y, permutations, n_jobs=n_jobs)

    def out_of_fold_predictions(self, X, Y, folds, n_jobs=None):
        """Cross-validated predictions of the rules for many labellings of the same ``X``.

        ``out[i, j]`` is the prediction for example ``j`` of the rules learned on the
        examples outside its fold ``folds[i, j]``, with labels ``Y[i]``: equal to
        ``clone(self).fit(X[train], Y[i, train]).predict(X[test])`` fold by fold (the refit
        loop is its test oracle). The encoding and the candidate table are built once on
        all examples and each fold's table is derived from it without sorting again, so
        only the rule search runs per fold. Data with nominal columns take the refit loop.
        Used by :func:`widefs.model_selection.search_certificate` (``score="cv"``).

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Training data.
        Y : array_like of shape (n_labellings, n_samples)
            Class labels, one labelling per row.
        folds : array_like of int, shape (n_labellings, n_samples)
            The fold of each example in each labelling's cross-validation.
        n_jobs : int, default=None
            Labellings learned in parallel threads. Results do not depend on it.

        Returns
        -------
        predictions : ndarray of shape (n_labellings, n_samples)

        Examples
        --------
        >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
        >>> Y = np.array([[0, 0, 0, 1, 1, 1]])
        >>> folds = np.array([[0, 1, 0, 1, 0, 1]])
        >>> CN2Classifier(alpha=None).out_of_fold_predictions(X, Y, folds).tolist()
        [[0, 0, 1, 1, 1, 1]]
        """
        from widefs.rules._refits import out_of_fold_predictions

        return out_of_fold_predictions(self, X, Y, folds, n_jobs=n_jobs)

    def _check_quality_mode(self):
        if self.quality == "entropy" and self.mode == "unordered":
            raise ValueError(
                "quality='entropy' ranks rules by class purity and is defined for "
                "mode='ordered' only; use 'laplace' or 'm_estimate' with mode='unordered'."
            )

    def _learn_codes(self, Xe, y_codes, rows=None):
        """Learn the rules from the encoded data and class codes; set the fitted attributes.

        ``rows`` (a mask; None: all) are the rows learned from, on a table of every row (a
        cross-validation fold: :func:`widefs.rules._refits.fold_model`); the other rows'
        codes are never read.
        """
        y_rows = y_codes if rows is None else y_codes[rows]
        totals = np.bincount(y_rows, minlength=self.classes_.size)
        learn = self._learn_ordered if self.mode == "ordered" else self._learn_unordered
        result = learn(y_codes, totals, np.ones(y_codes.size, dtype=bool) if rows is None else rows)
        self.class_counts_ = totals
        self.rules_ = result.rules
        self.default_counts_ = result.default_counts
        self.default_class_ = self.classes_[int(np.argmax(self.default_counts_))]
        self.theory_size_ = int(sum(r.length for r in self.rules_))
        # The certified score: training accuracy of the rules (higher is better). A decision
        # list knows it from learning (the rows each rule took); a rule set is scored.
        if result.n_correct is not None:
            self.search_score_ = result.n_correct / y_rows.size
        else:
            scores = self._encoded_class_scores(Xe if rows is None else Xe[rows])
            self.search_score_ = float(np.mean(np.argmax(scores, axis=1) == y_rows))
        return self

    def _prior(self, y_codes, active, totals, target=None) -> float:
        """``eps_prior`` of Eq. 13 (``poe_prior``): the default error of the rows rules are
        learned from, or (``"class"``, unordered mode) the error of predicting ``target``."""
        counts = np.bincount(y_codes[active], minlength=totals.size)
        if self.poe_prior == "all":
            counts = totals
        if self.poe_prior == "class" and target is not None:
            return 1.0 - counts[target] / counts.sum()
        return 1.0 - counts.max() / counts.sum()

    def _learn_ordered(self, y_codes, totals, rows) -> _RuleSet:
        """A decision list: each rule predicts its majority class; covered rows leave."""
        C = totals.size
        rules = []
        correct = 0
        active = rows.copy()
        while active.any():
            if np.count_nonzero(np.bincount(y_codes[active], minlength=C)) <= 1:
                break  # the default rule already classifies the rest without error
            prior = self._prior(y_codes, active, totals)
            entry, m_k, est = find_rule(self, self._table, y_codes, C, active, None, prior)
            if entry is None or not entry.sids.size:
                break
            prediction = int(np.argmax(entry.counts))
            rules.append(self._make_rule(entry, entry.counts, prediction, m_k, est))
            correct += int(entry.counts[prediction])
            active &= ~entry.covered
        left = np.bincount(y_codes[active], minlength=C)
        correct += int(left.max()) if left.sum() else 0
        return _RuleSet(rules, left if left.sum() else totals, correct)

    def _learn_unordered(self, y_codes, totals, rows) -> _RuleSet:
        """Rules per class on the full set, removing only that class's covered rows."""
        C = totals.size
        rules = []
        for t in range(C):
            active = rows.copy()
            while (active & (y_codes == t)).any():
                prior = self._prior(y_codes, active, totals, t)
                entry, m_k, est = find_rule(self, self._table, y_codes, C, active, t, prior)
                if entry is None or not entry.sids.size or entry.counts[t] == 0:
                    break
                # Unordered rules report their counts on the whole training set.
                counts = np.bincount(y_codes[self._table.coverage(entry.sids) & rows], minlength=C)
                rules.append(self._make_rule(entry, counts, t, m_k, est))
                active &= ~(entry.covered & (y_codes == t))
        return _RuleSet(rules, totals)

    def _get_support_mask(self):
        """The features tested by some rule's conditions."""
        mask = np.zeros(self.n_features_in_, dtype=bool)
        for rule in self.rules_:
            for cond in rule.conditions:
                mask[cond.feature] = True
        return mask

    def _class_scores(self, X) -> np.ndarray:
        check_is_fitted(self)
        return self._encoded_class_scores(encode_transform(self, X, self._encoding))

    def _encoded_class_scores(self, Xe) -> np.ndarray:
        n, C = Xe.shape[0], self.classes_.size
        scores = np.zeros((n, C))
        # A row with every value missing (NaN; a negative category code: missing or unseen)
        # tells nothing: it gets the training class distribution, not the default rule's (in a
        # decision list, that rule speaks only for the few examples no rule took).
        unobserved = (np.isnan(Xe) | (self._encoding.nominal & (Xe < 0))).all(axis=1)
        if self.mode == "ordered":
            undecided = np.ones(n, dtype=bool)
            for rule in self.rules_:
                fire = undecided & rule.mask(Xe)
                scores[fire] = rule.class_counts
                undecided &= ~fire
            scores[undecided] = self.default_counts_
            scores[unobserved] = self.class_counts_
        else:
            for rule in self.rules_:
                scores[rule.mask(Xe)] += rule.class_counts
            none = scores.sum(axis=1) == 0
            scores[none] = self.default_counts_
            scores[unobserved] = self.class_counts_
        return scores

    def predict_proba(self, X):
        """Class distribution of the deciding rule (ordered) or of the summed firing rules.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            The columns seen in ``fit``.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Training class frequencies behind the prediction, in ``classes_`` order; a row
            whose every value is missing gets the class frequencies of all training examples.
        """
        scores = self._class_scores(X)
        return scores / scores.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Predicted class labels (ties to the first class in ``classes_``).

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            The columns seen in ``fit``; missing values allowed.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels.
        """
        check_is_fitted(self)
        return self.classes_[np.argmax(self._class_scores(X), axis=1)]

    # ------------------------------------------------------------------ display
    def format_rules(self) -> str:
        """The fitted rules, one per line, with the default rule last.

        Returns
        -------
        text : str
            A header line, the numbered rules and the default rule (also ``str(model)``).
        """
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
        # Strings are accepted as category labels, but values that are neither numbers nor
        # labels (a dict, a list) are rejected with TypeError, as scikit-learn expects of
        # estimators without the "string" tag (check_dtype_object).
        tags.input_tags.categorical = True
        return tags
