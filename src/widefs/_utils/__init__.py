"""Internals shared by the widefs packages: input encoding, blocks, seeding, argument checks,
compile options, the label-free cache.

Private: the packages import these names from here; users get the few they call from
:mod:`widefs.utils`.
"""

from widefs._utils._blocks import (
    DEFAULT_BLOCK_BYTES,
    ComputedColumns,
    PackedBits,
    RowsOf,
    block_width,
    column_chunk,
    column_major,
    column_min_max,
    feature_blocks,
    is_lazy_matrix,
    is_sparse_matrix,
    iter_column_blocks,
    load_columns,
    store_blocks,
    validate_lazy_xy,
)
from widefs._utils._dask_stores import check_dask_array, checked_matrix
from widefs._utils._docstrings import Substitution
from widefs._utils._encoding import (
    MISSING_CODE,
    UNSEEN_CODE,
    FeatureEncoding,
    check_classes,
    encode_fit,
    encode_transform,
    feature_names_or_default,
)
from widefs._utils._fit_memo import FitMemo, shared_fit, sharing_fits
from widefs._utils._jit import HELPER_JIT_OPTIONS, KERNEL_JIT_OPTIONS
from widefs._utils._label_free import (
    LabelFreeCache,
    array_key,
    data_digest,
    label_free,
    label_free_cache,
    sharing_label_free_work,
)
from widefs._utils._parallel import parallel_calls, release_free_memory
from widefs._utils._random import spawn_seeds
from widefs._utils._stores import (
    MAX_TEXT_WIDTH,
    NUMBER_KINDS,
    StoreArray,
    check_array_metadata,
    check_zarr_array,
    is_zarr_array,
    open_store,
    value_kind,
)
from widefs._utils._support import SupervisedSelectorMixin, SupportMixin, top_k_mask
from widefs._utils._validation import (
    as_float_array,
    check_integer_array,
    check_unit_interval,
    refuse_sparse,
)

__all__ = [
    "DEFAULT_BLOCK_BYTES",
    "HELPER_JIT_OPTIONS",
    "KERNEL_JIT_OPTIONS",
    "MAX_TEXT_WIDTH",
    "MISSING_CODE",
    "NUMBER_KINDS",
    "UNSEEN_CODE",
    "ComputedColumns",
    "FeatureEncoding",
    "FitMemo",
    "LabelFreeCache",
    "PackedBits",
    "RowsOf",
    "StoreArray",
    "Substitution",
    "SupervisedSelectorMixin",
    "SupportMixin",
    "array_key",
    "as_float_array",
    "block_width",
    "check_array_metadata",
    "check_classes",
    "check_dask_array",
    "check_integer_array",
    "check_unit_interval",
    "check_zarr_array",
    "checked_matrix",
    "column_chunk",
    "column_major",
    "column_min_max",
    "data_digest",
    "encode_fit",
    "encode_transform",
    "feature_blocks",
    "feature_names_or_default",
    "is_lazy_matrix",
    "is_sparse_matrix",
    "is_zarr_array",
    "iter_column_blocks",
    "label_free",
    "label_free_cache",
    "load_columns",
    "open_store",
    "parallel_calls",
    "refuse_sparse",
    "release_free_memory",
    "shared_fit",
    "sharing_fits",
    "sharing_label_free_work",
    "spawn_seeds",
    "store_blocks",
    "top_k_mask",
    "validate_lazy_xy",
    "value_kind",
]
