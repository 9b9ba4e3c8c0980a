"""Inputs people have: delimiters, gzip, parquet, feather, xlsx, genes in rows, and the notes
on what was read differently from what the file seems to say. Each case gives data (checked
against pandas reading the same file with the right options) or one clear line."""

import gzip
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli.io._data import load_cli_data
from widefs.cli.io._text import sniff_delimiter
from widefs.exceptions import DataError


def frame(n=12, p=5, seed=0):
    rng = np.random.default_rng(seed)
    out = pd.DataFrame(rng.normal(size=(n, p)).round(4), columns=[f"g{j}" for j in range(p)])
    out["class"] = np.where(np.arange(n) % 2 == 0, "tumour", "normal")
    return out


def same(data, expected):
    feats = expected.drop(columns="class")
    np.testing.assert_array_equal(data.X, feats.to_numpy(dtype=float))
    assert list(data.feature_names) == list(feats.columns)
    assert list(data.y) == list(expected["class"])


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
@pytest.mark.parametrize("suffix", [".csv", ".txt", ".tsv"])
def test_delimiter_is_sniffed_whatever_the_suffix(tmp_path, sep, suffix):
    expected = frame()
    path = tmp_path / f"data{suffix}"
    expected.to_csv(path, sep=sep, index=False)
    data = load_cli_data(str(path))
    same(data, expected)
    implied = {".csv": ",", ".tsv": "\t"}.get(suffix)
    noted = sep != implied if implied else sep not in (",", "\t")
    assert any("detected" in n for n in data.notes) == noted


def test_sniffer_keeps_the_suffix_delimiter_when_it_fits():
    # Semicolons inside names do not beat the comma of a .csv that parses consistently.
    assert sniff_delimiter("a;x,b;y,class\n1,2,u\n3,4,v\n", ".csv") == ","
    assert sniff_delimiter("a;b;class\n1,5;2;u\n", ".csv") == ";"
    assert sniff_delimiter("only\n1\n", ".tsv") == "\t"


@pytest.mark.parametrize("name", ["data.csv.gz", "data.csv"])  # gzip found by content too
def test_gzip(tmp_path, name):
    expected = frame()
    path = tmp_path / name
    path.write_bytes(gzip.compress(expected.to_csv(index=False).encode()))
    same(load_cli_data(str(path)), expected)


def test_fast_reader_matches_pandas_on_awkward_cells(tmp_path):
    """Missing codes, a quoted cell, the target in the middle, CRLF line ends, a blank line."""
    text = 'g0,class,"g,1",g2\r\n1.5,a,NA,3\r\n2.5,b,"4",\r\n\r\n-1e-3,a,?,inf\r\n7,b,nan,1e5\r\n'
    path = tmp_path / "odd.csv"
    path.write_text(text, newline="")
    data = load_cli_data(str(path), impute=True)
    ref = pd.read_csv(path, keep_default_na=False, na_values=["", "NA", "NaN", "nan", "?"])
    X = ref.drop(columns="class").to_numpy(dtype=float)
    X[np.isinf(X)] = np.nan
    med = np.nanmedian(X, axis=0)
    np.testing.assert_allclose(data.X, np.where(np.isnan(X), med, X))
    assert list(data.feature_names) == ["g0", "g,1", "g2"] and list(data.y) == ["a", "b", "a", "b"]


def test_parquet_feather_xlsx(tmp_path):
    pytest.importorskip("pyarrow")
    pytest.importorskip("openpyxl")
    expected = frame()
    expected.to_parquet(tmp_path / "d.parquet")
    expected.to_feather(tmp_path / "d.feather")
    expected.to_excel(tmp_path / "d.xlsx", index=False)
    for name in ["d.parquet", "d.feather", "d.xlsx"]:
        same(load_cli_data(str(tmp_path / name)), expected)
    # An xlsx "NA" label stays a class, as in text files.
    expected.loc[0, "class"] = "NA"
    expected.loc[2, "class"] = "NA"
    expected.to_excel(tmp_path / "na.xlsx", index=False)
    data = load_cli_data(str(tmp_path / "na.xlsx"))
    assert list(data.y[:3]) == ["NA", "normal", "NA"]
    assert any("'NA'" in n for n in data.notes)


