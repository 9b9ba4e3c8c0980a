"""Wrapper feature-subset search with fast leave-one-out evaluators.

Selectors (scikit-learn ``SelectorMixin``):

- :class:`SequentialSelector`: forward (SFS) or backward (SBS) selection.
- :class:`GeneticSelector`: the genetic algorithm of Soares (2010).

Both score subsets by exact leave-one-out of a kNN (incremental pairwise distances) or
naive Bayes (closed form) classifier, or by cross-validation of any scikit-learn
classifier, optionally on one class's instances only (``target_class``, for CEFS in
:mod:`widefs.ensemble`). The evaluators (:class:`KNNLeaveOneOut`,
:class:`NaiveBayesLeaveOneOut`, :class:`CrossValidationEvaluator`) and the matching
fitted models (:class:`KNNModel`, :class:`NaiveBayesModel`) are public for reuse.
"""

from widefs.search._base import choose_k
from widefs.search._evaluators import (
    CLASS_K_GRID,
    Criterion,
    CrossValidationEvaluator,
    KNNLeaveOneOut,
    KNNModel,
    NaiveBayesLeaveOneOut,
    NaiveBayesModel,
    argmax_ties,
    dissertation_k_grid,
)
from widefs.search._genetic import GeneticSelector, initial_population, rank_fitness
from widefs.search._sequential import SequentialSelector

__all__ = [
    "CLASS_K_GRID",
    "Criterion",
    "CrossValidationEvaluator",
    "GeneticSelector",
    "KNNLeaveOneOut",
    "KNNModel",
    "NaiveBayesLeaveOneOut",
    "NaiveBayesModel",
    "SequentialSelector",
    "argmax_ties",
    "choose_k",
    "dissertation_k_grid",
    "initial_population",
    "rank_fitness",
]
