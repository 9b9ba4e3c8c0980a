"""Compressed text (gzip, bzip2, xz) read as it decompresses, other zip archives named in one
line; xlsx gets the notes CSV gets (duplicated names, gene names Excel turned into dates)."""

import bz2
import datetime
import gzip
import lzma
import zipfile

import numpy as np
import pandas as pd
import pytest

from widefs.cli.io._data import load_cli_data
from widefs.exceptions import DataError


def frame(n=12, p=5, seed=0):
    rng = np.random.default_rng(seed)
    out = pd.DataFrame(rng.normal(size=(n, p)).round(4), columns=[f"g{j}" for j in range(p)])
    out["class"] = np.where(np.arange(n) % 2 == 0, "tumour", "normal")
    return out


@pytest.mark.parametrize(
    ("name", "pack"),
    [("d.csv.bz2", bz2.compress), ("d.csv.xz", lzma.compress), ("d.bin", bz2.compress)],
)
def test_bz2_and_xz_are_read(tmp_path, name, pack):
    expected = frame()
    path = tmp_path / name
    path.write_bytes(pack(expected.to_csv(index=False).encode()))
    data = load_cli_data(str(path))
    np.testing.assert_array_equal(data.X, expected.drop(columns="class").to_numpy())
    assert list(data.y) == list(expected["class"])


def test_compressed_series_matrix_and_transpose(tmp_path):
    expected = frame()
    genes = expected.drop(columns="class").T
    genes.columns = [f"s{i}" for i in range(12)]
    genes.loc["class"] = expected["class"].to_numpy()
    path = tmp_path / "t.tsv.xz"
    path.write_bytes(lzma.compress(genes.to_csv(sep="\t", index_label="id").encode()))
    data = load_cli_data(str(path), transpose=True)
    np.testing.assert_array_equal(data.X, expected.drop(columns="class").to_numpy())


def test_damaged_bz2_is_one_line(tmp_path):
    path = tmp_path / "d.csv.bz2"
    path.write_bytes(bz2.compress(frame().to_csv(index=False).encode())[:40])
    with pytest.raises(DataError, match=r"^cannot read .*d.csv.bz2"):
        load_cli_data(str(path))


def test_zip_archive_is_named(tmp_path):
    path = tmp_path / "d.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data/expr.csv", frame().to_csv(index=False))
        archive.writestr("README.txt", "x")
    with pytest.raises(
        DataError, match=r"is a zip archive holding data/expr.csv, README.txt: unzip"
    ):
        load_cli_data(str(path))


def test_xlsx_duplicate_names_are_noted(tmp_path):
    expected = frame()
    expected.columns = ["g0", "g1", "g0", "g3", "g1", "class"]
    path = tmp_path / "d.xlsx"
    expected.to_excel(path, index=False)
    data = load_cli_data(str(path))
    assert list(data.feature_names) == ["g0", "g1", "g0.1", "g3", "g1.1"]
    assert any("2 duplicated column names were renamed" in n for n in data.notes)
    np.testing.assert_array_equal(data.X, expected.iloc[:, :5].to_numpy())


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_excel_dates_among_gene_names_are_noted(tmp_path, suffix):
    expected = frame()
    path = tmp_path / f"d{suffix}"
    if suffix == ".csv":
        expected.columns = ["2-Sep", "1-Mar", "TP53", "Sep-02", "BRCA1", "class"]
        expected.to_csv(path, index=False)
    else:
        import openpyxl

        book = openpyxl.Workbook()
        sheet = book.active
        sheet.append([datetime.datetime(2026, 9, 2), "TP53", "g2", "g3", "g4", "class"])
        for row in expected.itertuples(index=False):
            sheet.append(list(row))
        book.save(path)
    data = load_cli_data(str(path))
    note = [n for n in data.notes if "look like dates" in n]
    assert len(note) == 1
    expected_count = 3 if suffix == ".csv" else 1
    assert note[0].startswith(f"{expected_count} feature names look like dates")
    assert "TP53" not in note[0]


def test_plain_names_get_no_date_note(tmp_path):
    path = tmp_path / "d.csv"
    out = frame()
    out.columns = ["SEPTIN2", "MARCHF1", "DEC1", "Mar", "2-Sepx", "class"]
    out.to_csv(path, index=False)
    assert not any("dates" in n for n in load_cli_data(str(path)).notes)


def test_gzip_still_read(tmp_path):
    expected = frame()
    path = tmp_path / "d.csv.gz"
    path.write_bytes(gzip.compress(expected.to_csv(index=False).encode()))
    np.testing.assert_array_equal(load_cli_data(str(path)).X, expected.iloc[:, :5].to_numpy())