def test_report_from_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    frame(n=20, p=8).to_parquet(tmp_path / "d.parquet")
    out = tmp_path / "out"
    assert (
        main(
            [
                "run",
                str(tmp_path / "d.parquet"),
                "--methods",
                "chance",
                "--quick",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert (out / "report.html").is_file()


@pytest.mark.parametrize(("module", "suffix"), [("pyarrow", "parquet"), ("openpyxl", "xlsx")])
def test_missing_optional_reader_is_one_line(tmp_path, capsys, monkeypatch, module, suffix):
    pytest.importorskip("pyarrow")
    pytest.importorskip("openpyxl")
    path = tmp_path / f"d.{suffix}"
    if suffix == "parquet":
        frame().to_parquet(path)
    else:
        frame().to_excel(path, index=False)
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'widefs[formats]'" in err and module in err


def test_old_xls_is_one_line(tmp_path, capsys):
    path = tmp_path / "d.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100))
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    assert "save it as .xlsx or CSV" in capsys.readouterr().err


def test_genes_in_rows(tmp_path, capsys):
    expected = frame(n=10, p=30)
    genes = expected.drop(columns="class").T.astype(object)
    genes.loc["class"] = expected["class"].to_numpy()
    genes.columns = [f"sample{i}" for i in range(10)]
    path = tmp_path / "genes.tsv"
    genes.to_csv(path, sep="\t", index_label="gene")
    data = load_cli_data(str(path), transpose=True)
    same(data, expected)
    assert any("read transposed" in n for n in data.notes)
    # Without --transpose: one line that says what to do.
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rerun with --transpose" in err


def test_duplicated_names_index_column_and_sample_names_are_noted(tmp_path):
    expected = frame()
    raw = expected.to_csv(index=False).splitlines()
    raw[0] = raw[0].replace("g1", "g0")  # a duplicated name
    path = tmp_path / "dup.csv"
    path.write_text("\n".join(raw) + "\n")
    data = load_cli_data(str(path))
    assert list(data.feature_names[:2]) == ["g0", "g0.1"]
    assert any("duplicated column names were renamed" in n for n in data.notes)
    # pandas' index column: numbers 0..n-1 under an empty name.
    expected.to_csv(tmp_path / "index.csv")
    data = load_cli_data(str(tmp_path / "index.csv"))
    same(data, expected)
    assert any("'Unnamed: 0' numbers the rows" in n for n in data.notes)
    # Sample names in the first column.
    expected.index = [f"patient {i}" for i in range(len(expected))]
    expected.to_csv(tmp_path / "ids.csv", index_label="sample")
    data = load_cli_data(str(tmp_path / "ids.csv"))
    same(data, expected)
    assert any("'sample' holds a distinct text per row" in n for n in data.notes)


def test_target_option_ignored_for_bundled_data_is_noted():
    data = load_cli_data("colon", target="label")
    assert data.target == "class"
    assert any("--target 'label' is ignored" in n for n in data.notes)
    assert not any("ignored" in n for n in load_cli_data("colon").notes)


def test_non_numeric_cell_still_named(tmp_path):
    expected = frame()
    expected["g2"] = expected["g2"].astype(object)
    expected.loc[3, "g2"] = "high"
    expected.to_csv(tmp_path / "text.csv", index=False)
    with pytest.raises(DataError, match="non-numeric feature columns: g2"):
        load_cli_data(str(tmp_path / "text.csv"))


def test_library_warnings_are_summarised_once():
    from widefs.cli.render import warnings_section

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in (2, 3, 2):
            warnings.warn(
                f"The least populated class in y has only {k} members, which is less than n_splits=5.",
                UserWarning,
                stacklevel=1,
            )
        warnings.warn("something else", RuntimeWarning, stacklevel=1)
    section = warnings_section(caught)
    table = section.blocks[1]
    assert [(r[0], r[2]) for r in table.rows] == [("UserWarning", 3), ("RuntimeWarning", 1)]
    assert "site-packages" not in section.blocks[1].markdown()
    assert warnings_section([]) is None
