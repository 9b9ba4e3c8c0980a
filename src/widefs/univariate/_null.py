"""Label permutations that keep every split's class counts: the calibrated null.

Under the null hypothesis that a feature carries no information about the class, the
labels of any set of examples are exchangeable given the features. widefs permutes the
labels only *within the cells of the splits* -- the groups of examples that play the
same role (training / validation / unused) in every split -- so that each permuted
labelling has exactly the class counts of the real one on every training and validation
part: the null is the chance error of *this* scorer on *these* class proportions, with
the features' real correlations left intact. Permutations are index arrays drawn once,
in the caller, from ``random_state``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state

__all__ = ["PermutationNull", "label_permutations", "split_cells"]


def split_cells(train_masks: ArrayLike, val_masks: ArrayLike) -> NDArray[np.intp]:
    """Group the examples by their role in every split: the cells permutations stay within.

    Two examples share a cell when, in every split, both are in the training part, both
    in the validation part, or both in neither. For the stratified halves there are two
    cells (the two halves); for k disjoint folds, k cells (the folds).

    Parameters
    ----------
    train_masks, val_masks : array_like of bool, shape (n_splits, n_samples)

    Returns
    -------
    ndarray of int, shape (n_samples,)
        Cell index of each example, numbered by first appearance.

    See Also
    --------
    label_permutations : random permutations within these cells.

    Examples
    --------
    >>> tr = np.array([[1, 1, 0, 0, 0, 1]], bool)
    >>> split_cells(tr, ~tr).tolist()
    [0, 0, 1, 1, 1, 0]
    """
    train = np.atleast_2d(np.asarray(train_masks, dtype=bool))
    val = np.atleast_2d(np.asarray(val_masks, dtype=bool))
    if train.shape != val.shape:
        raise ValueError(
            f"train_masks and val_masks must have the same shape, got {train.shape} and {val.shape}."
        )
    role = train.astype(np.int8) + 2 * val.astype(np.int8)  # 0 unused, 1 train, 2 val, 3 both
    _, first, cells = np.unique(role.T, axis=0, return_index=True, return_inverse=True)
    # Renumber by first appearance so that the numbering does not depend on role codes.
    rank = np.empty(first.size, dtype=np.intp)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[cells.reshape(-1)]


def label_permutations(
    cells: ArrayLike, n_permutations: int, random_state=None
) -> NDArray[np.intp]:
    """Random permutations of the example indices that move examples only within their cell.

    Row ``b`` is an index array: ``y[perms[b]]`` is the b-th permuted labelling, with
    the same class counts as ``y`` in every cell (hence in every training and validation
    part of the splits the cells come from). Drawn in one call from ``random_state``,
    so the result does not depend on how the scoring is later split into jobs.

    Parameters
    ----------
    cells : array_like of int, shape (n_samples,)
        Cell of each example (see :func:`split_cells`).
    n_permutations : int
        Number of permutations B, ``>= 1``.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    ndarray of int, shape (n_permutations, n_samples)

    See Also
    --------
    split_cells : the cells of a set of splits.
    DiscriminativeSelector : ``null="permutation"`` scores all features on these.

    Examples
    --------
    >>> cells = np.array([0, 0, 1, 1, 1, 0])
    >>> perms = label_permutations(cells, 4, random_state=0)
    >>> perms.shape
    (4, 6)
    >>> bool((cells[perms] == cells).all())  # every example stays in its cell
    True
    """
    cells = np.asarray(cells)
    if cells.ndim != 1:
        raise ValueError("cells must be one-dimensional (one cell per example).")
    if int(n_permutations) != n_permutations or n_permutations < 1:
        raise ValueError(f"n_permutations must be a positive integer, got {n_permutations!r}.")
    rng = check_random_state(random_state)
    n = cells.size
    keys = rng.random_sample((int(n_permutations), n))
    # Sorting by (cell, random key) lists each cell's examples in random order, cells in
    # ascending order; ``grouped`` lists them in index order. Mapping one onto the other
    # permutes each cell within itself.
    _, codes = np.unique(cells, return_inverse=True)
    order = np.argsort(codes[None, :] + keys, axis=1, kind="stable")
    grouped = np.argsort(codes, kind="stable")
    perms = np.empty_like(order)
    perms[:, grouped] = order
    return perms


@dataclass(frozen=True)
class PermutationNull:
    """Summary of the label-permutation null of a set of error counts.

    Attributes
    ----------
    min_errors : ndarray of shape (n_permutations,)
        The best eligible feature's errors on each permutation.
    expected_errors : float
        Mean errors of an eligible feature over permutations (E[X] under the null).
    expected_min_errors : float
        Mean of ``min_errors`` (E[X_(1)] under the null).
    pvalues : ndarray of shape (n_features,)
        Per-feature permutation p-values (1 for ineligible features).
    n_permutations : int
    """

    min_errors: NDArray[np.int64]
    expected_errors: float
    expected_min_errors: float
    pvalues: NDArray[np.float64]
    n_permutations: int
