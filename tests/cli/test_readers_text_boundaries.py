"""The delimited-text readers at their edges: encodings from the first bytes, the delimiter
from the first lines, decimal commas, the preamble of a GEO series matrix, the fast reader's
cells and misfits, and the line and header caps at exactly their sizes."""

import codecs
import gzip
import io

import numpy as np
import pandas as pd
import pytest

from widefs.cli.io._delimited import (
    _first_is_text,
    _is_text,
    _line_cap,
    read_delimited,
    read_unlabelled,
)
from widefs.cli.io._memory import Budget, numbers_need, row_need
from widefs.cli.io._numeric import Layout, Misfit, _numbers, read_rows
from widefs.cli.io._text import (
    _CHUNK,
    _HEADER_SHARE,
    HEAD_ROWS,
    TextHead,
    _decimal_commas,
    _detect_encoding,
    _header_line,
    _read_line,
    _suffix,
    compression,
    count_lines,
    data_lines,
    read_head,
    sniff_delimiter,
)
from widefs.exceptions import DataError

BIG = Budget(1 << 40, "set by --max-memory", "raise it")
# Between what the fast reader needs for the small files below and what pandas would need.
SMALL = Budget(2000, "set by --max-memory", "raise it")


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


# --- encodings ----------------------------------------------------------------------------


def test_encodings_from_the_byte_order_mark():
    assert _detect_encoding(codecs.BOM_UTF8 + b"a,b") == ("utf-8-sig", None)
    for bom in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        assert _detect_encoding(bom + "a,b".encode("utf-16-le"))[0] == "utf-16"
    assert _detect_encoding(b"a,b\n1,2") == ("utf-8", None)


def test_utf16_without_a_mark_from_where_the_zero_bytes_are():
    le, be = "ab,c\n".encode("utf-16-le"), "ab,c\n".encode("utf-16-be")
    assert _detect_encoding(le)[0] == "utf-16-le"
    assert _detect_encoding(be)[0] == "utf-16-be"
    # Fewer than 4 bytes: never guessed as UTF-16, and a zero byte is then a binary file.
    with pytest.raises(DataError, match="holds NUL bytes"):
        _detect_encoding("a".encode("utf-16-le"))
    # Zero bytes on both sides: binary.
    with pytest.raises(DataError, match="holds NUL bytes"):
        _detect_encoding(b"\x00a\x00\x00b\x00c\x00")


def test_utf16_needs_more_than_a_quarter_of_the_bytes_zero():
    # 12 bytes, 3 zeros at odd positions (= 12 // 4): not UTF-16, a binary file; 4 zeros: UTF-16.
    three = b"a\x00b\x00c\x00defghi"
    with pytest.raises(DataError, match="NUL"):
        _detect_encoding(three)
    four = b"a\x00b\x00c\x00d\x00efgh"
    assert _detect_encoding(four)[0] == "utf-16-le"
    four_be = b"\x00a\x00b\x00c\x00defgh"[:12]
    assert _detect_encoding(four_be + b"")[0] in ("utf-16-be",)


def test_a_character_cut_at_the_end_of_the_sample_is_still_utf8():
    text = ("a" * 20 + "é").encode("utf-8")
    assert _detect_encoding(text[:-1]) == ("utf-8", None)  # the 'é' cut in two: still UTF-8
    latin = "a,b\ncafé,1\n".encode("cp1252")
    assert _detect_encoding(latin)[0] == "cp1252"
    # A bad byte 4 bytes from the end is not a cut character.
    assert _detect_encoding(b"abcdef\xe9xyz")[0] == "cp1252"
    assert _detect_encoding(b"abcdefg\xe9yz")[0] == "utf-8"


def test_compression_names():
    assert compression(False) is None and compression(None) is None
    assert compression(True) == "gzip"
    assert compression("bz2") == "bz2" and compression("xz") == "xz"


# --- head, delimiter, decimal commas --------------------------------------------------------


def test_the_suffix_ignores_gzip_and_case():
    from pathlib import Path

    assert _suffix(Path("Data.CSV.gz")) == ".csv"
    assert _suffix(Path("data.tsv")) == ".tsv"
    assert _suffix(Path("README")) == ""
    assert _suffix(Path("a.b.tab")) == ".tab"


def test_the_delimiter_needs_two_fields_in_every_complete_line():
    assert sniff_delimiter("a|b|c\n1|2|3\n", ".txt") == "|"
    # The widest qualifying delimiter wins when the suffix's does not qualify.
    assert sniff_delimiter("a;b|c;d\n1;2|3;4\n", ".txt") == ";"
    assert sniff_delimiter("a|b;c|d|e\n1|2;3|4|5\n", ".txt") == "|"
    # A row of another width disqualifies a delimiter.
    assert sniff_delimiter("a;b;c\n1;2\n", ".txt") == ","
    # Only the first 7 lines count; an incomplete last line is left out.
    lines = "a\tb\n" + "1\t2\n" * 6 + "x\ty\tz\n"
    assert sniff_delimiter(lines, ".txt") == "\t"
    assert sniff_delimiter("a;b\n1;2\n3;4;5", ".txt") == ";"
    assert sniff_delimiter("a;b\n1;2\n3;4;5\n", ".txt") == ","
    # Quoted cells holding delimiters.
    assert sniff_delimiter('"a;x"\t"b"\n"1;2"\t3\n', ".txt") == "\t"
    assert sniff_delimiter("a\n1\n", ".tab") == "\t"
    assert sniff_delimiter("a\n1\n", ".txt") == ","


def test_decimal_commas_only_without_decimal_points():
    assert _decimal_commas(["a;1,5;2"], ";")
    assert _decimal_commas(["a;-1,5e-3;+,5"], ";")
    assert not _decimal_commas(["a;1,5;2.5"], ";")
    assert not _decimal_commas(["a;1;2"], ";")
    assert not _decimal_commas(["a;x,y;2"], ";")
    assert _decimal_commas(["a;2", "b; 3,25 "], ";")
    assert _decimal_commas(["a;1,5E3;2"], ";") and _decimal_commas(["a;1,5e3;2"], ";")


def test_head_of_a_series_matrix_and_a_quoted_header(tmp_path):
    text = '!Series_title\t"x"\n\n!Sample_id\tA\n"ID_REF"\t"GSM1"\t"GSM2"\n"p1"\t1\t2\n\n!x\n"p2"\t3\t4\n'
    head = read_head(write(tmp_path / "s.txt", text), False, BIG)
    assert head.preamble == 3 and head.skip == 4
    assert head.header == ["ID_REF", "GSM1", "GSM2"]
    assert head.lines == ['"p1"\t1\t2', '"p2"\t3\t4']
    assert head.first_cell() == "p1"
    assert any("skipped the 3 lines before the table" in n for n in head.notes)
    assert [n for n, _ in data_lines(head, 1 << 20)] == [5, 8]
    quoted = 'gene,"two\nlines",class\n1,2,a\n'
    head = read_head(write(tmp_path / "q.csv", quoted), False, BIG)
    assert head.header == ["gene", "two\nlines", "class"] and head.skip == 2
    assert head.preamble == 0 and not head.notes


