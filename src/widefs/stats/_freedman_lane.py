"""Freedman-Lane permutation test of a class effect adjusted for covariates (1983).

Permuting the labels while the covariates stay put breaks the covariates' link with the
classes; permuting the raw data breaks their link with the features. Freedman and Lane
permute the residuals of the model without the class instead, so every permuted data set
keeps the covariates' effect; with groups the residuals are permuted by the design's
exchangeability scheme (:func:`permutation_indices`). The test is approximate (exact
only without covariates); Winkler et al. (2014) recommend it among such schemes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from widefs._utils import refuse_sparse
from widefs.stats._design import build_design
from widefs.stats._exchangeability import exchangeability_scheme, permutation_indices

__all__ = ["FreedmanLaneTest", "freedman_lane_test"]


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


class _OrdinaryF:
    """Ordinary F of the class coefficients of ``R[perm]`` for many permutations at once.

    ``R[perm]`` is never formed: ``A @ R[perm] = A[:, argsort(perm)] @ R``, so a chunk of
    permutations is one matrix product of the stacked small matrices (the orthonormal basis
    of the design for the fitted sum of squares, the rows of its pseudo-inverse for the
    class coefficients) with ``R``; the residual sum of squares is the total minus the fit's.
    """

    def __init__(self, R, D, idx):
        self.R = R
        self.Q = np.linalg.qr(D)[0].T  # (p, n)
        self.rows = np.linalg.pinv(D)[idx]  # (q, n): the class coefficients
        self.inv_block = np.linalg.inv(np.linalg.inv(D.T @ D)[np.ix_(idx, idx)])
        self.total = np.einsum("ij,ij->j", R, R)
        self.df = D.shape[0] - D.shape[1]

    def __call__(self, perms):
        p, q = self.Q.shape[0], self.rows.shape[0]
        inverse = np.argsort(perms, axis=1)
        small = np.concatenate([self.Q, self.rows])  # (p + q, n)
        stacked = small[:, inverse].transpose(1, 0, 2).reshape(-1, small.shape[1])
        prod = (stacked @ self.R).reshape(perms.shape[0], p + q, -1)
        fitted = np.einsum("bkj,bkj->bj", prod[:, :p], prod[:, :p])
        b = prod[:, p:]
        quad = np.einsum("bpj,pq,bqj->bj", b, self.inv_block, b)
        s2 = np.maximum(self.total - fitted, 0.0) / self.df
        # A perfect fit (no residual variance, up to rounding) is the most extreme statistic
        # when the classes explain something, and no statistic when nothing is left: inf and
        # 0, whatever sign the rounding gave the residual sum of squares.
        scale = 1e-10 * np.maximum(self.total, np.finfo(float).tiny)
        perfect = s2 * self.df <= scale
        with np.errstate(divide="ignore", invalid="ignore"):
            F = quad / (q * s2)
        return np.where(perfect, np.where(quad > scale, np.inf, 0.0), F)


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
    refuse_sparse("freedman_lane_test", X)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    scheme = exchangeability_scheme(y, groups)
    design = build_design(y, covariates, groups if scheme.kind == "within" else None)
    D, Z = design.matrix, design.reduced_matrix
    R = X - Z @ np.linalg.lstsq(Z, X, rcond=None)[0]
    stat = _OrdinaryF(R, D, list(design.class_coefficients))
    observed = stat(np.arange(X.shape[0])[None, :])[0]
    perms = permutation_indices(y, groups, n_permutations=n_permutations, random_state=random_state)
    exceed = np.zeros(X.shape[1])
    finite = np.where(np.isfinite(observed), np.abs(observed), 0.0)
    tol = 1e-9 * np.maximum(1.0, finite)  # ties within rounding count as ties
    chunk = max(1, 2**22 // max(1, X.shape[1] * (D.shape[1] + 4)))  # ~32 MB per product
    for start in range(0, perms.shape[0], chunk):
        exceed += (stat(perms[start : start + chunk]) >= observed - tol).sum(axis=0)
    return FreedmanLaneTest(
        observed, (1.0 + exceed) / (n_permutations + 1.0), int(n_permutations), scheme.case
    )
