"""Labels files, sample ids, GEO series matrices, archives and the file-kind dispatch at their
edges: two-column files, repeated and loosely matching ids, keys found on any line, empty
cells, and every option refused where it does not apply."""

import bz2
import contextlib
import gzip
import signal
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from widefs.cli.io._archives import zip_kind
from widefs.cli.io._columns import annotation_note, date_names_note, drop_excluded, parse_exclude
from widefs.cli.io._data import _kind, load_cli_data
from widefs.cli.io._exclusion import dropped_so_far, excluding, take_excluded
from widefs.cli.io._formats import read_arrow, read_xlsx
from widefs.cli.io._geo import _characteristics, _split
from widefs.cli.io._ids import id_key, match_ids, renamed_ids_note
from widefs.cli.io._labels import LabelFile, join_labels, read_labels
from widefs.cli.io._memory import Budget
from widefs.cli.io._tables import (
    RawTable,
    _first_text,
    first_line,
    from_frame,
    is_row_names,
    renamed_note,
    row_names_note,
    show_names,
    show_rows,
    unique_names,
)
from widefs.exceptions import DataError

BIG = Budget(1 << 40, "set by --max-memory", "raise it")


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def expression(tmp_path, n=6, name="expr.csv"):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3)).round(3)
    frame = pd.DataFrame(X, columns=["g0", "g1", "g2"])
    frame.insert(0, "sample", [f"S{i}" for i in range(n)])
    frame.to_csv(tmp_path / name, index=False)
    return tmp_path / name, X


# --- labels files -------------------------------------------------------------------------


def test_a_labels_file_of_two_columns_needs_no_target(tmp_path):
    path = write(tmp_path / "l.tsv", "id\tgroup\n S1 \t a \nS2\tb\n")
    labels = read_labels(path, "class", BIG)
    assert labels.column == 1 and labels.ids == ["S1", "S2"]
    assert labels.labels == [" a ", "b"]  # stripped later, with the other label checks
    assert labels.columns == [["S1", "S2"], ["a", "b"]]
    three = write(tmp_path / "m.tsv", "id\tgroup\tage\nS1\ta\t3\n")
    with pytest.raises(DataError, match=r"no column named 'class' among id, group, age"):
        read_labels(three, "class", BIG)
    assert read_labels(three, "age", BIG).column == 2


def test_a_labels_file_of_one_column_or_a_short_line_is_refused(tmp_path):
    with pytest.raises(DataError, match="one column only; give two"):
        read_labels(write(tmp_path / "o.tsv", "id\nS1\n"), "class", BIG)
    with pytest.raises(DataError, match="line 3 does not have the header's 2 cells"):
        read_labels(write(tmp_path / "s.tsv", "id\tclass\nS1\ta\nS2\n"), "class", BIG)
    with pytest.raises(DataError, match=r"--labels .*nope\.tsv: file not found"):
        read_labels(tmp_path / "nope.tsv", "class", BIG)
    with pytest.raises(DataError, match="not a file"):
        read_labels(tmp_path, "class", BIG)


def test_a_labels_file_with_a_header_only_and_a_gzip_one(tmp_path):
    labels = read_labels(write(tmp_path / "h.csv", "id,class\n"), "class", BIG)
    assert labels.ids == [] and labels.columns == [[], []]
    path = tmp_path / "g.csv"
    path.write_bytes(gzip.compress(b"id,class\nS1,a\n"))
    assert read_labels(path, "class", BIG).labels == ["a"]


def test_candidate_ids_are_the_distinct_complete_columns_other_than_the_labels():
    labels = LabelFile(
        Path("l"), ["a", "b"], ["x", "y"], ["id", "class", "alias", "dup", "gap"], 1, [],
        [["a", "b"], ["x", "y"], ["A1", "B1"], ["d", "d"], ["g", ""]],
    )  # fmt: skip
    assert labels.candidates == ["a", "b", "A1", "B1"]
    bare = LabelFile(Path("l"), ["a", "b"], ["x", "y"], ["id", "class"], 1)
    assert bare.candidates == ["a", "b"]


