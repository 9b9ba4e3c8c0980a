"""The compiled derivation of a row subset's candidate table (:meth:`CandidateTable.subset`).

Why numba: the derivation is a renumbering of every bin, candidate and walk entry, a few
hundred thousand entries on colon-sized data; done with numpy it took a dozen boolean
compressions and gathers, about as long as building the subset's table from scratch. One
pass over each array here is a few times cheaper. Loaded on first use, like the beam rounds.
"""

from __future__ import annotations

import numba
import numpy as np

from widefs._utils import KERNEL_JIT_OPTIONS

__all__ = ["subset_arrays"]


@numba.njit(**KERNEL_JIT_OPTIONS)
def subset_arrays(
    bins, rows, feature_nominal, feature_offset, feature_n_bins, cand_op, cand_feature,
    cand_value, cand_bin, walk_rows, walk_bins,
):  # fmt: skip
    """The arrays of the candidate table of the rows ``rows`` (a boolean mask).

    Returns ``(bins, offset, n_bins, first, cand_feature, cand_op, cand_value, cand_bin,
    walk_rows, walk_bins)``, in the order and dtypes of :meth:`CandidateTable.build`.
    """
    n, F = bins.shape
    total = np.int64(0)
    for f in range(F):
        total += feature_n_bins[f]
    present = np.zeros(total, dtype=np.bool_)
    position = np.empty(n, dtype=np.intp)  # row index within the subset
    n_sub = np.int64(0)
    for i in range(n):
        position[i] = n_sub
        if rows[i]:
            n_sub += 1
            for f in range(F):
                if bins[i, f] >= 0:
                    present[bins[i, f]] = True
    before = np.empty(total + 1, dtype=np.intp)  # the new id of bin k: present bins before k
    before[0] = 0
    for k in range(total):
        before[k + 1] = before[k] + present[k]
    offset = np.empty(F, dtype=np.intp)
    n_bins = np.empty(F, dtype=np.intp)
    first = np.empty(F, dtype=np.intp)
    n_cand = np.int64(0)
    for f in range(F):
        offset[f] = before[feature_offset[f]]
        n_bins[f] = before[feature_offset[f] + feature_n_bins[f]] - offset[f]
        first[f] = n_cand
        n_cand += n_bins[f] if feature_nominal[f] else 2 * n_bins[f]
    out_feature = np.empty(n_cand, dtype=np.intp)
    out_op = np.empty(n_cand, dtype=np.intp)
    out_value = np.empty(n_cand, dtype=np.float64)
    out_bin = np.empty(n_cand, dtype=np.intp)
    c = np.int64(0)
    for s in range(cand_bin.size):
        if present[cand_bin[s]]:
            f = cand_feature[s]
            out_feature[c] = f
            out_op[c] = cand_op[s]
            out_bin[c] = before[cand_bin[s]]
            # A category's value is its code among the categories the rows take.
            out_value[c] = out_bin[c] - offset[f] if feature_nominal[f] else cand_value[s]
            c += 1
    sub_bins = np.empty((n_sub, F), dtype=np.intp)
    for i in range(n):
        if rows[i]:
            for f in range(F):
                b = bins[i, f]
                sub_bins[position[i], f] = before[b] if b >= 0 else -1
    sub_walk_rows = np.empty((F, n_sub), dtype=np.intp)
    sub_walk_bins = np.empty((F, n_sub), dtype=np.intp)
    for f in range(F):
        q2 = 0
        for q in range(n):
            r = walk_rows[f, q]
            if rows[r]:
                b = walk_bins[f, q]
                sub_walk_rows[f, q2] = position[r]
                sub_walk_bins[f, q2] = before[b] if b >= 0 else -1
                q2 += 1
    return (
        sub_bins, offset, n_bins, first, out_feature, out_op, out_value, out_bin, sub_walk_rows,
        sub_walk_bins,
    )  # fmt: skip
