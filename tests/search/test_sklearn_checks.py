"""scikit-learn's estimator checks for the wrapper selectors (tiny settings)."""

from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from widefs.search import GeneticSelector, SequentialSelector

ESTIMATORS = [
    SequentialSelector(),
    SequentialSelector("backward", n_features=1, estimator="naive_bayes"),
    SequentialSelector(n_features=1, estimator=KNeighborsClassifier(3), cv=3),
    GeneticSelector(population_size=4, n_generations=2, random_state=0),
]

# Reason per entry; empty when an estimator passes everything.
EXPECTED_FAILED_CHECKS: dict = {}


@parametrize_with_checks(
    ESTIMATORS,
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS.get(type(est).__name__, {}),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
