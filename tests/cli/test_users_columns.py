"""Columns that are not features: ``--exclude``, the note on numeric columns that look like
sample annotations, and a sample sheet's columns never joined as features."""

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli.io._data import load_cli_data
from widefs.exceptions import DataError


def clinical(n=30, p=20, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, p)).round(4), columns=[f"g{j}" for j in range(p)])
    frame.insert(0, "age", rng.integers(30, 80, n))
    frame.insert(1, "sex", np.where(rng.random(n) < 0.5, "F", "M"))
    frame["os_time"] = rng.exponential(30, n).round(1)
    frame["grp"] = rng.integers(0, 3, n)  # few distinct values, an unremarkable name
    frame["class"] = np.where(np.arange(n) % 2 == 0, "a", "b")
    return frame


@pytest.mark.parametrize("suffix", [".csv", ".xlsx", ".parquet"])
def test_exclude_leaves_columns_out_text_ones_too(tmp_path, suffix):
    frame = clinical()
    path = tmp_path / f"c{suffix}"
    {
        ".csv": lambda p: frame.to_csv(p, index=False),
        ".xlsx": lambda p: frame.to_excel(p, index=False),
        ".parquet": lambda p: frame.to_parquet(p, index=False),
    }[suffix](path)
    with pytest.raises(DataError, match="non-numeric feature columns: sex"):
        load_cli_data(str(path))
    data = load_cli_data(str(path), exclude="sex, os_time,age")
    genes = [f"g{j}" for j in range(20)]
    assert list(data.feature_names) == [*genes, "grp"]
    np.testing.assert_array_equal(data.X, frame[[*genes, "grp"]].to_numpy(dtype=float))
    assert any("left out of the features (--exclude): sex, os_time, age" in n for n in data.notes)


def test_exclude_unknown_or_target_is_refused(tmp_path):
    path = tmp_path / "c.csv"
    clinical().drop(columns="sex").to_csv(path, index=False)
    with pytest.raises(DataError, match=r"--exclude: no column named agee; columns are: age, g0"):
        load_cli_data(str(path), exclude="agee")
    with pytest.raises(DataError, match="--exclude names the target 'class'"):
        load_cli_data(str(path), exclude="class")
    with pytest.raises(DataError, match="--exclude takes column names separated by commas"):
        load_cli_data(str(path), exclude="age,,g1")


def test_annotation_like_columns_are_noted_not_removed(tmp_path):
    path = tmp_path / "c.csv"
    clinical().drop(columns="sex").to_csv(path, index=False)
    data = load_cli_data(str(path))
    note = [n for n in data.notes if "look like sample annotations" in n]
    assert len(note) == 1
    assert "age, os_time, grp;" in note[0] and "--exclude" in note[0]
    assert "g0" not in note[0]
    assert "age" in list(data.feature_names)


def test_genotype_like_data_is_not_flagged(tmp_path):
    # Every column holds 0/1/2: few distinct values are the data, not annotations.
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.integers(0, 3, size=(30, 40)), columns=[f"rs{j}" for j in range(40)])
    frame["class"] = np.where(np.arange(30) % 2 == 0, "a", "b")
    path = tmp_path / "snp.csv"
    frame.to_csv(path, index=False)
    assert not any("annotations" in n for n in load_cli_data(str(path)).notes)


def test_exclude_rows_of_a_transposed_file(tmp_path):
    frame = clinical().drop(columns="sex")
    path = tmp_path / "t.csv"
    frame.set_index(pd.Index([f"s{i}" for i in range(30)])).T.to_csv(path, index_label="id")
    data = load_cli_data(str(path), transpose=True, exclude="age,os_time")
    assert "age" not in list(data.feature_names) and "os_time" not in list(data.feature_names)
    assert data.X.shape == (30, 21)


def test_sample_sheet_columns_never_become_features(tmp_path):
    frame = clinical().drop(columns=["sex", "age", "os_time", "grp"])
    ids = [f"S{i:03d}" for i in range(30)]
    data_path, sheet = tmp_path / "expr.csv", tmp_path / "sheet.csv"
    frame.drop(columns="class").set_index(pd.Index(ids)).to_csv(data_path, index_label="id")
    pd.DataFrame({"id": ids, "age": range(30), "class": frame["class"], "dose": 1.0}).to_csv(
        sheet, index=False
    )
    data = load_cli_data(str(data_path), labels=str(sheet))
    assert list(data.feature_names) == [f"g{j}" for j in range(20)]


def test_run_with_exclude(tmp_path):
    frame = clinical()
    frame.loc[frame["class"] == "a", "g3"] += 3
    path = tmp_path / "c.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    argv = ["run", str(path), "--exclude", "sex,os_time", "--quick", "--methods", "chance"]
    assert main([*argv, "--permutations", "5", "--out", str(out)]) == 0
    features = set(pd.read_csv(out / "features.csv")["feature"])
    assert "sex" not in features and "os_time" not in features and "g3" in features
    assert "--exclude" in (out / "report.md").read_text()
