"""Class-specific ensemble feature selection, CEFS (Soares 2010, Chapter 4)."""

from __future__ import annotations

import contextvars
import functools
import numbers

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted

from widefs._compat import HasMethods, StrOptions, fit_context
from widefs._utils import (
    SupportMixin,
    check_classes,
    encode_fit,
    encode_transform,
    feature_names_or_default,
    refuse_sparse,
    spawn_seeds,
)
from widefs.search import CLASS_K_GRID, GeneticSelector, KNNEvaluator, SequentialSelector

__all__ = ["ClassSpecificEnsemble", "subset_inclusiveness"]


def subset_inclusiveness(class_subsets: dict, overall_subset) -> dict:
    """Compare the union of the class-specific subsets with the overall subset.

    Soares (2010), Section 5.2.6.2, hypothesis parts 3 and 4: the union of the
    class-specific subsets need not contain the overall subset, and the overall subset
    need not contain that union.

    Parameters
    ----------
    class_subsets : dict {class: iterable of features}
    overall_subset : iterable of features

    Returns
    -------
    dict
        ``union`` (sorted), ``overall`` (sorted), ``only_class_specific`` (in the union,
        not in the overall subset), ``only_overall`` (the reverse), ``union_covers_overall``
        and ``overall_covers_union`` (bools).

    See Also
    --------
    ClassSpecificEnsemble.inclusiveness : The same for a fitted ensemble.

    Examples
    --------
    The dissertation's Table 11 (voting, kNN/SFS, run 1):

    >>> r = subset_inclusiveness({"republican": [4, 7], "democrat": [4, 5, 11]}, [4, 7, 12])
    >>> r["only_class_specific"], r["only_overall"]
    ([5, 11], [12])
    >>> r["union_covers_overall"], r["overall_covers_union"]
    (False, False)
    """
    union = sorted(set().union(*[set(s) for s in class_subsets.values()]))
    overall = sorted(set(overall_subset))
    only_class = sorted(set(union) - set(overall))
    only_overall = sorted(set(overall) - set(union))
    return {
        "union": union,
        "overall": overall,
        "only_class_specific": only_class,
        "only_overall": only_overall,
        "union_covers_overall": not only_overall,
        "overall_covers_union": not only_class,
    }


def _combine(member_codes, overall_codes, combiner):
    """Final codes and whether the members decided (rather than the overall model)."""
    n_classes = member_codes.shape[1]
    if combiner == "unanimous":
        decided = np.all(member_codes == member_codes[:, :1], axis=1)
        return np.where(decided, member_codes[:, 0], overall_codes), decided
    claims = member_codes == np.arange(n_classes)[None, :]
    decided = claims.sum(axis=1) == 1
    return np.where(decided, np.argmax(claims, axis=1), overall_codes), decided


def _search_data(Xe, y, encoding):
    """``(X, encoding)`` as the member searches see the ensemble's encoded ``Xe``.

    A search encodes its input again, with the ensemble's nominal columns: category codes
    are then re-read as the texts of the codes (their order changes from 11 categories on),
    numeric columns are unchanged. Done once here for every search of every relabelling.
    """
    if not encoding.nominal.any():
        return Xe, encoding
    probe = BaseEstimator()
    Xs, _, encoding = encode_fit(
        probe, Xe, y, encoding.nominal.copy(), missing="category", ensure_min_samples=2
    )
    return Xs, encoding


@functools.cache
def _init_param_names(cls) -> tuple[str, ...]:
    return tuple(BaseEstimator._get_param_names.__func__(cls))


