"""The analysis's checks and decisions at their boundaries: every threshold comparison on
both sides of the threshold and at it, every validator with an input it must refuse and
one it must accept (the comparison mutants of ``benchmarks/mutation.py analysis``)."""

import re
import types
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from widefs.analysis import _compare, _design, _inputs, _models, analyse
from widefs.analysis._design import check_design, design_folds
from widefs.analysis._inputs import check_inputs, is_anndata
from widefs.analysis._spec import candidates, certificate_permutations, null_permutations


class Store:
    """What a zarr array offers: shape, dtype and slicing (no numpy conversion)."""

    def __init__(self, values):
        self.values = values
        self.shape, self.dtype = values.shape, values.dtype

    def __getitem__(self, key):
        return self.values[key]


Y6 = np.repeat(["a", "b"], 3)


# -- inputs -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["n_permutations", "n_null_permutations"])
def test_one_permutation_is_the_smallest_count_accepted(name):
    # The check is value < 1: 1 passes, 0 and -1 do not; numpy integers pass too.
    check_inputs(np.zeros((6, 2)), Y6, None, None, **{name: 1})
    check_inputs(np.zeros((6, 2)), Y6, None, None, **{name: np.int64(1)})
    for bad in (0, -1, 1.0, 2.5, "3"):
        with pytest.raises(ValueError, match=f"^{name} must be a positive integer, got "):
            check_inputs(np.zeros((6, 2)), Y6, None, None, **{name: bad})
    # None is "the default", not a count
    check_inputs(np.zeros((6, 2)), Y6, None, None, **{name: None})


def test_two_samples_per_class_and_two_classes_are_the_smallest_accepted():
    X = np.zeros((4, 2))
    _, y, _, _ = check_inputs(X, np.array([0, 0, 1, 1]), None, None)
    assert y.tolist() == [0, 0, 1, 1]
    # three classes of two each: more than two classes are fine
    check_inputs(np.zeros((6, 2)), np.array([0, 0, 1, 1, 2, 2]), None, None)
    words = "y must hold at least two classes of at least two samples each"
    for bad in ([0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 1, 1, 2, 9]):
        X = np.zeros((len(bad), 2))
        with pytest.raises(ValueError, match=re.escape(words)):
            check_inputs(X, np.array(bad), None, None)


def test_labels_must_be_one_dimensional_and_one_per_sample():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match=re.escape("one label per sample (4), got shape (4, 1)")):
        check_inputs(X, np.array([[0], [0], [1], [1]]), None, None)
    with pytest.raises(ValueError, match=re.escape("one label per sample (4), got shape (5,)")):
        check_inputs(X, np.array([0, 0, 1, 1, 1]), None, None)
    # a Series and an Index are read as arrays
    for y in (pd.Series([0, 0, 1, 1]), pd.Index([0, 0, 1, 1])):
        assert isinstance(check_inputs(X, y, None, None)[1], np.ndarray)


def test_features_of_every_accepted_kind_and_their_names():
    frame = pd.DataFrame(np.eye(4)[:, :3], columns=["g1", 2, "g3"])
    X, _, names, _ = check_inputs(frame, np.array([0, 0, 1, 1]), None, None)
    assert names == ["g1", "2", "g3"] and X.dtype == float
    _, _, names, _ = check_inputs(frame, np.array([0, 0, 1, 1]), None, ["a", "b", "c"])
    assert names == ["a", "b", "c"]
    _, _, names, _ = check_inputs(np.zeros((4, 3), int), np.array([0, 0, 1, 1]), None, None)
    assert names == ["x0", "x1", "x2"]
    _, _, names, _ = check_inputs(np.zeros((4, 3)), np.array([0, 0, 1, 1]), None, list("pqr"))
    assert names == ["p", "q", "r"]
    # a 3-D array is refused like a 1-D one
    with pytest.raises(ValueError, match=re.escape("X must be 2-D (samples x features)")):
        check_inputs(np.zeros((4, 3, 2)), np.array([0, 0, 1, 1]), None, None)


