"""Small shared helpers: argument validation and seeding."""

from widefs.utils._random import spawn_seeds
from widefs.utils._validation import as_float_array, check_integer_array, check_unit_interval

__all__ = ["as_float_array", "check_integer_array", "check_unit_interval", "spawn_seeds"]
