"""analyse(): the numbers of widefs run, as a library call; its inputs checked up front."""

import csv
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from widefs.analysis import PRESCREEN, analyse, candidates
from widefs.cli import main
from widefs.datasets import load_dataset
from widefs.model_selection import Prescreened, nested_evaluate


@pytest.fixture(scope="module")
def colon():
    X, y = load_dataset("colon", return_X_y=True)
    return np.asarray(X, dtype=float), np.asarray(y)


@pytest.fixture(scope="module")
def both(colon, tmp_path_factory):
    """The same quick chance + comparison analysis, by the library and by the command line."""
    X, y = colon
    out = tmp_path_factory.mktemp("colon") / "report"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyse(X, y, methods=["chance", "compare"], quick=True, random_state=3)
        argv = ["run", "colon", "--quick", "--methods", "chance,compare", "--seed", "3"]
        assert main([*argv, "--out", str(out)]) == 0
    return result, (out / "report.md").read_text(), (out / "features.csv").read_text()


def test_comparison_is_a_frame_with_balanced_accuracy_beside_accuracy(both):
    result, _, _ = both
    frame = result.comparison
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns[:2]) == ["applies", "accuracy"]
    assert {"balanced_accuracy", "recall normal", "recall tumor", "search_pvalue"} <= set(frame)
    assert list(frame.index) == [
        "naive Bayes, all features",
        "linear SVM, all features",
        "MGM + naive Bayes",
        "E[X(1)] + naive Bayes",
        "FDR 5% + naive Bayes",
    ]
    # Balanced accuracy is the mean of the per-class recalls of each fold (not of the pooled
    # recalls), so it is checked against the library's own evaluation with the same seed.
    X, y = load_dataset("colon", return_X_y=True)
    res = nested_evaluate(
        candidates(["chance"])[0].make(3), np.asarray(X, float), np.asarray(y), cv=3,
        n_repeats=1, random_state=3,
    )  # fmt: skip
    row = frame.loc["naive Bayes, all features"]
    assert row["accuracy"] == res["mean"] and row["balanced_accuracy"] == res["balanced_mean"]
    assert row["recall normal"] == res["class_recall"][0]
    assert row["certificate"] == "not certified" and np.isnan(row["search_pvalue"])
    assert frame.loc["MGM + naive Bayes", "certificate"] == "ok"
    # One certificate (the discriminative selection's) speaks for the three selector rows.
    assert frame.loc["MGM + naive Bayes", "search_pvalue"] == pytest.approx(
        result.certificates["discriminative selection"].pvalue, abs=0
    )


def _table_rows(md, title):
    table = md.split(f"**{title}**")[1].strip().split("\n\n")[0].splitlines()
    header = [c.strip() for c in table[0].strip("|").split("|")]
    return {
        cells[0]: dict(zip(header, cells, strict=True))
        for cells in ([c.strip() for c in line.strip("|").split("|")] for line in table[2:])
    }


def test_the_command_line_reports_the_numbers_of_analyse(both):
    result, md, features = both
    rows = _table_rows(md, "Nested cross-validated accuracy")
    for name, row in result.comparison.iterrows():
        cells = rows[re.sub(r"([\[\]])", r"\\\1", name)]
        mean, sd = (float(v) for v in cells["accuracy % (mean ± sd)"].split(" ± "))
        assert mean == round(100 * row["accuracy"], 1) and sd == round(100 * row["accuracy_sd"], 1)
        balanced = float(cells["balanced accuracy % (mean, 95% CI)"].split()[0])
        assert balanced == round(100 * row["balanced_accuracy"], 1)
        if not np.isnan(row["search_pvalue"]):
            assert float(cells["search p-value"]) == round(row["search_pvalue"], 3)
    # The feature table: the same order and the same errors and p-values.
    written = list(csv.reader(features.splitlines()))[1:]
    table = result.features
    names = load_dataset("colon").feature_names
    assert [r[0] for r in written] == [str(names[j]) for j in table.index]
    assert [int(r[1]) for r in written] == table["errors"].tolist()
    assert [float(r[7]) for r in written] == pytest.approx(table["pvalue_class_difference"])
    chance = result.chance
    assert f"| MGM threshold (errors) | {chance.mgm_threshold:.2f} |" in md
    for rule, label in (("mgm", "MGM"), ("fdr", "FDR 5%")):
        assert f"| {label} | {int(chance.selections[rule].sum())} |" in md


