"""Presorted blocks of columns for the greedy engines that scan sorted rows (Occam, PAC-Bayes).

The Occam and PAC-Bayes greedies score, at every step, every cut of every feature's
sorted row. In memory the presort (:class:`widefs.stumps.SortedFeatures`) is built once,
split in one block per worker thread, and compacted as examples drop out; an out-of-core
``X`` (dask, zarr, memmap) is read, checked and presorted one block of columns at a time at
every step, so only one block is in memory at once. Either way the blocks come in feature
order, so a learner that lets a later block win only when strictly better breaks ties
towards the lowest feature index, exactly as one pass over all features would.
"""

from __future__ import annotations

import numpy as np

from widefs._utils import (
    block_width,
    data_digest,
    iter_column_blocks,
    label_free,
    load_columns,
)
from widefs.scm._base import check_finite_block
from widefs.scm._parallel import threads_for
from widefs.stumps import SortedFeatures

__all__ = ["presorted_blocks"]


def _presort(X):
    sf = SortedFeatures.from_matrix(X, index_dtype=np.int32)
    return sf.order, sf.values


class _InMemory:
    """The presort of an in-memory ``X``, one block per worker thread."""

    def __init__(self, X: np.ndarray, compact_below: float):
        m, F = X.shape
        # The presort does not depend on y: a search certificate sorts once for every
        # relabelling (copies: compaction works in place).
        order, values = label_free(
            lambda: (b"SortedFeatures.int32", data_digest(X)), lambda: _presort(X), copy=True
        )
        self.sf = SortedFeatures(order=order, values=values)
        self.n_positions = m
        self.compact_below = compact_below
        self.threads = threads_for(m, F)
        self.spans = list(iter_column_blocks(F, -(-F // self.threads)))

    def presorts(self, active: np.ndarray, wanted: np.ndarray):
        """``(span, order, values, n_positions)`` of the blocks holding a wanted feature."""
        if np.sum(active) < self.compact_below * self.n_positions:  # only before a scan
            self.n_positions = self.sf.compact(active, self.n_positions)
        for span in self.spans:
            if wanted[span].any():
                yield span, self.sf.order[span], self.sf.values[span], self.n_positions


class _OutOfCore:
    """An out-of-core ``X`` read, checked and presorted one block of columns at a time."""

    threads = 1

    def __init__(self, X, block_bytes: int | None):
        m, F = X.shape
        width = block_width(m) if block_bytes is None else block_width(m, max_bytes=block_bytes)
        self.X = X
        self.spans = list(iter_column_blocks(F, width))

    def presorts(self, active: np.ndarray, wanted: np.ndarray):
        """``(span, order, values, n_positions)`` of the blocks holding a wanted feature."""
        for span in self.spans:
            if not wanted[span].any():
                continue
            Xb = load_columns(self.X, span)
            check_finite_block(Xb, span.start)
            sf = SortedFeatures.from_matrix(Xb, index_dtype=np.int32)
            yield span, sf.order, sf.values, Xb.shape[0]


def presorted_blocks(X, *, lazy: bool, compact_below: float, block_bytes: int | None = None):
    """The presorted blocks of ``X``; in memory, compacted once fewer than ``compact_below``
    of the stored positions are active (0: never)."""
    return _OutOfCore(X, block_bytes) if lazy else _InMemory(X, compact_below)
