"""scikit-learn's estimator checks for ClassSpecificEnsemble (tiny settings)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from widefs.ensemble import ClassSpecificEnsemble
from widefs.search import GeneticSelector, SequentialSelector

ESTIMATORS = [
    ClassSpecificEnsemble(),
    ClassSpecificEnsemble(
        SequentialSelector(estimator="naive_bayes"),
        member_criterion="balanced",
        combiner="specialist",
    ),
    ClassSpecificEnsemble(GeneticSelector(population_size=4, n_generations=2), random_state=0),
]

# Reason per entry; empty when an estimator passes everything.
EXPECTED_FAILED_CHECKS: dict = {}


@parametrize_with_checks(
    ESTIMATORS,
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS.get(type(est).__name__, {}),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
