"""The private scikit-learn helpers widefs relies on, imported in one place (internal).

scikit-learn keeps its parameter validation (``_param_validation``) and the decorator that
runs it (``_fit_context``) private, but they are what makes a third-party estimator validate
its hyper-parameters exactly like scikit-learn's own (same constraint objects, same
``InvalidParameterError`` messages). widefs imports them here and nowhere else, so a change
in scikit-learn is met in one file.

Supported scikit-learn versions: ``SKLEARN_MIN_VERSION`` (``validate_data`` and the
``Tags`` API arrived in 1.6) up to ``SKLEARN_TESTED_MAX`` (the newest minor version the test
suite has run against; ``tests/test_compat.py`` fails on a newer one until it is checked and
this constant raised). This module is internal: use the names it re-exports only inside widefs.
"""

from __future__ import annotations

import sklearn

__all__ = [
    "SKLEARN_MIN_VERSION",
    "SKLEARN_TESTED_MAX",
    "HasMethods",
    "Interval",
    "StrOptions",
    "fit_context",
    "sklearn_version",
]

SKLEARN_MIN_VERSION = (1, 6)
SKLEARN_TESTED_MAX = (1, 9)


def sklearn_version(text: str | None = None) -> tuple[int, int]:
    """``(major, minor)`` of the installed scikit-learn (or of the version string ``text``).

    Examples
    --------
    >>> sklearn_version("1.6.1"), sklearn_version("1.10.dev0")
    ((1, 6), (1, 10))
    """
    major, minor = (text or sklearn.__version__).split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


if sklearn_version() < SKLEARN_MIN_VERSION:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"widefs needs scikit-learn >= {'.'.join(map(str, SKLEARN_MIN_VERSION))}; "
        f"found {sklearn.__version__}. Upgrade it with: pip install -U scikit-learn"
    )

import functools  # noqa: E402

from sklearn import config_context, get_config  # noqa: E402
from sklearn.base import _fit_context  # noqa: E402
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions  # noqa: E402


def fit_context(*, prefer_skip_nested_validation: bool):
    """scikit-learn's ``_fit_context`` (validate the parameters, then fit with nested
    validation skipped or not), for an estimator without scikit-learn callbacks.

    From scikit-learn 1.9 on, ``_fit_context`` also manages callbacks, which imports
    ``sklearn.callback`` (and ``rich``) on an estimator's first fit: some 30 ms of CPU, more
    than a whole Set Covering Machine fit on colon. widefs's estimators set no callbacks, for
    which that management does nothing; an estimator that supports them
    (``set_callbacks``) gets scikit-learn's decorator itself.
    """

    def decorator(fit_method):
        full = _fit_context(prefer_skip_nested_validation=prefer_skip_nested_validation)(fit_method)

        @functools.wraps(fit_method)
        def wrapper(estimator, *args, **kwargs):
            if hasattr(estimator, "set_callbacks"):
                return full(estimator, *args, **kwargs)
            skip = get_config()["skip_parameter_validation"]
            if not skip:  # (widefs has no partial_fit)
                estimator._validate_params()
            with config_context(skip_parameter_validation=prefer_skip_nested_validation or skip):
                return fit_method(estimator, *args, **kwargs)

        return wrapper

    return decorator
