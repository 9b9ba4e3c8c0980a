"""Wrapper feature-subset search with fast leave-one-out evaluators (Soares 2010).

Selectors (scikit-learn ``SelectorMixin``):

- :class:`SequentialSelector`: forward (SFS) or backward (SBS) selection.
- :class:`GeneticSelector`: the genetic algorithm of Soares (2010).

Both take one evaluator object, the way a scikit-learn meta-estimator takes
``estimator=``: :class:`KNNEvaluator` (exact leave-one-out kNN with incremental pairwise
distances, the default), :class:`NaiveBayesEvaluator` (closed-form leave-one-out naive
Bayes) or :class:`ClassifierEvaluator` (cross-validation of any scikit-learn classifier,
much slower), optionally scoring one class's instances only (``target_class``, for CEFS in
:mod:`widefs.ensemble`). An evaluator builds the engine that predicts held-out rows of any
subset (:class:`KNNLeaveOneOut`, :class:`NaiveBayesLeaveOneOut`,
:class:`CrossValidationEvaluator`) and the classifier fitted on one subset
(:class:`KNNModel`, :class:`NaiveBayesModel`, :class:`SubsetClassifier`); a
:class:`Criterion` turns predictions into a score. The compiled kernels load on first use.
"""

from widefs.search._criterion import Criterion
from widefs.search._cross_validation import CrossValidationEvaluator, SubsetClassifier
from widefs.search._evaluators import (
    CLASS_K_GRID,
    ClassifierEvaluator,
    KNNEvaluator,
    NaiveBayesEvaluator,
    dissertation_k_grid,
)
from widefs.search._genetic import GeneticSelector
from widefs.search._knn import KNNLeaveOneOut
from widefs.search._knn_model import KNNModel
from widefs.search._naive_bayes import NaiveBayesLeaveOneOut, NaiveBayesModel
from widefs.search._sequential import SequentialSelector

__all__ = [
    "CLASS_K_GRID",
    "ClassifierEvaluator",
    "Criterion",
    "CrossValidationEvaluator",
    "GeneticSelector",
    "KNNEvaluator",
    "KNNLeaveOneOut",
    "KNNModel",
    "NaiveBayesEvaluator",
    "NaiveBayesLeaveOneOut",
    "NaiveBayesModel",
    "SequentialSelector",
    "SubsetClassifier",
    "dissertation_k_grid",
]
