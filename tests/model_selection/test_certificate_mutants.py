"""search_certificate, its null and the pre-screen at their boundaries: every threshold and
tie rule on both sides and at it, every validator with an input it refuses and the smallest
one it accepts (the comparison mutants of ``benchmarks/mutation.py
model_selection_certificate``)."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import f_classif
from sklearn.naive_bayes import GaussianNB

from widefs.model_selection import (
    Prescreened,
    SearchCertificate,
    f_scores_blockwise,
    search_certificate,
)
from widefs.model_selection._certificate import AUTO_PILOT
from widefs.model_selection._null_scores import stopping_point


class FixedScore(ClassifierMixin, BaseEstimator):
    """A classifier whose search score is ``score`` on any labels; predicts the first class."""

    def __init__(self, score=1.0):
        self.score = score

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.search_score_ = float(self.score)
        self.n_features_in_ = np.shape(X)[1]
        return self

    def predict(self, X):
        return np.full(np.shape(X)[0], self.classes_[0])


class ScoreOnly(BaseEstimator):
    """A selector-like search: a search score, no predict."""

    def fit(self, X, y):
        self.search_score_ = 0.5
        return self


def _data(n=12, m=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, m)), np.repeat([0, 1], n // 2)


# -- the arguments ------------------------------------------------------------------------


def test_one_permutation_and_stopping_after_one_are_the_smallest_accepted():
    X, y = _data()
    cert = search_certificate(ScoreOnly(), X, y, n_permutations=1, stop_after=1, random_state=0)
    # the only relabelling scores 0.5 >= 0.5: the sequential null stops there
    assert cert.null_scores.tolist() == [0.5] and cert.pvalue == 1.0
    cert = search_certificate(ScoreOnly(), X, y, n_permutations=np.int64(2), stop_after=None)
    assert cert.null_scores.tolist() == [0.5, 0.5]


@pytest.mark.parametrize("bad", [0, -1, 2.5])
def test_n_permutations_below_one_or_fractional_is_refused(bad):
    X, y = _data()
    words = f"n_permutations must be a positive integer, got {bad!r}."
    with pytest.raises(ValueError, match=re.escape(words)):
        search_certificate(ScoreOnly(), X, y, n_permutations=bad)


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, False])
def test_stop_after_below_one_fractional_or_boolean_is_refused(bad):
    X, y = _data()
    words = f"stop_after must be a positive integer or None, got {bad!r}."
    with pytest.raises(ValueError, match=re.escape(words)):
        search_certificate(ScoreOnly(), X, y, n_permutations=3, stop_after=bad)


def test_the_estimator_and_score_are_checked_in_one_line():
    X, y = _data()

    class FitOnly:
        def fit(self, X, y):
            return self

    class ParamsOnly:
        def get_params(self, deep=True):
            return {}

    for bad in (FitOnly(), ParamsOnly(), object()):
        with pytest.raises(TypeError, match=r"^estimator must be a scikit-learn estimator; got"):
            search_certificate(bad, X, y, n_permutations=2)
    with pytest.raises(ValueError, match=re.escape("score must be one of ('auto', 'search',")):
        search_certificate(ScoreOnly(), X, y, score="train", n_permutations=2)
    words = "score='cv' needs a classifier with predict; ScoreOnly has none."
    with pytest.raises(TypeError, match=re.escape(words)):
        search_certificate(ScoreOnly(), X, y, score="cv", n_permutations=2)
    # a classifier is fine with score="cv"; a predict-less search with "search" and "auto"
    assert search_certificate(FixedScore(), X, y, score="cv", n_permutations=2).score == "cv"
    for score in ("search", "auto"):
        cert = search_certificate(ScoreOnly(), X, y, score=score, n_permutations=2)
        assert cert.score == "search" and cert.n_selected is None


# -- score="auto": the pilot --------------------------------------------------------------


def test_auto_stops_its_pilot_at_the_first_relabelling_that_reaches_the_maximum():
    X, y = _data()
    cert = search_certificate(FixedScore(1.0), X, y, n_permutations=3, random_state=0)
    # 1.0 on the first relabelling: one pilot fit, then the cross-validated score
    assert cert.score == "cv" and cert.replaced is not None
    assert cert.replaced.null_scores.tolist() == [1.0]
    assert cert.replaced.permutations.shape == (1, y.size)


def test_auto_keeps_the_search_score_when_no_pilot_relabelling_reaches_the_maximum():
    X, y = _data()
    just_below = np.nextafter(1.0, 0.0)
    cert = search_certificate(FixedScore(just_below), X, y, n_permutations=3, random_state=0)
    assert cert.score == "search" and cert.replaced is None
    assert cert.observed == just_below
    # at most AUTO_PILOT fits were made: the null is that of the search score
    assert AUTO_PILOT == 4 and cert.null_scores.size >= 1


def test_auto_certifies_a_classifier_without_search_score_by_cross_validation():
    X, y = _data()
    cert = search_certificate(GaussianNB(), X, y, n_permutations=2, random_state=0)
    assert cert.score == "cv" and cert.replaced is None


# -- the p-values' tie rules --------------------------------------------------------------


def test_the_randomized_pvalue_seeds_a_fresh_generator_from_a_random_state():
    cert = SearchCertificate(0.9, np.array([0.95, 0.9, 0.9, 0.5]), np.zeros((4, 3), int), None)
    seed = int(np.random.RandomState(5).randint(2**32))
    assert cert.randomized_pvalue(np.random.RandomState(5)) == cert.randomized_pvalue(seed)
    state = np.random.RandomState(5)
    cert.randomized_pvalue(state)
    assert state.randint(2**32) == np.random.RandomState(5).randint(2**32, size=2)[1]


def test_randomized_pvalue_counts_greater_scores_ahead_and_ties_as_a_range():
    """Observed 0.5; null 0.7, 0.5: rank 2 or 3 of 3 (greater 1, ties 1), p in (1/3, 1]."""
    cert = SearchCertificate(0.5, np.array([0.7, 0.5]), np.zeros((2, 3), int), None)
    draws = np.array([cert.randomized_pvalue(s) for s in range(400)])
    assert draws.min() > 1 / 3 and draws.max() <= 1.0
    assert (draws > 2 / 3).any() and (draws <= 2 / 3).any()  # both tied ranks drawn
    # no tie and nothing greater: rank 1, p in (0, 1/3]
    top = SearchCertificate(0.8, np.array([0.7, 0.5]), np.zeros((2, 3), int), None)
    assert all(0 < top.randomized_pvalue(s) <= 1 / 3 for s in range(50))


def test_stopping_point_counts_scores_equal_to_the_observed_one():
    scores = [0.5, 0.9, 0.95, 0.3, 0.9]
    assert stopping_point(scores, 0.9, 1) == 2  # 0.9 >= 0.9: ties count
    assert stopping_point(scores, 0.9, 2) == 3
    assert stopping_point(scores, 0.9, 3) == 5  # exactly as many as needed
    assert stopping_point(scores, 0.9, 4) is None
    assert stopping_point(scores, 0.96, 1) is None
    assert stopping_point([], 0.5, 1) is None


def test_a_sequential_null_stops_at_the_relabelling_that_ties_for_the_last_time():
    X, y = _data()
    # every relabelling ties the observed 0.5: stop after stop_after of them
    cert = search_certificate(ScoreOnly(), X, y, n_permutations=9, stop_after=3)
    assert cert.null_scores.tolist() == [0.5] * 3 and cert.stopped and cert.pvalue == 1.0


# -- the pre-screen -----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", [sp.csr_matrix, sp.csc_array])
def test_blockwise_f_reads_sparse_matrices(fmt):
    rng = np.random.default_rng(0)
    X = rng.poisson(0.7, size=(16, 9)).astype(float)
    X[:, 4] = 0.0  # constant: NaN
    y = np.repeat([0, 1], 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F_ref, p_ref = f_classif(X, y)
    F, p = f_scores_blockwise(fmt(X), y)
    np.testing.assert_allclose(F, F_ref, rtol=1e-12)
    np.testing.assert_allclose(p, p_ref, rtol=1e-12)
    assert np.isnan(F[4])


def test_a_prescreened_search_predicts_lists_and_frames_like_arrays():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20, 6))
    y = (X[:, 1] > 0).astype(int)
    est = Prescreened(GaussianNB(), k=2).fit(X, y)
    keep = np.flatnonzero(est.screen_support_)
    want = GaussianNB().fit(X[:, keep], y).predict(X[:, keep])  # the oracle: kept columns
    np.testing.assert_array_equal(est.predict(X.tolist()), want)
    np.testing.assert_array_equal(est.predict_proba(X.tolist()).argmax(1), want)
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(6)])
    fitted = Prescreened(GaussianNB(), k=2).fit(frame, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a frame reaches the search as a frame: no warning
        np.testing.assert_array_equal(fitted.predict(frame), want)


# -- the null's scoring paths -------------------------------------------------------------


class CovariateScore(ClassifierMixin, BaseEstimator):
    """Search score: the mean covariate of class 1 (covariates stay with their samples).

    Its batched paths refuse to run: they take no covariates, so a certificate given
    covariates must refit instead."""

    def fit(self, X, y, covariates=None):
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        self.search_score_ = float(np.mean(np.asarray(covariates)[y == 1]))
        return self

    def predict(self, X):
        return np.full(np.shape(X)[0], self.classes_[0])

    def permutation_search_scores(self, X, y, permutations, n_jobs=None):
        raise AssertionError("the batched search scores take no covariates")

    def out_of_fold_predictions(self, X, Y, folds, n_jobs=None):
        raise AssertionError("the batched predictions take no covariates")


def test_covariates_reach_every_refit_of_the_null():
    X, y = _data(n=10)
    age = np.arange(10.0) ** 2
    cert = search_certificate(
        CovariateScore(), X, y, score="search", covariates=age, n_permutations=5,
        stop_after=None, random_state=0,
    )  # fmt: skip
    assert cert.observed == np.mean(age[y == 1])
    want = [np.mean(age[y[p] == 1]) for p in cert.permutations]  # the samples keep their age
    np.testing.assert_array_equal(cert.null_scores, want)
    assert len(set(want)) > 1
    cv = search_certificate(
        CovariateScore(), X, y, score="cv", covariates=age, n_permutations=3, random_state=0
    )
    assert cv.score == "cv" and cv.null_scores.tolist() == [0.5] * 3  # the first class always


def test_a_null_of_no_relabelling_is_empty():
    from widefs.model_selection._null_scores import sequential_null_scores

    X, y = _data()
    none = np.empty((0, y.size), dtype=np.intp)
    out = sequential_null_scores(ScoreOnly(), X, y, none, 0.5, stop_after=2)
    assert out.shape == (0,)


def test_the_batched_cv_null_scores_balanced_accuracy_on_unequal_classes():
    from sklearn.base import clone
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import PredefinedSplit, cross_val_predict

    from widefs.model_selection._cross_validated import design_folds
    from widefs.rules import CN2Classifier

    rng = np.random.default_rng(4)
    X = rng.normal(size=(24, 6))
    y = np.array([0] * 16 + [1] * 8)  # unequal: balanced accuracy differs from accuracy
    X[y == 1, 1] += 1.5
    est = CN2Classifier(max_rule_length=1)
    cert = search_certificate(
        est, X, y, score="cv", cv=4, scoring="balanced_accuracy", n_permutations=5,
        stop_after=None, random_state=2,
    )  # fmt: skip
    seed = cert.cross_validation.seed

    def oracle(labels):  # scikit-learn's cross_val_predict on the certificate's folds
        folds = PredefinedSplit(design_folds(labels, 4, seed, None))
        pred = cross_val_predict(clone(est), X, labels, cv=folds)
        return balanced_accuracy_score(labels, pred), np.mean(pred == labels)

    scores = [oracle(y[p]) for p in cert.permutations]
    np.testing.assert_allclose(cert.null_scores, [b for b, _ in scores], rtol=0, atol=1e-15)
    assert any(b != a for b, a in scores)  # the two scores differ on these relabellings


def test_a_cv_certificate_keeps_a_frame_for_steps_that_select_columns_by_name():
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline

    X, y = _data(n=16, m=3, seed=1)
    frame = pd.DataFrame(X, columns=["g0", "g1", "g2"])
    frame.loc[y == 1, "g1"] += 2.0
    pipe = make_pipeline(ColumnTransformer([("g1", "passthrough", ["g1"])]), GaussianNB())
    cert = search_certificate(pipe, frame, y, score="cv", n_permutations=3, random_state=0)
    # the oracle: naive Bayes on the column g1 alone, on the same folds and relabellings
    alone = search_certificate(
        GaussianNB(), frame[["g1"]].to_numpy(), y, score="cv", n_permutations=3, random_state=0
    )
    assert cert.score == "cv" and cert.observed == alone.observed
    np.testing.assert_array_equal(cert.null_scores, alone.null_scores)


class NeverFit(ClassifierMixin, BaseEstimator):
    """Fails the test if fitted: the arguments must be refused before any work."""

    def fit(self, X, y):
        raise AssertionError("fitted before the arguments were checked")

    def predict(self, X):
        return np.zeros(np.shape(X)[0])


def test_the_folds_are_checked_before_any_fit():
    X = np.zeros((12, 2))
    y = np.array([0] * 9 + [1] * 3)
    words = "cv=5 folds need at least 5 examples of every class; the smallest class has 3"
    with pytest.raises(ValueError, match=re.escape(words)):
        search_certificate(NeverFit(), X, y, score="cv", cv=5, n_permutations=2)
    with pytest.raises(ValueError, match=re.escape("scoring must be one of")):
        search_certificate(NeverFit(), X, y, score="cv", cv=3, scoring="f1", n_permutations=2)