def test_labels_join_by_the_column_matching_most_samples(tmp_path):
    path, X = expression(tmp_path, n=4)
    sheet = write(
        tmp_path / "sheet.csv",
        "patient,alias,class\nP0,S0,a\nP1,S1,b\nS2,S2,a\nP3,S3,b\n",
    )
    data = load_cli_data(str(path), labels=str(sheet))
    assert list(data.y) == ["a", "b", "a", "b"]
    assert data.notes[-1].startswith(
        "labels from sheet.csv: column 'class', joined to the 4 samples by their ids in its "
        "column 'alias'"
    )
    np.testing.assert_array_equal(data.X, X)


def test_a_two_column_labels_file_without_a_header(tmp_path):
    path, _ = expression(tmp_path, n=4)
    sheet = write(tmp_path / "sheet.tsv", "S0\ta\nS1\tb\nS2\ta\nS3\tb\n")
    data = load_cli_data(str(path), labels=str(sheet))
    assert list(data.y) == ["a", "b", "a", "b"]
    assert "sheet.tsv has no header line: its first line is read as a sample" in data.notes
    assert data.notes[-1].startswith("labels from sheet.tsv: its second column, joined to the 4")


def table_with_ids(ids):
    return RawTable(["g"], np.zeros((len(ids), 1)), np.array([], object), ids=np.array(ids, object))


def label_file(ids, labels, header=("id", "class")):
    return LabelFile(Path("l.tsv"), list(ids), list(labels), list(header), 1)


def test_join_labels_refuses_every_mismatch():
    with pytest.raises(DataError, match="names no samples"):
        join_labels(RawTable(["g"], np.zeros((2, 1)), np.array([])), label_file([], []), Path("d"))
    with pytest.raises(DataError, match=r"no sample id of d is in l\.tsv"):
        join_labels(table_with_ids(["a", "b"]), label_file(["x", "y"], ["1", "2"]), Path("d"))
    with pytest.raises(DataError, match=r"more than once in d: a;"):
        join_labels(table_with_ids(["a", "a", "b"]), label_file(["a", "b"], ["1", "2"]), Path("d"))
    with pytest.raises(DataError, match=r"more than once in l\.tsv: b;"):
        join_labels(table_with_ids(["a", "b"]), label_file(["a", "b", "b"], "123"), Path("d"))
    with pytest.raises(DataError, match=r"1 of the 3 samples of d have no label in l\.tsv: c;"):
        join_labels(table_with_ids(["a", "b", "c"]), label_file(["a", "b"], "12"), Path("d"))
    with pytest.raises(DataError, match=r"1 ids of l\.tsv are not samples of d: z;"):
        join_labels(table_with_ids(["a", "b"]), label_file(["a", "z", "b"], "123"), Path("d"))


def test_join_labels_keeps_the_file_order_and_reads_an_empty_label_as_missing():
    table = table_with_ids([" b", "a ", "c"])
    join_labels(table, label_file(["a", "b", "c"], ["x", "", "z"]), Path("d"))
    assert list(table.labels) == [None, "x", "z"]
    assert table.notes == [
        "labels from l.tsv: column 'class', joined to the 3 samples by their ids"
    ]


# --- sample ids ---------------------------------------------------------------------------


def test_id_keys():
    assert id_key("X") == "x" and id_key("X1") == "1" and id_key("X.1") == ".1"
    assert id_key("XY1") == "xy1" and id_key(" S 01 ") == "s.01" and id_key("") == ""
    assert id_key("X1a") == "1a" and id_key("Xa1") == "xa1"  # the X only before a digit


def test_ids_match_exactly_first_then_loosely_only_if_that_matches_more():
    np.testing.assert_array_equal(match_ids(["a", "b"], ["b", "a", "b"]), [1, 0])
    np.testing.assert_array_equal(match_ids(["A", "b"], ["a", "b"]), [0, 1])
    # Loose keys repeated on either side: exact matching only.
    np.testing.assert_array_equal(match_ids(["A", "b"], ["a", "b", "B"]), [-1, 1])
    np.testing.assert_array_equal(match_ids(["A", "a", "q"], ["a", "z"]), [-1, 0, -1])
    # Loose matching that finds no more than exact matching: exact.
    np.testing.assert_array_equal(match_ids(["a", "Q"], ["a", "z"]), [0, -1])
    np.testing.assert_array_equal(match_ids(["1001", "S-2"], ["X1001", "s.2"]), [0, 1])


