"""Labels files and GEO series matrices at their limits: messages in full, the line length
and memory limits on both sides, cells at the end of a line, the count of keys listed."""

import gzip
import zipfile
from pathlib import Path

import numpy as np
import pytest

from widefs.cli.io._archives import zip_kind
from widefs.cli.io._data import load_cli_data
from widefs.cli.io._formats import read_arrow, read_xlsx
from widefs.cli.io._labels import LabelFile, join_labels, read_labels
from widefs.cli.io._memory import Budget
from widefs.cli.io._tables import RawTable
from widefs.exceptions import DataError

BIG = Budget(1 << 40, "set by --max-memory", "raise it")


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def _refused(message, call, *args, **kwargs):
    with pytest.raises(DataError) as err:
        call(*args, **kwargs)
    assert str(err.value) == message


# --- labels files ---------------------------------------------------------------------------


def test_a_labels_path_that_is_not_a_file(tmp_path):
    _refused(f"--labels {tmp_path}: not a file", read_labels, tmp_path, "class", BIG)
    missing = tmp_path / "none.tsv"
    _refused(f"--labels {missing}: file not found", read_labels, missing, "class", BIG)


def test_a_labels_file_without_the_target_column_says_how_to_name_it(tmp_path):
    path = _write(tmp_path / "s.tsv", "id\tbatch\tgroup\nS1\t1\ta\n")
    _refused(
        f"--labels {path}: no column named 'class' among id, batch, group; the first column "
        "holds the sample ids and --target names the labels' column (a file of two columns "
        "needs no --target)",
        read_labels,
        path,
        "class",
        BIG,
    )


def test_a_labels_line_of_a_mebibyte_is_read_and_longer_refused_unread(tmp_path):
    cells = ["a" * 65536] + ["a" * 65535] * 15  # and 15 tabs: 1 MiB in all
    line = "\t".join(cells)
    assert len(line) == 1 << 20
    path = _write(tmp_path / "s.tsv", "\t".join(f"c{j}" for j in range(16)) + "\n" + line + "\n")
    assert len(read_labels(path, "c1", BIG).labels[0]) == 65535
    path = _write(tmp_path / "t.tsv", "\t".join(f"c{j}" for j in range(16)) + "\n" + line + "a\n")
    with pytest.raises(DataError, match=r"^[^\n]*: line 2 is longer than 1(\.0)? MB of text"):
        read_labels(path, "c1", BIG)


def test_a_labels_cell_over_the_csv_field_limit_is_one_line(tmp_path):
    path = _write(tmp_path / "s.tsv", "id\tclass\nS1\t" + "a" * 200_000 + "\nS2\tb\n")
    _refused(
        f"--labels {path}: line 2: field larger than field limit (131072)",
        read_labels,
        path,
        "class",
        BIG,
    )


def test_a_labels_file_is_counted_against_the_memory_budget(tmp_path):
    # 11 lines of 2 columns at 400 bytes a label: 8,800 bytes.
    path = _write(tmp_path / "s.tsv", "id\tclass\n" + "".join(f"S{i}\ta\n" for i in range(10)))
    with pytest.raises(DataError) as err:
        read_labels(path, "class", Budget(8000, "set by --max-memory", "raise it"))
    assert str(err.value).startswith(f"{path} (2 columns, at least 11 lines) would need about ")
    assert len(read_labels(path, "class", Budget(8800, "set", "raise it")).ids) == 10


# --- GEO series matrices --------------------------------------------------------------------


def _series(path, titles, keys=(), ids=("GSM1", "GSM2", "GSM3"), end="\n"):
    """A series matrix whose lines are written as given (``end``: the line ending)."""
    rows = ["!Series_title\tt", "!Sample_geo_accession\t" + "\t".join(ids)]
    rows.append("!Sample_title\t" + "\t".join(titles))
    rows += ["!Sample_characteristics_ch1\t" + "\t".join(line) for line in keys]
    rows += ["!series_matrix_table_begin", "ID_REF\t" + "\t".join(ids)]
    rows += [
        f"p{j}\t" + "\t".join(str(j + k + 0.5 * (k == 2)) for k in range(len(ids)))
        for j in range(3)
    ]
    rows += ["!series_matrix_table_end"]
    path.write_bytes((end.join(rows) + end).encode())
    return str(path)


