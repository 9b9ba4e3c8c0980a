"""Wrapper feature-subset search with fast leave-one-out evaluators (Soares 2010).

Selectors (scikit-learn ``SelectorMixin``):

- :class:`SequentialSelector`: forward (SFS) or backward (SBS) selection.
- :class:`GeneticSelector`: the genetic algorithm of Soares (2010).

Both score subsets by exact leave-one-out of a kNN (incremental pairwise distances) or
naive Bayes (closed form) classifier, or by cross-validation of any scikit-learn
classifier, optionally on one class's instances only (``target_class``, for CEFS in
:mod:`widefs.ensemble`). :class:`EvaluatorFactory` builds those evaluators
(:class:`KNNLeaveOneOut`, :class:`NaiveBayesLeaveOneOut`, :class:`CrossValidationEvaluator`)
and the matching classifiers fitted on a subset (:class:`KNNModel`,
:class:`NaiveBayesModel`, :class:`SubsetClassifier`); a :class:`Criterion` turns
predictions into a score. The compiled kernels load on first use.
"""

from widefs.search._evaluators import (
    CLASS_K_GRID,
    Criterion,
    CrossValidationEvaluator,
    EvaluatorFactory,
    KNNLeaveOneOut,
    KNNModel,
    NaiveBayesLeaveOneOut,
    NaiveBayesModel,
    SubsetClassifier,
    dissertation_k_grid,
)
from widefs.search._genetic import GeneticSelector
from widefs.search._sequential import SequentialSelector

__all__ = [
    "CLASS_K_GRID",
    "Criterion",
    "CrossValidationEvaluator",
    "EvaluatorFactory",
    "GeneticSelector",
    "KNNLeaveOneOut",
    "KNNModel",
    "NaiveBayesLeaveOneOut",
    "NaiveBayesModel",
    "SequentialSelector",
    "SubsetClassifier",
    "dissertation_k_grid",
]