class ClassSpecificEnsemble(SupportMixin, MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Class-specific ensemble feature selection (CEFS; Soares 2010, Chapter 4).

    For every class c a wrapper search (a copy of ``selector``) looks for the subset
    whose leave-one-out score *on the training instances of class c* is best; the
    classifier still learns from all classes. The same search with the ordinary overall
    score gives the "traditional" overall subset. One member classifier per class is
    trained on its class-specific subset, and a new instance gets:

    * ``combiner="unanimous"`` (the dissertation's rule): the class all members agree
      on; on any disagreement, the prediction of the classifier on the overall subset.
    * ``combiner="specialist"`` (beyond the paper): member c only says "c" or "not c";
      when exactly one member claims its own class, that class; otherwise the overall
      classifier. A member that calls everything its class then never decides alone.

    ``member_criterion="balanced"`` (beyond the paper) scores members by the mean of
    their class recall and specificity instead of recall alone, the remedy the
    dissertation's conclusion asks for: recall alone rewards "recallers" that predict
    their class for every instance (Soares 2010, Chapter 6), which then score 1.

    With a ``KNNEvaluator(n_neighbors="auto")`` (the default), each member picks k from
    ``member_k_grid`` by its class criterion (the dissertation limited members to
    ``k <= 10`` because larger k produced recallers), the overall search from the
    evaluator's own grid.

    Parameters
    ----------
    selector : SequentialSelector or GeneticSelector, default=None
        Template search (direction, GA settings, evaluator, ...); ``None`` means
        ``SequentialSelector()`` (forward, kNN, automatic stop). Its evaluator's
        ``target_class``, ``class_criterion`` and ``categorical_features`` are set per
        search.
    member_criterion : {"recall", "balanced"}, default="recall"
    combiner : {"unanimous", "specialist"}, default="unanimous"
    member_k_grid : array-like of int, default=(1, ..., 10)
    categorical_features : "from_dtype", None or array-like, default="from_dtype"
        Nominal columns (see :class:`~widefs.search.KNNEvaluator`).
    n_jobs : int, default=None
        Searches run in parallel threads; results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seeds of the searches (drawn up front), for selectors with a ``random_state``.

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    class_subsets_ : dict {class label: ndarray of str}
        Feature names of each class-specific subset (``x0, x1, ...`` without names).
    overall_subset_ : ndarray of str
        Feature names of the overall subset.
    class_supports_ : dict {class label: ndarray of bool}
        Each class-specific subset as a mask.
    overall_support_ : ndarray of bool
        The overall subset as a mask.
    class_selectors_ : dict {class label: fitted selector}
        The class-specific searches.
    overall_selector_ : fitted selector
        The overall search.
    members_ : dict {class label: fitted member}
        Each has ``predict_codes(X_encoded)`` on all columns (it uses its subset); built
        by the selector's ``evaluator_``.
    overall_model_ : fitted classifier
        The classifier on the overall subset.
    member_scores_ : dict {class label: float}
        Leave-one-out class criterion of each member's subset.
    overall_score_ : float
        Leave-one-out score of the overall subset.
    search_score_ : float
        The ensemble's combined criterion: leave-one-out accuracy of the combined
        prediction (members and overall classifier on the subsets the searches chose, each
        leave-one-out prediction made without its own example, the subsets not re-searched;
        higher is better). What :func:`widefs.model_selection.search_certificate` compares
        with the same searches on permuted labels.
    agreement_rate_ : float
        Fraction of training instances decided by the members (not sent to the overall
        model), from the members' leave-one-out predictions.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    See Also
    --------
    widefs.search.SequentialSelector : The default search of every member.
    widefs.search.GeneticSelector : The dissertation's genetic search.
    subset_inclusiveness : Compares the class-specific subsets with the overall one.
    get_support : The union of all subsets (what the ensemble uses).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 8))
    >>> y = np.where(X[:, 0] > 0.5, "a", np.where(X[:, 3] > 0, "b", "c"))
    >>> cefs = ClassSpecificEnsemble(SequentialSelector(n_features=1)).fit(X, y)
    >>> {c: s.tolist() for c, s in cefs.class_subsets_.items()}, cefs.overall_subset_.tolist()
    ({'a': ['x0'], 'b': ['x3'], 'c': ['x3']}, ['x0'])
    >>> float(cefs.score(X, y)) > 0.8
    True
    """

    _parameter_constraints: dict = {
        "selector": [HasMethods(["fit", "get_support"]), None],
        "member_criterion": [StrOptions({"recall", "balanced"})],
        "combiner": [StrOptions({"unanimous", "specialist"})],
        "member_k_grid": ["array-like"],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
        "n_jobs": [numbers.Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        selector=None,
        *,
        member_criterion="recall",
        combiner="unanimous",
        member_k_grid=CLASS_K_GRID,
        categorical_features="from_dtype",
        n_jobs=None,
        random_state=None,
    ):
        self.selector = selector
        self.member_criterion = member_criterion
        self.combiner = combiner
        self.member_k_grid = member_k_grid
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.random_state = random_state

    @classmethod
    def _get_param_names(cls):
        # Read once per class: scikit-learn reads ``__init__``'s signature at every
        # get_params, and a search certificate clones the ensemble for every relabelling.
        return list(_init_param_names(cls))

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Run the overall and the class-specific searches and fit the members.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Numeric and nominal columns (see ``categorical_features``).
        y : array_like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted ensemble.
        """
        refuse_sparse(self, X)  # before any work: one line saying what to do
        template = self._template()
        Xe, y, encoding = encode_fit(
            self, X, y, self.categorical_features, missing="category", ensure_min_samples=2
        )
        self.classes_, y_codes = check_classes(self, y)
        self._encoding = encoding
        return self._fit_encoded(template, Xe, y_codes, encoding, _search_data(Xe, y, encoding))

    def _template(self):
        """The search every member copies (checked)."""
        template = SequentialSelector() if self.selector is None else self.selector
        if not isinstance(template, SequentialSelector | GeneticSelector):
            raise TypeError(
                "selector must be a widefs.search SequentialSelector or GeneticSelector; "
                f"got {type(template).__name__}."
            )
        return template

    def _fit_encoded(self, template, Xe, y_codes, encoding, searched):
        """The searches, members and combined score, on data already encoded (``classes_``
        and ``_encoding`` set); ``searched`` is the data as the searches see it."""
        fitted = self._run_searches(template, y_codes, searched)
        *class_sel, overall = fitted
        names = feature_names_or_default(self)
        self.class_selectors_ = dict(zip(self.classes_.tolist(), class_sel))
        self.overall_selector_ = overall
        self.class_supports_ = {c: s.support_.copy() for c, s in self.class_selectors_.items()}
        self.overall_support_ = overall.support_.copy()
        self.class_subsets_ = {c: names[m] for c, m in self.class_supports_.items()}
        self.overall_subset_ = names[self.overall_support_]
        self.member_scores_ = {c: float(s.score_) for c, s in self.class_selectors_.items()}
        self.overall_score_ = float(overall.score_)
        data = {"n_classes": self.classes_.size, "encoding": encoding}
        self.members_ = {
            c: s.evaluator_.fit_model(Xe, y_codes, support=s.support_, **data)
            for c, s in self.class_selectors_.items()
        }
        self.overall_model_ = overall.evaluator_.fit_model(
            Xe, y_codes, support=overall.support_, **data
        )
        loo_members = np.column_stack(
            [
                s.evaluator_.leave_one_out(Xe, y_codes, **data).predict_subset(s.support_)
                for s in class_sel
            ]
        )
        loo_overall = overall.evaluator_.leave_one_out(Xe, y_codes, **data).predict_subset(
            overall.support_
        )
        combined, decided = _combine(loo_members, loo_overall, self.combiner)
        self.agreement_rate_ = float(decided.mean())
        self.search_score_ = float(np.mean(combined == y_codes))
        return self

    def permutation_search_scores(self, X, y, permutations, n_jobs=None):
        """``search_score_`` of the ensemble re-fitted on each permuted labelling.

        Equal to ``clone(self).fit(X, y[perm]).search_score_`` for every row ``perm`` of
        ``permutations`` (the plain refit loop is its test oracle): ``X`` is validated and
        encoded once, and the fits share the work that does not depend on the labels
        (:func:`widefs._utils.sharing_label_free_work`). Used by
        :func:`widefs.model_selection.search_certificate`.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Training data.
        y : array_like of shape (n_samples,)
            Class labels.
        permutations : ndarray of int, shape (n_permutations, n_samples)
            Index arrays; row ``i`` gives the labelling ``y[permutations[i]]``.
        n_jobs : int, default=None
            Threads over permutations. Results do not depend on it.

        Returns
        -------
        scores : ndarray of float, shape (n_permutations,)
        """
        from widefs._utils import sharing_label_free_work

        base = clone(self)
        base._validate_params()
        refuse_sparse(base, X)
        template = base._template()
        Xe, y, encoding = encode_fit(
            base, X, y, base.categorical_features, missing="category", ensure_min_samples=2
        )
        classes, y_codes = check_classes(base, y)
        searched = _search_data(Xe, y, encoding)
        permutations = np.asarray(permutations)

        def score(perm):
            est = clone(self)
            est.classes_, est._encoding = classes, encoding
            est.n_features_in_ = base.n_features_in_
            if hasattr(base, "feature_names_in_"):
                est.feature_names_in_ = base.feature_names_in_
            return est._fit_encoded(template, Xe, y_codes[perm], encoding, searched).search_score_

        with sharing_label_free_work():
            runs = [contextvars.copy_context().run for _ in permutations]
            scores = Parallel(n_jobs=n_jobs, backend="threading")(
                delayed(run)(score, perm) for run, perm in zip(runs, permutations)
            )
        return np.asarray(scores, dtype=float)

    def _run_searches(self, template, y_codes, searched):
        """Fit one copy of ``template`` per class (its criterion) and one overall, in threads."""
        labels = [*self.classes_, None]
        seeds = spawn_seeds(self.random_state, len(labels))
        evaluator = KNNEvaluator() if template.evaluator is None else template.evaluator
        auto_k = isinstance(evaluator, KNNEvaluator) and evaluator.n_neighbors == "auto"
        Xs, encoding = searched
        searches = []
        for label, seed in zip(labels, seeds):
            settings = {"target_class": label, "categorical_features": encoding.nominal.copy()}
            if label is not None:
                settings["class_criterion"] = self.member_criterion
                if auto_k:
                    settings["k_grid"] = list(self.member_k_grid)
            params = {"evaluator": clone(evaluator).set_params(**settings)}
            if "random_state" in template.get_params(deep=False):
                params["random_state"] = int(seed)
            searches.append(clone(template).set_params(**params))
        # The overall search runs first: its grid reaches the largest k (by default), so in a
        # label-free sharing block the candidate neighbour lists it stores serve the
        # members' smaller k too (members first would store short lists that the overall
        # search then computes again, longer). Results do not depend on the order.
        order = [len(searches) - 1, *range(len(searches) - 1)]
        # Each thread in a copy of this context: it shares a label-free cache, if any.
        runs = [contextvars.copy_context().run for _ in searches]
        fitted = Parallel(n_jobs=self.n_jobs, backend="threading")(
            delayed(run)(searches[i]._fit_encoded, Xs, y_codes, self.classes_, encoding)
            for run, i in zip(runs, order)
        )
        return [fitted[order.index(i)] for i in range(len(searches))]

    def _get_support_mask(self):
        """Every feature some member or the overall model uses."""
        mask = self.overall_support_.copy()
        for support in self.class_supports_.values():
            mask |= support
        return mask

    def _encoded(self, X):
        check_is_fitted(self)
        return encode_transform(self, X, self._encoding)

    def _member_codes(self, Xe):
        return np.column_stack([m.predict_codes(Xe) for m in self.members_.values()])

    def predict_members(self, X):
        """Each member's prediction.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            The columns seen in ``fit``.

        Returns
        -------
        labels : ndarray of shape (n_samples, n_classes)
            Column c holds the predictions of the member of ``classes_[c]``.
        """
        return self.classes_[self._member_codes(self._encoded(X))]

    def decided_by_members(self, X):
        """Whether the members decide each instance (``False``: the overall model does).

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            The columns seen in ``fit``.

        Returns
        -------
        decided : ndarray of bool, shape (n_samples,)
        """
        codes = self._member_codes(self._encoded(X))
        return _combine(codes, np.zeros(codes.shape[0], dtype=np.int64), self.combiner)[1]

    def predict(self, X):
        """Predict with the members when they decide, else with the overall model.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            The columns seen in ``fit``.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels.
        """
        Xe = self._encoded(X)
        codes, _ = _combine(
            self._member_codes(Xe), self.overall_model_.predict_codes(Xe), self.combiner
        )
        return self.classes_[codes]

    def predict_overall(self, X):
        """Predictions of the overall-subset model alone ("traditional" selection).

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            The columns seen in ``fit``.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels.
        """
        return self.classes_[self.overall_model_.predict_codes(self._encoded(X))]

    def inclusiveness(self) -> dict:
        """:func:`subset_inclusiveness` of the fitted subsets (feature names).

        Returns
        -------
        report : dict
            See :func:`subset_inclusiveness`.
        """
        check_is_fitted(self)
        return subset_inclusiveness(
            {c: list(s) for c, s in self.class_subsets_.items()}, list(self.overall_subset_)
        )
