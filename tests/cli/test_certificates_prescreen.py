"""Certificates of the pre-screened searches (SCMs, CN2, CEFS) on data wider than PRESCREEN."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.feature_selection import SelectKBest, f_classif

from widefs.cli import _certificates
from widefs.model_selection import search_certificate
from widefs.rules import CN2Classifier


def test_prescreened_search_reruns_the_screen_on_every_relabelling():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 40))
    y = (X[:, 3] + 0.5 * rng.normal(size=30) > 0).astype(int)
    est = _certificates._Prescreened(CN2Classifier(), k=5)
    cert = search_certificate(est, X, y, n_permutations=4, random_state=1)
    for perm, score in zip(cert.permutations, cert.null_scores, strict=True):
        yp = y[perm]
        # The oracle: screen on the relabelled y, then the plain search on the kept columns.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            keep = SelectKBest(f_classif, k=5).fit(X, yp).get_support()
        want = clone(CN2Classifier()).fit(X[:, keep], yp).search_score_
        assert score == pytest.approx(want, abs=0)
    # Screening once on the real labels would be a different (optimistic) null.
    assert cert.estimator.screen_.get_support().sum() == 5
    assert cert.estimator.k == 5 and isinstance(cert.estimator.estimator_, CN2Classifier)


def test_only_wrappers_are_prescreened_and_only_on_wide_data(monkeypatch):
    monkeypatch.setattr(_certificates, "PRESCREEN", 10)
    rng = np.random.default_rng(2)

    class Data:
        X = rng.normal(size=(24, 12))
        y = np.repeat([0, 1], 12)

    run = _certificates.CertificateRun(Data, seed=0, n_permutations=2)
    by_group = {item.group: item for item in _certificates.CERTIFIED}
    assert isinstance(run.certify(by_group["rules"]).estimator, _certificates._Prescreened)
    assert isinstance(run.certify(by_group["scm"]).estimator, _certificates._Prescreened)
    # The SCM certificate says that its own section searched every feature.
    section = _certificates._section(by_group["scm"], run.results[by_group["scm"].name], run)
    text = "".join(b.markdown() for b in section.blocks if hasattr(b, "markdown"))
    assert "As in the method comparison" in text
    assert not isinstance(run.certify(by_group["chance"]).estimator, _certificates._Prescreened)
    Data.X = Data.X[:, :10]
    narrow = _certificates.CertificateRun(Data, seed=0, n_permutations=2)
    assert not isinstance(narrow.certify(by_group["rules"]).estimator, _certificates._Prescreened)


def test_prescreened_search_predicts_and_reports_its_features():
    """What the cross-validated certificate needs: predictions through the screen, and the
    features used, as input columns (the screen's kept columns that the search used)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 40))
    y = (X[:, 7] > 0).astype(int)
    est = _certificates._Prescreened(CN2Classifier(), k=5).fit(X, y)
    keep = est.screen_.get_support(indices=True)
    inner = est.estimator_.get_support(indices=True)
    np.testing.assert_array_equal(est.get_support(), np.isin(np.arange(40), keep[inner]))
    assert est.get_support()[7] and est.get_support().sum() == inner.size
    np.testing.assert_array_equal(est.predict(X), est.estimator_.predict(X[:, keep]))
    np.testing.assert_array_equal(est.classes_, [0, 1])
