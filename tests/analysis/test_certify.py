"""The analysis's certificates: what each certifies, and the pre-screen on wide data."""

import numpy as np

from widefs.analysis import CERTIFIED, _certify
from widefs.cli.render import _certificates
from widefs.model_selection import Prescreened, majority_baseline
from widefs.rules import CN2Classifier
from widefs.scm import PACBayesSCM


def _item(group):
    return next(item for item in CERTIFIED if item.group == group)


def test_only_wrappers_are_prescreened_and_only_on_wide_data(monkeypatch):
    monkeypatch.setattr(_certify, "PRESCREEN", 10)
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(24, 12)), np.repeat([0, 1], 12)
    run = _certify.CertificateRun(X, y, seed=0, n_permutations=2)
    rules = run.certify(_item("rules"))
    assert isinstance(rules.certificate.estimator, Prescreened) and rules.prescreened == 10
    assert isinstance(rules.certificate.estimator.estimator, CN2Classifier)
    scm = run.certify(_item("scm"))
    assert isinstance(scm.certificate.estimator.estimator, PACBayesSCM)
    # The SCM certificate says that its own section searched every feature.
    section = _certificates._section(scm, 2, majority_baseline(y))
    text = "".join(b.markdown() for b in section.blocks if hasattr(b, "markdown"))
    assert "As in the method comparison" in text and "the 10 features with the largest F" in text
    chance = run.certify(_item("chance"))
    assert not isinstance(chance.certificate.estimator, Prescreened)
    assert chance.prescreened is None
    narrow = _certify.CertificateRun(X[:, :10], y, seed=0, n_permutations=2)
    assert narrow.certify(_item("rules")).prescreened is None


def test_cn2_certifies_its_cross_validated_score_others_their_own():
    # CN2's training accuracy reaches 1 on almost any relabelling of wide data.
    assert {item.name: item.certify for item in CERTIFIED if item.group == "rules"} == {
        "CN2-POE rules": "cv",
        "CN2 rules (significance)": "cv",
    }
    assert {item.certify for item in CERTIFIED if item.group != "rules"} == {"auto"}
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(30, 8)), np.repeat(["a", "b", "b"], 10)
    run = _certify.CertificateRun(X, y, seed=1, n_permutations=3)
    out = run.certify(_item("rules"))
    # Imbalanced classes: balanced accuracy, on min(5, smallest class) stratified folds.
    assert out.certificate.score == "cv" and out.certificate.scoring == "balanced_accuracy"
    assert out.certificate.cross_validation.n_splits == 5
    assert run.certify(_item("rules")) is out  # computed once


def test_a_failing_certificate_is_an_outcome_not_an_error(monkeypatch):
    import widefs.model_selection

    def fails(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(widefs.model_selection, "search_certificate", fails)
    X, y = np.zeros((8, 3)), np.repeat([0, 1], 4)
    out = _certify.CertificateRun(X, y, seed=0, n_permutations=2).certify(_item("rules"))
    assert (out.certificate, out.error, out.status, out.pvalue) == (
        None,
        "ValueError: boom",
        "failed",
        None,
    )
