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

__all__ = [
    "CLASS_K_GRID",
    "Criterion",
    "CrossValidationEvaluator",
    "KNNLeaveOneOut",
    "KNNModel",
    "NaiveBayesLeaveOneOut",
    "NaiveBayesModel",
    "argmax_ties",
    "dissertation_k_grid",
]
