"""``widefs run --methods chance``: the calibrated nulls in the report (issue 12)."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.exceptions import NothingSelectedWarning
from widefs.stats import expected_min_errors, mgm_threshold
from widefs.univariate import ClassDifferenceScreen, DiscriminativeSelector


def noise_csv(path, classes, n_features, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        rng.normal(size=(sum(classes), n_features)),
        columns=[f"g{i}" for i in range(n_features)],
    )
    frame["class"] = np.repeat(["a", "b"], classes)
    frame.to_csv(path, index=False)
    return frame


RULES = ["MGM", "E[X(1)]", "FDR 5%", "Bonferroni 5%"]


def noise_xy(classes, n_features, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(sum(classes), n_features)), np.repeat([0, 1], classes)


def test_imbalanced_noise_keeps_at_most_ten_percent_through_the_cli(tmp_path):
    """Acceptance: 48/12 pure noise, 60 x 2000, every threshold keeps <= 10% of the genes."""
    noise_csv(tmp_path / "noise.csv", (48, 12), 2000)
    out = tmp_path / "report"
    assert main(["run", str(tmp_path / "noise.csv"), "--methods", "chance", "--out", str(out)]) == 0
    features = pd.read_csv(out / "features.csv")
    for rule in RULES:
        assert features[rule].sum() <= 200, rule
    # report.md escapes markdown syntax (E\[X(1)\]); read it without the escapes.
    md = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", (out / "report.md").read_text())
    # Both E[X(1)] are shown; the analytic one labelled a bound (imbalanced classes), and the
    # thresholds use the permutation null, the estimate.
    e_min = expected_min_errors(2000, 30, 0.2)
    assert re.search(
        rf"E\[X\(1\)\][^|]*permutation / analytic bound \| \d+\.\d\d / {e_min:.2f} \(at least\)",
        md,
    )
    assert "thresholds use | the permutation null" in md
    assert "The analytic value is only a bound here." in md
    # The headline's expected best chance errors are within 0.5 of fresh noise data sets'.
    shown = float(re.search(r"is expected to make (\d+\.\d+) errors", md).group(1))
    fresh = [
        DiscriminativeSelector("all", null="analytic", random_state=k)
        .fit(*noise_xy((48, 12), 2000, seed=1000 + k))
        .n_errors_.min()
        for k in range(30)
    ]
    assert abs(shown - np.mean(fresh)) <= 0.5


def test_permutation_null_and_p_error_options(tmp_path):
    frame = noise_csv(tmp_path / "toy.csv", (24, 12), 150, seed=1)
    args = ["run", str(tmp_path / "toy.csv"), "--methods", "chance", "--quick"]
    out = tmp_path / "perm"
    assert (
        main([*args, "--null", "permutation", "--null-permutations", "80", "--out", str(out)]) == 0
    )
    md = (out / "report.md").read_text()
    assert "thresholds use | the permutation null" in md
    # The thresholds are the selector's permutation-null ones (same seed, same split).
    X = frame.drop(columns="class").to_numpy()
    sel = DiscriminativeSelector(null="permutation", n_permutations=80, random_state=0)
    sel.fit(X, frame["class"])
    assert re.search(rf"MGM threshold \(errors\) \| {sel.threshold_:.2f}", md)
    # features.csv is ranked like the report (fewest errors first); back to column order.
    features = pd.read_csv(out / "features.csv").set_index("feature").loc[frame.columns[:-1]]
    assert (np.diff(pd.read_csv(out / "features.csv")["errors"]) >= 0).all()
    np.testing.assert_allclose(
        features["p-value (errors, permutation null)"], sel.pvalues_, rtol=1e-6
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingSelectedWarning)
        fdr = ClassDifferenceScreen("fdr", random_state=0).fit(X, frame["class"])
    np.testing.assert_allclose(features["p-value (class difference)"], fdr.pvalues_, rtol=1e-6)
    kinds = np.asarray(fdr.kind_names_)[fdr.kinds_]
    np.testing.assert_array_equal(features["kind (class-difference test)"], kinds)
    np.testing.assert_array_equal(features["FDR 5%"].to_numpy() == 1, fdr.get_support())
    # The report says how many features of each kind the screen tested, and how.
    md_plain = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", md)
    assert f"{fdr.kind_counts_['gaussian']} continuous features, limma's moderated F" in md_plain
    assert fdr.testable_.all()  # no two-valued feature: every one counted
    assert "Every one of the 150 features could reach the level" in md_plain
    assert f"alpha / 150 = {0.05 / 150:.2g}" in md_plain
    np.testing.assert_array_equal(features["MGM"].to_numpy() == 1, sel.get_support())
    # The paper's literal chance rate on request.
    out = tmp_path / "uniform"
    assert main([*args, "--p-error", "uniform", "--null", "analytic", "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert re.search(rf"MGM threshold \(errors\) \| {mgm_threshold(150, 18, 0.5):.2f}", md)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--p-error", "1.5"], "--p-error must be auto, uniform or a number in (0, 1)"),
        (["--p-error", "half"], "--p-error must be auto, uniform or a number in (0, 1)"),
        (["--permutations", "0"], "--permutations must be a positive integer"),
        (["--null-permutations", "-3"], "--null-permutations must be a positive integer"),
    ],
)
def test_bad_null_options_one_line_error_nothing_written(tmp_path, capsys, option, message):
    noise_csv(tmp_path / "toy.csv", (10, 10), 5)
    out = tmp_path / "never"
    assert main(["run", str(tmp_path / "toy.csv"), *option, "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()
