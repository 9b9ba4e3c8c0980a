"""scikit-learn's estimator checks for every widefs estimator (tiny settings)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from widefs.model_selection import PriorFallbackClassifier
from widefs.univariate import DiscriminativeSelector

ESTIMATORS = [
    DiscriminativeSelector(random_state=0),
    DiscriminativeSelector(threshold=3, scorer="stump", cv=3, random_state=0),
    PriorFallbackClassifier(),
]

# Reason per entry; empty when an estimator passes everything.
EXPECTED_FAILED_CHECKS: dict = {
    "PriorFallbackClassifier": {
        "check_estimators_empty_data_messages": (
            "accepting a matrix with zero features (and predicting the prior) is the purpose "
            "of this wrapper"
        ),
    },
}


@parametrize_with_checks(
    ESTIMATORS,
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS.get(type(est).__name__, {}),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
