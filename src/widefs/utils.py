"""Utilities a user calls beside the estimators: reproducible seeds, parallel calls, shared
label-free work, and reading a wide (lazy) matrix by blocks of columns (presence/absence
matrices packed in bits among them).

The helpers the widefs packages share among themselves are private.
"""

from widefs._utils import (
    PackedBits,
    feature_blocks,
    is_lazy_matrix,
    iter_column_blocks,
    load_columns,
    parallel_calls,
    sharing_label_free_work,
    spawn_seeds,
)

__all__ = [
    "PackedBits",
    "feature_blocks",
    "is_lazy_matrix",
    "iter_column_blocks",
    "load_columns",
    "parallel_calls",
    "sharing_label_free_work",
    "spawn_seeds",
]
