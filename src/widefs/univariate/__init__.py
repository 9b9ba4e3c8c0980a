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

# Each public name's module, imported on first use (PEP 562): a screen fit loads the screen's
# modules, not the selector's, the protocol's or their dependencies.
_HOMES = {
    "class_difference_scores": "widefs.univariate._distribution",
    "ChanceNull": "widefs.univariate._error_counts",
    "default_permutations": "widefs.univariate._error_counts",
    "label_permutations": "widefs.univariate._null",
    "split_cells": "widefs.univariate._null",
    "LeaveOneOutCurve": "widefs.univariate._protocol",
    "ThresholdOutcome": "widefs.univariate._protocol",
    "leave_one_out_threshold_curve": "widefs.univariate._protocol",
    "gaussian_nb_log_likelihoods": "widefs.univariate._scores",
    "gaussian_nb_split_errors": "widefs.univariate._scores",
    "halves_masks": "widefs.univariate._scores",
    "stump_split_errors": "widefs.univariate._scores",
    "ClassDifferenceScreen": "widefs.univariate._screen",
    "auto_spread_weight": "widefs.univariate._screen",
    "DiscriminativeSelector": "widefs.univariate._selector",
    "threshold_in_errors": "widefs.univariate._thresholds",
}


def __getattr__(name):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(home), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__():
    return sorted([*globals(), *_HOMES])


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
