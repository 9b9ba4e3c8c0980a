"""analyse(covariates=, groups=): the design reaches every part that can use it, and the
result says what each part did with it."""

import warnings

import numpy as np
import pytest

from widefs.analysis import analyse


@pytest.fixture(scope="module")
def repeated():
    """12 patients x 3 samples, a patient effect, an age per patient, 5 class genes."""
    rng = np.random.default_rng(0)
    patient = np.repeat([f"p{i}" for i in range(12)], 3)
    y = np.repeat(["ctl", "case"], 18)
    X = rng.normal(size=(36, 200)) + rng.normal(size=(12, 200))[np.repeat(np.arange(12), 3)]
    X[:, :5] += 3.0 * (y == "case")[:, None]
    age = np.repeat(rng.normal(50, 10, 12), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyse(
            X, y, methods=["chance", "compare"], quick=True, random_state=0,
            covariates={"age": age}, groups=patient, n_permutations=3, n_null_permutations=20,
        )  # fmt: skip
    return result, X, y, patient, age


def test_the_design_summary_names_the_case_and_every_part(repeated):
    result = repeated[0]
    design = result.design
    assert design.case == "between groups"
    assert design.covariates == ("age",) and design.n_groups == 12
    assert design.columns == ("intercept", "class[ctl]", "age")
    assert set(design.statements) == {"chance", "compare", "certificates"}
    assert (
        "permutation null with relabellings that respect the groups"
        in (design.statements["chance"])
    )
    assert "kept every group on one side" in design.statements["compare"]


def test_the_screen_and_its_comparison_row_get_the_design(repeated):
    result, X, y, patient, age = repeated
    from widefs.stats import design_moderated_f

    screen = result.chance.screens["fdr"]
    assert screen.design_["case"] == "between groups"
    assert screen.design_["covariates"] == ("age",)
    g = screen.kinds_ == 2
    ref = design_moderated_f(X[:, g], y, covariates={"age": age}, groups=patient)
    np.testing.assert_allclose(screen.pvalues_[g], ref.test.pvalues, rtol=1e-9)
    fdr = result.evaluations["FDR 5% + naive Bayes"]
    assert fdr["design_case"] == "between groups"
    assert fdr["routed_params"] == ("covariates", "groups")
    for name, res in result.evaluations.items():
        assert res["design_case"] == "between groups", name
        for train, test in res["splits"]:
            assert not set(patient[train]) & set(patient[test]), name


def test_the_chance_selector_keeps_patients_whole(repeated):
    result, _, y, patient, _ = repeated
    sel = result.chance.selector
    assert sel.design_case_ == "between groups" and result.chance.null_used == "permutation"
    for perm in sel.permutations_:
        for p in np.unique(patient):
            assert np.unique(y[perm][patient == p]).size == 1
    with pytest.raises(ValueError, match='null="analytic" assumes independent samples'):
        analyse(result_x(repeated), y, groups=patient, null="analytic", methods=["chance"])


def result_x(repeated):
    return repeated[1]


def test_certificates_relabel_whole_patients(repeated):
    result = repeated[0]
    cert = result.certificates["discriminative selection"].certificate
    assert cert.design_case == "between groups"


def test_without_a_design_there_is_no_design_summary():
    rng = np.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = analyse(
            rng.normal(size=(12, 20)), np.repeat(["a", "b"], 6), methods=["chance"], quick=True,
            n_permutations=2, n_null_permutations=20,
        )  # fmt: skip
    assert res.design is None
    assert res.chance.screens["fdr"].design_["statement"] == ""


def test_the_rules_hold_out_whole_patients(repeated, monkeypatch):
    import widefs.rules._summary as summary_module

    _, X, y, patient, _ = repeated
    split, seen = summary_module._split, {}

    def spy(*args):
        seen["parts"] = split(*args)
        return seen["parts"]

    monkeypatch.setattr(summary_module, "_split", spy)
    result = analyse(X[:, :20], y, methods=["rules"], random_state=0, groups=patient)
    train, test = seen["parts"]  # the row indices of the two parts
    assert set(patient[train]).isdisjoint(patient[test])
    assert result.rules.summary.n_test == test.size
    assert "kept every group on one side" in result.design.statements["rules"]
