"""Threshold-scan kernel: per feature, sorted values and prefix sums of per-sample channels."""

from widefs.stumps._scan import (
    SortedFeatures,
    StumpTable,
    ThresholdCounts,
    cut_thresholds,
    feature_blocks,
    fit_error_stumps,
    predict_stumps,
    prefix_sums,
    threshold_class_counts,
)

__all__ = [
    "SortedFeatures",
    "StumpTable",
    "ThresholdCounts",
    "cut_thresholds",
    "feature_blocks",
    "fit_error_stumps",
    "predict_stumps",
    "prefix_sums",
    "threshold_class_counts",
]
