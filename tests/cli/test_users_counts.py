"""Counts recognised by the library's one rule (non-negative integers with zeros, reaching
1000), overridden with --counts / --no-counts, and what each method did with them said in the
report."""

import re

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli.io import _counts
from widefs.cli.io._counts import counts_option
from widefs.cli.io._data import load_cli_data
from widefs.exceptions import DataError
from widefs.stats import looks_like_counts


def write(path, X, n_classes=2):
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    frame["class"] = np.where(np.arange(X.shape[0]) % n_classes == 0, "a", "b")
    frame.to_csv(path, index=False)
    return str(path)


def rnaseq(n=20, p=30, seed=0):
    rng = np.random.default_rng(seed)
    means = np.exp(rng.uniform(0, 10, size=p))  # 1 to ~22,000 reads
    return rng.negative_binomial(5, 5 / (5 + means), size=(n, p)).astype(float)


def test_the_reader_leaves_the_decision_to_the_library(tmp_path):
    X = rnaseq()
    assert X.min() == 0
    data = load_cli_data(write(tmp_path / "c.csv", X))
    assert data.counts == "auto" and not any("counts" in n for n in data.notes)


@pytest.mark.parametrize(
    "X",
    [
        np.random.default_rng(1).normal(size=(20, 30)),  # intensities
        np.random.default_rng(2).integers(0, 3, size=(20, 30)).astype(float),  # genotypes
        np.random.default_rng(3).integers(1000, 5000, size=(20, 30)).astype(float),  # no zero
        np.r_[rnaseq()[:-1], [[0.5] * 30]],  # one value that is not an integer
        np.r_[rnaseq()[:-1], [[-1.0] * 30]],  # a negative value
    ],
)
def test_other_numbers_are_not_counts(X):
    assert not looks_like_counts(X)


def test_counts_are_counts():
    assert looks_like_counts(rnaseq())


def test_blocks_see_every_column(monkeypatch):
    monkeypatch.setattr(_counts, "_BLOCK", 4)
    X = rnaseq()
    X[3, 29] = 2.5  # in the last block only
    with pytest.raises(DataError, match="--counts"):
        counts_option(X, True)
    X[3, 29] = 3.0
    assert counts_option(X, True) is True


def test_overrides(tmp_path):
    X = rnaseq()
    path = write(tmp_path / "c.csv", X)
    assert load_cli_data(path, counts=False).counts is False
    small = np.random.default_rng(4).integers(0, 20, size=(20, 30)).astype(float)
    assert load_cli_data(write(tmp_path / "s.csv", small), counts=True).counts is True
    with pytest.raises(DataError, match="--counts: the data hold values that are not"):
        load_cli_data(write(tmp_path / "f.csv", small + 0.5), counts=True)


def _report(path, out, *flags):
    args = ["run", path, "--quick", "--methods", "chance", "--null-permutations", "5"]
    assert main([*args, *flags, "--out", str(out)]) == 0
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", (out / "report.md").read_text())


def test_run_reports_what_each_method_did_with_counts(tmp_path):
    path = write(tmp_path / "c.csv", rnaseq())
    md = _report(path, tmp_path / "out")
    assert "The values were read as counts (recognised: non-negative integers with zeros" in md
    # What the screen did, in its own words (its note_), and what the others did.
    assert "The class-difference screen (FDR and Bonferroni rules): The data were read as " in md
    assert "log-CPM with voom precision weights" in md and "count features, voom" in md
    assert "The other methods take the counts as they are" in md
    assert "read as counts" not in _report(path, tmp_path / "o2", "--no-counts")
    small = np.random.default_rng(4).integers(0, 20, size=(20, 30)).astype(float)
    md = _report(write(tmp_path / "s.csv", small), tmp_path / "o3", "--counts")
    assert "read as counts (as --counts asked)" in md


def test_the_analysis_decides_counts_by_the_library_rule():
    from widefs.analysis import analyse

    y = np.where(np.arange(20) % 2 == 0, "a", "b")
    kw = dict(methods=["chance"], quick=True, n_null_permutations=5)
    assert analyse(rnaseq(), y, **kw).counts
    assert analyse(rnaseq(), y, **kw).chance.screen.counts
    assert not analyse(rnaseq(), y, counts=False, **kw).counts
    intensities = np.random.default_rng(5).integers(20, 16000, size=(20, 30)).astype(float)
    assert not analyse(intensities, y, **kw).counts  # thresholded intensities: no zero
    with pytest.raises(ValueError, match="counts must be 'auto', True or False"):
        analyse(rnaseq(), y, counts="yes", **kw)