def test_the_same_seed_gives_the_same_numbers(colon):
    X, y = colon
    X, y = X[:, :300], y
    kwargs = dict(methods=["chance"], quick=True, n_null_permutations=20, n_permutations=2)
    a = analyse(X, y, random_state=1, **kwargs)
    b = analyse(pd.DataFrame(X), pd.Series(y), random_state=1, **kwargs)
    pd.testing.assert_frame_equal(a.features, b.features)
    assert a.certificates["discriminative selection"].pvalue == (
        b.certificates["discriminative selection"].pvalue
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        (dict(covariates=np.zeros(12)), ValueError, "covariate 'covariate 0' is constant"),
        (
            dict(covariates={"batch": np.repeat(["x", "y"], 6)}),
            ValueError,
            "covariate 'batch' is confounded with the classes",
        ),
        (dict(groups=np.arange(5)), ValueError, "groups must have one label per sample (12)"),
        (dict(methods=["chance", "bogus"]), ValueError, "unknown methods bogus"),
        (dict(methods=[]), ValueError, "unknown methods (none)"),
        (dict(feature_names=["a"]), ValueError, "feature_names must hold 3 names"),
        (dict(n_permutations=0), ValueError, "n_permutations must be a positive integer, got 0"),
        (dict(n_null_permutations=2.5), ValueError, "n_null_permutations must be a positive"),
    ],
)
def test_bad_arguments_are_one_clear_error(kwargs, error, words):
    X, y = np.zeros((12, 3)), np.repeat(["a", "b"], 6)
    with pytest.raises(error, match=re.escape(words)):
        analyse(X, y, **kwargs)


@pytest.mark.parametrize(
    ("X", "y", "error", "words"),
    [
        ([[0.0, 1.0]] * 4, np.array([0, 1, 0, 1]), TypeError, "X must be a numpy array or a"),
        (np.zeros((4, 2)), [0, 1, 0, 1], TypeError, "y must be a numpy array or a pandas"),
        (np.zeros(4), np.array([0, 1, 0, 1]), ValueError, "X must be 2-D"),
        (np.zeros((4, 2)), np.array([0, 1, 0]), ValueError, "one label per sample (4)"),
        (np.zeros((4, 2)), np.array([0, 1, 1, 1]), ValueError, "two samples each"),
        (np.zeros((4, 2)), np.array([0, 0, 0, 0]), ValueError, "at least two classes"),
    ],
)
def test_bad_data_is_refused_in_one_line(X, y, error, words):
    with pytest.raises(error, match=re.escape(words)) as info:
        analyse(X, y)
    assert "\n" not in str(info.value)


def test_an_out_of_core_array_runs_the_scm_part_only():
    class Store:  # what a zarr array offers: shape, dtype, slicing
        def __init__(self, values):
            self.values = values
            self.shape, self.dtype = values.shape, values.dtype

        def __getitem__(self, key):
            return self.values[key]

    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b"], 10)
    values = rng.random((20, 30)) < 0.5
    values[:, 4] = y == "b"
    with pytest.raises(ValueError, match="runs the scm part only"):
        analyse(Store(values), y)
    result = analyse(Store(values), y, methods=["scm"], feature_names=[f"k{j}" for j in range(30)])
    assert result.scm.bounds[1].n_rules >= 1
    assert "k4" in result.scm.descriptions["sample-compression SCM"]
    assert result.comparison is None and result.certificates == {}


@pytest.mark.parametrize(("n_features", "wrapped"), [(PRESCREEN, False), (PRESCREEN + 1, True)])
def test_wrappers_are_prescreened_only_on_wider_data(n_features, wrapped):
    cands = candidates(["chance", "scm", "rules", "cefs"], n_features=n_features)
    for cand in cands:
        est = cand.make(0)
        is_wrapper = cand.name.startswith(("PAC", "sample", "Occam", "CN2", "CEFS"))
        assert isinstance(est, Prescreened) == (wrapped and is_wrapper), cand.name
        if isinstance(est, Prescreened):
            assert est.k == PRESCREEN and "training fold first" in cand.note


def test_a_float32_matrix_gives_the_numbers_of_its_float64_copy(colon):
    """A float32 X is analysed as float32 (no float64 copy of the whole matrix; the parts
    widen blocks of columns where a statistic needs float64) and every number equals that
    of its float64 copy: the comparison, the feature table, the certificates, the SCMs,
    the rules and the CEFS subsets."""
    from widefs.analysis._inputs import check_inputs

    X, y = colon
    X32 = X[:, :300].astype(np.float32)
    assert check_inputs(X32, y, None, None)[0] is X32
    kwargs = dict(quick=True, n_null_permutations=20, n_permutations=2, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = analyse(X32, y, **kwargs)
        b = analyse(X32.astype(float), y, **kwargs)
    pd.testing.assert_frame_equal(a.comparison, b.comparison)
    pd.testing.assert_frame_equal(a.features, b.features)
    assert {k: c.pvalue for k, c in a.certificates.items()} == {
        k: c.pvalue for k, c in b.certificates.items()
    }
    assert a.scm.descriptions == b.scm.descriptions
    assert a.rules.summary.text == b.rules.summary.text
    assert a.cefs.class_subsets == b.cefs.class_subsets
    assert a.chance.loo == b.chance.loo