def test_head_reads_twenty_data_lines_and_skips_blank_ones(tmp_path):
    text = "a,b\n" + "".join(f"{i},{i}\n\n" for i in range(HEAD_ROWS + 5))
    head = read_head(write(tmp_path / "h.csv", text), False, BIG)
    assert len(head.lines) == HEAD_ROWS
    assert head.lines[-1] == f"{HEAD_ROWS - 1},{HEAD_ROWS - 1}"
    assert head.first_cell() == "0"


def test_an_empty_file_or_header_is_refused(tmp_path):
    with pytest.raises(DataError, match=r"e\.csv is empty \(no header line\)"):
        read_head(write(tmp_path / "e.csv", ""), False, BIG)
    with pytest.raises(DataError, match="is empty"):
        read_head(write(tmp_path / "b.csv", "  \r\n1,2\n"), False, BIG)


def test_a_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(codecs.BOM_UTF8 + b"g0,class\n1,a\n")
    head = read_head(path, False, BIG)
    assert head.header == ["g0", "class"] and head.encoding == "utf-8-sig"
    path.write_bytes(codecs.BOM_UTF16_LE + "g0\tclass\n1\ta\n".encode("utf-16-le"))
    head = read_head(path, False, BIG)
    assert head.header == ["g0", "class"] and head.delim == "\t"
    assert head.notes == [
        'read as UTF-16 text (as Excel saves "Unicode text")',
        "read as tab-separated text (the delimiter was detected from the first lines)",
    ]


@pytest.mark.parametrize(
    ("name", "text", "noted"),
    [
        ("a.csv", "a,b\n1,2\n", False),
        ("a.csv", "a;b\n1;2\n", True),
        ("a.tsv", "a\tb\n1\t2\n", False),
        ("a.tsv", "a,b\n1,2\n", True),
        ("a.tab", "a\tb\n1\t2\n", False),
        ("a.tab", "a,b\n1,2\n", True),
        ("a.txt", "a,b\n1,2\n", False),
        ("a.txt", "a\tb\n1\t2\n", False),
        ("a.txt", "a;b\n1;2\n", True),
        ("a.txt", "a|b\n1|2\n", True),
    ],
)
def test_the_detected_delimiter_is_noted_when_the_suffix_does_not_say_it(
    tmp_path, name, text, noted
):
    head = read_head(write(tmp_path / name, text), False, BIG)
    assert any("delimiter was detected" in n for n in head.notes) == noted


def test_decimal_commas_are_read_only_when_the_delimiter_is_not_a_comma(tmp_path):
    head = read_head(write(tmp_path / "d.txt", "a;b\n1,5;2\n"), False, BIG)
    assert head.decimal_comma
    assert "read with decimal commas (e.g. '1,5' is 1.5)" in head.notes
    head = read_head(write(tmp_path / "c.csv", '"a","b"\n"1,5",2\n'), False, BIG)
    assert not head.decimal_comma


# --- line counts and caps -----------------------------------------------------------------


def test_lines_are_counted_with_any_line_end(tmp_path):
    for end in ("\n", "\r\n", "\r"):
        path = write(tmp_path / "l.csv", end.join(["a,b", "1,2", "3,4", "5,6"]) + end)
        head = read_head(path, False, BIG)
        assert count_lines(head, 1, BIG) == 5  # 4 line ends, plus one for a last line without


def test_the_line_count_stops_once_over_the_budget(tmp_path):
    path = write(tmp_path / "l.csv", "a,b\n" + "1,2\n" * 9)
    head = read_head(path, False, BIG)
    assert count_lines(head, 10, Budget(100, "set by --max-memory", "raise it")) == 11
    with pytest.raises(DataError, match=r"at least 10 lines\) would need about 101 bytes"):
        count_lines(head, 10, Budget(100, "set by --max-memory", "raise it"), need_before=1)


def test_a_data_line_of_exactly_the_cap_is_read(tmp_path):
    path = write(tmp_path / "c.csv", "a,b\n" + "1," + "0" * 8 + "\n" + "2,3\n")
    head = read_head(path, False, BIG)
    assert [line for _, line in data_lines(head, 10)] == ["1," + "0" * 8, "2,3"]
    with pytest.raises(DataError, match="line 2 is longer than 9 bytes of text"):
        list(data_lines(head, 9))


def test_the_line_cap_is_256_characters_per_header_cell_or_1_mib():
    class Head:
        header = ["x"] * 5000

    assert _line_cap(Head) == 5000 * 256
    Head.header = ["x"] * 4096
    assert _line_cap(Head) == 1 << 20
    Head.header = ["x"] * 4097
    assert _line_cap(Head) == 4097 * 256


# --- the fast reader ----------------------------------------------------------------------


def test_numbers_of_a_line():
    np.testing.assert_array_equal(_numbers("1,2,3", ",", 3), [1, 2, 3])
    np.testing.assert_array_equal(_numbers(" 1 , NA ,?", ",", 3), [1, np.nan, np.nan])
    assert _numbers("1,2", ",", 3) == -1
    assert _numbers("1,2,3,4", ",", 3) == -1
    assert _numbers("1,x,3", ",", 3) == 1
    assert _numbers("y,x,3", ",", 3) == 0
    assert _numbers("", ",", 0).shape == (0,)
    assert _numbers("1", ",", 0) == -1
    np.testing.assert_array_equal(_numbers("1e3\t-2.5", "\t", 2), [1000.0, -2.5])


def test_layout_of_the_numeric_cells():
    assert Layout(["id", "a", "class", "b"], 2, True).numeric == [1, 3]
    assert Layout(["a", "b", "class"], 2, False).numeric == [0, 1]
    assert Layout(["class", "a", "b"], 0, False).numeric == [1, 2]
    assert Layout(["gene", "s1", "s2"], None, True).numeric == [1, 2]
    assert Layout(["a", "b"], None, False).numeric == [0, 1]


