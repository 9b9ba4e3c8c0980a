"""Study designs as linear-model design matrices: classes, covariates and blocks.

A design states what a per-feature linear model adjusts for. :func:`build_design` turns
class labels, covariates (numeric or categorical columns, an array or a DataFrame) and,
for paired or blocked samples, the blocks into a full-rank matrix ``[intercept | class
indicators | covariates | blocks]``, with treatment coding (the first level of every
categorical column is its reference), and says which coefficients carry the class effect.
A covariate that cannot enter (missing values, constant, confounded with the classes,
redundant with another covariate) is one ``ValueError`` naming it.

:func:`design_moderated_f` is the covariate-adjusted screen built on it: limma's moderated
F of the class coefficients (Smyth 2004) with the covariates in the design; blocks holding
several classes (pairs) enter as fixed effects, as in limma's paired design; groups holding
one class each (repeated samples of a patient) are averaged into one observation per group,
because a fixed effect per group would absorb the class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from widefs.stats._exchangeability import exchangeability_scheme
from widefs.stats._moderated import ModeratedTest, linear_model_fit, moderated_f

__all__ = ["DesignTest", "StudyDesign", "build_design", "design_moderated_f", "resolve_design"]


@dataclass(frozen=True)
class StudyDesign:
    """A full-rank design matrix and what its columns mean.

    A frozen dataclass; its fields are the constructor's parameters.

    Parameters
    ----------
    matrix : ndarray of shape (n_samples, n_coefficients)
        ``[intercept | class indicators | covariate columns | block indicators]``.
    column_names : tuple of str
        One name per column: ``"intercept"``, ``"class[b]"``, ``"age"``, ``"batch[2]"``,
        ``"group[s3]"``.
    class_coefficients : tuple of int
        The columns whose coefficients are the class effects (zero under no class effect).
    classes : ndarray
        The sorted class labels; ``classes[0]`` is the reference level.
    covariate_names : tuple of str
        The covariates in the design, in order.

    See Also
    --------
    build_design : builds it.

    Examples
    --------
    >>> design = build_design(["a", "a", "b", "b"], covariates={"age": [30, 41, 35, 52]})
    >>> design.column_names, design.class_coefficients
    (('intercept', 'class[b]', 'age'), (1,))
    """

    matrix: NDArray[np.float64]
    column_names: tuple[str, ...]
    class_coefficients: tuple[int, ...]
    classes: NDArray
    covariate_names: tuple[str, ...]

    @property
    def reduced_matrix(self) -> NDArray[np.float64]:
        """The design without the class columns (the model under no class effect)."""
        keep = [j for j in range(self.matrix.shape[1]) if j not in self.class_coefficients]
        return self.matrix[:, keep]


def _covariate_columns(covariates, n_samples: int) -> list[tuple[str, np.ndarray]]:
    """``(name, values)`` of every covariate column: DataFrame, mapping or array."""
    if covariates is None:
        return []
    if hasattr(covariates, "columns") and hasattr(covariates, "iloc"):
        pairs = [(str(c), np.asarray(covariates[c])) for c in covariates.columns]
    elif isinstance(covariates, dict):
        pairs = [(str(k), np.asarray(v)) for k, v in covariates.items()]
    else:
        arr = np.asarray(covariates)
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2:
            raise ValueError(f"covariates must be 1-D or 2-D; got {arr.ndim} dimensions.")
        pairs = [(f"covariate {j}", arr[:, j]) for j in range(arr.shape[1])]
    for name, values in pairs:
        if values.ndim != 1 or values.shape[0] != n_samples:
            raise ValueError(
                f"covariate {name!r} has {values.shape[0]} values for {n_samples} samples."
            )
    return pairs


def _is_missing(values: np.ndarray) -> np.ndarray:
    if values.dtype.kind in "fc":
        return ~np.isfinite(values)
    if values.dtype.kind == "O":
        return np.array([v is None or (isinstance(v, float) and np.isnan(v)) for v in values])
    return np.zeros(values.shape, bool)


def _encode(name: str, values: np.ndarray, what: str) -> tuple[np.ndarray, list[str]]:
    """Numeric columns as they are; anything else one-hot with its first level as reference."""
    if _is_missing(values).any():
        raise ValueError(f"{what} {name!r} has missing values; drop or impute those samples first.")
    if values.dtype.kind in "iuf":
        col = values.astype(np.float64)
        if np.ptp(col) == 0:
            raise ValueError(f"{what} {name!r} is constant: it adjusts for nothing; drop it.")
        return col[:, None], [name]
    levels, codes = np.unique(
        values.astype(str) if values.dtype.kind == "O" else values, return_inverse=True
    )
    if levels.size < 2:
        raise ValueError(f"{what} {name!r} is constant: it adjusts for nothing; drop it.")
    onehot = (codes[:, None] == np.arange(1, levels.size)[None, :]).astype(np.float64)
    return onehot, [f"{name}[{lev}]" for lev in levels[1:]]


def _rank(M: np.ndarray) -> int:
    return int(np.linalg.matrix_rank(M)) if M.size else 0


def _check_added(base, class_block, block, name, what):
    """Refuse a column block that makes the design rank-deficient, saying why."""
    full = np.column_stack([base, block])
    if _rank(full) == full.shape[1]:
        return
    with_classes = np.column_stack([np.ones(block.shape[0]), class_block, block])
    if (
        _rank(np.column_stack([np.ones(block.shape[0]), block])) == block.shape[1] + 1
        and _rank(with_classes) < with_classes.shape[1]
    ):
        raise ValueError(
            f"{what} {name!r} is confounded with the classes: together with the class "
            "indicators its columns are linearly dependent (e.g. each of its levels holds one "
            "class), so its effect cannot be separated from the class effect."
        )
    if name == "groups":
        raise ValueError(
            "groups are redundant with the covariates: a covariate that is constant within "
            "every group (a subject's age or batch) is absorbed by the groups' blocks; drop "
            "that covariate (the blocks adjust for it)."
        )
    raise ValueError(
        f"{what} {name!r} is redundant: it is a linear combination of the intercept, the "
        "class indicators and the covariates before it; drop it."
    )


def _check_residual_df(n_coefficients: int, n_samples: int) -> None:
    if n_coefficients >= n_samples:
        raise ValueError(
            f"the design has {n_coefficients} coefficients for {n_samples} samples: no "
            "residual degree of freedom is left to estimate a variance; use fewer covariates."
        )


def build_design(y: ArrayLike, covariates=None, groups: ArrayLike | None = None) -> StudyDesign:
    """The design matrix of a class comparison adjusted for covariates and blocks.

    Columns: an intercept, one indicator per class but the first (treatment coding: the
    class coefficients are differences from ``classes[0]``), then every covariate (a
    numeric column as it is, a categorical one as indicators of all levels but its first,
    in sorted order), then, if ``groups`` is given, one indicator per group but the first
    (blocks as fixed effects, limma's paired design).

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Class labels (at least two classes).
    covariates : DataFrame, dict of columns, array_like of shape (n_samples,) or
        (n_samples, n_covariates), optional
        Columns to adjust for. Numeric dtypes enter as numbers; strings, booleans,
        categoricals and objects as categories (batches coded 1, 2, 3 are numbers: pass
        them as strings or a pandas Categorical).
    groups : array_like of shape (n_samples,), optional
        Blocks entered as fixed effects. Only meaningful when blocks hold several classes;
        groups holding one class each are confounded with the classes (an error).

    Returns
    -------
    StudyDesign

    Raises
    ------
    ValueError
        Naming the covariate (or ``groups``) that has missing values, is constant, is
        confounded with the classes or redundant, or when the design leaves no residual
        degree of freedom.

    See Also
    --------
    design_moderated_f : the moderated F of the class coefficients of this design.

    Examples
    --------
    >>> d = build_design([0, 0, 0, 1, 1, 1], covariates={"batch": ["x", "y", "x", "y", "x", "y"]})
    >>> d.column_names
    ('intercept', 'class[1]', 'batch[y]')
    >>> build_design([0, 0, 1, 1], covariates={"batch": ["x", "x", "y", "y"]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: covariate 'batch' is confounded with the classes: ...
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D; got shape {y.shape}.")
    n = y.shape[0]
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError("y has a single class: there is no class effect to estimate.")
    class_block = (codes[:, None] == np.arange(1, classes.size)[None, :]).astype(np.float64)
    matrix = np.column_stack([np.ones(n), class_block])
    names = ["intercept"] + [f"class[{c}]" for c in classes[1:]]
    blocks = [(name, values, "covariate") for name, values in _covariate_columns(covariates, n)]
    if groups is not None:
        g = np.asarray(groups)
        if g.shape != (n,):
            raise ValueError(f"groups must have one label per sample ({n}); got shape {g.shape}.")
        blocks.append(("groups", g.astype(str), "design column"))
    for name, values, what in blocks:
        cols, col_names = _encode(name, values, what)
        _check_residual_df(matrix.shape[1] + cols.shape[1], n)
        _check_added(matrix, class_block, cols, name, what)
        matrix = np.column_stack([matrix, cols])
        names += (
            col_names if name != "groups" else [n.replace("groups[", "group[") for n in col_names]
        )
    _check_residual_df(matrix.shape[1], n)
    covariate_names = tuple(name for name, _, what in blocks if what == "covariate")
    return StudyDesign(
        matrix, tuple(names), tuple(range(1, classes.size)), classes, covariate_names
    )


@dataclass(frozen=True)
class DesignTest:
    """A covariate-adjusted moderated F per feature and the design it was computed on.

    A frozen dataclass; its fields are the constructor's parameters.

    Parameters
    ----------
    test : ModeratedTest
        Moderated F statistics and p-values of the class coefficients, one per feature.
    design : StudyDesign
        The design of the fitted model (rows: samples, or groups when ``case`` is
        ``"between groups"``).
    case : str
        How ``groups`` entered: ``"independent"`` (no groups), ``"within groups"`` (blocks
        as fixed effects), ``"between groups"`` (one averaged observation per group).

    See Also
    --------
    design_moderated_f : computes it.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> res = design_moderated_f(rng.normal(size=(8, 50)), [0, 1] * 4)
    >>> res.case, res.design.column_names
    ('independent', ('intercept', 'class[1]'))
    """

    test: ModeratedTest
    design: StudyDesign
    case: str


def _group_rows(y, covariates, codes):
    """The class and covariates of every group (one row per group; constant within it)."""
    n_groups = codes.max() + 1
    first = np.array([np.flatnonzero(codes == g)[0] for g in range(n_groups)])
    cov_g = None
    if covariates is not None:
        cov_g = {}
        for name, values in _covariate_columns(covariates, len(codes)):
            if any(np.unique(values[codes == g]).size > 1 for g in range(n_groups)):
                raise ValueError(
                    f"covariate {name!r} varies within groups: with one class per group the "
                    "comparison is between groups, and a covariate must be a group property."
                )
            cov_g[name] = values[first]
    return np.asarray(y)[first], cov_g


def resolve_design(y: ArrayLike, covariates=None, groups=None):
    """The design a screen fits for ``(y, covariates, groups)`` and how labels are exchanged.

    Runs every check of a design before any analysis: :func:`build_design`'s (a covariate
    missing, constant, confounded with the classes or redundant) and, for groups holding one
    class each, that every covariate is constant within a group. Groups holding several
    classes enter as blocks; groups holding one class each make the design one row per
    group (in the order of the sorted group labels, as
    :func:`exchangeability_scheme`'s ``group_codes``).

    Parameters
    ----------
    y : array_like of shape (n_samples,)
    covariates : DataFrame, dict of columns or array_like, optional
    groups : array_like of shape (n_samples,), optional

    Returns
    -------
    design : StudyDesign
    scheme : ExchangeabilityScheme
        Its ``case`` is the sentence a report states.

    See Also
    --------
    design_moderated_f : fits this design.

    Examples
    --------
    >>> patient = np.repeat(["p1", "p2", "p3", "p4"], 2)
    >>> design, scheme = resolve_design(np.repeat([0, 1], 4), groups=patient,
    ...                                 covariates={"age": np.repeat([40, 47, 52, 38], 2)})
    >>> scheme.case, design.matrix.shape
    ('between groups', (4, 3))
    """
    y = np.asarray(y)
    scheme = exchangeability_scheme(y, groups)
    if scheme.kind == "between":
        y_g, cov_g = _group_rows(y, covariates, scheme.group_codes)
        return build_design(y_g, cov_g), scheme
    return build_design(y, covariates, groups if scheme.kind == "within" else None), scheme


def design_moderated_f(
    X: ArrayLike, y: ArrayLike, *, covariates=None, groups=None, weights=None
) -> DesignTest:
    """Moderated F of the class effect per feature, adjusted for covariates and groups.

    Fits ``x_j = D beta_j + e_j`` with ``D`` from :func:`build_design` and tests the class
    coefficients with limma's moderated F (:func:`moderated_f`; the moderated t squared
    for two classes). ``groups`` holding several classes (pairs, blocks) enter ``D`` as
    fixed effects; groups each holding one class (repeated samples of a patient) are
    averaged into one observation per group first, so that the patients, not their
    samples, are the replicates.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
    covariates : DataFrame, dict of columns or array_like, optional
        See :func:`build_design`.
    groups : array_like of shape (n_samples,), optional
        Subject, pair, patient or block of every sample.
    weights : array_like of shape (n_samples, n_features), optional
        Precision weights (voom); not accepted with groups of one class each.

    Returns
    -------
    DesignTest

    See Also
    --------
    build_design, moderated_f, freedman_lane_test

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> subject = np.repeat(np.arange(6), 2); y = np.tile([0, 1], 6)
    >>> X = rng.normal(size=(12, 300)) + 3 * rng.normal(size=(6, 300))[subject]
    >>> X[:, 0] += 3 * y
    >>> res = design_moderated_f(X, y, groups=subject)
    >>> res.case, bool(res.test.pvalues[0] < 0.01)
    ('within groups', True)
    """
    if not hasattr(X, "shape"):
        X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if len(X.shape) != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D with one row per label ({y.shape[0]}); got {X.shape}.")
    design, scheme = resolve_design(y, covariates, groups)
    if scheme.kind == "between":  # lazy matrices (memmap, zarr, dask) are read here
        if weights is not None:
            raise ValueError("weights cannot be combined with groups that hold one class each.")
        X = np.asarray(X, dtype=np.float64)
        codes = scheme.group_codes
        onehot = (codes[None, :] == np.arange(codes.max() + 1)[:, None]).astype(np.float64)
        X = (onehot @ X) / onehot.sum(axis=1)[:, None]
    fit = linear_model_fit(X, design.matrix, weights=weights)
    test = moderated_f(fit, list(design.class_coefficients))
    return DesignTest(test, design, scheme.case)