def test_an_empty_last_cell_of_a_sample_line_is_an_empty_value(tmp_path):
    path = _series(tmp_path / "s.txt", ["a", "b", ""])
    _refused(
        f"{path}: 1 of the 3 samples have no value in the line !Sample_title: GSM3; choose "
        "another --target, or give the labels with --labels FILE",
        load_cli_data,
        path,
        target="title",
    )


@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_the_last_cell_keeps_its_text(tmp_path, end):
    ids = ("GSM1", "GSM2", "GSM3", "GSM4")
    path = _series(tmp_path / "s.txt", ["aX", "bX", "aX", "bX"], ids=ids, end=end)
    data = load_cli_data(path, target="title")
    assert list(data.y) == ["aX", "bX", "aX", "bX"]


def test_a_sample_cell_over_the_csv_field_limit_is_one_line(tmp_path):
    path = _series(tmp_path / "s.txt", ["a", "b", "c" * 200_000])
    _refused(
        f"cannot read {path}: field larger than field limit (131072)",
        load_cli_data,
        path,
        target="title",
    )


def test_an_unknown_key_is_named_with_the_file(tmp_path):
    path = _series(tmp_path / "s.txt", ["a", "b", "a"], keys=[["age: 1", "age: 2", "age: 1"]])
    _refused(
        f"--target 'state' is not a sample characteristic of the GEO series matrix {path}; "
        "characteristics: 'age' (2 classes: 1, 2); also title and source_name",
        load_cli_data,
        path,
        target="state",
    )


@pytest.mark.parametrize("n_keys", [8, 9])
def test_up_to_eight_keys_are_listed_in_full(tmp_path, n_keys):
    keys = [[f"k{j}: v"] * 3 for j in range(n_keys)]
    path = _series(tmp_path / "s.txt", ["a", "b", "a"], keys=keys)
    listed = "; ".join(f"'k{j}' (1 classes: v)" for j in range(8))
    more = "; ... (9 keys in all)" if n_keys == 9 else ""
    _refused(
        f"--target 'state' is not a sample characteristic of the GEO series matrix {path}; "
        f"characteristics: {listed}{more}; also title and source_name",
        load_cli_data,
        path,
        target="state",
    )


# --- joining labels to samples --------------------------------------------------------------


def _table(ids):
    return RawTable(["g"], np.zeros((len(ids), 1)), np.array([], object), ids=np.array(ids, object))


def _labels(columns, header=("id", "class"), column=1):
    columns = [list(c) for c in columns]
    return LabelFile(Path("l.tsv"), columns[0], columns[column], list(header), column, [], columns)


def test_data_without_sample_ids_is_named():
    table = RawTable(["g"], np.zeros((2, 1)), np.array([], object))
    _refused(
        "--labels: d names no samples (no first column of sample names, no header of sample "
        "ids) to match to the labels",
        join_labels,
        table,
        _labels([["a"], ["x"]]),
        Path("d"),
    )


def test_an_id_column_matching_one_sample_on_its_first_row_is_the_id_column():
    # The one match is on the labels file's first row (row 0): one sample is labelled, so
    # the other is named as unlabelled rather than "no sample id matches".
    _refused(
        "--labels: 1 of the 2 samples of d have no label in l.tsv: S1; add them (or remove "
        "those samples)",
        join_labels,
        _table(["S0", "S1"]),
        _labels([["S0", "Z"], ["a", "b"]]),
        Path("d"),
    )


