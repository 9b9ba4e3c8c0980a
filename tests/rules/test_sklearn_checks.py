"""scikit-learn's estimator checks for CN2Classifier (merged into tests/test_common.py by the lead)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from widefs.rules import CN2Classifier

ESTIMATORS = [
    CN2Classifier(),
    CN2Classifier(stopping="poe", mode="unordered", beam_width=2, max_rule_length=3),
]

# Reason per entry; empty when an estimator passes everything.
EXPECTED_FAILED_CHECKS: dict = {}


@parametrize_with_checks(
    ESTIMATORS,
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS.get(type(est).__name__, {}),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