@pytest.mark.parametrize(
    ("header", "lines", "label", "first_is_id"),
    [
        ("a,b,class", ["1,2,x", "3,4,y"], 2, False),
        ("class,a,b", ["x,1,2", "y,3,4"], 0, False),
        ("id,a,class,b", ["s1,1,x,2", "s2,3,y,4"], 2, True),
        ("id,class,a,b", ["s1,x,1,2", "s2,y,3,4"], 1, True),
        ("id,a,b,class", ['"s,1",1,2,x', "s2,3,4,y"], 3, True),
        ("id,a,b,class", ["s1,1,2,x", "s2,3,4,y"], 3, True),
        ("a,class,b", ['1,"x,z",2', "3,y,4"], 1, False),
    ],
)
def test_read_rows_puts_every_cell_where_the_layout_says(
    tmp_path, header, lines, label, first_is_id
):
    path = write(tmp_path / "r.csv", "\n".join([header, *lines]) + "\n")
    head = read_head(path, False, BIG)
    layout = Layout(head.header, label, first_is_id)
    rows = read_rows(head, layout, 5, 1 << 20)
    assert isinstance(rows, type(rows)) and not isinstance(rows, Misfit)
    np.testing.assert_array_equal(rows.X, [[1, 2], [3, 4]])
    assert rows.labels[1] == "y" and rows.labels[0] in ("x", "x,z")
    if first_is_id:
        assert rows.ids[1] == "s2"


def test_read_rows_misfits_say_where(tmp_path):
    path = write(tmp_path / "m.csv", "id,a,b,class\ns1,1,2,x\ns2,3,oops,y\n")
    head = read_head(path, False, BIG)
    got = read_rows(head, Layout(head.header, 3, True), 5, 1 << 20)
    assert got == Misfit(3, "line 3: 'oops' in column 'b' is not a number")
    path = write(tmp_path / "w.csv", "id,a,b,class\ns1,1,2,x\ns2,3,y\n")
    head = read_head(path, False, BIG)
    got = read_rows(head, Layout(head.header, 3, True), 5, 1 << 20)
    assert got == Misfit(3, "line 3 does not have the header's 4 cells")
    got = read_rows(head, Layout(head.header, 3, True), 1, 1 << 20)
    assert got == Misfit(3, "line 3 does not have the header's 4 cells")
    path = write(tmp_path / "n.csv", "a,b,class\n1,2,x\n3,4,y\n")
    head = read_head(path, False, BIG)
    got = read_rows(head, Layout(head.header, 2, False), 1, 1 << 20)
    assert got == Misfit(3, "more lines than counted (the file changed while read?)")
    rows = read_rows(head, Layout(head.header, 2, False), 2, 1 << 20)
    assert rows.X.shape == (2, 2)


def test_features_in_rows_misfits_name_the_row_and_the_sample(tmp_path):
    path = write(tmp_path / "t.csv", "gene,s1,s2\nclass,a,b\ng1,1,2\ng2,3,x\n")
    head = read_head(path, False, BIG)
    layout = Layout(head.header, None, True, label_row="class")
    got = read_rows(head, layout, 5, 1 << 20)
    assert got == Misfit(4, "line 4: 'x' in row 'g2', column 's2' is not a number")
    path = write(tmp_path / "u.csv", "gene,s1,s2\nclass,a,b\ng1,1,2\nclass,a,b\n")
    head = read_head(path, False, BIG)
    got = read_rows(head, Layout(head.header, None, True, label_row="class"), 5, 1 << 20)
    assert got == Misfit(4, "the row 'class' appears twice")
    path = write(tmp_path / "v.csv", 'gene,s1,s2\n"class","a,1",b\ng1,1,2\n')
    head = read_head(path, False, BIG)
    rows = read_rows(head, Layout(head.header, None, True, label_row="class"), 5, 1 << 20)
    assert rows.label_row == ["a,1", "b"] and rows.ids == ["g1"]


# --- delimited layouts --------------------------------------------------------------------


def test_text_cells():
    assert _is_text("abc") and _is_text("1x")
    assert not _is_text("1,5") and not _is_text("-2e3") and not _is_text(" NA ")
    assert not _is_text("") and not _is_text("?")


def test_the_first_cell_is_text(tmp_path):
    head = read_head(write(tmp_path / "f.csv", "id,a,class\ns1,1,x\n"), False, BIG)
    assert _first_is_text(head)
    head = read_head(write(tmp_path / "g.csv", "id,a,class\n1,1,x\n"), False, BIG)
    assert not _first_is_text(head)
    head = read_head(write(tmp_path / "h.csv", "id,a,class\n"), False, BIG)
    assert not _first_is_text(head)


def frame(n=6, p=3):
    rng = np.random.default_rng(0)
    out = pd.DataFrame(rng.normal(size=(n, p)).round(3), columns=[f"g{j}" for j in range(p)])
    out["class"] = ["a", "b"] * (n // 2)
    return out


def test_a_target_in_the_first_column_and_ids_beside_it(tmp_path):
    expected = frame()
    path = tmp_path / "t.csv"
    expected[["class", "g0", "g1", "g2"]].to_csv(path, index=False)
    table = read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)
    np.testing.assert_array_equal(table.X, expected[["g0", "g1", "g2"]].to_numpy())
    assert table.ids is None and list(table.labels) == list(expected["class"])
    with_ids = expected.copy()
    with_ids.insert(0, "sample", [f"s{i}" for i in range(len(expected))])
    with_ids.to_csv(path, index=False)
    table = read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)
    assert list(table.ids) == [f"s{i}" for i in range(6)]
    assert table.names == ["g0", "g1", "g2"]
    assert "the column 'sample' holds a distinct text per row" in table.notes[0]


def test_repeated_texts_in_the_first_column_are_a_text_feature(tmp_path):
    expected = frame()
    expected.insert(0, "site", ["x", "y", "x", "y", "x", "y"])
    path = tmp_path / "s.csv"
    expected.to_csv(path, index=False)
    table = read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)
    assert table.non_numeric == ["site"] and table.X is None


def test_an_empty_label_cell_is_missing(tmp_path):
    path = write(tmp_path / "e.csv", "a,b,class\n1,2,x\n3,4,\n5,6,NA\n")
    table = read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)
    assert list(table.labels) == ["x", None, "NA"]


def test_target_appearing_twice_or_nowhere(tmp_path):
    path = write(tmp_path / "d.csv", "a,class,class\n1,x,y\n2,x,y\n")
    with pytest.raises(DataError, match="the target column 'class' appears 2 times"):
        read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)
    path = write(tmp_path / "n.csv", "gene,s1,s2\nclass,a,b\ng1,1,2\n")
    with pytest.raises(DataError, match=r"'class' is a row of .* rerun with --transpose"):
        read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)
    path = write(tmp_path / "m.csv", "gene,s1,s2\ng0,a,b\ng1,1,2\n")
    with pytest.raises(
        DataError, match=r"columns are: gene, s1, s2 .*give their labels with --labels"
    ):
        read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)
    path = write(tmp_path / "o.csv", "x,y\n1,2\n")
    with pytest.raises(DataError, match=r"--labels\)$"):
        read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)


