"""The fitted per-feature arrays of a ``ClassDifferenceScreen`` that the tests compare between
paths (in memory, out of core, spilled, on a Dask cluster)."""

FITTED = (
    "pvalues_",
    "min_pvalues_",
    "kinds_",
    "location_statistics_",
    "spread_statistics_",
    "spread_weights_",
    "testable_",
    "support_",
)