def test_the_labels_column_is_never_taken_for_the_ids():
    # Its values are the data's sample ids, the id column's are not: no column matches.
    _refused(
        "--labels: no sample id of d is in l.tsv: the data's sample ids: S0, S1; its column "
        "names: g; the ids of l.tsv (column 'id'): X0, X1",
        join_labels,
        _table(["S0", "S1"]),
        _labels([["X0", "X1"], ["S0", "S1"]]),
        Path("d"),
    )


def test_without_a_distinct_column_the_first_column_is_shown():
    _refused(
        "--labels: no sample id of d is in l.tsv: the data's sample ids: S0, S1; its column "
        "names: g; the ids of l.tsv (column 'id'): A, A",
        join_labels,
        _table(["S0", "S1"]),
        _labels([["A", "A"], ["a", "a"]]),
        Path("d"),
    )
    _refused(
        "--labels: no sample id of d is in l.tsv: the data's sample ids: S0, S1; its column "
        "names: g; the ids of l.tsv (column 'class'): a, b",
        join_labels,
        _table(["S0", "S1"]),
        _labels([["A", "A"], ["a", "b"]]),
        Path("d"),
    )


def test_a_headerless_file_built_without_columns_is_joined():
    # A LabelFile of ids and labels only (as the GEO reader builds one): its header line is
    # a sample, read as one.
    labels = LabelFile(Path("l.tsv"), ["S1"], ["b"], ["S0", "a"], 1)
    table = _table(["S0", "S1"])
    join_labels(table, labels, Path("d"))
    assert list(table.labels) == ["a", "b"]
    assert {k: list(v) for k, v in table.sheet.items()} == {"S0": ["S0", "S1"], "a": ["a", "b"]}


def test_repeated_ids_are_named_with_the_fix():
    _refused(
        "--labels: sample ids appear more than once in d: S0; each sample needs one id",
        join_labels,
        _table(["S0", "S0", "S1"]),
        _labels([["S0", "S1"], ["a", "b"]]),
        Path("d"),
    )


def test_every_column_of_the_sheet_is_kept_in_sample_order():
    table = _table(["S1", "S0"])
    sheet = _labels([["S0", "S1"], ["a", "b"], ["40", "52"]], header=("id", "class", "age"))
    join_labels(table, sheet, Path("d"))
    assert list(table.labels) == ["b", "a"]
    assert {k: list(v) for k, v in table.sheet.items()} == {
        "id": ["S1", "S0"],
        "class": ["b", "a"],
        "age": ["52", "40"],
    }


# --- archives and workbooks -----------------------------------------------------------------


def test_a_zip_of_other_files_is_named_with_what_it_holds(tmp_path):
    path = tmp_path / "d.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.csv", "x\n")
        archive.writestr("dir/", "")
        archive.writestr("dir/b.csv", "y\n")
    _refused(
        f"{path} is a zip archive holding a.csv, dir/b.csv: unzip it and give the data file "
        "(gzip, bzip2 and xz files are read as they are)",
        zip_kind,
        path,
    )


def test_a_damaged_zip_or_workbook_is_one_line_with_the_cause(tmp_path):
    path = _write(tmp_path / "d.xlsx", "PK\x03\x04 not really a zip")
    _refused(f"cannot read {path} as xlsx or zip: File is not a zip file", zip_kind, path)
    _refused(f"cannot read {path} as xlsx: File is not a zip file", read_xlsx, path, "class", BIG)


def _workbook(path, rows):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    book.save(path)
    return path


def test_a_number_in_the_header_is_a_name(tmp_path):
    rows = [["class", 2.5, "g"], ["a", 1, 2], ["b", 3, 4], ["a", 5, 6], ["b", 7, 9]]
    table = read_xlsx(_workbook(tmp_path / "w.xlsx", rows), "class", BIG)
    assert table.names == ["2.5", "g"]