def test_features_in_rows(tmp_path):
    path = write(tmp_path / "t.csv", "gene,s1,s2,s3\nclass,a,,b\ng1,1,2,3\ng1,4,5,6\n")
    table = read_delimited(path, "class", compressed=False, transpose=True, budget=BIG)
    np.testing.assert_array_equal(table.X, [[1, 4], [2, 5], [3, 6]])
    assert table.names == ["g1", "g1.1"] and list(table.ids) == ["s1", "s2", "s3"]
    assert list(table.labels) == ["a", None, "b"] and table.in_rows
    assert table.notes[0].startswith("1 duplicated row names were renamed")
    assert table.notes[1] == "read transposed: 2 features in rows, 3 samples in columns"
    with pytest.raises(DataError, match="the row 'group' appears 0 times"):
        read_delimited(path, "group", compressed=False, transpose=True, budget=BIG)
    numbers = write(tmp_path / "n.csv", "gene,s1,s2\ng1,1,2\ng2,3,4\n")
    with pytest.raises(DataError, match=r"no row named 'group' .*; rows are: g1, g2 \(choose"):
        read_delimited(numbers, "group", compressed=False, transpose=True, budget=BIG)
    short = write(tmp_path / "s.csv", "gene,s1,s2\ngroup,a\ng1,1,2\n")
    with pytest.raises(DataError, match=r"^the row 'group' does not have the header's 3 cells$"):
        read_delimited(short, "group", compressed=False, transpose=True, budget=BIG)


def test_features_in_rows_through_pandas_when_a_cell_is_text(tmp_path):
    path = write(tmp_path / "t.csv", "gene,s1,s2\nclass,a,b\ng1,1,2\ng2,x,4\ng3,NA,5\n")
    table = read_delimited(path, "class", compressed=False, transpose=True, budget=BIG)
    assert table.non_numeric == ["g2"] and table.X is None
    assert table.example == "line 4: 'x' in row 'g2', column 's1' is not a number"
    path = write(tmp_path / "u.csv", 'gene;s1;s2\nclass;a;b\ng1;1,5;2\ng2;"3";NA\n')
    table = read_delimited(path, "class", compressed=False, transpose=True, budget=BIG)
    np.testing.assert_array_equal(table.X, [[1.5, 3.0], [2.0, np.nan]])
    path = write(tmp_path / "w.csv", "gene,s1,s2\nclass,a,b\ng1,1,x\nclass,a,b\n")
    with pytest.raises(DataError, match="the row 'class' appears 2 times"):
        read_delimited(path, "class", compressed=False, transpose=True, budget=BIG)


def test_samples_in_columns_without_labels_found_by_their_ids(tmp_path):
    path = write(tmp_path / "u.csv", "ID_REF,GSM1,GSM2\np1,1,2\np2,3,4\n")
    table = read_unlabelled(path, compressed=False, sample_ids=["gsm1"], budget=BIG)
    assert table.in_rows and list(table.ids) == ["GSM1", "GSM2"]
    assert table.notes[-1] == "samples in columns: 2 features in rows, 2 samples in columns"
    table = read_unlabelled(path, compressed=False, sample_ids=["p2", "p1"], budget=BIG)
    assert not table.in_rows and list(table.ids) == ["p1", "p2"]
    np.testing.assert_array_equal(table.X, [[1, 2], [3, 4]])
    bad = write(tmp_path / "b.csv", "id,a,b\ns1,1,x\n")
    with pytest.raises(DataError, match=r"line 2: 'x' in column 'b' is not a number"):
        read_unlabelled(bad, compressed=False, sample_ids=["s1"], budget=BIG)


def test_pandas_reads_a_misfit_and_keeps_na_labels(tmp_path):
    path = write(tmp_path / "p.csv", 'a,b,class\n1,"2\n",NA\n3,4,x\n5,x,\n')
    table = read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)
    assert list(table.labels)[:2] == ["NA", "x"]
    assert table.labels[2] is None or table.labels[2] != table.labels[2]
    assert table.non_numeric == ["b"]


def test_a_gzip_file_is_read_the_same(tmp_path):
    text = "a,b,class\n1,2,x\n3,4,y\n"
    path = tmp_path / "g.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    table = read_delimited(path, "class", compressed="gzip", transpose=False, budget=BIG)
    np.testing.assert_array_equal(table.X, [[1, 2], [3, 4]])


def test_the_target_named_as_a_row_is_found_quoted_or_not(tmp_path):
    for row in ('"X1"', "X1"):
        path = write(tmp_path / "r.csv", f"gene,s1,s2\ng0,1,2\n{row},a,b\n")
        with pytest.raises(DataError) as err:
            read_delimited(path, "X1", compressed=False, transpose=False, budget=BIG)
        assert str(err.value) == (
            f"'X1' is a row of {path}, not a column: the file has features in rows (e.g. genes "
            "x samples); rerun with --transpose"
        )


def test_the_message_for_a_target_found_nowhere(tmp_path):
    path = write(tmp_path / "m.csv", "gene,s1,s2\n10,1,2\n11,3,4\n")
    plain = (
        f"target column 'class' not found in {path}; columns are: gene, s1, s2 (choose one with "
        "--target, or give the labels in a file of their own with --labels)"
    )
    with pytest.raises(DataError) as err:
        read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)
    assert str(err.value) == plain
    text = write(tmp_path / "t.csv", "gene,s1,s2\np0,1,2\n")
    with pytest.raises(DataError) as err:
        read_delimited(text, "class", compressed=False, transpose=False, budget=BIG)
    assert str(err.value) == plain.replace(str(path), str(text)) + (
        "; if the samples are the columns (features in rows, as in a GEO series matrix), give "
        "their labels with --labels FILE (a sample id and its class per line), or add a row "
        "named 'class' and rerun with --transpose"
    )


def test_features_in_rows_through_pandas_keep_labels_as_written(tmp_path):
    # A text cell sends the file to pandas; labels stay the texts written ("0", not 0.0), an
    # empty label is missing, a "!" row after the table is not a feature.
    text = "!Series_title\tx\ngene\ts1\ts2\ts3\nclass\t0\t\t1\ng1\t1\tx\t3\ng2\t4\t5\t6\n!end\n"
    path = write(tmp_path / "p.txt", text)
    table = read_delimited(path, "class", compressed=False, transpose=True, budget=BIG)
    assert list(table.labels) == ["0", None, "1"]
    assert table.names == ["g1", "g2"] and table.non_numeric == ["g1"]
    assert table.notes[-1] == "read transposed: 2 features in rows, 3 samples in columns"
    comma = write(tmp_path / "c.txt", "gene;s1;s2\nclass;a;b\ng1;1,5;2\ng2;x;4\ng3;7;NA\n")
    table = read_delimited(comma, "class", compressed=False, transpose=True, budget=BIG)
    assert table.non_numeric == ["g2"]
    fine = write(tmp_path / "f.txt", 'gene;s1;s2\nclass;a;b\ng1;1,5;"2,5"\ng2;3;"4\n"\n')
    table = read_delimited(fine, "class", compressed=False, transpose=True, budget=BIG)
    np.testing.assert_array_equal(table.X, [[1.5, 3.0], [2.5, 4.0]])


