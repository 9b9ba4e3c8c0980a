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
from ``random_state``; :func:`freedman_lane_test` uses the same schemes to permute the
residuals of the model without the class (Freedman & Lane 1983), which keeps the
covariates' effect in every permuted data set.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lgamma

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "ExchangeabilityScheme",
    "FreedmanLaneTest",
    "exchangeability_scheme",
    "freedman_lane_test",
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


@dataclass(frozen=True)
class FreedmanLaneTest:
    """Per-feature permutation p-values of a class effect adjusted for covariates.

    A frozen dataclass; its fields are the constructor's parameters.

    Parameters
    ----------
    statistics : ndarray of shape (n_features,)
        Ordinary F of the class coefficients (t squared for two classes).
    pvalues : ndarray of shape (n_features,)
        ``(1 + #{F*_b >= F}) / (n_permutations + 1)``.
    n_permutations : int
    case : str
        The exchangeability case of the permutations (see :class:`ExchangeabilityScheme`).

    See Also
    --------
    freedman_lane_test : computes it.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> res = freedman_lane_test(rng.normal(size=(8, 3)), [0, 1] * 4, n_permutations=19,
    ...                          random_state=0)
    >>> res.pvalues.shape, res.case
    ((3,), 'independent')
    """

    statistics: NDArray[np.float64]
    pvalues: NDArray[np.float64]
    n_permutations: int
    case: str


def _ordinary_f(R, pinv, D, idx, inv_block):
    """Ordinary F of coefficients ``idx`` for every column of ``R`` (no moderation)."""
    beta = pinv @ R
    resid = R - D @ beta
    df = D.shape[0] - D.shape[1]
    s2 = np.einsum("ij,ij->j", resid, resid) / df
    b = beta[idx]
    quad = np.einsum("pj,pq,qj->j", b, inv_block, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        F = quad / (idx.size * s2)
    return np.where(np.isnan(F), 0.0, F)


def freedman_lane_test(
    X: ArrayLike,
    y: ArrayLike,
    *,
    covariates=None,
    groups=None,
    n_permutations: int = 999,
    random_state=None,
) -> FreedmanLaneTest:
    """Freedman-Lane permutation test of the class effect, per feature, with covariates.

    The design ``D = [intercept | classes | covariates | blocks]`` comes from
    :func:`build_design` (blocks when groups hold several classes). Each feature is
    regressed on the reduced design ``Z`` (``D`` without the classes); the residuals
    ``r = (I - H_Z) x`` are permuted by the design's scheme and ``Z g + P r`` refitted on
    ``D``. As ``Z g`` lies in the span of ``D``, the statistic of ``Z g + P r`` is that of
    ``P r``, which is what is computed. The statistic is the ordinary F of the class
    coefficients. Groups holding one class each are permuted as whole groups of equal
    size; the model is then fitted on samples, so use it for a null that respects the
    groups, not to average them.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
    covariates : DataFrame, dict of columns or array_like, optional
    groups : array_like of shape (n_samples,), optional
    n_permutations : int, default=999
    random_state : int, RandomState instance or None

    Returns
    -------
    FreedmanLaneTest

    See Also
    --------
    permutation_indices, build_design

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> age = rng.normal(size=20); y = np.repeat([0, 1], 10)
    >>> X = rng.normal(size=(20, 2)) + 3 * age[:, None]; X[:, 0] += 2 * y
    >>> p = freedman_lane_test(X, y, covariates={"age": age}, random_state=0).pvalues
    >>> bool(p[0] < 0.01), bool(p[1] > 0.01)
    (True, True)
    """
    from widefs.stats._design import build_design

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    scheme = exchangeability_scheme(y, groups)
    design = build_design(y, covariates, groups if scheme.kind == "within" else None)
    D, Z = design.matrix, design.reduced_matrix
    R = X - Z @ np.linalg.lstsq(Z, X, rcond=None)[0]
    pinv = np.linalg.pinv(D)
    idx = np.asarray(design.class_coefficients)
    inv_block = np.linalg.inv(np.linalg.inv(D.T @ D)[np.ix_(idx, idx)])
    observed = _ordinary_f(R, pinv, D, idx, inv_block)
    perms = permutation_indices(y, groups, n_permutations=n_permutations, random_state=random_state)
    exceed = np.zeros(X.shape[1])
    tol = 1e-9 * np.maximum(1.0, np.abs(observed))  # ties within rounding count as ties
    for perm in perms:  # vectorized over features; one refit per permutation
        exceed += _ordinary_f(R[perm], pinv, D, idx, inv_block) >= observed - tol
    return FreedmanLaneTest(
        observed, (1.0 + exceed) / (n_permutations + 1.0), int(n_permutations), scheme.case
    )