def test_out_of_core_arrays_are_two_dimensional_integer_stores():
    y = np.array([0, 0, 1, 1])
    for dtype in (bool, np.uint8, np.int32):
        X, _, names, methods = check_inputs(Store(np.zeros((4, 3), dtype)), y, ["scm"], None)
        assert isinstance(X, Store) and names == ["x0", "x1", "x2"] and methods == ("scm",)
    _, _, names, _ = check_inputs(Store(np.zeros((4, 2), bool)), y, ["scm"], ["u", "v"])
    assert names == ["u", "v"]
    words = "X must be a numpy array or a pandas DataFrame, got Store"
    for values in (np.zeros((4, 3)), np.zeros((4, 3, 2), bool), np.zeros(4, bool)):
        with pytest.raises(TypeError, match=words):
            check_inputs(Store(values), y, ["scm"], None)
    with pytest.raises(TypeError, match="got list"):
        check_inputs([[0, 1]] * 4, y, None, None)


def test_methods_are_checked_and_put_in_report_order():
    X, y = np.zeros((4, 2)), np.array([0, 0, 1, 1])
    assert check_inputs(X, y, None, None)[3] == ("chance", "scm", "rules", "cefs", "compare")
    assert check_inputs(X, y, "scm", None)[3] == ("scm",)
    assert check_inputs(X, y, ["compare", "chance"], None)[3] == ("chance", "compare")
    with pytest.raises(ValueError, match=r"^unknown methods x, y; choose among chance, scm"):
        check_inputs(X, y, ["x", "scm", "y"], None)
    with pytest.raises(ValueError, match=re.escape("unknown methods (none);")):
        check_inputs(X, y, (), None)


def test_sparse_input_is_made_dense_up_to_the_limit_exactly(monkeypatch):
    X = sp.random(4, 5, density=0.5, format="csr", random_state=0)
    y = np.array([0, 0, 1, 1])
    monkeypatch.setattr(_inputs, "SPARSE_DENSE_LIMIT", 4 * 5 * 8)  # exactly the dense size
    dense, _, names, _ = check_inputs(X, y, ["chance", "scm", "compare"], None)
    assert isinstance(dense, np.ndarray) and names[-1] == "x4"
    np.testing.assert_array_equal(dense, X.toarray())
    monkeypatch.setattr(_inputs, "SPARSE_DENSE_LIMIT", 4 * 5 * 8 - 1)  # one byte less
    with pytest.raises(ValueError, match=r"^X is sparse 4 x 5 \(0\.0 GiB dense\); the parts "
                       r"chance, compare need it dense: run methods=\['scm'\]"):  # fmt: skip
        check_inputs(X, y, ["chance", "scm", "compare"], None)
    # the SCMs alone read it sparse, however large
    kept, _, names, _ = check_inputs(X, y, ["scm"], ["a", "b", "c", "d", "e"])
    assert sp.issparse(kept) and names == ["a", "b", "c", "d", "e"]
    kept, _, names, _ = check_inputs(X, y, ["scm"], None)
    assert sp.issparse(kept) and names == ["x0", "x1", "x2", "x3", "x4"]


def test_anndata_arguments_without_an_anndata_object_are_refused():
    X, y = np.zeros((4, 2)), np.array([0, 0, 1, 1])
    words = "target= and layer= read an AnnData object; X is not one"
    for kwargs in (dict(target="t"), dict(layer="l"), dict(target="t", layer="l")):
        with pytest.raises(ValueError, match=re.escape(words)):
            check_inputs(X, y, None, None, **kwargs)
    with pytest.raises(ValueError, match=re.escape("y is required")):
        check_inputs(X, None, None, None)


def test_anndata_is_recognised_by_its_type_name_and_package():
    def instance(name, module):
        return type(name, (), {"__module__": module})()

    assert is_anndata(instance("AnnData", "anndata"))
    assert is_anndata(instance("AnnData", "anndata._core.anndata"))
    assert not is_anndata(instance("AnnData", "mypackage.anndata"))
    assert not is_anndata(instance("AnnDataLike", "anndata"))
    assert not is_anndata(instance("Other", "other"))


# -- design -------------------------------------------------------------------------------


