"""Every bundled file against MANIFEST.tsv (sha256, shape, class counts)."""

import hashlib
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from widefs.datasets import list_datasets, load_dataset
from widefs.datasets._loaders import dataset_path, read_manifest

NAMES = list(read_manifest().index)
REQUIRED = [
    "colon",
    "leukemia",
    "lymphoma",
    "medulloblastoma_b",
    "medulloblastoma_c",
    "breast_er",
    "breast_cancer_ljubljana",
    "wine",
    "credit_approval",
    "congressional_voting",
    "musk1",
    "arrhythmia",
    "madelon",
    "echocardiogram",
    "glass",
    "heart_c",
    "heart_h",
    "hepatitis",
    "lymphography",
    "soybean",
    "thyroid_hypothyroid",
    "primary_tumor",
]


def test_required_datasets_are_bundled():
    assert set(REQUIRED) <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_file_matches_manifest(name):
    row = read_manifest().loc[name]
    assert hashlib.sha256(dataset_path(name).read_bytes()).hexdigest() == row["sha256"]
    bunch = load_dataset(name, as_frame=True, drop_missing_target=False)
    assert bunch.frame.shape == (row["rows"], row["features"] + 1)
    counts = Counter(bunch.target.fillna("<missing>"))
    expected = dict(part.rsplit(":", 1) for part in row["classes"].split(", "))
    assert counts == {label: int(c) for label, c in expected.items()}
    assert name in bunch.DESCR and "source" in bunch.DESCR


def test_numeric_data_as_array():
    b = load_dataset("colon")
    assert b.data.dtype == float and b.data.shape == (62, 2000)
    assert b.feature_names[0].startswith("Hsa")
    assert set(b.target) == {"tumor", "normal"}


def test_nominal_columns_stay_strings():
    b = load_dataset("congressional_voting", as_frame=True)
    assert not pd.api.types.is_numeric_dtype(b.data.iloc[:, 0])
    assert set(b.data.iloc[:, 0].dropna()) == {"y", "n"}
    X, _ = load_dataset("congressional_voting", return_X_y=True)
    assert X.dtype == object and isinstance(X[0, 0], str)
    assert np.sum(pd.isna(X)) == 392


def test_missing_target_rows_dropped_by_default():
    b = load_dataset("echocardiogram")
    assert b.data.shape[0] == 131 - 57
    assert "57 rows with a missing class label were dropped" in b.DESCR


def test_list_datasets():
    table = list_datasets()
    assert table.loc["lymphoma", "n_classes"] == 3
    assert table.loc["echocardiogram", "n_classes"] == 2
    assert len(table) == len(NAMES)


def test_unknown_name():
    with pytest.raises(ValueError, match="Unknown dataset 'nope'"):
        load_dataset("nope")
