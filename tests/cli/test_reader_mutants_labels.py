"""Labels files and GEO series matrices at their limits: messages in full, the line length
and memory limits on both sides, cells at the end of a line, the count of keys listed."""

import pytest

from widefs.cli.io._data import load_cli_data
from widefs.cli.io._labels import read_labels
from widefs.cli.io._memory import Budget
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
