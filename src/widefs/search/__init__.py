"""Wrapper feature-subset search with fast leave-one-out evaluators."""

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
    "dissertation_k_grid",
    "initial_population",
    "rank_fitness",
]