def test_workbook_cells_missing_by_widefs_spellings_only(tmp_path):
    rows = [["class", "g", "h"], ["a", 1, "?"], ["b", "NA", 4], ["a", 5, 6], ["b", 7, "#NA"]]
    table = read_xlsx(_workbook(tmp_path / "w.xlsx", rows), "class", BIG)
    assert table.non_numeric == ["h"]  # "#NA" is not one of widefs' spellings of a missing value
    rows[4][2] = 8
    table = read_xlsx(_workbook(tmp_path / "v.xlsx", rows), "class", BIG)
    np.testing.assert_array_equal(table.X, [[1, np.nan], [np.nan, 4], [5, 6], [7, 8]])


def test_an_empty_workbook_has_no_columns(tmp_path):
    path = _workbook(tmp_path / "w.xlsx", [])
    with pytest.raises(DataError, match=r"^target column 'class' not found in .*; columns are: "):
        read_xlsx(path, "class", BIG)


def test_an_empty_workbook_says_none(tmp_path):
    path = _workbook(tmp_path / "w.xlsx", [])
    _refused(
        f"target column 'class' not found in {path}; columns are: none (choose one with --target)",
        read_xlsx,
        path,
        "class",
        BIG,
    )


def test_a_workbook_keeps_every_note_and_an_empty_label_is_missing(tmp_path):
    rows = [["sample", "class", "g", "g"], ["s1", "a", 1, 2], ["s2", None, 3, 4]]
    rows += [["s3", "", 5, 6], ["s4", "b", 7, 8]]
    table = read_xlsx(_workbook(tmp_path / "w.xlsx", rows), "class", BIG)
    assert table.names == ["g", "g.1"] and list(table.ids) == ["s1", "s2", "s3", "s4"]
    assert table.labels[0] == "a" and table.labels[3] == "b"
    assert all(isinstance(v, float) and v != v for v in table.labels[1:3])  # NaN: missing
    assert table.notes == [
        "the column 'sample' holds a distinct text per row (sample names): used as row names, "
        "not as a feature",
        "1 duplicated column names were renamed to tell them apart (e.g. 'g' -> 'g.1'); check "
        "that the file is right",
    ]


def test_a_zip_that_is_not_a_workbook_is_one_line_with_the_cause(tmp_path):
    path = tmp_path / "w.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("xl/workbook.xml", "not xml")
    with pytest.raises(DataError) as err:
        read_xlsx(path, "class", BIG)
    message = str(err.value)
    assert message.startswith(f"cannot read {path} as xlsx: ") and "\n" not in message
    assert not message.endswith(": None") and len(message) > len(f"cannot read {path} as xlsx: ")


# --- parquet and feather --------------------------------------------------------------------


def _arrow_file(path, kind, table, **kwargs):
    pa = pytest.importorskip("pyarrow")
    if kind == "parquet":
        pytest.importorskip("pyarrow.parquet").write_table(pa.table(table), path, **kwargs)
    else:
        pytest.importorskip("pyarrow.feather").write_feather(pa.table(table), path, **kwargs)
    return path


@pytest.mark.parametrize("chunksize", [None, 3, 2])  # one, two or three record batches
def test_feather_integers_come_out_as_one_float_matrix(tmp_path, chunksize):
    columns = {"class": ["a", "b", "a", "b", "a"], "g": [1, 2, 3, 4, 5], "h": [9, 8, 7, 6, 5]}
    path = _arrow_file(tmp_path / "d.feather", "feather", columns, chunksize=chunksize)
    table = read_arrow(path, "feather", "class", BIG)
    assert table.X.dtype == np.float64
    np.testing.assert_array_equal(table.X, [[1, 9], [2, 8], [3, 7], [4, 6], [5, 5]])


@pytest.mark.parametrize("kind", ["parquet", "feather"])
def test_a_missing_arrow_label_is_missing_not_the_text_none(tmp_path, kind):
    columns = {"class": ["a", None, "b", "b"], "g": [1.0, 2.0, 3.0, 4.0]}
    table = read_arrow(_arrow_file(tmp_path / f"d.{kind}", kind, columns), kind, "class", BIG)
    assert list(table.labels) == ["a", None, "b", "b"]


