"""Univariate, chance-aware discriminative feature selection (Palatucci & Carlson 2008)."""

from widefs.univariate._protocol import (
    LeaveOneOutCurve,
    ThresholdOutcome,
    leave_one_out_threshold_curve,
)
from widefs.univariate._scores import (
    gaussian_nb_log_likelihoods,
    gaussian_nb_split_errors,
    halves_masks,
    stump_split_errors,
)
from widefs.univariate._selector import DiscriminativeSelector, threshold_in_errors

__all__ = [
    "DiscriminativeSelector",
    "LeaveOneOutCurve",
    "ThresholdOutcome",
    "gaussian_nb_log_likelihoods",
    "gaussian_nb_split_errors",
    "halves_masks",
    "leave_one_out_threshold_curve",
    "stump_split_errors",
    "threshold_in_errors",
]