def test_samples_in_columns_through_pandas_have_no_labels(tmp_path):
    path = write(tmp_path / "u.csv", "ID_REF,GSM1,GSM2\np1,1,x\np2,3,4\n")
    table = read_unlabelled(path, compressed=False, sample_ids=["GSM1"], budget=BIG)
    assert list(table.labels) == [None, None] and table.non_numeric == ["p1"]
    assert table.notes[-1] == "read transposed: 2 features in rows, 2 samples in columns"


def test_a_file_pandas_cannot_parse_either_is_one_line_with_the_fast_readers_reason(tmp_path):
    path = write(tmp_path / "w.csv", "gene,s1,s2\nclass,a,b\ng1,1,2,3,4\n")
    with pytest.raises(DataError) as err:
        read_delimited(path, "class", compressed=False, transpose=True, budget=BIG)
    assert str(err.value) == (
        f"cannot parse {path} as comma-separated text: line 3 does not have the header's 3 cells"
    )


# --- samples in rows through pandas -------------------------------------------------------


def read(path, budget=BIG):
    return read_delimited(path, "class", compressed=False, transpose=False, budget=budget)


def test_pandas_reads_the_missing_value_spellings_and_nothing_else(tmp_path):
    # "b" has a text cell: pandas reads the file. "?" and "NA" are missing; "<NA>" (missing
    # for pandas by default) is a text here.
    path = write(tmp_path / "p.csv", "a,b,c,class\n1,x,?,u\n2,3,NA,v\n")
    table = read(path)
    assert table.non_numeric == ["b"]
    path = write(tmp_path / "q.csv", "a,b,class\n1,<NA>,u\n2,3,v\n")
    assert read(path).non_numeric == ["b"]
    path = write(tmp_path / "r.csv", 'a,b,class\n"1\n",?,u\n2,NA,v\n')
    table = read(path)
    assert table.non_numeric == [] and np.isnan(table.X[:, 1]).all() and table.X[0, 0] == 1


def test_pandas_reads_a_compressed_file_the_same(tmp_path):
    text = "a,b,class\n1,x,u\n2,3,v\n"
    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    table = read_delimited(path, "class", compressed="gzip", transpose=False, budget=BIG)
    plain = read(write(tmp_path / "t.csv", text))
    assert table.non_numeric == plain.non_numeric == ["b"]
    assert list(table.labels) == list(plain.labels) == ["u", "v"]


def test_pandas_keeps_labels_as_written(tmp_path):
    path = write(tmp_path / "l.csv", "a,b,class\n1,x,01\n2,3,NA\n4,5,\n")
    assert list(read(path).labels[:2]) == ["01", "NA"]


def test_pandas_reads_decimal_commas_and_other_delimiters(tmp_path):
    path = write(tmp_path / "d.txt", 'a;b;class\n1,5;"2\n";u\n2,5;3;v\n')
    table = read(path)
    np.testing.assert_array_equal(table.X, [[1.5, 2.0], [2.5, 3.0]])
    assert list(table.labels) == ["u", "v"]


def test_pandas_leaves_out_the_lines_of_a_preamble_only(tmp_path):
    path = write(tmp_path / "p.csv", "!x\na,b,class\n1,x,u\n!end\n2,3,v\n")
    table = read(path)
    assert list(table.labels) == ["u", "v"] and table.non_numeric == ["b"]
    path = write(tmp_path / "n.csv", "a,b,class\n!1,2,u\n3,x,v\n")
    table = read(path)
    assert list(table.labels) == ["u", "v"]


def test_pandas_failing_too_is_one_line(tmp_path):
    path = write(tmp_path / "f.csv", "a,b,class\n1,2,x\n1,2,3,4\n")
    with pytest.raises(DataError) as err:
        read(path)
    assert str(err.value).startswith(
        f"cannot parse {path} as comma-separated text: Error tokenizing data"
    )


def test_a_file_too_large_for_pandas_gets_the_fast_readers_reason(tmp_path):
    # The fast reader needs 600 + 3 x 264 bytes, pandas 3 x 2368: a budget between the two.
    path = write(tmp_path / "b.csv", "a,b,class\n1,x,u\n2,3,v\n")
    with pytest.raises(DataError) as err:
        read(path, Budget(2000, "set by --max-memory", "raise it"))
    assert str(err.value) == (
        f"cannot read {path} as comma-separated text: line 2: 'x' in column 'b' is not a number"
    )


# --- headers longer than a read ----------------------------------------------------------

MIB = 1 << 20


@pytest.fixture(scope="module")
def long_header(tmp_path_factory):
    """A header of exactly 3 MiB before its line end (read in chunks of 1 MiB)."""
    path = tmp_path_factory.mktemp("long") / "h.csv"
    path.write_text("g" * (3 * MIB - 6) + ",class\n1,a\n")
    return path


@pytest.mark.parametrize(("limit_mib", "seen_mib"), [(24, 2), (48, 3)])
def test_a_header_is_refused_once_its_text_passes_a_24th_of_the_budget(
    long_header, limit_mib, seen_mib
):
    # The text may take limit / 24 (at least 1 MiB); past it, the names would need 24 x more.
    budget = Budget(limit_mib * MIB, "set by --max-memory", "raise it")
    with pytest.raises(DataError) as err:
        read_head(long_header, False, budget)
    assert str(err.value) == (
        f"{long_header} (a line of more than {seen_mib}.0 MB of text) would need about "
        f"{24 * seen_mib} MB of memory, more than the {limit_mib} MB set by --max-memory; raise it"
    )


def test_a_header_of_exactly_a_24th_of_the_budget_is_read(long_header):
    head = read_head(long_header, False, Budget(72 * MIB, "set by --max-memory", "raise it"))
    assert len(head.header[0]) == 3 * MIB - 6 and head.header[1] == "class"


