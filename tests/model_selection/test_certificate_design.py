"""Search certificates under a study design: relabellings, folds and covariates.

The relabellings of the null are checked against a brute-force enumeration of every
permutation of a tiny design that keeps the groups (whole groups mapped onto whole groups,
or samples kept inside their group); the folds of ``score="cv"`` are checked by a spy
classifier that records every training set; the p-values are checked uniform by Monte Carlo
on pure noise with repeated samples per patient.
"""

from itertools import permutations

import numpy as np
import pytest
from scipy.stats import binom, kstest
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin

from widefs.ensemble import ClassSpecificEnsemble
from widefs.model_selection import search_certificate
from widefs.model_selection._cross_validated import design_folds
from widefs.rules import CN2Classifier
from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM
from widefs.search import GeneticSelector, KNNEvaluator, SequentialSelector
from widefs.univariate import DiscriminativeSelector

SFS = SequentialSelector(n_features=1, evaluator=KNNEvaluator(3))


def _brute_force_labellings(y, groups, kind):
    """Every label vector ``y[perm]`` over all permutations of the samples that the design
    allows: ``"within"`` keeps every sample in its group; ``"between"`` maps every group
    onto a whole group."""
    members = [frozenset(np.flatnonzero(groups == g)) for g in np.unique(groups)]
    allowed = set()
    for perm in permutations(range(y.size)):
        perm = np.array(perm)
        if kind == "within":
            ok = all(groups[perm[i]] == groups[i] for i in range(y.size))
        else:
            ok = all(frozenset(perm[sorted(m)]) in members for m in members)
        if ok:
            allowed.add(tuple(y[perm]))
    return allowed


DESIGNS = {
    # repeated samples of four patients: whole patients exchanged
    "between": (np.repeat([0, 1, 0, 1], 2), np.repeat([0, 1, 2, 3], 2)),
    # patients of sizes 2, 2, 3, 1: only the two of size 2 are exchanged
    "between-strata": (np.array([0, 0, 1, 1, 0, 0, 0, 1]), np.array([0, 0, 1, 1, 2, 2, 2, 3])),
    # pairs: labels exchanged within each pair
    "within": (np.tile([0, 1], 4), np.repeat([0, 1, 2, 3], 2)),
}


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_null_relabellings_are_exactly_the_allowed_ones(name):
    y, groups = DESIGNS[name]
    kind = "within" if name == "within" else "between"
    X = np.random.default_rng(0).normal(size=(y.size, 3))
    cert = search_certificate(
        SFS, X, y, score="search", groups=groups, n_permutations=300, stop_after=None,
        random_state=0,
    )  # fmt: skip
    drawn = {tuple(y[p]) for p in cert.permutations}
    allowed = _brute_force_labellings(y, groups, kind)
    assert drawn == allowed  # every drawn one allowed, and 300 draws reach all of them
    assert cert.design_case == {"within": "within groups", "between": "between groups"}[kind]


def test_pilot_relabellings_respect_the_groups_too():
    y, groups = DESIGNS["between"]
    X = np.random.default_rng(1).normal(size=(8, 30))
    cert = search_certificate(
        CN2Classifier(max_rule_length=1), X, y, groups=groups, cv=2, n_permutations=9,
        random_state=0,
    )  # fmt: skip
    allowed = _brute_force_labellings(y, groups, "between")
    assert cert.replaced is not None
    assert {tuple(y[p]) for p in cert.replaced.permutations} <= allowed
    assert {tuple(y[p]) for p in cert.permutations} <= allowed


def test_no_groups_is_the_independent_case():
    X = np.random.default_rng(2).normal(size=(12, 4))
    y = np.repeat([0, 1], 6)
    cert = search_certificate(SFS, X, y, score="search", n_permutations=5, random_state=0)
    assert cert.design_case == "independent" and cert.design_params == ()


class _Spy(ClassifierMixin, BaseEstimator):
    """Predicts the majority class; records the sample ids (column 0) of every fit, and the
    covariates it was given."""

    seen: list = []

    def fit(self, X, y):
        type(self).seen.append((np.asarray(X)[:, 0].astype(int), None))
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        return self

    def predict(self, X):
        return np.full(np.shape(X)[0], self.majority_)


