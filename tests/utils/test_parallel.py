"""parallel_calls: worker warnings obey the caller's filters and reach the caller's recorders."""

import sys
import warnings

import pytest

from widefs._utils import parallel_calls
from widefs.exceptions import HeuristicBoundWarning, NothingSelectedWarning

try:
    import cloudpickle
except ImportError:  # (joblib before 1.5 ships its own)
    from joblib.externals import cloudpickle

# Process workers receive this file's functions by value: by reference they would import it
# as "tests.utils.test_parallel", and another installed "tests" package (baycomp, of the
# bench extra, has one) shadows this tree's.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _warn_twice(i):
    warnings.warn(f"heuristic {i}", HeuristicBoundWarning, stacklevel=2)
    warnings.warn(f"nothing {i}", NothingSelectedWarning, stacklevel=2)
    return i * i


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_worker_warnings_are_filtered_and_recorded_in_the_caller(n_jobs, capfd):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", HeuristicBoundWarning)
        out = parallel_calls(_warn_twice, [(i,) for i in range(4)], n_jobs=n_jobs)
    assert out == [0, 1, 4, 9]
    # The ignored category never comes back; the other comes back once per call, in order.
    assert [(w.category, str(w.message)) for w in caught] == [
        (NothingSelectedWarning, f"nothing {i}") for i in range(4)
    ]
    # Nothing was printed by the workers themselves.
    assert "Warning" not in capfd.readouterr().err


def test_errors_propagate():
    with pytest.raises(ZeroDivisionError):
        parallel_calls(lambda x: 1 / x, [(1,), (0,)], n_jobs=1)