def test_a_quote_left_open_in_the_header_is_refused_once_too_long(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('"a,class\n' + ("1," + "2" * (MIB // 16 - 3) + "\n") * 17)
    with pytest.raises(DataError) as err:
        read_head(path, False, Budget(MIB, "set by --max-memory", "raise it"))
    assert str(err.value).startswith(f"{path} (a header of more than 1.0 MB of text) would need")
    # Within the budget, the open quote makes one cell of the whole file: csv refuses it.
    with pytest.raises(DataError) as err:
        read_head(path, False, Budget(1 << 30, "set by --max-memory", "raise it"))
    assert str(err.value) == (
        f"cannot parse the header of {path} as comma-separated text: field larger than field "
        "limit (131072)"
    )


def test_an_open_quote_over_many_short_lines_is_read_in_linear_time(tmp_path):
    """The quote parity is kept as lines arrive: 300,000 short lines after an open quote are
    read once (counting quotes over the growing header took minutes)."""
    import time

    path = tmp_path / "q.csv"
    path.write_text('"a,b\n' + 'x"y"\n' * 300_000)
    start = time.process_time()
    with pytest.raises(DataError, match=r"^cannot parse the header of"):
        read_head(path, False, Budget(1 << 30, "set by --max-memory", "raise it"))
    assert time.process_time() - start < 30  # linear: about a second; quadratic: minutes
    # An even number of quotes per line keeps the quote open; a closing line ends the header.
    path.write_text('"a,b\n' + 'x""y\n' * 3 + 'c",class\n1,2,u\n')
    head = read_head(path, False, BIG)
    assert head.header == ['a,b\nx"y\nx"y\nx"y\nc', "class"] and head.skip == 5


def test_read_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.csv.gz"
    path.write_bytes(gzip.compress(b"a,b\n1,2\n")[:-12])
    with pytest.raises(DataError, match=r"^cannot read .*bad\.csv\.gz: "):
        read_head(path, "gzip", BIG)
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"a,b\n\x00\x01")
    with pytest.raises(DataError) as err:
        read_head(binary, False, BIG)
    assert str(err.value) == f"{binary} holds NUL bytes: it is not a text table (a binary file?)"


def test_notes_on_how_a_file_was_read(tmp_path):
    head = read_head(write(tmp_path / "s.txt", "!a\n!b\n\n!c\nx;y\n1;2\n"), False, BIG)
    assert head.notes == [
        "read as semicolon-separated text (the delimiter was detected from the first lines)",
        "skipped the 4 lines before the table (starting with '!': a GEO series matrix's "
        "description of the series and its samples)",
    ]
    assert head.kind == "semicolon-separated text"
    latin = tmp_path / "l.csv"
    latin.write_bytes("a,b\ncafé,1\n".encode("cp1252"))
    assert read_head(latin, False, BIG).notes == ["not UTF-8: read as Windows-1252 (Latin-1) text"]
    assert _detect_encoding("ab,c\n".encode("utf-16-le"))[1] == (
        "read as UTF-16 text without a byte-order mark"
    )
    quoted = read_head(write(tmp_path / "q.csv", 'a,b\n"x,1",2\n'), False, BIG)
    assert quoted.first_cell() == "x,1"


def test_pandas_keeps_numeric_labels_as_written(tmp_path):
    path = write(tmp_path / "l.csv", "a,b,class\n1,x,01\n2,3,02\n")
    assert list(read(path).labels) == ["01", "02"]


def test_pandas_locates_a_text_cell_among_decimal_commas(tmp_path):
    path = write(tmp_path / "d.txt", "a;b;class\n1,5;2,5;u\n2,5;x;v\n")
    assert read(path).example == "'x' in column 'b', data row 2"


def test_a_transposed_file_too_large_for_pandas_gets_the_fast_readers_reason(tmp_path):
    path = write(tmp_path / "t.csv", "gene,s1,s2\ng1,1,x\ng2,3,4\n")
    with pytest.raises(DataError) as err:
        read_unlabelled(
            path, compressed=False, sample_ids=["s1"], budget=Budget(2000, "set", "raise it")
        )
    assert str(err.value) == (
        f"cannot read {path} as comma-separated text: line 2: 'x' in row 'g1', column 's2' is "
        "not a number"
    )


def test_samples_in_columns_read_fast_have_no_labels(tmp_path):
    path = write(tmp_path / "u.csv", "ID_REF,GSM1,GSM2\np1,1,2\np2,3,4\n")
    table = read_unlabelled(path, compressed=False, sample_ids=["GSM2"], budget=BIG)
    assert list(table.labels) == [None, None] and table.X.shape == (2, 2)


def test_features_in_rows_through_pandas_rename_repeated_rows_and_name_the_samples(tmp_path):
    path = write(tmp_path / "r.csv", 'gene,s1,s2\nclass,a,b\ng1,"1\n",2\ng1,3,4\n')
    table = read_delimited(path, "class", compressed=False, transpose=True, budget=BIG)
    assert table.notes[0] == (
        "1 duplicated row names were renamed to tell them apart (e.g. 'g1' -> 'g1.1'); check "
        "that the file is right"
    )
    assert table.names == ["g1", "g1.1"] and list(table.ids) == ["s1", "s2"]
    assert table.ids.dtype == object and table.example == "" and table.in_rows is True
    np.testing.assert_array_equal(table.X, [[1, 3], [2, 4]])


def test_samples_in_rows_without_labels(tmp_path):
    path = write(tmp_path / "u.csv", "id,g,g\np1,1,2\np2,3,4\n")
    table = read_unlabelled(path, compressed=False, sample_ids=["p1"], budget=BIG)
    assert len(table.labels) == 0 and table.labels.dtype == object
    assert table.ids.dtype == object and list(table.ids) == ["p1", "p2"]
    assert table.names == ["g", "g.1"]
    assert table.notes == [
        "1 duplicated column names were renamed to tell them apart (e.g. 'g' -> 'g.1'); check "
        "that the file is right"
    ]


def test_row_names_read_fast_are_objects(tmp_path):
    path = write(tmp_path / "i.csv", "id,a,class\ns1,1,x\ns2,2,y\n")
    table = read_delimited(path, "class", compressed=False, transpose=False, budget=BIG)
    assert table.ids.dtype == object and list(table.ids) == ["s1", "s2"]


def test_features_in_rows_through_pandas_keep_numeric_labels_as_written(tmp_path):
    path = write(tmp_path / "n.csv", "gene,s1,s2\nclass,0,01\ng1,1,x\ng2,4,5\n")
    table = read_delimited(path, "class", compressed=False, transpose=True, budget=BIG)
    assert list(table.labels) == ["0", "01"] and table.non_numeric == ["g1"]


# --- comparisons at their thresholds (each test on the boundary of one) -----------------


def test_four_bytes_of_utf16_are_utf16():
    # Four bytes (two characters) are the fewest read as UTF-16 without a byte-order mark.
    note = "read as UTF-16 text without a byte-order mark"
    assert _detect_encoding("a\n".encode("utf-16-le")) == ("utf-16-le", note)
    assert _detect_encoding("a\n".encode("utf-16-be")) == ("utf-16-be", note)
    # Big-endian needs more than a quarter of the bytes zero too: 3 of 12 is a binary file.
    with pytest.raises(DataError, match=r"^holds NUL bytes: it is not a text table"):
        _detect_encoding(b"\x00a\x00b\x00cdefghi")
    assert _detect_encoding(b"\x00a\x00b\x00c\x00defg")[0] == "utf-16-be"


# --- sniff_delimiter ----------------------------------------------------------------------


def test_a_header_alone_decides_the_delimiter():
    # One complete line (no data rows): its width decides, whether or not it ends the text.
    assert sniff_delimiter("a;b\n", ".txt") == ";"
    assert sniff_delimiter("a;b", ".txt") == ";"
    assert sniff_delimiter("a;b;c", ".csv") == ";"


def test_an_incomplete_last_line_is_left_out_and_only_that_one():
    # "1;2" is cut (no line end): counting it would disqualify ";" (2 cells for 3).
    assert sniff_delimiter("a;b;c\n1;2", ".txt") == ";"
    # Two complete lines and a cut one: the second complete line still counts, and it
    # disqualifies ";" (its 2 cells for the header's 3), leaving "|".
    assert sniff_delimiter("a;b|c;d|e\n1;2|3;4|5\n6|7;8|9\n1;", ".txt") == "|"
    assert sniff_delimiter("a;b|c;d|e\n1;2|3;4|5\n1;", ".txt") == ";"


def test_a_tie_between_two_delimiters_keeps_the_first_candidate():
    # ";" and "|" both split every line in two: the first candidate (";") wins the tie.
    assert sniff_delimiter("a;b|c\n1;2|3\n", ".txt") == ";"
    # One more field for "|": the wider split wins.
    assert sniff_delimiter("a;b|c|d\n1;2|3|4\n", ".txt") == "|"


# --- lines and headers at their caps ------------------------------------------------------


class _Lines(io.StringIO):
    """Text whose end may be read a few times only: a reader that loops at the end fails."""

    def __init__(self, text):
        super().__init__(text, newline="")
        self.ends = 0

    def readline(self, size=-1):
        line = super().readline(size)
        self.ends += line == ""
        if self.ends > 3:
            raise AssertionError("read past the end of the file again and again")
        return line


def test_a_line_is_refused_only_beyond_a_mib_whatever_the_budget():
    # A budget of 2.4 MiB would allow lines of 0.1 MiB (its 24th), but every line up to the
    # 1 MiB floor is read whole: this one takes two reads of a MiB each.
    budget = Budget(_HEADER_SHARE * MIB // 10, "set by --max-memory", "raise it")
    line = "x" * (_CHUNK + 10) + "\n"
    assert _read_line(_Lines(line + "1\n"), budget, "f.csv") == line
    with pytest.raises(DataError, match=r"^f\.csv \(a line of more than"):
        _read_line(_Lines("x" * (2 * _CHUNK + 10) + "\n"), budget, "f.csv")


def test_a_quoted_header_of_exactly_its_share_is_read():
    # A header whose quoted name holds a line break, 1 MiB of text in all (the share's floor
    # under a 16 MiB budget): read; one character more is refused.
    budget = Budget(16 * MIB, "set by --max-memory", "raise it")
    first = 'a,"b\n'
    second = "c" * (MIB - len(first) - 4) + '",d\n'
    assert len(first) + len(second) == MIB
    assert _header_line(_Lines(first + second + "1,2,3\n"), budget, "f.csv") == (
        0,
        first + second,
        2,
    )
    with pytest.raises(DataError, match=r"^f\.csv \(a header of more than 1\.0 MB"):
        _header_line(_Lines(first + "c" + second + "1,2,3\n"), budget, "f.csv")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", (0, "", 1)),
        ("\n", (0, "\n", 1)),
        ("!meta\n!more\n", (2, "", 3)),
        ("!meta\n\n!more\n\n", (4, "", 5)),
        ("!meta\n\ngene,s1\n", (2, "gene,s1\n", 3)),
    ],
)
def test_the_header_search_stops_at_the_end_of_the_file(text, expected):
    assert _header_line(_Lines(text), BIG, "f.csv") == expected


def _head(path, skip=1):
    return TextHead(path, False, "utf-8", ",", ["a", "b"], [], 0, skip)


def test_a_last_line_of_exactly_the_cap_without_a_line_end_is_read(tmp_path):
    path = write(tmp_path / "c.csv", "a,b\n" + "1," + "2" * 8)  # the last line: 10 characters
    assert list(data_lines(_head(path), 10)) == [(2, "1," + "2" * 8)]
    path = write(tmp_path / "d.csv", "a,b\n" + "1," + "2" * 9)
    with pytest.raises(DataError) as err:
        list(data_lines(_head(path), 10))
    assert str(err.value) == (
        f"{path}: line 2 is longer than 10 bytes of text; a table's rows are shorter (is it a "
        "text table?)"
    )


# --- row names with the fast reader -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("id,a,b,class\ns1,1,2,x\ns2,3,4,y\n", "class"),
        ("id,class,a,b\ns1,x,1,2\ns2,y,3,4\n", "class"),
    ],
)
def test_row_names_are_read_by_the_fast_reader(tmp_path, target, text):
    # A budget pandas would exceed: the ids must be recognised without it.
    table = read_delimited(
        write(tmp_path / "r.csv", text), target, compressed=False, transpose=False, budget=SMALL
    )
    np.testing.assert_array_equal(table.X, [[1, 2], [3, 4]])
    assert list(table.ids) == ["s1", "s2"] and list(table.labels) == ["x", "y"]
    assert table.names == ["a", "b"]


