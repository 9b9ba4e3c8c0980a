"""``widefs run --labels SHEET --covariates ... --groups ...``: the design end to end, and one
line naming the column when it cannot be used."""

import warnings

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli.io._data import load_cli_data
from widefs.exceptions import DataError


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """10 subjects measured before and after (paired), an RNA quality per sample, a batch per
    subject, and columns that cannot be used (constant, the classes renamed)."""
    tmp = tmp_path_factory.mktemp("design")
    rng = np.random.default_rng(0)
    ids = [f"S{i:02d}" for i in range(20)]
    subject = np.repeat([f"p{i}" for i in range(10)], 2)
    condition = np.tile(["pre", "post"], 10)
    X = rng.normal(size=(20, 120)) + 2 * rng.normal(size=(10, 120))[np.repeat(np.arange(10), 2)]
    X[:, :6] += 2.5 * (condition == "post")[:, None]
    frame = pd.DataFrame(X.round(4), index=ids, columns=[f"g{j}" for j in range(120)])
    frame.T.to_csv(tmp / "expr.tsv", sep="\t", index_label="gene")  # genes in rows
    sheet = pd.DataFrame(
        {
            "sample": ids,
            "condition": condition,
            "subject": subject,
            "batch": np.tile(["b1", "b2", "b2", "b1"], 5),
            "rin": rng.uniform(6, 9, 20).round(1),
            "site": "one",
            "arm": np.where(condition == "post", "treated", "untreated"),
            "age": np.repeat(rng.integers(30, 70, 10), 2),
            "plate": np.tile([1, 2, 2, 1, 2, 1, 1, 2], 3)[:20],
        }
    )
    sheet.to_csv(tmp / "sheet.csv", index=False)
    return tmp


def test_run_with_covariates_and_groups_end_to_end(files):
    out = files / "report"
    argv = [
        "run", str(files / "expr.tsv"), "--labels", str(files / "sheet.csv"),
        "--target", "condition", "--covariates", "rin", "--groups", "subject",
        "--quick", "--methods", "chance,compare", "--permutations", "2",
        "--null-permutations", "20", "--out", str(out),
    ]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    md = (out / "report.md").read_text()
    assert "## Study design" in md
    assert "within groups: blocks holding several classes" in md
    assert "column subject (10 groups)" in md
    assert "rin: numbers (a linear effect)" in md
    assert "kept every group on one side of every split" in md
    assert "the validation-error selector kept every group on one side of its halves" in md
    html = (out / "report.html").read_text()
    assert "Study design" in html


def test_columns_are_read_in_sample_order_numbers_or_categories(files):
    data = load_cli_data(
        str(files / "expr.tsv"), labels=str(files / "sheet.csv"), target="condition",
        covariates="rin,batch,plate:cat", groups="subject",
    )  # fmt: skip
    sheet = pd.read_csv(files / "sheet.csv")
    np.testing.assert_array_equal(data.design.covariates["rin"], sheet["rin"].to_numpy())
    assert list(data.design.covariates["plate"]) == [str(v) for v in sheet["plate"]]
    assert list(data.design.groups) == list(sheet["subject"])
    assert data.design.read_as == {
        "rin": "numbers (a linear effect)",
        "batch": "categories",
        "plate": "categories",
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--covariates", "rna"],
            "--covariates: no column 'rna' in the sample sheet",
        ),
        (["--covariates", "site"], "--covariates: covariate 'site' is constant"),
        (
            ["--covariates", "arm"],
            "--covariates: covariate 'arm' is confounded with the classes",
        ),
        (["--groups", "subjekt"], "--groups: no column 'subjekt' in the sample sheet"),
        (["--groups", "condition"], "--groups 'condition' is the target column"),
        (
            ["--covariates", "age", "--groups", "subject"],
            "--groups: groups ('subject') are redundant with the covariates",
        ),
        (["--groups", "site"], "--groups: column 'site' is constant"),
        (["--groups", "subject", "--null", "analytic"], "--null analytic assumes independent"),
    ],
)
def test_a_design_column_that_cannot_be_used_is_one_line_naming_it(files, options, message, capsys):
    out = files / "never"
    argv = [
        "run", str(files / "expr.tsv"), "--labels", str(files / "sheet.csv"),
        "--target", "condition", *options, "--out", str(out),
    ]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("widefs: error: "), err
    assert message in err
    assert not out.exists()


def test_design_options_need_a_sample_sheet(tmp_path):
    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(8, 5)), columns=list("abcde"))
    frame["class"] = np.repeat(["x", "y"], 4)
    frame.to_csv(tmp_path / "data.csv", index=False)
    with pytest.raises(DataError, match="name columns of the sample sheet; give it with --labels"):
        load_cli_data(str(tmp_path / "data.csv"), groups="class")
