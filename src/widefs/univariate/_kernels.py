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
def gnb_batch_moments(s1, s2, counts, var_smoothing):
    """Per-class means and smoothed variances from the weighted sums, in place.

    s1, s2: (L, C, B) sums of x and x**2 over each class's training rows, overwritten with
    the means and variances of ``_weighted_moments`` (same operations, same order: one
    pass instead of a dozen (L, C, B) temporaries); counts: (L, C) class sizes.
    """
    L, C, B = s1.shape
    for lab in range(L):
        n_train = counts[lab, 0]
        for c in range(1, C):
            n_train += counts[lab, c]
        for j in range(B):
            t1 = s1[lab, 0, j]
            t2 = s2[lab, 0, j]
            for c in range(1, C):  # numpy sums the class axis in order
                t1 += s1[lab, c, j]
                t2 += s2[lab, c, j]
            tot_mean = t1 / n_train
            tot_var = t2 / n_train - tot_mean * tot_mean
            tot_var = tot_var if tot_var >= 0.0 else 0.0  # np.maximum(., 0.0)
            constant = tot_var <= 0.0
            for c in range(C):
                safe = counts[lab, c] if counts[lab, c] >= 1.0 else 1.0
                mean = s1[lab, c, j] / safe
                var = s2[lab, c, j] / safe - mean * mean
                var = var if var >= 0.0 else 0.0
                s1[lab, c, j] = mean
                s2[lab, c, j] = var + var_smoothing * tot_var
                constant = constant or s2[lab, c, j] <= 0.0
            if constant:  # a constant feature or class: equal means, unit variances
                for c in range(C):
                    s1[lab, c, j] = 0.0
                    s2[lab, c, j] = 1.0


@numba.njit(**KERNEL_JIT_OPTIONS)
def gnb_batch_errors(mean, var, log_var, log_prior, x_t, y_val):
    """Validation errors of naive Bayes for L label vectors, from its moments.

    mean, var, log_var: (L, C, B); log_prior: (L, C); x_t: (B, V) validation values
    (feature-major); y_val: (L, V) codes. Each class's quadratic ``(qa x + qb) x + qc``
    is formed as ``_gnb_decisions`` forms it; two classes predict class 1 where the
    difference of the quadratics is positive, more take the first maximum. Returns (L, B).
    """
    L, C, B = mean.shape
    V = x_t.shape[1]
    out = np.empty((L, B), dtype=np.int64)  # every entry written below
    qa = np.empty(C)
    qb = np.empty(C)
    qc = np.empty(C)
    for lab in range(L):  # (label-major: the moments are read in memory order)
        for j in range(B):
            for c in range(C):
                inv = 1.0 / var[lab, c, j]
                qa[c] = -0.5 * inv
                qb[c] = mean[lab, c, j] * inv
                qc[c] = (log_prior[lab, c] - 0.5 * log_var[lab, c, j]) - (
                    0.5 * mean[lab, c, j]
                ) * qb[c]
            wrong = np.int64(0)  # (not a literal: one numba typing pass less)
            if C == 2:
                a = qa[1] - qa[0]
                b = qb[1] - qb[0]
                d0 = qc[1] - qc[0]
                for i in range(V):
                    x = x_t[j, i]
                    d = (a * x + b) * x
                    d = d + d0
                    if (d > 0.0) != (y_val[lab, i] == 1):  # a tie predicts class 0
                        wrong += 1
            else:
                for i in range(V):
                    x = x_t[j, i]
                    best = np.int64(0)  # (not a literal: one numba typing pass less)
                    best_v = (qa[0] * x + qb[0]) * x + qc[0]
                    for c in range(1, C):
                        v = (qa[c] * x + qb[c]) * x + qc[c]
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
