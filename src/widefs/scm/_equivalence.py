"""Features equivalent to a rule on the training data: the same split of the examples.

A stump splits the training examples into those where it fires and the others. Another
feature ``g`` is *equivalent* when some stump on ``g`` makes exactly the same split: its values
on the firing examples all lie above its values on the others (the stump ``g > t`` for a
``t`` in between) or all below them (``g <= t``). On the training data nothing tells such
features apart: the greedy took the lowest index among them, and a biologist should see the
whole group (k-mers of one gene, co-regulated genes), as kover's users do.

Nothing pairwise is built. Each rule's split is one boolean pattern over the examples:

- presence/absence features (:class:`~widefs.scm._bitpacked.PackedBinary`): the split pattern
  *is* the packed column, so a feature is equivalent when its words equal the rule's
  pattern (or its complement) on the training rows: an exact hash, one pass of word
  comparisons over the packed matrix;
- numeric features: one pass over the columns (a block at a time, in memory or out of
  core) computes, per feature, the minimum and maximum over the firing examples and over
  the others; ``min(fired) > max(others)`` or ``max(fired) < min(others)``.

Either way the cost is one pass over the data per fitted model, whatever the group sizes.
"""

from __future__ import annotations

import numpy as np

from widefs._utils import block_width, is_lazy_matrix, iter_column_blocks, load_columns
from widefs.scm._bitpacked import PackedBinary, packed_equivalents

__all__ = ["equivalent_stumps"]


# Candidates left when the rows are no longer read one at a time (the rest is checked on
# their columns whole).
_FEW = 16


def _ordered_like(X: np.ndarray, fired: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Features whose values on the firing examples all lie above their values on the
    others, and those whose values all lie below them, each in increasing order.

    Exactly the test of :func:`_numeric_equivalents`, on fewer columns. The rows are read
    one firing and one other example at a time, keeping each candidate's running minimum
    over the firing rows read and maximum over the others (maximum and minimum for the
    other direction): once they overlap the feature cannot be ordered like the split, so
    a few rows drop almost every unrelated feature, even when one side of the split has a
    single example. The first two rows split the features between the two directions (a
    feature tied on them has neither); the few candidates left are checked on every row.
    """
    on, off = np.flatnonzero(fired), np.flatnonzero(~fired)
    first_on, first_off = X[on[0]], X[off[0]]  # whole rows: views, no gather
    n_rows = max(on.size, off.size)
    out = []
    for above in (True, False):
        ext_on, ext_off = (np.minimum, np.maximum) if above else (np.maximum, np.minimum)
        cand = np.flatnonzero(first_on > first_off if above else first_on < first_off)
        a, b = first_on[cand], first_off[cand]
        k = 1
        while cand.size > _FEW and k < n_rows:
            if k < on.size:
                a = ext_on(a, X[on[k], cand])
            if k < off.size:
                b = ext_off(b, X[off[k], cand])
            keep = a > b if above else a < b
            cand, a, b = cand[keep], a[keep], b[keep]
            k += 1
        if cand.size and k < n_rows:  # (after every row, a and b are exact)
            sub = X[:, cand]
            if above:
                cand = cand[sub[on].min(axis=0) > sub[off].max(axis=0)]
            else:
                cand = cand[sub[on].max(axis=0) < sub[off].min(axis=0)]
        out.append(cand)
    return out[0], out[1]


def _numeric_equivalents(X, splits: list[np.ndarray]) -> list[list[tuple[int, str]]]:
    """:func:`equivalent_stumps` for a numeric matrix, one block of columns at a time (an
    in-memory array: the few features ordered like each split, see :func:`_ordered_like`)."""
    if isinstance(X, np.ndarray) and X.dtype.kind == "f" and not is_lazy_matrix(X):
        found = [_ordered_like(X, fired) for fired in splits]
        return [
            [(int(g), ">") for g in above] + [(int(g), "<=") for g in below]
            for above, below in found
        ]
    out: list[list[tuple[int, str]]] = [[] for _ in splits]
    lazy = is_lazy_matrix(X)
    for b in iter_column_blocks(X.shape[1], block_width(X.shape[0])):
        Xb = load_columns(X, b) if lazy else np.asarray(X[:, b], dtype=np.float64)
        for i, fired in enumerate(splits):
            on, off = Xb[fired], Xb[~fired]
            above = on.min(axis=0) > off.max(axis=0)  # g > t fires exactly on `fired`
            below = on.max(axis=0) < off.min(axis=0)  # g <= t does
            out[i] += [(b.start + int(g), ">") for g in np.flatnonzero(above)]
            out[i] += [(b.start + int(g), "<=") for g in np.flatnonzero(below)]
    return out


def equivalent_stumps(X, splits: list[np.ndarray]) -> list[tuple[tuple[int, str], ...]]:
    """For each split of the training examples, every stump that makes it, by feature.

    Parameters
    ----------
    X : ndarray, out-of-core matrix or PackedBinary
        The training data the model was fitted on.
    splits : list of ndarray of bool, shape (n_samples,)
        Where each rule fires on the training examples. A split that puts every example on
        one side has no stump and gets an empty tuple.

    Returns
    -------
    list of tuple of (int, str)
        Per split, ``(feature, direction)`` pairs (``">"`` or ``"<="``) sorted by feature:
        the stump ``x_feature > t`` or ``x_feature <= t`` (for some ``t``) fires exactly on the
        split's examples. A rule's own stump is among them.

    Examples
    --------
    >>> X = np.array([[1.0, 7.0, 0.0], [2.0, 5.0, 1.0], [3.0, 6.0, 1.0]])
    >>> equivalent_stumps(X, [np.array([False, True, True])])  # fires where x0 > 1
    [((0, '>'), (1, '<='), (2, '>'))]
    >>> equivalent_stumps(X, [np.array([False, False, True])])  # x0 > 2: x1 and x2 cannot
    [((0, '>'),)]
    """
    splits = [np.asarray(s, dtype=bool) for s in splits]
    proper = [bool(s.any() and not s.all()) for s in splits]
    todo = [s for s, ok in zip(splits, proper, strict=True) if ok]
    if isinstance(X, PackedBinary):
        found = [packed_equivalents(X, s) for s in todo]
    else:
        found = _numeric_equivalents(X, todo) if todo else []
    found_iter = iter(found)
    return [
        tuple(sorted(next(found_iter), key=lambda e: (e[0], e[1] != ">"))) if ok else ()
        for ok in proper
    ]
