"""The delimited-number reader at its boundaries: blocks parsed by pyarrow, float32 while
every number is one exactly, the first misfit in file order whatever the block, and the
cell counts of a line. The expected numbers are parsed independently with Python's float."""

import numpy as np
import pytest

import widefs.cli.io._numeric as numeric
from widefs.cli.io._delimited import read_delimited, read_unlabelled
from widefs.cli.io._memory import Budget
from widefs.cli.io._numeric import Layout, Misfit, _count, _parse_block, read_rows
from widefs.cli.io._text import _KEPT, read_head
from widefs.exceptions import DataError

BIG = Budget(1 << 40, "set by --max-memory", "raise it")


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def rows_of(tmp_path, text, label=None, first_is_id=False, n_rows=50, **layout):
    head = read_head(write(tmp_path / "r.csv", text), False, BIG)
    if label == "last":
        label = len(head.header) - 1
    return read_rows(head, Layout(head.header, label, first_is_id, **layout), n_rows, 1 << 20)


def floats(lines, delim=","):
    """The matrix by Python's float, "NA" and "" as NaN: an independent parse."""
    out = [
        [float("nan") if c in ("", "NA") else float(c) for c in line.split(delim)] for line in lines
    ]
    return np.array(out, dtype=np.float64)


@pytest.fixture(params=[1, 2, 3, 5, 1 << 20], ids=lambda b: f"block{b}")
def block(request, monkeypatch):
    """Blocks of every size: one cell (a block per line), lines split across blocks, one."""
    monkeypatch.setattr(numeric, "_BLOCK_CELLS", request.param)
    return request.param


# --- cell counts ------------------------------------------------------------------------


def test_the_cells_of_a_lines_numbers():
    assert _count("", ",", 0) == 0
    assert _count("", ",", 1) == 1  # one empty cell: a missing number
    assert _count("", ",", 2) == 0
    assert _count("1", ",", 0) == 1
    assert _count("1,2", ",", 2) == 2 and _count("1,,", ",", 3) == 3
    assert _count("1;2", ",", 1) == 1 and _count("1;2", ";", 1) == 2


# --- one block --------------------------------------------------------------------------


def test_a_block_is_every_lines_numbers_in_order():
    np.testing.assert_array_equal(_parse_block(["1,2", "3,4"], ",", 2), [[1, 2], [3, 4]])
    got = _parse_block(["1.5\t-2e3\tNA", "\t?\t7"], "\t", 3)
    np.testing.assert_array_equal(got, floats(["1.5\t-2e3\tNA", "\tNA\t7"], "\t"))
    assert got.shape == (2, 3) and got.dtype == np.float64


def test_a_block_with_a_text_cell_or_a_line_break_inside_is_refused():
    assert _parse_block(["1,x"], ",", 2) is None
    assert _parse_block(["1,2", "3,<NA>"], ",", 2) is None  # pandas' spelling is a text here
    assert _parse_block(["1\r2,3"], ",", 2) is None  # three cells where two are due
    assert _parse_block(["1"], ",", 0) is None  # no numbers: the exact reader decides


def test_an_empty_cell_is_a_missing_number_even_as_the_last_or_only_cell():
    got = _parse_block(["", "2", ""], ",", 1)
    np.testing.assert_array_equal(got, [[np.nan], [2.0], [np.nan]])
    np.testing.assert_array_equal(_parse_block(["1,"], ",", 2), [[1.0, np.nan]])


# --- float32 while exact ----------------------------------------------------------------


def test_whole_numbers_and_missing_ones_stay_float32(tmp_path, block):
    lines = ["0,1,NA", "2,,16777216", "-3,4,5"]
    rows = rows_of(tmp_path, "a,b,c\n" + "\n".join(lines) + "\n")
    assert rows.X.dtype == np.float32
    np.testing.assert_array_equal(rows.X, floats(lines))


@pytest.mark.parametrize("cell", ["16777217", "0.1", "1e39", "-3.4e39", "1e-46"])
def test_the_first_number_a_float32_does_not_hold_widens_the_matrix(tmp_path, block, cell):
    # 2**24 + 1 is the first whole number float32 rounds; 1e39 overflows it; 1e-46 underflows.
    lines = ["1,2", "3,4", f"5,{cell}", "7,8"]
    rows = rows_of(tmp_path, "a,b\n" + "\n".join(lines) + "\n")
    assert rows.X.dtype == np.float64 and rows.X.shape == (4, 2)
    np.testing.assert_array_equal(rows.X, floats(lines))  # the rows before it kept exactly


def test_a_matrix_read_whole_is_the_same_in_blocks_of_any_size(tmp_path, block):
    rng = np.random.default_rng(0)
    values = rng.integers(-50, 50, size=(7, 4)).astype(str)
    values[2, 1], values[5, 3] = "NA", ""
    lines = [",".join(r) + f",c{i % 2}" for i, r in enumerate(values)]
    rows = rows_of(tmp_path, "a,b,c,d,class\n" + "\n".join(lines) + "\n", label="last")
    np.testing.assert_array_equal(rows.X, floats([line.rsplit(",", 1)[0] for line in lines]))
    assert rows.labels == [f"c{i % 2}" for i in range(7)]


