"""Argument checks shared by the pure functions (one tested message per failure)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["as_float_array", "check_integer_array", "check_unit_interval", "refuse_sparse"]


def refuse_sparse(estimator, X) -> None:
    """One ``TypeError`` when ``X`` is a scipy sparse matrix that ``estimator`` does not take.

    An estimator takes sparse input when its tags say so (``input_tags.sparse``): it then
    reads the matrix a block of columns at a time. The others would densify it whole, or fail
    deep inside; they refuse it here in one line that says what to do instead.

    Parameters
    ----------
    estimator : estimator or str
        The estimator (or its name) about to receive ``X``.
    X : object
        Its input.

    Raises
    ------
    TypeError
        ``X`` is sparse and ``estimator`` does not take sparse input.

    See Also
    --------
    widefs._utils.is_sparse_matrix : What counts as sparse.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> refuse_sparse("CN2Classifier", np.eye(2))  # dense: nothing to say
    >>> try:
    ...     refuse_sparse("CN2Classifier", sp.csr_matrix(np.eye(2)))
    ... except TypeError as err:
    ...     print(str(err)[:44])
    CN2Classifier does not take a scipy sparse X
    """
    from widefs._utils._blocks import is_sparse_matrix

    if not is_sparse_matrix(X):
        return
    if not isinstance(estimator, str):
        from sklearn.utils import get_tags

        if get_tags(estimator).input_tags.sparse:
            return
        estimator = type(estimator).__name__
    raise TypeError(
        f"{estimator} does not take a scipy sparse X: densify it with X.toarray() if it fits "
        "in memory, or first keep fewer features with ClassDifferenceScreen or an SCM, which "
        "read sparse input a block of columns at a time."
    )


def as_float_array(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """Return ``x`` as a float array, rejecting non-numeric input with a message naming ``name``.

    Parameters
    ----------
    x : array_like
    name : str
        The argument's name, for the error message.

    Returns
    -------
    arr : ndarray of float64

    See Also
    --------
    check_integer_array : Also requires finite integer values.
    check_unit_interval : Also requires values in [0, 1].

    Examples
    --------
    >>> as_float_array([1, 2], "n").tolist()
    [1.0, 2.0]
    """
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric, got {x!r}.") from exc
    return arr


def check_integer_array(
    x: ArrayLike, name: str, *, minimum: float | None = None
) -> NDArray[np.float64]:
    """Check that ``x`` holds finite integer values (as floats, so 1e9 fits), at least ``minimum``.

    Parameters
    ----------
    x : array_like
    name : str
        The argument's name, for the error messages.
    minimum : float, default=None
        Smallest allowed value.

    Returns
    -------
    arr : ndarray of float64

    See Also
    --------
    as_float_array : The conversion alone.

    Examples
    --------
    >>> check_integer_array([3, 1e9], "n", minimum=1).tolist()
    [3.0, 1000000000.0]
    """
    arr = as_float_array(x, name)
    if np.any(~np.isfinite(arr)):
        raise ValueError(f"{name} must be finite.")
    if np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold integer values.")
    if minimum is not None and np.any(arr < minimum):
        raise ValueError(f"{name} must be >= {minimum:g}.")
    return arr


def check_unit_interval(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """Check that ``x`` lies in ``[0, 1]`` (NaN rejected).

    Parameters
    ----------
    x : array_like
    name : str
        The argument's name, for the error message.

    Returns
    -------
    arr : ndarray of float64

    See Also
    --------
    as_float_array : The conversion alone.

    Examples
    --------
    >>> check_unit_interval(0.25, "delta").item()
    0.25
    """
    arr = as_float_array(x, name)
    if np.any(~((arr >= 0) & (arr <= 1))):
        raise ValueError(f"{name} must lie in [0, 1].")
    return arr
