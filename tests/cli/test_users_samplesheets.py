"""Sample sheets as people have them (``--labels FILE``): the id column anywhere, ids changed
by R's make.names or by case, and both id sets shown when nothing matches."""

import numpy as np
import pandas as pd
import pytest

from widefs.cli.io._data import load_cli_data
from widefs.cli.io._ids import id_key, match_ids
from widefs.exceptions import DataError


def expression(n=12, p=30, seed=0, ids=None):
    rng = np.random.default_rng(seed)
    ids = ids or [f"{1001 + i}" for i in range(n)]
    X = pd.DataFrame(rng.normal(size=(n, p)).round(4), index=ids)
    X.columns = [f"{200 + j}_at" for j in range(p)]
    classes = pd.Series(np.where(np.arange(n) % 2 == 0, "tumor", "normal"), index=ids)
    return X, classes


def sheet(path, ids, classes, sep=","):
    frame = pd.DataFrame(
        {"condition": classes.to_numpy(), "batch": np.arange(len(ids)) % 2, "sample_id": ids}
    )
    frame.to_csv(path, sep=sep, index=False)
    return str(path)


def test_id_column_found_anywhere(tmp_path):
    X, classes = expression(ids=[f"S{i:03d}" for i in range(12)])
    X.to_csv(tmp_path / "expr.csv", index_label="id")
    path = sheet(tmp_path / "s.csv", list(X.index), classes)
    data = load_cli_data(str(tmp_path / "expr.csv"), labels=path, target="condition")
    assert list(data.y) == list(classes)
    np.testing.assert_array_equal(data.X, X.to_numpy())
    assert any("by their ids in its column 'sample_id'" in n for n in data.notes)


def test_r_make_names_prefix_in_a_genes_in_rows_table(tmp_path):
    # R's write.csv of a genes x samples data.frame: sample columns "X1001", ...; the sheet
    # has "1001". Without the rule the genes would be taken for the samples.
    X, classes = expression()
    genes = X.T.copy()
    genes.columns = [f"X{c}" for c in genes.columns]
    genes.to_csv(tmp_path / "expr.csv", index_label="gene")
    path = sheet(tmp_path / "s.csv", list(X.index), classes)
    data = load_cli_data(str(tmp_path / "expr.csv"), labels=path, target="condition")
    assert list(data.y) == list(classes)
    np.testing.assert_array_equal(data.X, X.to_numpy())
    assert any("make.names" in n and "'X1001' = '1001'" in n for n in data.notes)


def test_case_differences_match_with_a_note(tmp_path):
    X, classes = expression(ids=[f"GSM{i}" for i in range(12)])
    X.to_csv(tmp_path / "expr.csv", index_label="id")
    path = sheet(tmp_path / "s.csv", [i.lower() for i in X.index], classes)
    data = load_cli_data(str(tmp_path / "expr.csv"), labels=path, target="condition")
    assert list(data.y) == list(classes)
    assert any("ignoring case" in n and "'GSM0' = 'gsm0'" in n for n in data.notes)


def test_nothing_matches_shows_both_id_sets(tmp_path):
    X, classes = expression(ids=[f"S{i}" for i in range(12)])
    X.to_csv(tmp_path / "expr.csv", index_label="id")
    path = sheet(tmp_path / "s.csv", [f"P{i}" for i in range(12)], classes)
    with pytest.raises(DataError) as info:
        load_cli_data(str(tmp_path / "expr.csv"), labels=path, target="condition")
    message = str(info.value)
    assert "the data's sample ids: S0, S1, S2" in message
    assert "its column names: 200_at, 201_at" in message
    assert "P0, P1, P2" in message and "(12 in all)" in message
    assert "\n" not in message


def test_id_key_and_matching_boundaries():
    assert id_key("X1001") == id_key("1001") == "1001"
    assert id_key("Xist") == "xist"  # a gene-like name keeps its X
    assert id_key("S-01") == id_key("s.01")
    # Exact matches win; the loose key is used only when it matches more.
    assert list(match_ids(["a", "b"], ["b", "a"])) == [1, 0]
    assert list(match_ids(["A", "b"], ["a", "b"])) == [0, 1]
    # Keys that collide on one side: no loose matching (ambiguous), exact only.
    assert list(match_ids(["A", "b"], ["a", "a ", "b"])) == [-1, 2]
    assert list(match_ids(["x"], [])) == [-1]
