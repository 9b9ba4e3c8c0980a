"""Index columns by name only: a named feature whose values read 0..n-1 or 1..n stays a feature,
a column the file names as a row index is left out, and every column left out is named."""

import numpy as np
import pandas as pd

from widefs.cli.io._checks import looks_like_index
from widefs.cli.io._data import load_cli_data


def frame(n=8, p=4, seed=0):
    rng = np.random.default_rng(seed)
    out = pd.DataFrame(rng.normal(size=(n, p)).round(4), columns=[f"g{j}" for j in range(p)])
    out["class"] = np.where(np.arange(n) % 2 == 0, "tumour", "normal")
    return out


def test_named_columns_holding_0_to_n_minus_1_stay_features(tmp_path):
    """The issue's case: counts (k-mers) that happen to read 0..n-1 or 1..n in file order."""
    expected = frame()
    n = len(expected)
    expected.insert(0, "kmer_AAC", np.arange(n))
    expected.insert(2, "count_7", np.arange(1, n + 1))
    expected["gene_x"] = np.arange(n)
    expected.to_csv(tmp_path / "counts.csv", index=False)
    data = load_cli_data(str(tmp_path / "counts.csv"))
    names = [c for c in expected.columns if c != "class"]
    assert list(data.feature_names) == names
    np.testing.assert_array_equal(data.X, expected[names].to_numpy(dtype=float))
    assert not any("row index" in note for note in data.notes)


def test_columns_named_like_an_index_are_left_out_and_all_named(tmp_path):
    expected = frame()
    n = len(expected)
    expected.insert(0, "id", np.arange(1, n + 1))
    expected.insert(3, "Index", np.arange(n))
    expected.insert(4, "level", np.arange(n))  # a name, not an index's: kept
    expected.to_csv(tmp_path / "ids.csv", index=False)
    data = load_cli_data(str(tmp_path / "ids.csv"))
    assert list(data.feature_names) == ["g0", "g1", "level", "g2", "g3"]
    note = next(n for n in data.notes if "row index" in n)
    assert note.startswith("the 2 columns 'id', 'Index' number the rows (1, 2, ...)")
    # An index-named column whose values do not number the rows is a feature.
    expected["id"] = expected["id"][::-1].to_numpy()
    expected.to_csv(tmp_path / "reversed.csv", index=False)
    assert "id" in list(load_cli_data(str(tmp_path / "reversed.csv")).feature_names)


def test_index_names():
    for name in ("Unnamed: 0", "Unnamed: 7", "index", "ID", " id ", "row.names", "#"):
        assert looks_like_index(name), name
    for name in ("idx2", "identity", "age", "count", "0", "g_index"):
        assert not looks_like_index(name), name
