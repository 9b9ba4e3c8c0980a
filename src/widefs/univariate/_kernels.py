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

# ``error_model="numpy"``: a division by zero gives inf or nan as numpy's does (the one-label
# path is numpy), and without the zero test in every division numba's loops over the features
# vectorize (the test is a branch out of the loop). Loops run over the features innermost: a
# block has dozens to hundreds of them, where a split has a few dozen validation rows.
# Each ``np.empty`` signature inside a kernel is one more function compiled on a first run
# (~0.04 s apiece): the two-class kernels use one, float rows (the constant flags too), and the
# errors are written to the caller's array. The scratch rows stay the kernels' own: rows a
# caller passes might alias the output for all LLVM knows (the errors ran 8% slower on them).


@numba.njit(**KERNEL_JIT_OPTIONS, error_model="numpy")
def gnb_batch_moments(s1, s2, counts, var_smoothing):
    """Per-class means and smoothed variances from the weighted sums, in place.

    s1, s2: (L, C, B) sums of x and x**2 over each class's training rows, overwritten with
    the means and variances of ``_weighted_moments`` (same operations, same order: one
    pass instead of a dozen (L, C, B) temporaries); counts: (L, C) class sizes.
    """
    L, C, B = s1.shape
    t1 = np.empty(B)  # the sums over the classes, then
    t2 = np.empty(B)
    tot_var = np.empty(B)
    constant = np.empty(B)  # 1.0 where the feature or a class is constant (float, not bool:
    # one ``np.empty`` signature less to compile)
    for lab in range(L):
        n_train = counts[lab, 0]
        for c in range(1, C):
            n_train += counts[lab, c]
        for j in range(B):  # (loops, not slices: those take seconds to compile)
            t1[j] = s1[lab, 0, j]
            t2[j] = s2[lab, 0, j]
        for c in range(1, C):  # numpy sums the class axis in order
            for j in range(B):
                t1[j] += s1[lab, c, j]
                t2[j] += s2[lab, c, j]
        for j in range(B):
            tot_mean = t1[j] / n_train
            tv = t2[j] / n_train - tot_mean * tot_mean
            tv = tv if tv >= 0.0 else 0.0  # np.maximum(., 0.0)
            tot_var[j] = tv
            constant[j] = 1.0 if tv <= 0.0 else 0.0
        for c in range(C):
            safe = counts[lab, c] if counts[lab, c] >= 1.0 else 1.0
            for j in range(B):
                mean = s1[lab, c, j] / safe
                var = s2[lab, c, j] / safe - mean * mean
                var = var if var >= 0.0 else 0.0
                var = var + var_smoothing * tot_var[j]
                s1[lab, c, j] = mean
                s2[lab, c, j] = var
                constant[j] = 1.0 if var <= 0.0 else constant[j]
        for j in range(B):
            if constant[j] != 0.0:  # a constant feature or class: equal means, unit variances
                for c in range(C):
                    s1[lab, c, j] = 0.0
                    s2[lab, c, j] = 1.0


@numba.njit(**KERNEL_JIT_OPTIONS, error_model="numpy")
def gnb_batch_errors(mean, var, log_var, log_prior, x_v, y_val, out):
    """Validation errors of two-class naive Bayes for L label vectors, from its moments.

    mean, var, log_var: (L, 2, B); log_prior: (L, 2); x_v: (V, B) validation values;
    y_val: (L, V) codes; out: (L, B) int64, written. Each class's quadratic
    ``(qa x + qb) x + qc`` is formed as ``_gnb_decisions`` forms it, and class 1 predicted
    where the difference of the two (class 1's minus class 0's) is positive.
    """
    L, _, B = mean.shape
    V = x_v.shape[0]
    qa = np.empty(B)  # the differences of the two quadratics' coefficients
    qb = np.empty(B)
    qc = np.empty(B)
    for lab in range(L):
        lp0 = log_prior[lab, 0]
        lp1 = log_prior[lab, 1]
        for j in range(B):
            inv0 = 1.0 / var[lab, 0, j]
            inv1 = 1.0 / var[lab, 1, j]
            qb0 = mean[lab, 0, j] * inv0
            qb1 = mean[lab, 1, j] * inv1
            qa[j] = -0.5 * inv1 - -0.5 * inv0
            qb[j] = qb1 - qb0
            qc[j] = ((lp1 - 0.5 * log_var[lab, 1, j]) - (0.5 * mean[lab, 1, j]) * qb1) - (
                (lp0 - 0.5 * log_var[lab, 0, j]) - (0.5 * mean[lab, 0, j]) * qb0
            )
            out[lab, j] = 0
        for i in range(V):
            one = y_val[lab, i] == 1
            for j in range(B):
                x = x_v[i, j]
                d = (qa[j] * x + qb[j]) * x
                d = d + qc[j]
                out[lab, j] += (d > 0.0) != one  # a tie predicts class 0


@numba.njit(**KERNEL_JIT_OPTIONS, error_model="numpy")
def gnb_batch_errors_multi(mean, var, log_var, log_prior, x_v, y_val):
    """:func:`gnb_batch_errors` for three classes or more: the first maximum of the C
    quadratics (as ``np.argmax``). Returns (L, B)."""
    L, C, B = mean.shape
    V = x_v.shape[0]
    out = np.empty((L, B), dtype=np.int64)  # every entry written below
    qa = np.empty((C, B))
    qb = np.empty((C, B))
    qc = np.empty((C, B))
    best_v = np.empty(B)
    best = np.empty(B, dtype=np.int64)
    for lab in range(L):
        for c in range(C):
            lp = log_prior[lab, c]
            for j in range(B):
                inv = 1.0 / var[lab, c, j]
                qa[c, j] = -0.5 * inv
                qb[c, j] = mean[lab, c, j] * inv
                qc[c, j] = (lp - 0.5 * log_var[lab, c, j]) - (0.5 * mean[lab, c, j]) * qb[c, j]
        for j in range(B):
            out[lab, j] = 0
        for i in range(V):
            for j in range(B):
                x = x_v[i, j]
                best_v[j] = (qa[0, j] * x + qb[0, j]) * x + qc[0, j]
                best[j] = 0
            for c in range(1, C):
                for j in range(B):
                    x = x_v[i, j]
                    v = (qa[c, j] * x + qb[c, j]) * x + qc[c, j]
                    if v > best_v[j]:  # np.argmax keeps the first maximum
                        best_v[j] = v
                        best[j] = c
            code = y_val[lab, i]
            for j in range(B):
                out[lab, j] += best[j] != code
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