class _CovariateSpy(_Spy):
    def fit(self, X, y, covariates=None):
        super().fit(X, y)
        type(self).seen[-1] = (type(self).seen[-1][0], np.asarray(covariates))
        return self


@pytest.mark.parametrize("design", ["between", "within"])
def test_cv_folds_never_split_a_group(design):
    rng = np.random.default_rng(3)
    if design == "between":
        groups = np.repeat(np.arange(12), 3)
        y = (groups >= 6).astype(int)
    else:
        groups = np.repeat(np.arange(10), 2)
        y = np.tile([0, 1], 10)
    X = np.column_stack([np.arange(y.size), rng.normal(size=(y.size, 2))])
    _Spy.seen = []
    cert = search_certificate(
        _Spy(), X, y, score="cv", cv=4, groups=groups, n_permutations=15, stop_after=None,
        random_state=1,
    )  # fmt: skip
    folds = [ids for ids, _ in _Spy.seen if ids.size < y.size]
    assert len(folds) == 4 * (1 + cert.n_permutations)
    for train in folds:
        test = np.setdiff1d(np.arange(y.size), train)
        assert test.size and set(groups[train]).isdisjoint(groups[test])
    for seed in range(20):  # the folds themselves, directly
        f = design_folds(y, 4, seed, groups)
        assert all(np.unique(f[groups == g]).size == 1 for g in np.unique(groups))


def test_design_folds_without_groups_are_the_stratified_ones():
    from widefs.model_selection._cross_validated import stratified_folds

    y = np.repeat([0, 1, 2], [5, 6, 7])
    assert np.array_equal(design_folds(y, 3, 7), stratified_folds(y, 3, 7))


def test_covariates_reach_every_fit_cut_to_its_training_rows():
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 8)
    X = np.column_stack([np.arange(16), rng.normal(size=(16, 2))])
    age = 100.0 + np.arange(16)
    _CovariateSpy.seen = []
    cert = search_certificate(
        _CovariateSpy(), X, y, score="cv", cv=4, covariates=age, n_permutations=5,
        stop_after=None, random_state=0,
    )  # fmt: skip
    assert cert.design_params == ("covariates",)
    assert len(_CovariateSpy.seen) == 1 + 4 * 6
    for ids, cov in _CovariateSpy.seen:
        assert np.array_equal(cov, age[ids])  # the covariates stay with their samples


@pytest.mark.parametrize(
    "estimator",
    [SFS, CN2Classifier(max_rule_length=1), OccamSCM(), ClassSpecificEnsemble(SFS)],
    ids=lambda e: type(e).__name__,
)
def test_covariates_a_search_cannot_use_are_refused_naming_it(estimator):
    X = np.random.default_rng(5).normal(size=(12, 4))
    y = np.repeat([0, 1], 6)
    name = type(estimator).__name__
    with pytest.raises(ValueError, match=f"covariates were given but no step of {name}"):
        search_certificate(estimator, X, y, covariates=np.arange(12.0), n_permutations=3)


def test_groups_of_the_wrong_length_or_too_few_for_the_folds_are_refused():
    X = np.random.default_rng(6).normal(size=(12, 4))
    y = np.repeat([0, 1], 6)
    with pytest.raises(ValueError, match="one label per sample"):
        search_certificate(SFS, X, y, groups=np.arange(5), n_permutations=3)
    with pytest.raises(ValueError, match="at least 5 groups"):
        search_certificate(_Spy(), X, y, score="cv", groups=np.repeat([0, 1, 2, 3], 3))


