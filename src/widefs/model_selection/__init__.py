"""Nested, leakage-free evaluation used by the experiments and the command line."""

from widefs.model_selection._fallback import PriorFallbackClassifier
from widefs.model_selection._nested import (
    nested_evaluate,
    selected_feature_mask,
    selection_stability,
)

__all__ = [
    "PriorFallbackClassifier",
    "nested_evaluate",
    "selected_feature_mask",
    "selection_stability",
]