def test_labels_first_are_not_row_names(tmp_path):
    path = write(tmp_path / "l.csv", "class,a,b\nx,1,2\nx,3,4\ny,5,6\n")
    table = read_delimited(path, "class", compressed=False, transpose=False, budget=SMALL)
    np.testing.assert_array_equal(table.X, [[1, 2], [3, 4], [5, 6]])
    assert list(table.labels) == ["x", "x", "y"] and table.ids is None


def test_a_label_row_with_a_long_label_is_split_as_written(tmp_path):
    # An unquoted label row is split at its delimiters, not parsed by csv (whose cells stop
    # at 128 KiB): a label of 140,000 characters is read whole.
    long = "b" * 140_000
    path = write(tmp_path / "t.csv", f"gene,s1,s2,s3\nclass,a,a,{long}\ng1,1,2,3\ng2,4,5,7\n")
    table = read_delimited(path, "class", compressed=False, transpose=True, budget=BIG)
    assert list(table.labels) == ["a", "a", long] and table.names == ["g1", "g2"]
    np.testing.assert_array_equal(table.X, [[1, 4], [2, 5], [3, 7]])


def test_line_ends_are_the_only_characters_stripped(tmp_path):
    # A last column named "X" and labels ending in "X": only "\r" and "\n" leave the line.
    path = write(tmp_path / "x.csv", "a,b,X\r\n1,2,uX\r\n3,4,vX\r\n")
    table = read_delimited(path, "X", compressed=False, transpose=False, budget=BIG)
    assert list(table.labels) == ["uX", "vX"] and table.names == ["a", "b"]
    np.testing.assert_array_equal(table.X, [[1, 2], [3, 4]])


