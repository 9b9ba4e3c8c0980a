"""numba kernels of the batched (label-matrix) scorers, imported lazily by ``_scores``.

Each kernel scores L label vectors (for example label permutations) on one split for a
block of features, with the arithmetic of the one-label-vector numpy path written out
in the same order (no fused multiply-add: numba does not contract without fastmath), so
a batch reproduces the one-at-a-time error counts exactly. The compiled kernels are cached
for later processes (:data:`widefs._utils.KERNEL_JIT_OPTIONS`).
"""

import numba
import numpy as np

from widefs._utils import KERNEL_JIT_OPTIONS


@numba.njit(**KERNEL_JIT_OPTIONS)
def gnb_binary_errors(da, db, dc, x_t, y_val):
    """Errors of two-class naive Bayes: predict class 1 where ``(da x + db) x + dc > 0``.

    da, db, dc: (L, B) differences of the class quadratics; x_t: (B, V) validation values
    (feature-major); y_val: (L, V) codes. Returns (L, B) error counts.
    """
    L, B = da.shape
    V = x_t.shape[1]
    out = np.empty((L, B), dtype=np.int64)  # every entry written below
    for j in range(B):
        for lab in range(L):
            a = da[lab, j]
            b = db[lab, j]
            c = dc[lab, j]
            wrong = np.int64(0)  # (not a literal: one numba typing pass less)
            for i in range(V):
                x = x_t[j, i]
                d = (a * x + b) * x
                d = d + c
                pred_one = d > 0.0
                if pred_one != (y_val[lab, i] == 1):
                    wrong += 1
            out[lab, j] = wrong
    return out


@numba.njit(**KERNEL_JIT_OPTIONS)
def gnb_multiclass_errors(qa, qb, qc, x_t, y_val):
    """Errors of naive Bayes with C classes: argmax over ``(qa x + qb) x + qc`` (first max).

    qa, qb, qc: (L, C, B); x_t: (B, V); y_val: (L, V). Returns (L, B).
    """
    L, C, B = qa.shape
    V = x_t.shape[1]
    out = np.empty((L, B), dtype=np.int64)  # every entry written below
    for j in range(B):
        for lab in range(L):
            wrong = np.int64(0)  # (not a literal: one numba typing pass less)
            for i in range(V):
                x = x_t[j, i]
                best = np.int64(0)  # (not a literal: one numba typing pass less)
                best_v = (qa[lab, 0, j] * x + qb[lab, 0, j]) * x + qc[lab, 0, j]
                for c in range(1, C):
                    v = (qa[lab, c, j] * x + qb[lab, c, j]) * x + qc[lab, c, j]
                    if v > best_v:  # np.argmax keeps the first maximum
                        best_v = v
                        best = c
                if best != y_val[lab, i]:
                    wrong += 1
            out[lab, j] = wrong
    return out


@numba.njit(**KERNEL_JIT_OPTIONS)
def stump_errors(order, valid, thr, y_train, total, x_val_t, y_val, n_classes):
    """Errors of the fewest-training-errors stump for L label vectors on one split.

    order: (B, nt) training rows sorted by each feature; valid, thr: (B, nt - 1) cut
    validity and thresholds; y_train: (L, nt) codes of the training rows; total: (L, C)
    their class counts; x_val_t: (B, V) validation values; y_val: (L, V). Rules of
    ``widefs.stumps.fit_error_stumps`` / ``predict_stumps``: first maximum of the correct
    count over valid cuts (smallest threshold), majority per side with ties to the lower
    code, the overall majority unless a cut strictly beats it; ``x <= t`` goes left.
    Returns (L, B).
    """
    B, nt = order.shape
    L = y_train.shape[0]
    V = x_val_t.shape[1]
    C = n_classes
    out = np.empty((L, B), dtype=np.int64)  # every entry written below
    counts = np.empty(C, dtype=np.int64)  # zeroed for each feature
    best_counts = np.empty(C, dtype=np.int64)
    best_counts[:] = 0
    # Non-literal initial values (``zero``): numba widens a literal by one more typing pass
    # over the whole kernel for each loop it flows through.
    zero = np.int64(0)
    for lab in range(L):
        majority = zero
        for c in range(1, C):
            if total[lab, c] > total[lab, majority]:
                majority = c
        top = total[lab, majority]
        for j in range(B):
            counts[:] = 0
            best_correct = zero - 1
            best_k = zero
            for k in range(nt - 1):
                counts[y_train[lab, order[j, k]]] += 1
                if valid[j, k]:
                    lmax = zero
                    rmax = zero
                    for c in range(C):
                        if counts[c] > lmax:
                            lmax = counts[c]
                        r = total[lab, c] - counts[c]
                        if r > rmax:
                            rmax = r
                    if lmax + rmax > best_correct:
                        best_correct = lmax + rmax
                        best_k = k
                        best_counts[:] = counts
            left = majority
            right = majority
            t = np.inf
            if best_correct > top:
                left = zero
                right = zero
                for c in range(1, C):
                    if best_counts[c] > best_counts[left]:
                        left = c
                    if total[lab, c] - best_counts[c] > total[lab, right] - best_counts[right]:
                        right = c
                t = thr[j, best_k]
            wrong = np.int64(0)  # (not a literal: one numba typing pass less)
            for i in range(V):
                pred = left if t >= x_val_t[j, i] else right
                if pred != y_val[lab, i]:
                    wrong += 1
            out[lab, j] = wrong
    return out
