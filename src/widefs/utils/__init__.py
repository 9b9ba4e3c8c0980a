"""Small shared helpers: argument validation and seeding."""

from widefs.utils._blocks import (
    block_width,
    is_lazy_matrix,
    iter_column_blocks,
    load_columns,
    validate_lazy_xy,
)
from widefs.utils._random import spawn_seeds
from widefs.utils._validation import as_float_array, check_integer_array, check_unit_interval

__all__ = [
    "as_float_array",
    "block_width",
    "check_integer_array",
    "check_unit_interval",
    "is_lazy_matrix",
    "iter_column_blocks",
    "load_columns",
    "spawn_seeds",
    "validate_lazy_xy",
]