def test_a_row_without_an_id_keeps_no_text_of_its_line(tmp_path):
    rows = rows_of(tmp_path, "a,b,class\n1,2,x\n3,4,y\n", label="last")
    assert rows.ids == ["", ""]
    rows = rows_of(tmp_path, 'a,b,class\n"1",2,x\n3,4,y\n', label="last")
    assert rows.ids == ["", ""] and rows.X.tolist() == [[1, 2], [3, 4]]
    rows = rows_of(tmp_path, "id,a,class\ns1,1,x\ns2,2,y\n", label="last", first_is_id=True)
    assert rows.ids == ["s1", "s2"]


# --- the first misfit, whatever the block -----------------------------------------------


def test_a_text_cell_before_a_short_line_is_the_misfit(tmp_path, block):
    got = rows_of(tmp_path, "a,b\n1,2\n3,x\n5\n7,8\n")
    assert got == Misfit(3, "line 3: 'x' in column 'b' is not a number")


def test_a_short_line_before_a_text_cell_is_the_misfit(tmp_path, block):
    got = rows_of(tmp_path, "a,b\n1,2\n3\n5,x\n7,8\n")
    assert got == Misfit(3, "line 3 does not have the header's 2 cells")
    got = rows_of(tmp_path, "a,b\n1,2\n3,4,5\n5,x\n")
    assert got == Misfit(3, "line 3 does not have the header's 2 cells")


def test_a_text_cell_before_more_lines_than_counted_is_the_misfit(tmp_path, block):
    got = rows_of(tmp_path, "a,b\n1,x\n3,4\n5,6\n", n_rows=2)
    assert got == Misfit(2, "line 2: 'x' in column 'b' is not a number")
    got = rows_of(tmp_path, "a,b\n1,2\n3,4\n5,6\n", n_rows=2)
    assert got == Misfit(4, "more lines than counted (the file changed while read?)")
    rows = rows_of(tmp_path, "a,b\n1,2\n3,4\n", n_rows=2)
    assert rows.X.shape == (2, 2)


def test_a_text_cell_before_a_repeated_label_row_is_the_misfit(tmp_path, block):
    text = "gene,s1,s2\nclass,a,b\ng1,1,x\nclass,a,b\n"
    got = rows_of(tmp_path, text, first_is_id=True, label_row="class")
    assert got == Misfit(3, "line 3: 'x' in row 'g1', column 's2' is not a number")


def test_a_misfit_in_a_later_block_names_its_own_row(tmp_path, block):
    text = "gene,s1,s2\ng1,1,2\ng2,3,4\ng3,5,x\n"
    got = rows_of(tmp_path, text, first_is_id=True, in_rows=True)
    assert got == Misfit(4, "line 4: 'x' in row 'g3', column 's2' is not a number")
    got = rows_of(tmp_path, text, first_is_id=True)  # samples in rows: the column alone
    assert got == Misfit(4, "line 4: 'x' in column 's2' is not a number")


def test_spaces_around_numbers_and_missing_spellings_are_read(tmp_path, block):
    rows = rows_of(tmp_path, "a,b,c\n 1 , NA ,2\n3,?, 4\n")
    np.testing.assert_array_equal(rows.X, [[1, np.nan, 2], [3, np.nan, 4]])


# --- the layouts ------------------------------------------------------------------------


def test_samples_in_columns_with_a_text_cell_name_the_row_and_the_sample(tmp_path):
    """A file with its features in rows and its labels in a file of their own names a bad
    cell by its feature row and sample column, as --transpose does."""
    path = write(tmp_path / "t.csv", "gene,s1,s2\ng1,1,2\ng2,3,x\n")
    small = Budget(2000, "set by --max-memory", "raise it")  # too small for pandas
    with pytest.raises(DataError) as err:
        read_unlabelled(path, compressed=False, sample_ids=["s1"], budget=small)
    assert str(err.value).endswith("line 3: 'x' in row 'g2', column 's2' is not a number")


def test_a_transposed_genotype_table_is_float32_samples_by_features(tmp_path, block):
    path = write(tmp_path / "g.csv", "snp,s1,s2,s3\nclass,a,b,a\nr1,0,1,2\nr2,2,,0\n")
    table = read_delimited(path, "class", compressed=False, transpose=True, budget=BIG)
    assert table.X.dtype == np.float32 and table.X.shape == (3, 2)
    np.testing.assert_array_equal(table.X, [[0, 2], [1, np.nan], [2, 0]])
    assert list(table.labels) == ["a", "b", "a"] and table.names == ["r1", "r2"]


