"""Permutations that respect a study design (exchangeability blocks, Winkler et al. 2014).

``groups`` means one thing: samples of a group are not independent. Which relabellings are
allowed under "no class effect" depends on how the classes sit in the groups:

- no groups: every permutation of the labels (``"free"``);
- some group holds several classes (pairs, blocks): labels are exchanged *within* groups
  (``"within"``); a group holding one class keeps it;
- every group holds one class (repeated samples of a patient): labels are exchanged
  *between whole groups* of the same size (``"between"``), so every group keeps one class
  and every class keeps its number of samples. A group whose size no other group shares
  keeps its class (Winkler et al.'s whole-block shuffling needs blocks of equal size).

:func:`permutation_indices` draws index arrays ``perm`` (labels ``y[perm]``) in the parent
from ``random_state``; :func:`widefs.stats.freedman_lane_test` uses the same schemes to
permute the residuals of the model without the class.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lgamma

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "ExchangeabilityScheme",
    "exchangeability_scheme",
    "n_relabellings",
    "permutation_indices",
]

_CASES = {"free": "independent", "within": "within groups", "between": "between groups"}


@dataclass(frozen=True)
class ExchangeabilityScheme:
    """Which relabellings of the classes a design allows.

    A frozen dataclass; its fields are the constructor's parameters.

    Parameters
    ----------
    kind : {"free", "within", "between"}
        All permutations; within groups; between whole groups of equal size.
    group_codes : ndarray of int, shape (n_samples,)
        Group of every sample (0 .. n_groups - 1; all 0 without groups).

    See Also
    --------
    exchangeability_scheme : detects it.

    Examples
    --------
    >>> exchangeability_scheme([0, 1, 0, 1], groups=[1, 1, 2, 2]).case
    'within groups'
    """

    kind: str
    group_codes: NDArray[np.intp]

    @property
    def case(self) -> str:
        """The words for a report: independent, within groups, between groups."""
        return _CASES[self.kind]


def exchangeability_scheme(y: ArrayLike, groups: ArrayLike | None = None) -> ExchangeabilityScheme:
    """Detect how labels may be exchanged: freely, within groups or between whole groups.

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Class labels.
    groups : array_like of shape (n_samples,), optional
        Group (subject, pair, patient, block) of every sample.

    Returns
    -------
    ExchangeabilityScheme
        ``"between"`` when every group holds one class, ``"within"`` when some group holds
        several, ``"free"`` without groups.

    See Also
    --------
    permutation_indices : draws the relabellings.

    Examples
    --------
    >>> exchangeability_scheme([0, 0, 1, 1], groups=["p1", "p1", "p2", "p2"]).kind
    'between'
    """
    y = np.asarray(y)
    if groups is None:
        return ExchangeabilityScheme("free", np.zeros(y.shape[0], np.intp))
    g = np.asarray(groups)
    if g.shape != y.shape:
        raise ValueError(
            f"groups must have one label per sample ({y.shape[0]}); got shape {g.shape}."
        )
    missing = (
        np.isnan(g) if g.dtype.kind == "f" else np.array([v is None or v != v for v in g.ravel()])
    )
    if missing.any():
        raise ValueError(
            f"groups has {int(missing.sum())} missing labels; give every sample its group."
        )
    _, codes = np.unique(g.astype(str) if g.dtype.kind == "O" else g, return_inverse=True)
    _, yc = np.unique(y, return_inverse=True)
    pairs = np.unique(np.column_stack([codes, yc]), axis=0)
    one_class_each = pairs.shape[0] == codes.max() + 1
    return ExchangeabilityScheme("between" if one_class_each else "within", codes.astype(np.intp))


def _log_multinomial(counts) -> float:
    counts = np.asarray(counts)
    return lgamma(counts.sum() + 1) - sum(lgamma(c + 1) for c in counts)


def n_relabellings(y: ArrayLike, groups: ArrayLike | None = None) -> float:
    """Number of distinct label vectors the scheme can reach (the identity included).

    Free: ``n! / prod n_c!``; within: the product of that over groups; between: the product
    over size strata of the multinomial of the groups' classes. The smallest permutation
    p-value is one over it.

    Parameters
    ----------
    y : array_like of shape (n_samples,)
    groups : array_like of shape (n_samples,), optional

    Returns
    -------
    float
        The count (a float, as it overflows integers quickly).

    See Also
    --------
    permutation_indices

    Examples
    --------
    >>> n_relabellings([0, 0, 1, 1]), n_relabellings([0, 1, 0, 1], groups=[0, 0, 1, 1])
    (6.0, 4.0)
    """
    y = np.asarray(y)
    scheme = exchangeability_scheme(y, groups)
    _, yc = np.unique(y, return_inverse=True)
    codes = scheme.group_codes
    if scheme.kind == "between":
        group_class = np.zeros(codes.max() + 1, np.intp)
        group_class[codes] = yc
        size = np.bincount(codes)
        strata = [np.bincount(group_class[size == s]) for s in np.unique(size)]
    else:
        strata = [np.bincount(yc[codes == g]) for g in np.unique(codes)]
    return float(np.round(np.exp(sum(_log_multinomial(c) for c in strata))))


def _within(codes, n_permutations, rng):
    """Random keys ordered group-major: a uniform permutation inside every group."""
    n = codes.shape[0]
    base = np.argsort(codes, kind="stable")
    keys = codes[None, :] + rng.random_sample((n_permutations, n))
    order = np.argsort(keys, axis=1)
    perm = np.empty((n_permutations, n), np.intp)
    perm[:, base] = order
    return perm


def _between(codes, n_permutations, rng):
    """Whole groups swapped with groups of the same size, members matched by position."""
    size = np.bincount(codes)
    n_groups = size.size
    if np.unique(size, return_counts=True)[1].max() < 2:
        raise ValueError(
            "every group holds one class but no two groups have the same size, so no "
            "relabelling exchanges whole groups; give groups of equal sizes."
        )
    members = np.full((n_groups, size.max()), -1, np.intp)
    position = np.empty(codes.shape[0], np.intp)
    for g in range(n_groups):  # groups, not features or permutations
        idx = np.flatnonzero(codes == g)
        members[g, : idx.size] = idx
        position[idx] = np.arange(idx.size)
    sigma = _within(size, n_permutations, rng)  # groups permuted within size strata
    return members[sigma[:, codes], position[None, :]]


def permutation_indices(
    y: ArrayLike,
    groups: ArrayLike | None = None,
    *,
    n_permutations: int = 1000,
    random_state=None,
) -> NDArray[np.intp]:
    """Index arrays of random relabellings allowed by the design, drawn from ``random_state``.

    Row ``b`` is a permutation ``perm`` of ``0 .. n_samples - 1``; ``y[perm]`` are the
    relabelled classes (and ``residuals[perm]`` the permuted rows for Freedman-Lane). Each
    allowed relabelling is equally likely (uniform over the permutations of the scheme of
    :func:`exchangeability_scheme`).

    Parameters
    ----------
    y : array_like of shape (n_samples,)
    groups : array_like of shape (n_samples,), optional
    n_permutations : int, default=1000
    random_state : int, RandomState instance or None

    Returns
    -------
    ndarray of int, shape (n_permutations, n_samples)

    See Also
    --------
    exchangeability_scheme, n_relabellings

    Examples
    --------
    >>> y = np.array([0, 1, 0, 1]); perm = permutation_indices(y, [0, 0, 1, 1], n_permutations=3,
    ...                                                        random_state=0)
    >>> bool(all((np.sort(p[:2]) == [0, 1]).all() for p in perm))
    True
    """
    from sklearn.utils import check_random_state

    if int(n_permutations) < 1:
        raise ValueError(f"n_permutations must be at least 1; got {n_permutations}.")
    scheme = exchangeability_scheme(y, groups)
    rng = check_random_state(random_state)
    if scheme.kind == "between":
        return _between(scheme.group_codes, int(n_permutations), rng)
    return _within(scheme.group_codes, int(n_permutations), rng)