def test_the_note_on_loosely_matched_ids_names_the_first_pair():
    assert renamed_ids_note(["a", "b"], ["a", "b"], np.array([0, 1])) is None
    note = renamed_ids_note(["a", "B", "C"], ["a", "b", "c"], np.array([0, 1, 2]))
    assert note == (
        "sample ids matched ignoring case and R's make.names changes (an X before a leading "
        "digit, '.' for other characters): e.g. 'B' = 'b'"
    )
    assert renamed_ids_note(["Q"], ["q"], np.array([-1])) is None
    with pytest.raises(ValueError):  # one position per id, checked
        renamed_ids_note(["a", "b"], ["a", "b"], np.array([0]))


# --- GEO ----------------------------------------------------------------------------------


def test_characteristics_cells():
    assert _split("disease state: tumor: grade 2") == ("disease state", "tumor: grade 2")
    assert _split("  plain  ") == ("", "plain")
    keys = _characteristics([["a: 1", "b: 2", "a: 3"], ["b: 4", "a: 5"]], 2)
    assert keys == {"a": ["1", "5"], "b": ["4", "2"]}
    assert _characteristics([["a: 1", "a: 2", "a: 9"]], 2) == {"a": ["1", "2"]}
    assert _characteristics([["x", ": y"]], 2) == {}


def series(path, characteristics, ids=("GSM1", "GSM2", "GSM3", "GSM4"), titles=None):
    rows = ['!Series_title\t"t"', "!Sample_geo_accession\t" + "\t".join(f'"{i}"' for i in ids)]
    if titles is not None:
        rows.append("!Sample_title\t" + "\t".join(f'"{t}"' for t in titles))
    rows += [
        "!Sample_characteristics_ch1\t" + "\t".join(f'"{c}"' for c in line)
        for line in characteristics
    ]
    rows += ["!series_matrix_table_begin", '"ID_REF"\t' + "\t".join(f'"{i}"' for i in ids)]
    rows += [f'"p{j}"\t' + "\t".join(str(j + k * 0.5) for k in range(len(ids))) for j in range(3)]
    rows += ["!series_matrix_table_end"]
    return write(path, "\n".join(rows) + "\n")


def test_a_series_matrix_key_found_on_any_line_and_in_any_case(tmp_path):
    path = series(
        tmp_path / "s.txt",
        [
            ["state: a", "age: 3", "state: a", "state: b"],
            ["age: 1", "state: b", "age: 2", "age: 4"],
        ],
    )
    data = load_cli_data(str(path), target="State")
    assert list(data.y) == ["a", "b", "a", "b"]
    assert data.notes[-1] == (
        "labels from the sample characteristic 'state' (!Sample_characteristics_ch1 lines) of "
        "the GEO series matrix, joined to the 4 samples (its columns) by their accessions"
    )


def test_a_series_matrix_with_an_unknown_key_or_empty_cells(tmp_path):
    keys = [[f"k{j}: v{j}" for _ in range(4)] for j in range(9)]
    keys.append(["state: a", "state: b", "state: c", "state: d"])
    keys.append(["state: e", "state: f", "", ""])
    path = series(tmp_path / "s.txt", keys)
    with pytest.raises(
        DataError,
        match=r"characteristics: 'k0' \(1 classes: v0\); .*; \.\.\. \(10 keys in all\); also title",
    ):
        load_cli_data(str(path), target="nope")
    path = series(
        tmp_path / "t.txt", [["state: a", "state: b", "state: c", "state: d", "state: e"][:4]]
    )
    with pytest.raises(DataError, match=r"'state' \(4 classes: a, b, c, d\); also"):
        load_cli_data(str(path), target="nope")
    five = [f"GSM{i}" for i in range(1, 6)]
    path = series(tmp_path / "u.txt", [[f"state: {c}" for c in "abcde"]], ids=five)
    with pytest.raises(DataError, match=r"'state' \(5 classes: a, b, c, d, \.\.\.\)"):
        load_cli_data(str(path), target="nope")
    path = series(tmp_path / "v.txt", [["state: a", "", "state: b", ""]])
    with pytest.raises(
        DataError, match=r"2 of the 4 samples have no value in .*: GSM2, GSM4; choose"
    ):
        load_cli_data(str(path), target="state")
    path = series(tmp_path / "w.txt", [], titles=["a", "b", "a"])
    with pytest.raises(DataError, match=r"the line !Sample_title has 3 cells for 4 samples"):
        load_cli_data(str(path), target="title")
    path = series(tmp_path / "x.txt", [])
    with pytest.raises(DataError, match="characteristics: none; also title and source_name"):
        load_cli_data(str(path), target="title")


