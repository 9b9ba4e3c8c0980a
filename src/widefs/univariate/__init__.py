"""Univariate, chance-aware discriminative feature selection (Palatucci & Carlson 2008).

- :class:`ClassDifferenceScreen`: the FDR screen, per-feature p-values valid for every kind
  of feature (limma's moderated F for Gaussian-looking features, exact tests for two-valued
  ones, rank statistics for skewed or tied ones, voom for counts);
- :class:`DiscriminativeSelector`: one-feature classifiers scored on validation data,
  thresholds from an analytic or a label-permutation null (the paper's protocol; its
  continuous statistics with pooled permutation p-values are deprecated);
- :func:`class_difference_scores`: that statistic, usable like ``f_classif``;
- :func:`leave_one_out_threshold_curve`: the paper's leave-one-out protocol;
- scorers vectorized over features, splits and label vectors
  (:func:`gaussian_nb_split_errors`, :func:`stump_split_errors`);
- the permutation machinery (:func:`split_cells`, :func:`label_permutations`).
"""

from widefs.univariate._distribution import class_difference_scores
from widefs.univariate._error_counts import ChanceNull, default_permutations
from widefs.univariate._null import label_permutations, split_cells
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
from widefs.univariate._screen import ClassDifferenceScreen, auto_spread_weight
from widefs.univariate._selector import DiscriminativeSelector
from widefs.univariate._thresholds import threshold_in_errors

__all__ = [
    "ChanceNull",
    "ClassDifferenceScreen",
    "DiscriminativeSelector",
    "LeaveOneOutCurve",
    "ThresholdOutcome",
    "auto_spread_weight",
    "class_difference_scores",
    "default_permutations",
    "gaussian_nb_log_likelihoods",
    "gaussian_nb_split_errors",
    "halves_masks",
    "label_permutations",
    "leave_one_out_threshold_curve",
    "split_cells",
    "stump_split_errors",
    "threshold_in_errors",
]
