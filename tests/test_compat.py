"""The one module holding scikit-learn's private helpers, and its supported version range."""

import ast
import numbers
from pathlib import Path

import pytest
import sklearn
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import InvalidParameterError

from widefs import _compat

SRC = Path(__file__).resolve().parents[1] / "src" / "widefs"

# Modules whose owners' branches still import scikit-learn internals directly; the lead
# empties this list after merging them (each should import from widefs._compat instead).
PENDING: set[str] = set()


def test_installed_scikit_learn_is_in_the_tested_range():
    version = _compat.sklearn_version()
    assert _compat.SKLEARN_MIN_VERSION <= version <= _compat.SKLEARN_TESTED_MAX, (
        f"scikit-learn {sklearn.__version__} is outside the range widefs was tested with; "
        "run the test suite with it and update SKLEARN_TESTED_MAX in widefs/_compat.py"
    )


def test_version_parsing():
    assert _compat.sklearn_version("1.6.0") == (1, 6)
    assert _compat.sklearn_version("1.10.0rc1") == (1, 10)
    assert _compat.sklearn_version("2.0.dev0") == (2, 0)


class _Toy(BaseEstimator):
    _parameter_constraints: dict = {
        "k": [_compat.Interval(numbers.Integral, 1, None, closed="left")],
        "mode": [_compat.StrOptions({"a", "b"})],
        "model": [_compat.HasMethods(["fit"]), None],
    }

    def __init__(self, k=1, mode="a", model=None):
        self.k = k
        self.mode = mode
        self.model = model

    @_compat.fit_context(prefer_skip_nested_validation=True)
    def fit(self, X=None, y=None):
        self.fitted_ = True
        return self


@pytest.mark.parametrize(
    "params, bad",
    [({"k": 0}, "'k'"), ({"mode": "c"}, "'mode'"), ({"model": object()}, "'model'")],
)
def test_the_shims_validate_parameters_like_scikit_learn(params, bad):
    assert _Toy().fit().fitted_
    with pytest.raises(InvalidParameterError, match=bad):
        _Toy(**params).fit()
    # InvalidParameterError is a ValueError: what widefs documents for bad parameters.
    assert issubclass(InvalidParameterError, ValueError)


def test_the_fit_shim_skips_nested_validation_and_follows_the_global_setting():
    from sklearn import config_context, get_config

    seen = []

    class Nested(_Toy):
        @_compat.fit_context(prefer_skip_nested_validation=True)
        def fit(self, X=None, y=None):
            seen.append(get_config()["skip_parameter_validation"])
            return self

    Nested().fit()
    with config_context(skip_parameter_validation=True):
        Nested(k=0).fit()  # validation skipped everywhere: no error
    with pytest.raises(InvalidParameterError, match="'k'"):
        Nested(k=0).fit()
    assert seen == [True, True]
    assert Nested.fit.__doc__ is None and Nested.fit.__name__ == "fit"


def test_a_fit_does_not_load_scikit_learns_callbacks():
    # (From scikit-learn 1.9 its fit decorator imports them: ~30 ms of every first fit.)
    import subprocess
    import sys

    code = (
        "import sys\nimport numpy as np\nfrom widefs.scm import SampleCompressionSCM\n"
        "SampleCompressionSCM().fit(np.arange(12.0).reshape(6, 2), [0, 1] * 3)\n"
        "print('sklearn.callback' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split() == ["False"], out.stderr


def test_private_scikit_learn_imports_live_only_in_compat():
    offenders = set()
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel == "_compat.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn"):
                private_module = any(p.startswith("_") for p in node.module.split("."))
                private_name = any(a.name.startswith("_") for a in node.names)
                if private_module or private_name:
                    offenders.add(rel)
    assert offenders - PENDING == set()
    assert offenders >= PENDING, "these no longer import scikit-learn internals: unlist them"