def test_a_series_matrix_title_line(tmp_path):
    path = series(tmp_path / "s.txt", [["x: 1"] * 4], titles=["a", "b", "b", "a"])
    data = load_cli_data(str(path), target="title")
    assert list(data.y) == ["a", "b", "b", "a"]
    assert "labels from the line !Sample_title of the GEO series matrix" in data.notes[-1]


def test_a_preamble_without_accessions_is_not_a_series_matrix(tmp_path):
    text = "!comment\ng0,g1,class\n1,2,a\n3,4,a\n5,7,b\n8,6,b\n"
    data = load_cli_data(str(write(tmp_path / "p.csv", text)))
    assert list(data.y) == ["a", "a", "b", "b"]


# --- archives and kinds -------------------------------------------------------------------


def test_zip_kinds(tmp_path):
    book = tmp_path / "b.zip"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("xl/workbook.xml", "<x/>")
    assert zip_kind(book) == "xlsx"
    empty = tmp_path / "e.zip"
    zipfile.ZipFile(empty, "w").close()
    assert zip_kind(empty) == "xlsx"
    other = tmp_path / "o.zip"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("data/", "")
        z.writestr("data/a.csv", "a")
    with pytest.raises(DataError, match=r"zip archive holding data/a\.csv: unzip it"):
        zip_kind(other)
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(DataError, match=r"cannot read .* as xlsx or zip"):
        zip_kind(bad)


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"\x1f\x8b\x08", "gzip"),
        (b"PAR1xxxx", "parquet"),
        (b"ARROW1\x00\x00", "feather"),
        (b"PK\x03\x04", "xlsx"),
        (b"\xd0\xcf\x11\xe0", "xls"),
        (b"\x89HDF\r\n\x1a\n", "h5ad"),
        (b"BZh9", "bz2"),
        (b"\xfd7zXZ\x00", "xz"),
        (b"PAR", "text"),
        (b"a,b\n", "text"),
        (b"", "text"),
    ],
)
def test_the_kind_is_read_from_the_first_bytes(tmp_path, head, kind):
    path = tmp_path / "f"
    path.write_bytes(head)
    assert _kind(path) == kind


def test_options_refused_where_they_do_not_apply(tmp_path):
    csv = write(tmp_path / "d.csv", "g0,class\n1,a\n2,a\n3,b\n4,b\n")
    with pytest.raises(DataError, match=r"^file not found: "):
        load_cli_data(str(tmp_path / "none.csv"))
    with pytest.raises(DataError, match="is a directory, not a data file"):
        load_cli_data(str(tmp_path))
    with pytest.raises(DataError, match=r"^--layer applies to an AnnData .h5ad file$"):
        load_cli_data(str(csv), layer="counts")
    xls = tmp_path / "old.xls"
    xls.write_bytes(b"\xd0\xcf\x11\xe0" + b"\x00" * 60)
    with pytest.raises(DataError, match=r"old Excel .xls file; save it as .xlsx or CSV"):
        load_cli_data(str(xls))
    parquet = tmp_path / "d.parquet"
    pd.DataFrame({"g0": [1.0, 2, 3, 4], "class": list("aabb")}).to_parquet(parquet)
    with pytest.raises(
        DataError, match=r"^--transpose applies to delimited text files, not parquet$"
    ):
        load_cli_data(str(parquet), transpose=True)
    labels = write(tmp_path / "l.tsv", "id\tclass\nS0\ta\n")
    with pytest.raises(DataError, match=r"^--labels applies to delimited text files, not parquet$"):
        load_cli_data(str(parquet), labels=str(labels))
    with pytest.raises(DataError, match="--labels and --transpose: give one"):
        load_cli_data(str(csv), labels=str(labels), transpose=True)
    squeezed = tmp_path / "d.csv.bz2"
    squeezed.write_bytes(bz2.compress(csv.read_bytes()))
    assert list(load_cli_data(str(squeezed)).y) == ["a", "a", "b", "b"]