def test_a_feather_file_of_the_labels_only_is_read_without_features(tmp_path):
    path = _arrow_file(tmp_path / "d.feather", "feather", {"class": ["a", "b", "a"]})
    table = read_arrow(path, "feather", "class", BIG)
    assert table.names == [] and table.X.shape == (3, 0)
    assert list(table.labels) == ["a", "b", "a"]
    # The command line then says what it says for a CSV file of the labels only.
    _refused(f"{path} has no feature columns besides 'class'", load_cli_data, str(path))


def test_a_damaged_parquet_file_is_one_line_with_the_cause(tmp_path):
    path = _write(tmp_path / "d.parquet", "PAR1 not really parquet")
    with pytest.raises(DataError) as err:
        read_arrow(path, "parquet", "class", BIG)
    message = str(err.value)
    assert message.startswith(f"cannot read {path} as parquet: ") and "\n" not in message
    assert not message.endswith(": None") and len(message) > len(f"cannot read {path} as parquet: ")


# --- what a series matrix's preamble can hold -----------------------------------------------


def test_a_latin1_series_matrix_is_read_in_its_encoding(tmp_path):
    path = tmp_path / "s.txt"
    _series(path, ["caf\xe9", "th\xe9", "caf\xe9", "th\xe9"], ids=("GSM1", "GSM2", "GSM3", "GSM4"))
    path.write_bytes(path.read_bytes().decode().encode("latin-1"))
    assert list(load_cli_data(str(path), target="title").y) == ["café", "thé", "café", "thé"]


def test_nul_bytes_are_named_with_the_file(tmp_path):
    path = tmp_path / "s.txt"
    path.write_bytes(b"!Series_title\tt\x00\n!Sample_geo_accession\tGSM1\n")
    _refused(
        f"{path} holds NUL bytes: it is not a text table (a binary file?)",
        load_cli_data,
        str(path),
    )


def test_a_damaged_gzip_series_matrix_is_one_line_with_the_cause(tmp_path):
    path = tmp_path / "s.txt.gz"
    path.write_bytes(b"\x1f\x8b" + b"\x00" * 30)
    with pytest.raises(DataError) as err:
        load_cli_data(str(path))
    message = str(err.value)
    assert message.startswith(f"cannot read {path}: ") and not message.endswith(": None")


def test_accessions_absent_from_the_table_are_listed_with_both_files(tmp_path):
    path = tmp_path / "s.txt"
    _series(path, ["a", "b", "a", "b"], ids=("GSM1", "GSM2", "GSM3", "GSM4"))
    text = path.read_text().replace("ID_REF\tGSM1\tGSM2\tGSM3\tGSM4", "ID_REF\tS1\tS2\tS3\tS4")
    path.write_text(text)
    with pytest.raises(DataError) as err:
        load_cli_data(str(path), target="title")
    assert str(err.value).startswith(f"--labels: no sample id of {path} is in {path}: ")
    assert str(err.value).endswith(
        f"the ids of {path.name} (column 'ID_REF'): GSM1, GSM2, GSM3, GSM4"
    )


# --- the dispatch of load_cli_data ----------------------------------------------------------


def test_store_options_and_classes_are_checked_with_their_names(tmp_path):
    zarr = pytest.importorskip("zarr")
    if int(zarr.__version__.split(".")[0]) < 3:
        pytest.skip("the store is written with zarr 3's API")
    group = zarr.open_group(str(tmp_path / "s.zarr"), mode="w")
    group.create_array("X", shape=(4, 2), dtype="uint8")[:] = np.eye(4, 2, dtype="uint8")
    group.create_array("class", shape=(4,), dtype=str)[:] = np.array(["a"] * 4)
    path = str(tmp_path / "s.zarr")
    message = "--covariates and --groups apply to a data file with --labels, not a store"
    _refused(message, load_cli_data, path, covariates="age")
    _refused(message, load_cli_data, path, groups="patient")
    _refused("target column 'class' has a single class ('a'); need at least 2", load_cli_data, path)


