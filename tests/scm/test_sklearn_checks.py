"""scikit-learn's estimator checks for the three Set Covering Machines (tiny settings)."""

import warnings

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from widefs.exceptions import HeuristicBoundWarning
from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM

ESTIMATORS = [
    SampleCompressionSCM(max_rules=3),
    OccamSCM(max_rules=3),
    PACBayesSCM(max_rules=3),
    PACBayesSCM(max_rules=2, margin=0.1, model_type="disjunction"),
]

# Reason per entry; empty when an estimator passes everything.
EXPECTED_FAILED_CHECKS: dict = {}


@parametrize_with_checks(
    ESTIMATORS,
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS.get(type(est).__name__, {}),
)
def test_sklearn_compatible(estimator, check):
    # The checks draw data without an a-priori range: the range comes from the training
    # data, which the learners rightly flag as a heuristic bound.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeuristicBoundWarning)
        check(estimator)


pytestmark = pytest.mark.filterwarnings("ignore::widefs.exceptions.HeuristicBoundWarning")