# --- the head as written ------------------------------------------------------------------

TIGHT = Budget(1 << 20, "set by --max-memory", "raise it")
LONG = "0" * (5 << 19)  # 2.5 MiB: past the 1 MiB a line may take before the budget is asked


@pytest.mark.parametrize(
    "text",
    [LONG + ",b\n1,2\n", 'a,"b\n' + LONG + '",c\n1,2,3\n', "a,b\n1," + LONG + "\n"],
    ids=["header", "quoted header going on", "data line"],
)
def test_a_line_too_long_for_the_budget_names_the_file(tmp_path, text):
    with pytest.raises(DataError, match=r"long\.csv \(a line of more than 2\.0 MB of text\)"):
        read_head(write(tmp_path / "long.csv", text), False, TIGHT)


def test_head_lines_are_the_data_lines_as_written(tmp_path):
    # Only line ends are removed: a line of spaces, a cell "X", an empty last cell stay.
    text = "a\tb\nX\n  \ns\tX\ns\t\n1\t2\n"
    head = read_head(write(tmp_path / "w.tsv", text), False, BIG)
    assert head.lines == ["X", "  ", "s\tX", "s\t", "1\t2"]
    assert head.lines == [line for _, line in data_lines(head, 1 << 20)]


def test_the_first_name_loses_a_byte_order_mark_only(tmp_path):
    path = tmp_path / "n.csv"
    for first in (" g0", "Xg0", "g0\ufeff"):
        head = read_head(write(path, first + ",class\n1,a\n"), False, BIG)
        assert head.header == [first, "class"]
    path.write_bytes(codecs.BOM_UTF8 * 2 + b"g0,class\n1,a\n")  # the mark written twice
    assert read_head(path, False, BIG).header == ["g0", "class"]


def test_a_compressed_file_is_decoded_with_the_detected_encoding(tmp_path):
    path = tmp_path / "u.txt.gz"
    path.write_bytes(gzip.compress(codecs.BOM_UTF16_LE + "g0\tclass\n1\ta\n".encode("utf-16-le")))
    head = read_head(path, "gzip", BIG)
    assert head.encoding == "utf-16" and head.header == ["g0", "class"]
    assert list(data_lines(head, 1 << 20)) == [(2, "1\ta")]


def test_the_data_lines_are_decoded_with_the_detected_encoding(tmp_path):
    head = read_head(write(tmp_path / "c.txt", "id,x\ns\u00e9,1\n", "cp1252"), False, BIG)
    assert head.encoding == "cp1252"
    assert list(data_lines(head, 1 << 20)) == [(2, "s\u00e9,1")]


@pytest.mark.parametrize("compressed", [False, "gzip"])
def test_line_ends_inside_a_quoted_name_are_kept_as_written(tmp_path, compressed):
    data = b'"a\r\nb",c\r\n1,2\r\n'
    path = tmp_path / "r.csv"
    path.write_bytes(gzip.compress(data) if compressed else data)
    head = read_head(path, compressed, BIG)
    assert head.header == ["a\r\nb", "c"] and head.skip == 2
    assert list(data_lines(head, 1 << 20)) == [(3, "1,2")]


def _bad_byte_at(where):
    """A header whose byte ``where`` is not UTF-8 (the rest ASCII), then one data row."""
    return b"a," + b"x" * (where - 2) + b"\xffy,b\n1,2,3\n"


@pytest.mark.parametrize("compressed", [False, "gzip"])
def test_the_encoding_is_decided_by_the_first_4096_bytes(tmp_path, compressed):
    path = tmp_path / "f.csv"
    for where, ok in ((4092, True), (4093, False)):
        data = _bad_byte_at(where)
        path.write_bytes(gzip.compress(data) if compressed else data)
        if ok:  # a bad byte before the sample's last three: Windows-1252
            assert read_head(path, compressed, BIG).encoding == "cp1252"
            continue
        # within the last three it may be a character cut by the sample: UTF-8, which fails
        with pytest.raises(DataError, match=r"cannot read .*f\.csv: 'utf-8' codec can't decode"):
            read_head(path, compressed, BIG)


def test_a_quoted_first_cell_holding_the_delimiter_does_not_hide_it(tmp_path):
    text = 'id;g\n"a;b";1\n"c;d";2\n'
    assert sniff_delimiter(text, ".txt") == ";"
    head = read_head(write(tmp_path / "q.txt", text), False, BIG)
    assert head.delim == ";" and head.header == ["id", "g"] and head.first_cell() == "a;b"


def test_a_header_ending_in_an_empty_name_keeps_it(tmp_path):
    head = read_head(write(tmp_path / "t.txt", "id\tx\t\ns1\t1\t2\n"), False, BIG)
    assert head.delim == "\t" and head.header == ["id", "x", ""]


def test_the_delimiter_is_sniffed_from_the_header_and_six_data_lines(tmp_path):
    path = tmp_path / "w.txt"
    for ragged, delim in ((6, ","), (7, ";")):  # the ragged line inside the window or past it
        lines = ["1;2"] * 7
        lines[ragged - 1] = "1;2;3"
        assert read_head(write(path, "a;b\n" + "\n".join(lines) + "\n"), False, BIG).delim == delim


def test_a_one_name_header_is_one_column_whatever_the_rows(tmp_path):
    head = read_head(write(tmp_path / "x.txt", "X\n1;2\n3;4\n"), False, BIG)
    assert head.delim == "," and head.header == ["X"]


def test_a_gzip_file_cut_after_its_head_fails_the_line_count_with_the_reason(tmp_path):
    text = "a,b\n" + "".join(f"{i},{i * 7919 % 10007}\n" for i in range(20000))
    data = gzip.compress(text.encode())
    path = tmp_path / "cut.csv.gz"
    path.write_bytes(data[: len(data) // 2])
    head = read_head(path, "gzip", BIG)  # the first lines decompress
    with pytest.raises(DataError, match=r"cannot read .*cut\.csv\.gz: Compressed file ended"):
        count_lines(head, 1, BIG)


def test_the_fast_reader_needs_the_names_then_each_line_within_the_budget(tmp_path):
    path = write(tmp_path / "n.csv", "a,b,class\n1,2,x\n3,4,y\n")
    names, lines = numbers_need(0, 3), 3 * row_need(2)  # 3 line ends, 2 numbers a line

    def budget(limit):
        return Budget(limit, "set by --max-memory", "raise it")

    with pytest.raises(DataError, match=r"n\.csv \(3 columns\) would need about"):
        read(path, budget(names - 1))
    with pytest.raises(DataError, match=r"n\.csv \(3 columns, at least 3 lines\) would need"):
        read(path, budget(names + lines - 1))
    np.testing.assert_array_equal(read(path, budget(names + lines)).X, [[1, 2], [3, 4]])
