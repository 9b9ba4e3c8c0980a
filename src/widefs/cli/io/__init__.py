"""The command line's readers: data files, label files and stores, checked before any analysis.

Everything here turns files into validated arrays (:class:`LoadedData`) or refuses them with
one :class:`~widefs.exceptions.DataError` naming the problem; nothing here analyses.
"""

from widefs.cli.io._data import LoadedData, load_cli_data
from widefs.cli.io._memory import parse_size
from widefs.cli.io._shared import shared_matrix

__all__ = ["LoadedData", "load_cli_data", "parse_size", "shared_matrix"]
