"""The docstring fragments the evaluators and the wrapper selectors share
(:class:`~widefs._utils.Substitution`)."""

from __future__ import annotations

from widefs._utils import Substitution

__all__ = ["search_docs"]

search_docs = Substitution(
    evaluator_params="""
    target_class : label, default=None
        Score only this class (the class-specific criterion of CEFS): with
        ``class_criterion="recall"`` the leave-one-out accuracy on its instances.
        The classifier still learns from all instances.
    class_criterion : {"recall", "balanced"}, default="recall"
        With ``target_class``: ``"recall"`` is Soares' criterion; ``"balanced"`` averages
        that recall with the specificity (instances of other classes not predicted as the
        target), so a classifier that calls everything the target scores 1/2.
    categorical_features : "from_dtype", None or array-like, default="from_dtype"
        Nominal columns (indices, names or a boolean mask). ``"from_dtype"``:
        non-numeric columns of a DataFrame or object array. Nominal values are compared
        for equality only; a missing nominal value is its own category.
    n_jobs : int, default=None
        Threads for scoring candidates (processes for :class:`ClassifierEvaluator`).
        Results do not depend on it.""",
    evaluator_see_also="""
    See Also
    --------
    KNNEvaluator : Exact leave-one-out kNN.
    NaiveBayesEvaluator : Closed-form leave-one-out naive Bayes.
    ClassifierEvaluator : Any scikit-learn classifier, cross-validated.
    SequentialSelector : Forward or backward selection scored by an evaluator.
    GeneticSelector : The genetic algorithm scored by an evaluator.""",
    selector_params="""
    evaluator : KNNEvaluator, NaiveBayesEvaluator or ClassifierEvaluator, default=None
        What scores a subset: the classifier, its settings, the criterion
        (``target_class``, ``class_criterion``), the nominal columns
        (``categorical_features``) and the threads (``n_jobs``). ``None`` means
        ``KNNEvaluator()``: leave-one-out kNN with k chosen from the dissertation's grid.
        Cloned, never modified.
    verbose : int, default=0
        Progress through the ``widefs.search`` logger.""",
    selector_attrs="""
    search_score_ : float
        The score the search maximized, ``score_`` (higher is better): what
        :func:`widefs.model_selection.search_certificate` compares with the same search
        on permuted labels.
    evaluator_ : KNNEvaluator, NaiveBayesEvaluator or ClassifierEvaluator
        A copy of ``evaluator`` with the settings chosen before the search (the k of
        ``n_neighbors="auto"``) that scored the subsets; its ``fit_model`` fits that
        classifier on a subset.
    n_neighbors_ : int or None
        k of a :class:`KNNEvaluator` (``evaluator_.n_neighbors``); ``None`` for others.
    k_scores_ : dict or None
        Leave-one-out score of each k tried by ``n_neighbors="auto"``.
    categorical_features_ : ndarray of bool
        Columns treated as nominal.
    classes_ : ndarray
        Class labels.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.""",
    selector_see_also="""
    See Also
    --------
    SequentialSelector : Forward or backward selection on the same evaluators.
    GeneticSelector : The genetic algorithm on the same evaluators.
    KNNEvaluator : Leave-one-out kNN, the default evaluator.
    NaiveBayesEvaluator : Closed-form leave-one-out naive Bayes.
    widefs.ensemble.ClassSpecificEnsemble : One search per class (CEFS).""",
)
