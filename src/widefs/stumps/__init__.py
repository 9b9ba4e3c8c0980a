"""Threshold-scan kernel: per feature, sorted values and prefix sums of per-sample channels."""

from widefs.stumps._scan import (
    CutScan,
    RunLayout,
    SortedFeatures,
    StumpTable,
    ThresholdCounts,
    compact_sorted_features,
    cut_thresholds,
    feature_blocks,
    fit_error_stumps,
    predict_stumps,
    prefix_sums,
    presort_features,
    run_layout,
    scan_best_cuts,
    threshold_class_counts,
    threshold_class_counts_many,
)

__all__ = [
    "CutScan",
    "RunLayout",
    "SortedFeatures",
    "StumpTable",
    "ThresholdCounts",
    "compact_sorted_features",
    "cut_thresholds",
    "feature_blocks",
    "fit_error_stumps",
    "predict_stumps",
    "prefix_sums",
    "presort_features",
    "run_layout",
    "scan_best_cuts",
    "threshold_class_counts",
    "threshold_class_counts_many",
]