def test_head_lines_are_kept_cut_once_sniffed(tmp_path):
    long = ",".join(["1"] * (_KEPT // 2 + 10))
    exact = "2" * (_KEPT - 2) + ",3"
    path = write(tmp_path / "h.csv", "a" + ",b" * (_KEPT // 2 + 9) + f"\n{long}\n{exact}\n")
    head = read_head(path, False, BIG)
    assert head.lines[0] == long[:_KEPT] and head.lines[1] == exact
    assert head.first_cell() == "1" and head.delim == ","


def test_plain_numbers_never_reach_the_exact_reader(tmp_path, block, monkeypatch):
    """pyarrow parses every block of numbers, missing spellings and spaces included: the
    line-by-line reader is only for a block that holds a text cell."""

    def refuse(*args):
        raise AssertionError("a plain block reached the line-by-line reader")

    monkeypatch.setattr(numeric, "_numbers", refuse)
    spellings = numeric.FEATURE_NA_VALUES
    lines = [",".join(["1", s, " -2.5e1 ", "+3"]) for s in spellings] + [",,,", "4,5,6,7"]
    rows = rows_of(tmp_path, "a,b,c,d\n" + "\n".join(lines) + "\n")
    expected = np.array([[1, np.nan, -25, 3]] * len(spellings) + [[np.nan] * 4, [4, 5, 6, 7]])
    np.testing.assert_array_equal(rows.X, expected)
    assert rows.X.dtype == np.float32
    one = rows_of(tmp_path, "a,class\n,x\n2,y\n\n3,z\n", label="last")
    np.testing.assert_array_equal(one.X, [[np.nan], [2], [3]])
    with pytest.raises(AssertionError, match="line-by-line"):
        rows_of(tmp_path, "a,b\n1,x\n")


# --- lines split into id, label and numbers ------------------------------------------------


def test_a_line_of_only_the_head_cells_is_short_not_a_missing_number(tmp_path):
    got = rows_of(tmp_path, "id,a,class\ns1,1,x\ns2,y\n", label="last", first_is_id=True)
    assert got == Misfit(3, "line 3 does not have the header's 3 cells")
    got = rows_of(tmp_path, "class,a\nx,1\ny\n", label=0)
    assert got == Misfit(3, "line 3 does not have the header's 2 cells")
    rows = rows_of(tmp_path, "id,a,class\ns1,,x\ns2,2,y\n", label="last", first_is_id=True)
    np.testing.assert_array_equal(rows.X, [[np.nan], [2]])
    rows = rows_of(tmp_path, "class,a\nx,\ny,2\n", label=0)
    np.testing.assert_array_equal(rows.X, [[np.nan], [2]])
    rows = rows_of(tmp_path, "id,class\ns1,x\ns2,y\n", label="last", first_is_id=True)
    assert rows.X.shape == (2, 0) and rows.ids == ["s1", "s2"] and rows.labels == ["x", "y"]


def test_a_line_shorter_than_its_head_cells_is_a_misfit(tmp_path):
    got = rows_of(tmp_path, "id,class,a,b\ns1,x,1,2\ns2\n", label=1, first_is_id=True)
    assert got == Misfit(3, "line 3 does not have the header's 4 cells")
    got = rows_of(tmp_path, "a,class\n1,x\n5\n", label="last")  # no delimiter before a label
    assert got == Misfit(3, "line 3 does not have the header's 2 cells")


def test_decimal_commas_and_quotes_in_a_semicolon_file(tmp_path):
    head = read_head(write(tmp_path / "d.txt", 'a;b;class\n1,5;-2,25;x\n"3,5";4;y\n'), False, BIG)
    assert head.decimal_comma and head.delim == ";"
    rows = read_rows(head, Layout(head.header, 2, False), 5, 1 << 20)
    np.testing.assert_array_equal(rows.X, [[1.5, -2.25], [3.5, 4.0]])
    assert rows.X.dtype == np.float32 and rows.labels == ["x", "y"]  # binary fractions: exact


def test_the_exact_reader_of_one_number():
    np.testing.assert_array_equal(numeric._numbers("5", ",", 1), [5.0])
    np.testing.assert_array_equal(numeric._numbers(" NA ", ",", 1), [np.nan])
    assert numeric._numbers("5,6", ",", 1) == -1


@pytest.mark.parametrize(
    ("cells", "size", "lines", "blocks"),
    [(1, 3, 7, [3, 3, 1]), (2, 4, 5, [2, 2, 1]), (2, 5, 5, [3, 2]), (1, 1, 3, [1, 1, 1])],
)
def test_a_block_is_flushed_once_it_holds_block_cells_numbers(
    tmp_path, monkeypatch, cells, size, lines, blocks
):
    monkeypatch.setattr(numeric, "_BLOCK_CELLS", size)
    seen, parse = [], numeric._parse_block

    def spy(texts, delim, n):
        seen.append(len(texts))
        return parse(texts, delim, n)

    monkeypatch.setattr(numeric, "_parse_block", spy)
    header = ",".join(f"g{j}" for j in range(cells))
    body = "".join(",".join([str(i)] * cells) + "\n" for i in range(lines))
    rows = rows_of(tmp_path, f"{header}\n{body}")
    assert seen == blocks
    np.testing.assert_array_equal(rows.X, np.repeat(np.arange(lines), cells).reshape(-1, cells))