def test_no_design_without_covariates_and_groups_and_either_makes_one():
    y = np.repeat(["a", "b"], 4)
    assert check_design(y, None, None) is None
    only_groups = check_design(y, None, np.arange(8) // 2 % 2)  # pairs of one class: within
    assert only_groups is not None and only_groups.covariates is None
    assert only_groups.n_groups == 2 and only_groups.case == "within groups"
    only_cov = check_design(y, [1.0, 5, 2, 7, 3, 6, 4, 9], None)
    assert only_cov.groups is None and only_cov.n_groups == 0
    assert only_cov.case == "independent"
    assert list(only_cov.covariates.columns) == ["covariate 0"]


def test_covariates_of_every_shape_become_named_columns():
    y = np.repeat(["a", "b"], 4)
    two = np.column_stack([[1.0, 5, 2, 7, 3, 6, 4, 9], [3.0, 1, 4, 1, 5, 9, 2, 6]])
    design = check_design(y, two, None)
    assert list(design.covariates.columns) == ["covariate 0", "covariate 1"]
    assert design.covariate_names == ("covariate 0", "covariate 1")
    framed = pd.DataFrame({"age": two[:, 0]}, index=np.arange(10, 18))
    design = check_design(y, framed, None)
    assert design.covariates.index.tolist() == list(range(8))  # reset: rows match y
    with pytest.raises(ValueError, match=re.escape("one row per sample (8); got 7")):
        check_design(y, {"age": two[:7, 0]}, None)


def test_a_design_needs_the_data_in_memory():
    y = np.repeat(["a", "b"], 4)
    check_design(y, None, np.arange(8) // 2 % 2, X=np.zeros((8, 2)))  # in memory: fine
    with pytest.raises(ValueError, match=re.escape("need the data in memory")):
        check_design(y, None, np.arange(8) // 2 % 2, X=Store(np.zeros((8, 2), bool)))


def grouped(y, groups):
    return check_design(np.asarray(y), None, np.asarray(groups))


def test_folds_without_groups_are_capped_by_the_smallest_class():
    y = np.array([0] * 3 + [1] * 7)
    assert design_folds(y, None, 5) == 3
    assert design_folds(y, None, 2) == 2
    assert design_folds(np.repeat([0, 1], 5), None, 5) == 5  # equal to the smallest class


def test_folds_with_whole_groups_between_classes():
    # class 0: groups g0, g1, g2 (three); class 1: g3, g4 (two) -> at most 2 folds
    y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    g = np.array(["g0", "g0", "g1", "g1", "g2", "g2", "g3", "g3", "g4", "g4"])
    design = grouped(y, g)
    assert design.case == "between groups"
    assert design_folds(y, design, 5) == 2
    # four groups per class: min(5, 4) = 4; min(3, 4) = 3
    y8 = np.repeat([0, 1], 8)
    g8 = np.repeat(np.arange(8), 2)
    design = grouped(y8, g8)
    assert design_folds(y8, design, 5) == 4 and design_folds(y8, design, 3) == 3
    # one group in a class: never fewer than two folds
    y1 = np.array([0, 0, 0, 1, 1, 1])
    design = grouped(y1, np.array([0, 0, 0, 1, 2, 3]))
    assert design_folds(y1, design, 5) == 2


def test_folds_with_groups_holding_every_class():
    # three pairs (within groups): min(5, 3 groups) = 3; 2 groups -> max(2, 2) = 2
    y = np.array([0, 1, 0, 1, 0, 1])
    design = grouped(y, [0, 0, 1, 1, 2, 2])
    assert design.case == "within groups" and design_folds(y, design, 5) == 3
    design = grouped(y[:4], [0, 0, 1, 1])
    assert design_folds(y[:4], design, 5) == 2


def test_the_statements_name_what_each_part_did():
    y = np.repeat(["a", "b"], 4)
    cov = {"age": [1.0, 5, 2, 7, 3, 6, 4, 9]}
    groups = np.arange(8) // 2 % 2
    everything = ("chance", "scm", "rules", "cefs", "compare")
    both = check_design(y, cov, groups).summary(everything).statements
    assert set(both) == {*everything, "certificates"}
    assert "used the covariates and groups:" in both["chance"]
    assert "kept every group on one side of its halves" in both["chance"]
    assert both["rules"].startswith("CN2-POE: its held-out split kept every group")
    assert both["compare"].startswith("nested cross-validation kept every group on one side")
    assert "the covariates reached the class-difference screen" in both["compare"]
    assert both["certificates"] == (
        "relabellings respect the groups; the searches take no covariates, so they did not use them"
    )
    assert both["scm"].startswith("the Set Covering Machines: fitted on every sample")
    assert both["cefs"].startswith("CEFS: fitted on every sample")
    cov_only = check_design(y, cov, None).summary(("chance", "rules", "compare")).statements
    assert set(cov_only) == {"chance", "rules", "compare", "certificates"}
    assert "used the covariates:" in cov_only["chance"]
    assert "take no covariates (they did not use them)" in cov_only["chance"]
    assert cov_only["rules"].startswith("CN2-POE: fitted on every sample")
    assert cov_only["compare"].startswith("nested cross-validation the covariates reached")
    assert cov_only["certificates"].startswith("labels permuted freely; the searches")
    groups_only = check_design(y, None, groups).summary(("compare",)).statements
    assert set(groups_only) == {"compare", "certificates"}
    assert groups_only["compare"].endswith("no covariates")
    assert groups_only["certificates"] == "relabellings respect the groups"


def test_the_summary_carries_the_case_in_words():
    y = np.repeat(["a", "b"], 4)
    summary = check_design(y, None, np.arange(8) // 2 % 2).summary(("chance",))
    assert summary.groups_case == _design.GROUP_CASES["within groups"]
    assert summary.n_groups == 2 and summary.covariates == ()


def test_a_test_double_is_not_anndata():
    assert not is_anndata(types.SimpleNamespace(X=np.zeros((2, 2))))


# -- specification ------------------------------------------------------------------------


BASELINES = ["naive Bayes, all features", "linear SVM, all features"]
BY_GROUP = {
    "chance": ["MGM + naive Bayes", "E[X(1)] + naive Bayes", "FDR 5% + naive Bayes"],
    "scm": ["PAC-Bayes SCM", "sample-compression SCM", "Occam SCM"],
    "rules": ["CN2-POE rules", "CN2 rules (significance)"],
    "cefs": ["CEFS ensemble (kNN, SFS)"],
}


@pytest.mark.parametrize("group", [*BY_GROUP, "compare"])
def test_each_group_adds_exactly_its_candidates(group):
    names = [c.name for c in candidates([group])]
    assert names == BASELINES + BY_GROUP.get(group, [])
    every = [c.name for c in candidates(list(BY_GROUP))]
    assert every == BASELINES + [n for g in BY_GROUP.values() for n in g]


@pytest.mark.parametrize("n_features", [10, 10**5, 10**6])
def test_quick_runs_cap_the_null_permutations_at_one_hundred(n_features):
    from widefs.univariate import default_permutations

    full = default_permutations(n_features)  # 1000, 200, 100: above, above and at the cap
    assert null_permutations(n_features, False) == full
    assert null_permutations(n_features, True) == min(full, 100)
    assert certificate_permutations(True) == 9 and certificate_permutations(False) == 29


# -- the fitted parts ---------------------------------------------------------------------


def _signal(n=20, m=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    y = np.repeat([0, 1], n // 2)
    X[y == 1, 0] += 4.0  # one feature separates the classes
    return X, y, [f"g{j}" for j in range(m)]


@pytest.mark.parametrize(("m", "wide"), [(5, False), (6, True)])
def test_rules_are_prescreened_only_above_the_prescreen_size(monkeypatch, m, wide):
    monkeypatch.setattr(_models, "PRESCREEN", 5)
    X, y, names = _signal(m=m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rules = _models.rules_analysis(X, y, names, seed=0)
    assert rules.prescreened == (5 if wide else None)
    support = rules.summary.prescreen_support
    assert (support is not None) == wide
    if wide:
        assert support.sum() == 5 and support[0]
    # the separating feature: the rules beat the default class on the held-out part
    assert rules.summary.test_error < rules.summary.default_error
    assert rules.better_than_default is True


def test_rules_not_better_than_the_default_class_say_so():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(20, 4)), np.repeat([0, 1], 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rules = _models.rules_analysis(X, y, ["a", "b", "c", "d"], seed=0)
    s = rules.summary
    assert rules.better_than_default is bool(s.test_error < s.default_error)


@pytest.mark.parametrize(("m", "wide"), [(5, False), (6, True)])
def test_cefs_is_prescreened_only_above_the_prescreen_size(monkeypatch, m, wide):
    from widefs.ensemble import ClassSpecificEnsemble

    monkeypatch.setattr(_models, "PRESCREEN", 5)
    X, y, names = _signal(m=m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cefs = _models.cefs_analysis(X, y, names, seed=0)
    assert cefs.prescreened == (5 if wide else None)
    assert isinstance(cefs.model, ClassSpecificEnsemble)
    assert cefs.model.n_features_in_ == 5  # screened to 5, or 5 features to begin with
    assert "g0" in cefs.overall_subset
    assert set(cefs.class_subsets) == {0, 1}
    used = {f for s in cefs.class_subsets.values() for f in s} | set(cefs.overall_subset)
    assert used <= set(names)


# -- the comparison -----------------------------------------------------------------------


def test_a_selection_is_some_feature_left_out_in_some_fold():
    assert not _compare._selects({"n_selected": None, "selection_frequency": np.zeros(3)})
    kept_all = {"n_selected": np.array([3, 3]), "selection_frequency": np.ones(3)}
    assert not _compare._selects(kept_all)  # every feature in every fold: no choice made
    chose = {"n_selected": np.array([3, 2]), "selection_frequency": np.array([1.0, 1.0, 0.5])}
    assert _compare._selects(chose)


def test_empty_folds_count_the_folds_that_kept_no_feature():
    assert _compare._empty_folds({"n_selected": None}) == 0
    assert _compare._empty_folds({"n_selected": np.array([0, 2, 0, 1])}) == 2
    assert _compare._empty_folds({"n_selected": np.array([1, 2])}) == 0


def _res(n_selected, frequency, stability=0.8):
    return {
        "mean": 0.75, "std": 0.1, "ci": (0.6, 0.9), "pooled_accuracy": 0.74,
        "balanced_mean": 0.7, "balanced_ci": (0.55, 0.85),
        "classes": np.array(["a", "b"]), "class_recall": np.array([0.8, 0.6]),
        "class_recall_ci": np.array([[0.5, 0.95], [0.3, 0.85]]),
        "n_selected": None if n_selected is None else np.array(n_selected),
        "selection_frequency": np.asarray(frequency, dtype=float),
        "stability": stability, "test_score": np.full(3, 0.75),
    }  # fmt: skip


def test_a_row_shows_features_and_stability_only_for_a_selecting_method():
    from widefs.analysis._spec import Candidate

    cand = Candidate("m", None, "a note")
    assert _compare._row(cand, None, None) == {"method": "m", "applies": False, "note": "a note"}
    row = _compare._row(cand, _res([2, 4, 3], [1.0, 0.5, 0.0]), None)
    assert row["applies"] is True and row["features"] == 3.0 and row["stability"] == 0.8
    assert (row["empty_folds"], row["folds"]) == (0, 3)
    assert row["recall b"] == 0.6 and row["recall a low"] == 0.5
    assert row["certificate"] == "not certified" and np.isnan(row["search_pvalue"])
    for res in (_res(None, [1.0, 1.0]), _res([2, 2, 2], [1.0, 1.0])):
        row = _compare._row(cand, res, None)
        assert np.isnan(row["features"]) and np.isnan(row["stability"])


def test_binary_only_candidates_are_skipped_on_several_classes_only():
    from sklearn.naive_bayes import GaussianNB

    from widefs.analysis._spec import Candidate

    rng = np.random.default_rng(0)
    cands = [
        Candidate("binary", lambda seed: GaussianNB(), binary_only=True),
        Candidate("any", lambda seed: GaussianNB()),
    ]
    X = rng.normal(size=(12, 3))
    three = np.repeat([0, 1, 2], 4)
    out = _compare._evaluate_all(X, three, cands, 0, 2, 1, None, None, None)
    assert out["binary"] is None and out["any"]["classes"].tolist() == [0, 1, 2]
    two = np.repeat([0, 1], 6)
    out = _compare._evaluate_all(X, two, cands, 0, 2, 1, None, None, None)
    assert out["binary"] is not None and out["any"] is not None


def test_the_comparison_folds_keep_groups_whole():
    from sklearn.naive_bayes import GaussianNB

    from widefs.analysis._spec import Candidate

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(16, 3)), np.repeat([0, 1], 8)
    groups = np.repeat(np.arange(8), 2)  # pairs of the same class: between groups
    design = check_design(y, None, groups)
    out = _compare._evaluate_all(
        X, y, [Candidate("nb", lambda seed: GaussianNB())], 0, 4, 1, None, None, design
    )
    res = out["nb"]
    assert res["design_case"] == "between groups"
    for train, test in res["splits"]:
        assert not set(groups[train]) & set(groups[test])


@pytest.mark.parametrize(("quick", "folds", "repeats"), [(True, 3, 1), (False, 5, 2)])
def test_a_comparison_alone_certifies_nothing_and_sizes_its_folds(quick, folds, repeats):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 5)), np.repeat(["a", "b"], 10)
    result = analyse(X, y, methods=["compare"], quick=quick, random_state=0, n_permutations=2)
    assert result.certificates == {}  # the baselines have no search to certify
    info = result.comparison_info
    assert (info.requested_folds, info.folds, info.repeats) == (folds, folds, repeats)
    assert list(result.comparison.index) == BASELINES


# -- the certificates' bookkeeping and the parts' dispatch --------------------------------


def test_binary_only_searches_are_certified_on_two_classes_only():
    from widefs.analysis._certify import CertificateRun
    from widefs.analysis._spec import CERTIFIED, Certified

    X = np.zeros((9, 2))
    binary = Certified("rules", "b", None, "s", ("b",), binary_only=True)
    for y, want in ((np.repeat([0, 1], [4, 5]), True), (np.repeat([0, 1, 2], 3), False)):
        run = CertificateRun(X, y, seed=0, n_permutations=2)
        assert run.applies(binary) is want
        assert all(run.applies(item) for item in CERTIFIED)  # none of them is binary-only


def test_a_part_certifies_its_own_searches_only(monkeypatch):
    from widefs.analysis._certify import CertificateRun

    run = CertificateRun(np.zeros((8, 2)), np.repeat([0, 1], 4), seed=0, n_permutations=2)
    monkeypatch.setattr(CertificateRun, "_compute", lambda self, item: item.name)
    assert run.group("rules") == ["CN2-POE rules", "CN2 rules (significance)"]
    assert run.group("chance") == ["discriminative selection"]
    assert run.group("compare") == []
    assert list(run.results) == [
        "CN2-POE rules",
        "CN2 rules (significance)",
        "discriminative selection",
    ]


def test_the_counts_decision_takes_auto_or_a_boolean():
    from widefs.analysis._analyse import _counts

    # reads: non-negative integers from 0 reaching 1000 (looks_like_counts's rule)
    counts = np.random.default_rng(0).poisson(3, size=(10, 30)).astype(float)
    counts[0, 0] = 1500.0
    assert _counts(counts, "auto") is True
    assert _counts(counts + 0.5, "auto") is False
    assert _counts(counts, False) is False and _counts(counts + 0.5, True) is True
    assert _counts(counts, np.bool_(True)) is True
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match=re.escape(f"got {bad!r}.")):
            _counts(counts, bad)


def test_the_chance_part_sizes_its_null_unless_told():
    X, y, _ = _signal(m=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = analyse(X, y, methods=["chance"], quick=True, n_permutations=2)
        given = analyse(X, y, methods=["chance"], quick=True, n_permutations=2,
                        n_null_permutations=20)  # fmt: skip
    assert default.chance.n_permutations == null_permutations(8, True) == 100
    assert given.chance.n_permutations == 20
    assert default.certificate_permutations == 2


@pytest.mark.parametrize("part", ["rules", "cefs"])
def test_each_part_fills_its_own_field(part):
    X, y, _ = _signal(m=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyse(X, y, methods=[part], quick=True, n_permutations=2)
    filled = {name for name in ("chance", "scm", "rules", "cefs", "comparison")
              if getattr(result, name) is not None}  # fmt: skip
    assert filled == {part}


def test_the_rules_part_holds_out_whole_groups(monkeypatch):
    import widefs.rules._summary as summary_module

    split, seen = summary_module._split, {}

    def spy(*args):
        seen["parts"] = split(*args)
        return seen["parts"]

    monkeypatch.setattr(summary_module, "_split", spy)
    X, y, _ = _signal(n=24, m=4)
    groups = np.repeat(np.arange(12), 2)  # pairs of one class
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        analyse(X, y, methods=["rules"], quick=True, n_permutations=2, groups=groups)
    train, test = seen["parts"]  # the row indices of the two parts
    assert set(groups[train]).isdisjoint(groups[test])
    assert sorted([*train, *test]) == list(range(24))


def test_anndata_takes_feature_names_given():
    ad = pytest.importorskip("anndata")
    X, y, names = _signal(m=3)
    adata = ad.AnnData(X=X, var=pd.DataFrame(index=names))
    assert check_inputs(adata, y, None, None)[2] == names
    assert check_inputs(adata, y, None, ["p", "q", "r"])[2] == ["p", "q", "r"]


def test_the_certificates_score_balanced_accuracy_on_imbalanced_classes_and_keep_groups():
    from widefs.analysis._certify import CertificateRun

    X = np.zeros((12, 2))
    even = CertificateRun(X, np.repeat([0, 1], 6), seed=0, n_permutations=2)
    assert even.scoring == "accuracy" and even.groups is None
    uneven = CertificateRun(X, np.array([0] * 8 + [1] * 4), seed=0, n_permutations=2)
    assert uneven.scoring == "balanced_accuracy"
    y, groups = np.repeat([0, 1], 6), np.repeat(np.arange(6), 2)
    run = CertificateRun(X, y, seed=0, n_permutations=2, design=check_design(y, None, groups))
    np.testing.assert_array_equal(run.groups, groups)
    assert run.cv == 3  # three whole groups per class


def test_the_screen_summary_floors_the_ranked_features_only():
    from widefs.analysis._chance import _screen_summary

    def screen(kinds):
        return types.SimpleNamespace(
            kinds_=np.array(kinds), kind_names_=("constant", "two_valued", "gaussian",
                                                "ranked", "counts"),
            min_pvalues_=np.array([0.0, 0.2, 0.01, 0.03, 0.5]), kind_counts_={},
            spread_weight_=0.5, counts_=False, note_="", n_scored_=5,
            testable_=np.array([True, True, False, True, True]), alpha=0.05,
        )  # fmt: skip

    summary = _screen_summary(screen([0, 3, 2, 3, 4]))
    assert summary.ranked_floor == 0.2  # the larger of the ranked features' floors
    assert summary.n_testable == 4 and summary.n_scored == 5
    assert _screen_summary(screen([0, 2, 2, 4, 4])).ranked_floor is None


@pytest.mark.parametrize(("quick", "loo"), [(True, 100), (False, 200)])
def test_the_leave_one_out_curve_caps_its_permutations(quick, loo):
    from widefs.analysis._chance import chance_analysis

    X, y, _ = _signal(n=12, m=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = chance_analysis(X, y, seed=0, p_error="auto", null="auto", n_permutations=250,
                              quick=quick, n_jobs=None)  # fmt: skip
    assert out.loo_permutations == loo and out.n_permutations == 250


def test_no_seed_is_seed_zero():
    X, y, _ = _signal(m=4)
    none = analyse(X, y, methods=["compare"], quick=True, n_permutations=2)
    zero = analyse(X, y, methods=["compare"], quick=True, n_permutations=2, random_state=0)
    assert none.seed == 0 == zero.seed
    pd.testing.assert_frame_equal(none.comparison, zero.comparison)
    assert analyse(X, y, methods=["compare"], quick=True, random_state=7).seed == 7


def test_rules_that_tie_the_default_class_are_not_better(monkeypatch):
    import widefs.rules

    def summary(errors):
        def fake(X, y, **kwargs):
            return types.SimpleNamespace(test_error=errors[0], default_error=errors[1])

        return fake

    X, y, names = _signal(m=3)
    for errors, better in (((0.25, 0.25), False), ((0.25, 0.5), True), ((0.5, 0.25), False)):
        monkeypatch.setattr(widefs.rules, "rules_summary", summary(errors))
        assert _models.rules_analysis(X, y, names, seed=0).better_than_default is better


def test_a_nested_interval_with_a_missing_value_is_no_evidence():
    from widefs.analysis._verdict import verdicts
    from widefs.model_selection import MajorityBaseline

    row = {"method": "m", "applies": True, "accuracy": 0.8, "accuracy_ci_low": np.nan,
           "accuracy_ci_high": 0.9, "balanced_accuracy": 0.8, "balanced_ci_low": 0.7,
           "balanced_ci_high": 0.9, "search_pvalue": 0.01}  # fmt: skip
    frame = pd.DataFrame([row]).set_index("method")
    v = verdicts(frame, {}, MajorityBaseline(np.array(["a", "b"]), np.array([10, 10])))["m"]
    assert (v.estimate, v.low, v.high, v.above_chance) == (None, None, None, None)
    assert v.outcome == "certified only"


def test_the_chance_analysis_gives_the_groups_to_its_selector_and_screen():
    from widefs.analysis._chance import chance_analysis

    X, y, _ = _signal(n=16, m=5)
    groups = np.repeat(np.arange(8), 2)  # pairs of one class: whole pairs relabelled
    design = check_design(y, None, groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = chance_analysis(X, y, seed=0, p_error="auto", null="permutation",
                              n_permutations=20, quick=True, n_jobs=None, design=design)  # fmt: skip
    assert out.selector.design_case_ == "between groups"
    for perm in out.selector.permutations_:
        assert all(np.unique(y[perm][groups == g]).size == 1 for g in range(8))
    assert out.screens["fdr"].design_["case"] == "between groups"


def test_nearly_even_classes_judge_accuracy_against_the_majority_share():
    from widefs.analysis._verdict import verdicts
    from widefs.model_selection import MajorityBaseline

    majority = MajorityBaseline(np.array(["a", "b"]), np.array([11, 9]))
    assert not majority.imbalanced  # 9 of 11: accuracy is the score
    row = {"method": "m", "applies": True, "accuracy": 0.6, "accuracy_ci_low": 0.52,
           "accuracy_ci_high": 0.7, "balanced_accuracy": 0.6, "balanced_ci_low": 0.52,
           "balanced_ci_high": 0.7, "search_pvalue": 0.5}  # fmt: skip
    v = verdicts(pd.DataFrame([row]).set_index("method"), {}, majority)["m"]
    assert (v.score, v.chance) == ("accuracy", 0.55)  # 11 / 20, not the balanced 0.5
    assert v.above_chance is False and v.outcome == "not shown"  # 0.52 < 0.55


def test_folds_with_whole_groups_of_three_classes():
    # groups per class: 2, 3 and 4 -> at most 2 folds (the class with fewest groups)
    y = np.repeat([0, 1, 2], [4, 6, 8])
    g = np.concatenate([np.repeat([0, 1], 2), np.repeat([2, 3, 4], 2), np.repeat([5, 6, 7, 8], 2)])
    design = grouped(y, g)
    assert design.case == "between groups" and design_folds(y, design, 5) == 2


def test_the_certificates_take_their_default_permutations():
    X, y, _ = _signal(m=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyse(X, y, methods=["chance"], quick=True, n_null_permutations=20)
    assert result.certificate_permutations == 9
    cert = result.certificates["discriminative selection"]
    assert cert.error is None and cert.certificate.n_permutations == 9
