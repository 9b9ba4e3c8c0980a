"""How much memory the data of a run may take, and the one-line refusal when a file needs more.

A file is refused *before* it is read when its shape, known from the header and a count of
its lines (decompressed on the fly, stopping as soon as the count is too large), says the
numbers would not fit. The limit is the smallest of: the memory the system reports free
(``MemAvailable``), the container's memory limit (cgroup v2 ``memory.max``) and the
address-space limit (``ulimit -v``) less what the process and the libraries still to load
take; ``--max-memory`` replaces all three.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from widefs.exceptions import DataError

try:
    import resource
except ImportError:  # Windows: no address-space limit to read
    resource = None

__all__ = [
    "Budget",
    "check_fits",
    "format_bytes",
    "memory_budget",
    "numbers_need",
    "parse_size",
    "row_need",
]

# Copies of the numbers alive at the peak of a run: the matrix read, the checks' masks and
# imputed copy, and the analysis' sorted and standardised copies.
MEMORY_FACTOR = 4
# Memory per column besides its numbers: its name as a Python string, held in lists, sets
# and the report's tables.
NAME_BYTES = 200
# Address space the analysis reserves after the data are read (scikit-learn, numba's
# compiler, matplotlib, worker threads): about 0.6 GB measured on a colon run.
ANALYSIS_RESERVE = 600 << 20
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)(?:I?B)?\s*\Z", re.IGNORECASE)


@dataclass(frozen=True)
class Budget:
    """Bytes the data may take, what sets that limit, and how a user raises it."""

    limit: int
    source: str
    hint: str


def parse_size(text: str) -> int:
    """Bytes of a size such as ``"8G"``, ``"500M"``, ``"1.5GB"`` or ``"2000000000"``.

    Examples
    --------
    >>> parse_size("8G"), parse_size("1.5gb"), parse_size("512")
    (8589934592, 1610612736, 512)
    """
    match = _SIZE.match(str(text))
    if match is None or float(match.group(1)) <= 0:
        raise DataError(f"--max-memory must be a size such as 8G, 500M or 2000000000, got {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def format_bytes(n: float) -> str:
    """``n`` bytes for a reader: ``"1.5 GB"``, ``"320 MB"``.

    Examples
    --------
    >>> format_bytes(1.5 * 2**30), format_bytes(320 * 2**20), format_bytes(900)
    ('1.5 GB', '320 MB', '900 bytes')
    """
    for unit, size in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{int(n)} bytes"


def _meminfo_available() -> int | None:
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        text = ""
    match = re.search(r"^MemAvailable:\s+(\d+) kB", text, re.MULTILINE)
    if match:
        return int(match.group(1)) << 10
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup_available() -> int | None:
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
    except (OSError, ValueError):
        return None
    return None if limit == "max" or not limit.isdigit() else max(int(limit) - used, 0)


def _address_space_available() -> int | None:
    if resource is None:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        status = Path("/proc/self/status").read_text()
        used = int(re.search(r"^VmSize:\s+(\d+) kB", status, re.MULTILINE).group(1)) << 10
    except (OSError, AttributeError, ValueError):
        used = 0
    return max(soft - used - ANALYSIS_RESERVE, 0)


def memory_budget(max_memory: int | None = None) -> Budget:
    """The bytes a run's data may take: ``max_memory`` if given, else what the machine has.

    Examples
    --------
    >>> memory_budget(8 << 30).limit, memory_budget(8 << 30).source
    (8589934592, 'set by --max-memory')
    """
    if max_memory is not None:
        return Budget(
            max_memory, "set by --max-memory", "raise --max-memory if the machine has more"
        )
    found = [
        (
            _address_space_available(),
            "of room under the address-space limit (ulimit -v)",
            "raise it with ulimit -v (widefs and its libraries take about 1 GB of it)",
        ),
        (
            _cgroup_available(),
            "of room under the container's memory limit (cgroup memory.max)",
            "raise the container's memory limit or use a larger machine",
        ),
        (
            _meminfo_available(),
            "of free memory on this machine",
            "free memory, use a larger machine, or pass --max-memory SIZE to try anyway",
        ),
    ]
    found = [(n, source, hint) for n, source, hint in found if n is not None]
    if not found:
        return Budget(1 << 62, "unknown", "")
    n, source, hint = min(found, key=lambda f: f[0])
    return Budget(n, source, hint)


def numbers_need(rows: int, columns: int) -> int:
    """Bytes a run needs for a ``rows`` x ``columns`` table of numbers (see MEMORY_FACTOR)."""
    return rows * row_need(columns) + columns * NAME_BYTES


def row_need(columns: int) -> int:
    """Bytes each row of ``columns`` numbers adds: the numbers' copies, its id and label."""
    return columns * 8 * MEMORY_FACTOR + NAME_BYTES


def check_fits(need: int, budget: Budget, what: str) -> None:
    """Raise :class:`DataError` in one line when ``need`` bytes exceed ``budget``.

    Examples
    --------
    >>> check_fits(1 << 30, Budget(1 << 20, "set by --max-memory", "raise it"), "x.csv")
    Traceback (most recent call last):
    ...
    widefs.exceptions.DataError: x.csv would need about 1.0 GB of memory, more than the 1.0 MB set by --max-memory; raise it
    """
    if need <= budget.limit:
        return
    raise DataError(
        f"{what} would need about {format_bytes(need)} of memory, more than the "
        f"{format_bytes(budget.limit)} {budget.source}; {budget.hint}"
    )
