"""Counts recognised (non-negative integers spanning orders of magnitude), overridden with
--counts / --no-counts, and said in the report."""

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli.io import _counts
from widefs.cli.io._counts import decide_counts
from widefs.cli.io._data import load_cli_data
from widefs.exceptions import DataError


def write(path, X, n_classes=2):
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    frame["class"] = np.where(np.arange(X.shape[0]) % n_classes == 0, "a", "b")
    frame.to_csv(path, index=False)
    return str(path)


def rnaseq(n=20, p=30, seed=0):
    rng = np.random.default_rng(seed)
    means = np.exp(rng.uniform(0, 10, size=p))  # 1 to ~22,000 reads
    return rng.negative_binomial(5, 5 / (5 + means), size=(n, p)).astype(float)


def test_rnaseq_counts_are_recognised_and_noted(tmp_path):
    X = rnaseq()
    assert X.min() == 0
    data = load_cli_data(write(tmp_path / "c.csv", X))
    assert data.counts
    note = [n for n in data.notes if n.startswith("read as counts")]
    assert len(note) == 1
    assert f"from {X.min():,.0f} to {X.max():,.0f}" in note[0] and "--no-counts" in note[0]


@pytest.mark.parametrize(
    "X",
    [
        np.random.default_rng(1).normal(size=(20, 30)),  # intensities
        np.random.default_rng(2).integers(0, 3, size=(20, 30)).astype(float),  # genotypes
        np.random.default_rng(3).integers(1000, 5000, size=(20, 30)).astype(float),  # no span
        np.r_[rnaseq()[:-1], [[0.5] * 30]],  # one value that is not an integer
        np.r_[rnaseq()[:-1], [[-1.0] * 30]],  # a negative value
    ],
)
def test_other_numbers_are_not_counts(X):
    notes = []
    assert not decide_counts(X, None, notes)
    assert notes == []


def test_boundaries_of_the_rule():
    # the smallest is 0 and the largest >= 1000 (inclusive)
    assert decide_counts(np.array([[0.0, 1000.0], [20.0, 30.0]]), None, [])
    assert not decide_counts(np.array([[1.0, 1000.0], [20.0, 30.0]]), None, [])
    assert not decide_counts(np.array([[0.0, 999.0], [20.0, 30.0]]), None, [])
    # thresholded intensities (medulloblastoma_b: integers from 20 to 16000) are not counts
    assert not decide_counts(np.array([[20.0, 16000.0], [200.0, 30.0]]), None, [])


def test_blocks_see_every_column(monkeypatch):
    monkeypatch.setattr(_counts, "_BLOCK", 4)
    X = rnaseq()
    X[3, 29] = 2.5  # in the last block only
    assert not decide_counts(X, None, [])
    X[3, 29] = 3.0
    assert decide_counts(X, None, [])


def test_overrides(tmp_path):
    X = rnaseq()
    path = write(tmp_path / "c.csv", X)
    data = load_cli_data(path, counts=False)
    assert not data.counts and not any("counts" in n for n in data.notes)
    small = np.random.default_rng(4).integers(0, 20, size=(20, 30)).astype(float)
    data = load_cli_data(write(tmp_path / "s.csv", small), counts=True)
    assert data.counts and any("read as counts" in n and "; --counts)" in n for n in data.notes)
    with pytest.raises(DataError, match="--counts: the data hold values that are not"):
        load_cli_data(write(tmp_path / "f.csv", small + 0.5), counts=True)


def test_run_reports_counts(tmp_path):
    path = write(tmp_path / "c.csv", rnaseq())
    out = tmp_path / "out"
    assert (
        main(
            [
                "run",
                path,
                "--quick",
                "--methods",
                "chance",
                "--permutations",
                "5",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "read as counts" in (out / "report.md").read_text()
    out2 = tmp_path / "out2"
    assert (
        main(
            [
                "run",
                path,
                "--no-counts",
                "--quick",
                "--methods",
                "chance",
                "--permutations",
                "5",
                "--out",
                str(out2),
            ]
        )
        == 0
    )
    assert "read as counts" not in (out2 / "report.md").read_text()