def test_pvalues_with_repeated_samples_are_uniform_on_noise():
    """100 noise data sets of 12 patients x 3 samples (patient effect 1 SD): randomized
    p-values pass KS against uniform, and their rejection rate at 0.05 is inside the 99 %
    binomial band of n = 100 (fixed seeds; the test fails if the null ignored the
    patients, as the repeated samples then inflate the observed search score)."""
    n, pvalues = 100, []
    patient = np.repeat(np.arange(12), 3)
    y = (patient >= 6).astype(int)
    for i in range(n):
        rng = np.random.default_rng([7, i])
        X = rng.normal(size=(36, 6)) + rng.normal(size=(12, 6))[patient]
        cert = search_certificate(
            SFS, X, y, score="search", groups=patient, n_permutations=19, stop_after=None,
            random_state=i,
        )  # fmt: skip
        pvalues.append(cert.randomized_pvalue(i))
    assert kstest(pvalues, "uniform").pvalue > 0.01
    lo, hi = binom.ppf(0.005, n, 0.05), binom.ppf(0.995, n, 0.05)
    assert lo <= np.count_nonzero(np.asarray(pvalues) <= 0.05) <= hi


EVERY_SEARCH = {
    "sfs": SFS,
    "ga": GeneticSelector(
        population_size=6, n_generations=3, random_state=1, evaluator=KNNEvaluator(3)
    ),
    "cefs": ClassSpecificEnsemble(SFS, random_state=0),
    "scm-sample-compression": SampleCompressionSCM(max_rules=3),
    "scm-occam": OccamSCM(max_rules=3),
    "scm-pac-bayes": PACBayesSCM(max_rules=3),
    "cn2": CN2Classifier(max_rule_length=1, min_covered=3),
    "discriminative": DiscriminativeSelector("all", null="analytic", random_state=3),
}


def _keeps_whole_groups(perm, groups):
    """Every group's samples are mapped onto all the samples of one group."""
    members = {frozenset(np.flatnonzero(groups == g)) for g in np.unique(groups)}
    return all(frozenset(perm[sorted(m)]) in members for m in members)


@pytest.mark.filterwarnings("ignore::widefs.exceptions.HeuristicBoundWarning")
@pytest.mark.parametrize("name", sorted(EVERY_SEARCH))
def test_every_search_is_certified_on_whole_group_relabellings(name):
    patient = np.repeat(np.arange(10), 2)
    y = (patient >= 5).astype(int)
    rng = np.random.default_rng(8)
    X = rng.normal(size=(20, 6)) + rng.normal(size=(10, 6))[patient]
    X[:, 0] += 1.5 * y
    cert = search_certificate(
        EVERY_SEARCH[name], X, y, groups=patient, cv=3, n_permutations=6, stop_after=None,
        random_state=0,
    )  # fmt: skip
    assert cert.design_case == "between groups"
    rows = list(cert.permutations)
    if cert.replaced is not None:
        rows += list(cert.replaced.permutations)
    assert all(_keeps_whole_groups(p, patient) for p in rows)
    if cert.score == "cv":
        folds = design_folds(y, 3, cert.cross_validation.seed, patient)
        assert all(np.unique(folds[patient == g]).size == 1 for g in range(10))


class _CovariateStep(TransformerMixin, BaseEstimator):
    """A pipeline step whose fit takes covariates; records them beside the sample ids."""

    seen: list = []

    def fit(self, X, y=None, covariates=None):
        type(self).seen.append((np.asarray(X)[:, 0].astype(int), np.asarray(covariates)))
        return self

    def transform(self, X):
        return X


def test_covariates_are_routed_through_a_pipeline_to_the_step_that_requests_them():
    from sklearn import config_context
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(9)
    y = np.repeat([0, 1], 8)
    X = np.column_stack([np.arange(16), rng.normal(size=(16, 2))])
    age = 50.0 + np.arange(16)
    with config_context(enable_metadata_routing=True):
        step = _CovariateStep().set_fit_request(covariates=True)
    pipe = make_pipeline(step, _Spy())
    _CovariateStep.seen = []
    cert = search_certificate(
        pipe, X, y, score="cv", cv=4, covariates=age, n_permutations=3, stop_after=None,
        random_state=0,
    )  # fmt: skip
    assert cert.design_params == ("covariates",)
    assert len(_CovariateStep.seen) == 1 + 4 * 4
    assert all(np.array_equal(cov, age[ids]) for ids, cov in _CovariateStep.seen)
    with pytest.raises(ValueError, match="no step of Pipeline takes them"):
        search_certificate(
            make_pipeline(_CovariateStep(), _Spy()), X, y, score="cv", covariates=age
        )
