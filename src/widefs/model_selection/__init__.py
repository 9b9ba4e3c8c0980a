"""Nested, leakage-free evaluation and search certificates (experiments and command line)."""

from widefs.model_selection._certificate import SearchCertificate, search_certificate
from widefs.model_selection._design_splits import DesignKFold, GroupCheckedCV, check_group_splits
from widefs.model_selection._fallback import PriorFallbackClassifier
from widefs.model_selection._metrics import MajorityBaseline, majority_baseline
from widefs.model_selection._nested import (
    nested_evaluate,
    selected_feature_mask,
    selection_stability,
)
from widefs.model_selection._prescreen import Prescreened, f_scores_blockwise

__all__ = [
    "DesignKFold",
    "GroupCheckedCV",
    "MajorityBaseline",
    "Prescreened",
    "PriorFallbackClassifier",
    "SearchCertificate",
    "check_group_splits",
    "f_scores_blockwise",
    "majority_baseline",
    "nested_evaluate",
    "search_certificate",
    "selected_feature_mask",
    "selection_stability",
]