def test_a_bundled_dataset_notes_the_options_it_ignores(tmp_path):
    data = load_cli_data("colon", target="tissue", transpose=True)
    assert data.notes[:2] == [
        "--target 'tissue' is ignored: a bundled dataset's target is 'class'",
        "--transpose is ignored for a bundled dataset",
    ]
    assert data.target == "class" and data.source == "bundled dataset 'colon'"
    assert not any("ignored" in n for n in load_cli_data("colon", target="class").notes)


# --- names and columns --------------------------------------------------------------------


def test_show_names_and_rows_at_eight():
    assert show_names([f"c{i}" for i in range(8)]) == ", ".join(f"c{i}" for i in range(8))
    assert show_names([f"c{i}" for i in range(9)]).endswith("c7, ... (9 in all)")
    assert show_names(["", " ", "a"]) == "'', ' ', a"
    assert show_rows(np.arange(8)) == "1, 2, 3, 4, 5, 6, 7, 8"
    assert show_rows(np.arange(9)).endswith("8, ... (9 in all)")


@contextlib.contextmanager
def _deadline(seconds):
    """Fail (TimeoutError) rather than hang when the code inside never ends."""

    def stop(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_unique_names_skip_names_already_taken():
    # Each renaming stops at the first free suffix (a search that never stops fails here).
    with _deadline(5.0):
        assert unique_names(["a", "b"]) == (["a", "b"], [])
        assert unique_names(["a", "a.1", "a", "a"]) == (["a", "a.1", "a.2", "a.3"], ["a", "a"])
        assert unique_names(["", ""]) == (["Unnamed: 0", "Unnamed: 1"], [])
        assert unique_names(["a", "a", "a"]) == (["a", "a.1", "a.2"], ["a", "a"])
        assert unique_names(["b", "a", "b", "a", "b"]) == (
            ["b", "a", "b.1", "a.1", "b.2"],
            ["b", "a", "b"],
        )


def test_exclude_names():
    assert parse_exclude(None) == [] and parse_exclude(" a , b") == ["a", "b"]
    for bad in ("a,,b", "", " , a"):
        with pytest.raises(DataError, match="--exclude takes column names"):
            parse_exclude(bad)


def test_drop_excluded_rows_and_names_already_dropped():
    table = RawTable(["g0", "g1", "g2"], np.arange(6.0).reshape(2, 3), np.array(["a", "b"], object))
    table.in_rows = True
    with pytest.raises(DataError, match=r"--exclude: no row named zz; rows are: g0, g1, g2"):
        drop_excluded(table, ["zz"], "class", [])
    with pytest.raises(DataError, match="names the target 'class'"):
        drop_excluded(table, ["class"], "class", [])
    notes = []
    with excluding(["txt", "g1"]):
        assert take_excluded(["txt", "other"]) == {"txt"}
        assert dropped_so_far() == {"txt"}
        assert take_excluded(["nothing"]) == set()
        assert dropped_so_far() == {"txt"}  # what earlier readers dropped is kept
        drop_excluded(table, ["txt", "g1"], "class", notes)
    assert table.names == ["g0", "g2"]
    np.testing.assert_array_equal(table.X, [[0, 2], [3, 5]])
    assert notes == ["left out of the features (--exclude): txt, g1"]
    assert dropped_so_far() == set() and take_excluded(["txt"]) == set()
    with excluding([]):
        assert take_excluded(["g0"]) == set()
    drop_excluded(table, [], "class", notes)
    assert len(notes) == 1


def annotated(n, columns):
    names = list(columns)
    X = np.column_stack([columns[c] for c in names]).astype(float)
    return RawTable(names, X, np.array(["a", "b"] * (n // 2), object))


def test_annotation_note_needs_more_than_ten_rows():
    rng = np.random.default_rng(0)
    for n, noted in ((10, False), (11, True)):
        t = annotated(
            n, {"age": rng.normal(size=n), "g1": rng.normal(size=n), "g2": rng.normal(size=n)}
        )
        notes = []
        annotation_note(t, notes)
        assert bool(notes) == noted


def test_annotation_note_on_few_distinct_values():
    rng = np.random.default_rng(1)
    n = 12
    cols = {f"g{j}": rng.normal(size=n) for j in range(9)}
    cols["code"] = np.array([1, 2, 3, 4, 5] * 2 + [1, 2], float)  # 5 distinct values: a code
    notes = []
    annotation_note(annotated(n, cols), notes)
    assert notes and "code" in notes[0] and "g0" not in notes[0]
    cols["code"] = np.array([1, 2, 3, 4, 5, 6] * 2, float)  # 6: a measurement
    notes = []
    annotation_note(annotated(n, cols), notes)
    assert not notes
    cols["code"] = np.array([1, 2, 3, 4, 5] * 2 + [np.nan, np.nan])  # NaN is not a value
    notes = []
    annotation_note(annotated(n, cols), notes)
    assert notes and "code" in notes[0]


def test_annotation_note_is_silent_when_few_values_are_the_data_or_most_columns_flagged():
    rng = np.random.default_rng(2)
    n = 12
    # 2 of 10 columns with few values (20%): noted; 3 of 10 (30%): genotype-like data, silent.
    cols = {f"g{j}": rng.normal(size=n) for j in range(8)}
    cols.update(c1=rng.integers(0, 3, n), c2=rng.integers(0, 3, n))
    notes = []
    annotation_note(annotated(n, cols), notes)
    assert notes and "c1, c2" in notes[0]
    cols["g7"] = rng.integers(0, 3, n)
    notes = []
    annotation_note(annotated(n, cols), notes)
    assert not notes
    # Named like annotations: 2 of 4 flagged is at most half, noted; 3 of 4, silent.
    base = {"age": rng.normal(size=n), "dose": rng.normal(size=n)}
    notes = []
    annotation_note(
        annotated(n, {**base, "g0": rng.normal(size=n), "g1": rng.normal(size=n)}), notes
    )
    assert notes
    notes = []
    annotation_note(
        annotated(n, {**base, "sex": rng.normal(size=n), "g1": rng.normal(size=n)}), notes
    )
    assert not notes


def test_date_like_names():
    t = RawTable(
        ["2-Sep", "Mar-01", "2026-09-02 00:00:00", "SEPT2", "12-Sep-1", "1-Mar"], None, np.array([])
    )
    notes = []
    date_names_note(t, notes)
    assert notes[0].startswith("4 feature names look like dates")
    assert "2-Sep, Mar-01, 2026-09-02 00:00:00, 1-Mar;" in notes[0]


# --- tables -------------------------------------------------------------------------------


def test_first_line_of_an_error():
    assert first_line(ValueError("one\ntwo")) == "one"
    assert first_line(ValueError("  \n one \n")) == "one"
    assert first_line(KeyError()) == "KeyError"
    assert first_line(OSError("   ")) == "OSError"


def test_renamed_and_row_names_notes():
    assert renamed_note(["g", "h"]) == (
        "2 duplicated column names were renamed to tell them apart (e.g. 'g' -> 'g.1'); "
        "check that the file is right"
    )
    assert renamed_note(["g"], "row").startswith("1 duplicated row names")
    assert row_names_note("id") == (
        "the column 'id' holds a distinct text per row (sample names): used as row names, "
        "not as a feature"
    )


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        (["s1", "s2"], True),
        (["s1"], False),
        (["s1", "s1"], False),
        (["s1", " "], False),
        (["s1", None], False),
        ([1, 2], True),
    ],
)
def test_row_names_are_distinct_non_empty_texts_in_every_row(cells, expected):
    assert is_row_names(pd.Series(cells, dtype=object)) is expected


def test_the_first_text_cell_of_a_column_is_located():
    column = pd.Series([1.5, None, "2", "x", "y"], dtype=object, name="g")
    assert _first_text(column, False) == "'x' in column 'g', data row 4"
    comma = pd.Series(["1,5", None, "2,5", "a,b"], dtype=object, name="h")
    assert _first_text(comma, True) == "'a,b' in column 'h', data row 4"
    assert _first_text(comma, False) == "'1,5' in column 'h', data row 1"
    assert _first_text(pd.Series(["1", None], dtype=object, name="k"), False) == ""


def test_from_frame_takes_the_first_column_of_names_as_row_ids():
    frame = pd.DataFrame(
        {
            "sample": ["s1", "s2", "s3"],
            "g0": [1.0, 2, 3],
            "site": ["x", "y", "x"],
            "class": list("aba"),
        }
    )
    table = from_frame(frame, "class")
    assert list(table.ids) == ["s1", "s2", "s3"] and table.names == ["g0", "site"]
    assert table.non_numeric == ["site"] and table.X is None
    assert table.example == "'x' in column 'site', data row 1"
    assert table.notes == [row_names_note("sample")]
    numbers = from_frame(frame.drop(columns=["sample", "site"]), "class")
    np.testing.assert_array_equal(numbers.X, [[1], [2], [3]])
    assert numbers.ids is None and list(numbers.labels) == list("aba")
    repeated = from_frame(frame.assign(sample=["s1", "s1", "s3"]), "class")
    assert repeated.ids is None and repeated.non_numeric == ["sample", "site"]
    assert numbers.example == "" and numbers.notes == []
    missing = from_frame(frame, "missing").labels
    assert len(missing) == 0 and missing.dtype == object
    whole = from_frame(pd.DataFrame({"g": [1, 2, 3], "class": [0, 1, 0]}), "class")
    assert whole.X.dtype == np.float64
    mixed = from_frame(frame.assign(sample=["s1", 2, "s3"]), "class")
    assert list(mixed.ids) == ["s1", "2", "s3"]


def test_from_frame_locates_a_text_cell_written_with_decimal_commas():
    frame = pd.DataFrame({"f": [1.0, 2, 3], "g": ["1,5", "2,5", "x,y"], "class": list("aba")})
    assert (
        from_frame(frame, "class", decimal_comma=True).example == "'x,y' in column 'g', data row 3"
    )
    assert from_frame(frame, "class").example == "'1,5' in column 'g', data row 1"


# --- parquet, feather, xlsx ---------------------------------------------------------------


def arrow_frame(p, n=6):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"g{j}" for j in range(p)])
    frame["class"] = ["a", "b"] * (n // 2)
    return frame


@pytest.mark.parametrize("p", [1023, 1024, 1025])
def test_parquet_columns_are_read_a_block_at_a_time(tmp_path, p):
    frame = arrow_frame(p)
    frame.to_parquet(tmp_path / "d.parquet", index=False)
    table = read_arrow(tmp_path / "d.parquet", "parquet", "class", BIG)
    np.testing.assert_array_equal(table.X, frame.drop(columns="class").to_numpy())
    assert table.names[-1] == f"g{p - 1}" and list(table.labels) == list(frame["class"])


def test_feather_of_several_batches_with_missing_cells_and_integers(tmp_path):
    import pyarrow as pa
    import pyarrow.feather as feather

    frame = arrow_frame(3, n=8)
    frame["n"] = np.arange(8, dtype=np.int64)
    frame.loc[2, "g1"] = np.nan
    table = pa.Table.from_pandas(frame, preserve_index=False)
    feather.write_feather(table, tmp_path / "d.feather", chunksize=3)
    out = read_arrow(tmp_path / "d.feather", "feather", "class", BIG)
    expected = frame.drop(columns="class").to_numpy(dtype=float)
    np.testing.assert_array_equal(out.X, expected)
    feather.write_feather(table, tmp_path / "one.feather")
    np.testing.assert_array_equal(
        read_arrow(tmp_path / "one.feather", "feather", "class", BIG).X, expected
    )


def test_arrow_row_ids_from_the_pandas_index_or_a_first_text_column(tmp_path):
    frame = arrow_frame(2, n=4)
    frame.index = [f"s{i}" for i in range(4)]
    frame.to_parquet(tmp_path / "i.parquet")
    table = read_arrow(tmp_path / "i.parquet", "parquet", "class", BIG)
    assert list(table.ids) == ["s0", "s1", "s2", "s3"] and table.names == ["g0", "g1"]
    named = frame.reset_index(names="sample")
    named.to_parquet(tmp_path / "n.parquet", index=False)
    table = read_arrow(tmp_path / "n.parquet", "parquet", "class", BIG)
    assert list(table.ids) == ["s0", "s1", "s2", "s3"] and table.names == ["g0", "g1"]
    assert table.notes == [row_names_note("sample")]
    named.assign(sample=["s0", "s0", "s1", "s2"], flag=[True, False, True, True]).to_parquet(
        tmp_path / "t.parquet", index=False
    )
    table = read_arrow(tmp_path / "t.parquet", "parquet", "class", BIG)
    assert table.ids is None and table.non_numeric == ["sample"] and table.X is None
    named.assign(flag=[True, False, True, True]).to_parquet(tmp_path / "b.parquet", index=False)
    table = read_arrow(tmp_path / "b.parquet", "parquet", "class", BIG)
    np.testing.assert_array_equal(table.X[:, -1], [1, 0, 1, 1])


def test_arrow_files_refused_in_one_line(tmp_path):
    frame = arrow_frame(2, n=4)
    frame.to_parquet(tmp_path / "d.parquet", index=False)
    with pytest.raises(
        DataError, match=r"target column 'y' not found .*columns are: g0, g1, class"
    ):
        read_arrow(tmp_path / "d.parquet", "parquet", "y", BIG)
    with pytest.raises(DataError, match=r"\(4 x 3\) would need about"):
        read_arrow(tmp_path / "d.parquet", "parquet", "class", Budget(100, "set", "raise"))
    (tmp_path / "bad.parquet").write_bytes(b"PAR1" + b"\x00" * 20)
    with pytest.raises(DataError, match=r"^cannot read .*bad\.parquet as parquet: "):
        read_arrow(tmp_path / "bad.parquet", "parquet", "class", BIG)
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = [pa.array(frame[c]) for c in frame.columns]
    pq.write_table(
        pa.Table.from_arrays(arrays, names=["g", "g", "class"]), tmp_path / "dup.parquet"
    )
    table = read_arrow(tmp_path / "dup.parquet", "parquet", "class", BIG)
    assert table.names == ["g", "g.1"] and table.notes[0].startswith("1 duplicated column names")


def test_xlsx_header_cells_and_the_unpacked_size(tmp_path):
    frame = arrow_frame(2, n=4)
    frame.insert(1, "", [1.0, 2, 3, 4])
    frame.to_excel(tmp_path / "d.xlsx", index=False)
    table = read_xlsx(tmp_path / "d.xlsx", "class", BIG)
    assert table.names == ["g0", "Unnamed: 1", "g1"]
    with pytest.raises(DataError, match=r"bytes unpacked\) would need about"):
        read_xlsx(tmp_path / "d.xlsx", "class", Budget(1000, "set", "raise"))
    with pytest.raises(
        DataError, match=r"target column 'y' not found .*columns are: g0, Unnamed: 1"
    ):
        read_xlsx(tmp_path / "d.xlsx", "y", BIG)
    (tmp_path / "bad.xlsx").write_bytes(b"PK\x03\x04 broken")
    with pytest.raises(DataError, match=r"^cannot read .*bad\.xlsx as xlsx: "):
        read_xlsx(tmp_path / "bad.xlsx", "class", BIG)
