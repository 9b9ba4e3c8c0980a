"""Matrices read a block at a time that read a store: checked before a value is computed.

A zarr array is wrapped in a checked :class:`~widefs._utils._stores.StoreArray`; a dask
array is checked through its graph, where ``dask.array.from_zarr`` (and ``from_array`` of a
zarr array) keep the zarr arrays it reads: each is checked as
:func:`~widefs._utils._stores.check_zarr_array` checks one, from its metadata only.
"""

from __future__ import annotations

import threading

from widefs._utils._stores import StoreArray, check_zarr_array, is_zarr_array

__all__ = ["check_dask_array", "checked_matrix"]

# The dask arrays last checked, by identity (kept alive, so an id is not reused): a matrix read
# a block at a time is checked once, not once a block. Not by name: a name is a digest of the
# store's path, not of its metadata, which may have changed when the store is opened again.
_CHECKED: dict[int, object] = {}
_MAX_CHECKED = 8
_CHECKED_LOCK = threading.Lock()


def _is_dask_array(X) -> bool:
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "__dask_graph__")


# What a value of a type is to the walk of a graph (the type's attributes for dask's tasks).
_LEAF, _ZARR, _SEQUENCE, _MAPPING = "leaf", "zarr", "sequence", "mapping"
_KINDS: dict[type, str | tuple[str, ...]] = {}
# Attributes of dask's task objects that hold no argument: names, digests, flags.
_NOT_ARGUMENTS = frozenset(
    {"key", "_dependencies", "_token", "_repr", "_is_coro", "_data_producer"}
)


def _kind(cls: type) -> str | tuple[str, ...]:
    root = cls.__module__.split(".")[0]
    if root == "zarr" and hasattr(cls, "oindex"):
        return _ZARR
    if issubclass(cls, tuple | list | set | frozenset):
        return _SEQUENCE
    if issubclass(cls, dict):
        return _MAPPING
    if root == "dask":  # tasks and their arguments: every attribute that may hold one
        slots = [a for c in cls.__mro__ for a in getattr(c, "__slots__", ())]
        return tuple(a for a in dict.fromkeys(slots) if a not in _NOT_ARGUMENTS)
    return _LEAF  # numbers, text, slices, functions: nothing a store is read through


def _graph_zarr_arrays(graph) -> list:
    """The zarr arrays anywhere in a dask graph: values of its own (``from_zarr``'s default)
    or arguments of its tasks (``inline_array=True``), however deep."""
    found, seen, stack = {}, set(), list(graph.values())
    while stack:
        value = stack.pop()
        kind = _KINDS.get(type(value))
        if kind is None:
            kind = _KINDS[type(value)] = _kind(type(value))
        if kind is _LEAF or id(value) in seen:
            continue
        seen.add(id(value))
        if kind is _ZARR:
            found[id(value)] = value
        elif kind is _SEQUENCE:
            stack.extend(value)
        elif kind is _MAPPING:
            stack.extend(value.values())
        else:
            stack.extend(getattr(value, a, None) for a in kind)
            stack.extend(getattr(value, "__dict__", {}).values())
    return list(found.values())


def check_dask_array(X, where: str = "X (a dask array)") -> None:
    """Check every zarr array a dask array reads (types and codecs) before it is computed.

    ``dask.array.from_zarr`` (and ``from_array`` of a zarr array) read the store's chunks
    with zarr when the array is computed: a pickle codec there would run. The arrays in the
    graph are checked as :func:`check_zarr_array` checks one; only metadata is read.

    Parameters
    ----------
    X : dask array
    where : str, default="X (a dask array)"
        Names the array in an error.

    Raises
    ------
    DataError
        A zarr array in the graph that :func:`check_zarr_array` refuses, in one line.

    See Also
    --------
    checked_matrix : The check for any matrix read a block at a time.

    Examples
    --------
    >>> import dask.array as da
    >>> check_dask_array(da.zeros((2, 3)))  # no store read: nothing to refuse
    """
    if _CHECKED.get(id(X)) is X:
        return
    for array in _graph_zarr_arrays(X.__dask_graph__()):
        path = getattr(array, "path", "") or ""
        check_zarr_array(array, f"{where}: the zarr array {path!r} it reads")
    with _CHECKED_LOCK:
        if len(_CHECKED) >= _MAX_CHECKED:
            _CHECKED.pop(next(iter(_CHECKED)))
        _CHECKED[id(X)] = X


def checked_matrix(X, where: str = "X"):
    """``X`` ready to be read a block at a time, checked first when it reads a store.

    Parameters
    ----------
    X : ndarray, memmap, zarr array or dask array
    where : str, default="X"
        Names the matrix in an error.

    Returns
    -------
    X : StoreArray or the input
        A zarr array as a :class:`StoreArray` of numbers (type and codecs checked, a damaged
        chunk one line); a dask array after :func:`check_dask_array`; anything else as is.

    Raises
    ------
    DataError
        A store array that is not numbers, or is decoded by a codec that could run code.

    See Also
    --------
    check_zarr_array, check_dask_array : The checks.

    Examples
    --------
    >>> import numpy as np
    >>> checked_matrix(np.eye(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if isinstance(X, StoreArray):
        return X
    if is_zarr_array(X):
        return StoreArray(X, f"{where} (a zarr array)", "numeric")
    if _is_dask_array(X):
        check_dask_array(X, f"{where} (a dask array)")
    return X
