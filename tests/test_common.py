"""scikit-learn's estimator checks for every widefs estimator (tiny settings)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from widefs.univariate import DiscriminativeSelector

ESTIMATORS = [
    DiscriminativeSelector(random_state=0),
    DiscriminativeSelector(threshold=3, scorer="stump", cv=3, random_state=0),
]

# Reason per entry; empty when an estimator passes everything.
EXPECTED_FAILED_CHECKS: dict = {}


@parametrize_with_checks(
    ESTIMATORS,
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS.get(type(est).__name__, {}),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