def test_a_file_is_named_as_its_source_and_held_to_max_memory(tmp_path):
    path = _write(tmp_path / "t.csv", "g,class\n1,a\n2,b\n3,a\n4,b\n")
    assert load_cli_data(str(path)).source == str(path)
    _refused(
        f"{path} (2 columns) would need about 400 bytes of memory, more than the 100 bytes set "
        "by --max-memory; raise --max-memory if the machine has more",
        load_cli_data,
        str(path),
        max_memory=100,
    )


def test_labels_and_transpose_are_refused_together(tmp_path):
    path = _write(tmp_path / "t.tsv", "g\tS1\tS2\nh\t1\t2\n")
    sheet = _write(tmp_path / "s.tsv", "id\tclass\nS1\ta\nS2\tb\n")
    _refused(
        "--labels and --transpose: give one (--labels finds the orientation)",
        load_cli_data,
        str(path),
        labels=str(sheet),
        transpose=True,
    )


def test_labels_join_a_gzip_table_and_a_series_matrix_by_the_file(tmp_path):
    ids = ("GSM1", "GSM2", "GSM3", "GSM4")
    series = _series(tmp_path / "s.txt", ["t1", "t2", "t3", "t4"], ids=ids)
    sheet = _write(tmp_path / "l.tsv", "id\tclass\nGSM1\ta\nGSM2\tb\nGSM3\ta\nGSM4\tb\n")
    assert list(load_cli_data(series, labels=str(sheet)).y) == ["a", "b", "a", "b"]
    table = tmp_path / "t.tsv.gz"
    table.write_bytes(gzip.compress(b"gene\tGSM1\tGSM2\tGSM3\tGSM4\ng1\t1\t2\t3\t5\n"))
    data = load_cli_data(str(table), labels=str(sheet))
    assert list(data.y) == ["a", "b", "a", "b"] and list(data.X[:, 0]) == [1, 2, 3, 5]


def test_loaded_data_carries_the_name_imputed_columns_target_and_design(tmp_path):
    data_path = _write(tmp_path / "ex.csv", "sample,g,h\nS0,1,2\nS1,2,\nS2,3,4\nS3,5,4\n")
    sheet = _write(tmp_path / "sh.csv", "id,status,age\nS0,a,40\nS1,b,50\nS2,a,41\nS3,b,52\n")
    data = load_cli_data(
        str(data_path), labels=str(sheet), target="status", covariates="age", impute=True
    )
    assert data.name == "ex.csv" and data.imputed_columns == ["h"] and data.target == "status"
    np.testing.assert_array_equal(data.design.covariates["age"], [40.0, 50.0, 41.0, 52.0])
    assert data.design.read_as == {"age": "numbers (a linear effect)"}
    empty = _write(tmp_path / "em.csv", "g,status\n1,a\n2,\n3,b\n4,b\n")
    _refused(
        "target column 'status' has 1 empty labels (data rows 2); fill them in or remove "
        "those rows",
        load_cli_data,
        str(empty),
        target="status",
    )


def test_transposed_data_of_many_samples_gets_no_transpose_hint(tmp_path):
    n = 210  # more than 200 samples and 5 per feature: read as rows, the hint would show
    header = "feature," + ",".join(f"s{i}" for i in range(n))
    labels = "class," + ",".join("ab"[i % 2] for i in range(n))
    values = "g1," + ",".join(str(i % 7) for i in range(n))
    path = _write(tmp_path / "t.csv", "\n".join([header, labels, values]) + "\n")
    data = load_cli_data(str(path), transpose=True)
    assert data.X.shape == (n, 1)
    assert not any("--transpose" in note for note in data.notes)
