"""The stump kernel: one presort of every feature, and threshold scans on it.

Every stump-based method of widefs (the Set Covering Machines of :mod:`widefs.scm`, the
numeric conditions of :mod:`widefs.rules`, the stump scorer of :mod:`widefs.univariate`)
sorts each feature once with :class:`SortedFeatures` (or its packed form
:func:`packed_presort`) and reads every candidate threshold from cumulative sums along
that order. numpy only: importing or using this package compiles nothing.
"""

from widefs.stumps._presort import SortedFeatures, packed_presort
from widefs.stumps._scan import RunLayout, StumpTable, fit_error_stumps, predict_stumps, run_layout

__all__ = [
    "RunLayout",
    "SortedFeatures",
    "StumpTable",
    "fit_error_stumps",
    "packed_presort",
    "predict_stumps",
    "run_layout",
]
