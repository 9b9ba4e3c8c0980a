"""The readers' checks at their exact limits: each threshold on both sides and at it.

Class counts (two classes of two, 20 classes, ``MAX_CLASSES``), the numeric-target rule
(``MAX_NUMERIC_CLASSES`` distinct values, a third of the samples), the magnitude limit, the
row-index rules (three rows, starts at 0 or 1, steps of 1), constant columns, the
"rerun with --transpose" hint (5 x columns and 200 rows), the memory budget (``need`` equal
to the limit), sizes and byte counts at their unit boundaries.
"""

import numpy as np
import pytest

from widefs.cli.io._checks import (
    MAX_ABS_VALUE,
    MAX_CLASSES,
    MAX_NUMERIC_CLASSES,
    check_classes,
    check_labels,
    check_values,
    looks_like_index,
)
from widefs.cli.io._memory import (
    MEMORY_FACTOR,
    NAME_BYTES,
    Budget,
    check_fits,
    format_bytes,
    numbers_need,
    parse_size,
    row_need,
)
from widefs.cli.io._tables import RawTable
from widefs.exceptions import DataError


def labels(*counts):
    """Labels of ``len(counts)`` classes, class ``c{i}`` repeated ``counts[i]`` times."""
    return np.array([f"c{i}" for i, k in enumerate(counts) for _ in range(k)], dtype=object)


def table(X, y=None, names=None):
    X = np.asarray(X, dtype=float)
    names = [f"g{j}" for j in range(X.shape[1])] if names is None else names
    y = (
        np.array(["a", "b"] * (X.shape[0] // 2) + ["a"] * (X.shape[0] % 2), object)
        if y is None
        else y
    )
    return RawTable(list(names), X, np.asarray(y, dtype=object))


# --- classes ------------------------------------------------------------------------------


def test_two_classes_of_two_examples_is_the_smallest_accepted():
    check_classes(labels(2, 2), "class")
    with pytest.raises(DataError, match=r"at least 2 examples; too few in: 'c1' \(1\)"):
        check_classes(labels(2, 1), "class")
    with pytest.raises(DataError, match=r"a single class \('c0'\); need at least 2"):
        check_classes(labels(4), "class")


def test_more_than_20_classes_need_three_samples_each_on_average():
    # 21 classes: 63 samples (3 per class) pass, 62 are refused; 20 classes need only 2 each.
    check_classes(labels(*[3] * 21), "class")
    with pytest.raises(DataError) as err:
        check_classes(labels(*[3] * 20, 2), "class")
    assert str(err.value) == (
        "target column 'class' has 21 classes for 62 samples (3.0 per class): too many classes "
        "for a meaningful analysis (at most 1000, and on average at least 3 samples per class "
        "beyond 20 classes); check that it is the class column, or group the classes"
    )
    check_classes(labels(*[2] * 20), "class")


def test_at_most_max_classes():
    check_classes(labels(*[3] * MAX_CLASSES), "class")
    with pytest.raises(DataError, match=f"{MAX_CLASSES + 1} classes"):
        check_classes(labels(*[4] * (MAX_CLASSES + 1)), "class")


def numeric_labels(values):
    return RawTable(["g"], np.zeros((len(values), 1)), np.array(values, dtype=object))


def test_a_numeric_target_of_max_classes_distinct_values_runs_as_classes():
    # 10 distinct fractions (each twice): classes, with the note; 11 fractions: a measurement.
    values = [f"{v / 10:.1f}" for v in range(MAX_NUMERIC_CLASSES)] * 2
    notes = []
    y = check_labels(numeric_labels(values), "class", "f.csv", notes)
    assert len(y) == 2 * MAX_NUMERIC_CLASSES
    assert any(f"({MAX_NUMERIC_CLASSES} classes)" in n for n in notes)
    values = [f"{v / 10:.1f}" for v in range(MAX_NUMERIC_CLASSES + 1)] * 2
    with pytest.raises(DataError, match=r"holds 11 distinct numbers \(from 0 to 1\)"):
        check_labels(numeric_labels(values), "class", "f.csv", [])


def test_a_numeric_target_of_whole_numbers_is_a_measurement_beyond_a_third_of_the_samples():
    # 11 distinct integers: classes when 3 x 11 >= samples, a measurement when fewer samples.
    whole = [str(v) for v in range(MAX_NUMERIC_CLASSES + 1)]
    check_labels(numeric_labels(whole * 3), "class", "f.csv", [])  # 33 samples: 11 = 33 / 3
    with pytest.raises(DataError, match="a measurement rather than classes"):
        check_labels(numeric_labels(whole * 2 + whole[:10]), "class", "f.csv", [])  # 32 samples


def test_numbers_with_a_missing_like_label_are_not_a_numeric_target():
    # "nan" is a class name here: the labels are not all finite numbers, so no numeric rule.
    notes = []
    values = [str(v) for v in range(12)] * 2 + ["nan", "nan"]
    y = check_labels(numeric_labels(values), "class", "f.csv", notes)
    assert "nan" in set(y)
    assert not any("holds numbers" in n for n in notes)
    assert any("the label 'nan' (2 examples) is kept as a class" in n for n in notes)


def test_label_checks_name_the_problem():
    notes = []
    y = check_labels(numeric_labels([" a", "a", "b ", "b"]), "class", "f.csv", notes)
    assert list(y) == ["a", "a", "b", "b"]
    assert notes[0].startswith("2 labels had spaces")
    assert "' a' is read as 'a'" in notes[0]
    with pytest.raises(DataError, match=r"1 empty labels \(data rows 3\)"):
        check_labels(numeric_labels(["a", "a", "  ", "b", "b"]), "class", "f.csv", [])
    with pytest.raises(DataError, match=r"1 empty labels \(data rows 2\)"):
        check_labels(numeric_labels(["a", None, "b", "b", "a"]), "class", "f.csv", [])
    with pytest.raises(DataError, match="has a header but no data rows"):
        check_labels(numeric_labels([]), "class", "f.csv", [])
    no_features = RawTable([], np.zeros((4, 0)), np.array(["a", "a", "b", "b"], object))
    with pytest.raises(DataError, match="no feature columns besides 'class'"):
        check_labels(no_features, "class", "f.csv", [])


# --- values -------------------------------------------------------------------------------


def test_the_largest_magnitude_allowed_is_max_abs_value():
    X = np.array([[MAX_ABS_VALUE, 1.0], [-MAX_ABS_VALUE, 2.0], [0.0, 3.0], [1.0, 4.0]])
    out, _, _ = check_values(table(X), False, False, [])
    np.testing.assert_array_equal(out, X)
    for big in (np.nextafter(MAX_ABS_VALUE, np.inf), -np.nextafter(MAX_ABS_VALUE, np.inf)):
        X[1, 1] = big
        with pytest.raises(DataError, match=r"values up to 1e\+150 in columns: g1;"):
            check_values(table(X), False, False, [])


def test_one_varying_column_is_enough():
    X = np.array([[1.0, 5.0], [1.0, 5.0], [1.0, 5.0], [1.0, 5.5]])
    notes = []
    check_values(table(X), False, False, notes)
    assert notes == [
        "1 of the 2 feature columns are constant (the same value in every row): they cannot "
        "tell the classes apart, and the chance analysis does not count them among the "
        "features scored"
    ]
    X[3, 1] = 5.0
    with pytest.raises(DataError) as err:
        check_values(table(X), False, False, [])
    assert str(err.value) == (
        "all 2 feature columns are constant (every row has the same values): no feature can "
        "tell the classes apart"
    )


def hint(n, p, transpose=False):
    rng = np.random.default_rng(0)
    notes = []
    check_values(table(rng.normal(size=(n, p))), False, transpose, notes)
    return any("rerun with --transpose" in note for note in notes)


def test_the_transpose_hint_starts_above_200_rows_and_5_rows_per_column():
    assert hint(201, 40)  # 201 > 5 x 40 and > 200
    assert not hint(200, 39)  # 200 rows: not more than 200
    assert not hint(205, 41)  # 205 = 5 x 41
    assert hint(206, 41)
    assert not hint(206, 41, transpose=True)


def test_missing_values_are_counted_located_and_imputed_by_the_median():
    X = np.array([[1.0, np.nan], [2.0, 4.0], [np.inf, 6.0], [4.0, 10.0], [-np.inf, 7.0]])
    with pytest.raises(
        DataError,
        match=r"^1 missing value and 2 infinite values in 2 columns: g0, g1 \(the first in "
        r"data row 1, column 'g1'\); rerun with --impute",
    ):
        check_values(table(X.copy()), False, False, [])
    notes = []
    out, _, imputed = check_values(table(X.copy()), True, False, notes)
    assert imputed == ["g0", "g1"]
    np.testing.assert_array_equal(out[:, 0], [1.0, 2.0, 2.0, 4.0, 2.0])  # median of 1, 2, 4
    np.testing.assert_array_equal(out[:, 1], [6.5, 4.0, 6.0, 10.0, 7.0])  # median of 4, 6, 10, 7
    assert notes[0].startswith("1 missing value and 2 infinite values in 2 columns replaced")
    one = np.array([[1.0, 2.0], [np.nan, 3.0], [3.0, 1.0], [4.0, 0.0]])
    with pytest.raises(
        DataError, match=r"^1 missing value in 1 column: g0 \(the first in data row 2"
    ):
        check_values(table(one), False, False, [])


def test_a_column_with_no_finite_value_cannot_be_imputed():
    X = np.array([[np.nan, 1.0], [np.nan, 2.0], [np.nan, 3.0], [np.nan, 4.0]])
    with pytest.raises(DataError, match=r"no finite value cannot be imputed: g0$"):
        check_values(table(X), True, False, [])


def test_a_missing_cell_of_a_file_with_features_in_rows_is_located_as_the_file_has_it():
    X = np.array([[1.0, 2.0], [3.0, np.nan], [5.0, 6.0], [7.0, 8.0]])
    t = table(X, names=["geneA", "geneB"])
    t.in_rows, t.ids = True, np.array(["s1", "s2", "s3", "s4"], object)
    with pytest.raises(
        DataError, match=r"in 1 row: geneB \(the first in row 'geneB', column 's2'\)"
    ):
        check_values(t, False, False, [])


def test_non_numeric_columns_or_rows_are_named_with_an_example():
    t = table(np.zeros((4, 1)))
    t.non_numeric, t.example = ["g9"], "'x' in column 'g9', data row 2"
    with pytest.raises(DataError, match=r"non-numeric feature columns: g9; e\.g\. 'x' in column"):
        check_values(t, False, False, [])
    t.in_rows, t.example = True, ""
    with pytest.raises(DataError, match=r"non-numeric feature rows: g9\. widefs reads numbers"):
        check_values(t, False, False, [])


# --- row-index columns --------------------------------------------------------------------


def index_table(first, other=None, name="id", n=None):
    n = len(first) if n is None else n
    rng = np.random.default_rng(1)
    cols = [np.asarray(first, float), rng.normal(size=n)]
    if other is not None:
        cols.append(np.asarray(other, float))
    X = np.column_stack(cols)
    names = [name, "g1"] + (["row"] if other is not None else [])
    return table(X, names=names)


@pytest.mark.parametrize("start", [0, 1])
def test_an_index_column_starts_at_0_or_1_and_steps_by_1(start):
    t = index_table(np.arange(start, start + 4))
    notes = []
    _, names, _ = check_values(t, False, False, notes)
    assert list(names) == ["g1"]
    assert notes == [
        f"the column 'id' numbers the rows ({start}, {start + 1}, ...) under a row index's name: "
        "a row index, not a measurement, left out of the analysis"
    ]


@pytest.mark.parametrize(
    "values",
    [[2, 3, 4, 5], [-1, 0, 1, 2], [0, 2, 3, 4], [1, 2, 3, 5], [0, 1, 2, 2], [1, 2, 4, 3]],
)
def test_other_sequences_under_an_index_name_stay_features(values):
    _, names, _ = check_values(index_table(values), False, False, [])
    assert list(names) == ["id", "g1"]


def test_an_index_needs_three_rows():
    _, names, _ = check_values(index_table([0, 1, 2], n=3), False, False, [])
    assert list(names) == ["g1"]
    t = table(
        np.array([[0.0, 1.0], [1.0, 2.0]]), y=np.array(["a", "b"], object), names=["id", "g1"]
    )
    _, names, _ = check_values(t, False, False, [])
    assert list(names) == ["id", "g1"]


def test_two_index_columns_are_named_together_and_an_all_index_table_is_kept():
    notes = []
    _, names, _ = check_values(index_table([1, 2, 3, 4], [0, 1, 2, 3]), False, False, notes)
    assert list(names) == ["g1"]
    assert notes[0].startswith("the 2 columns 'id', 'row' number the rows (1, 2, ...)")
    only = table(np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]]), names=["id", "row"])
    _, names, _ = check_values(only, False, False, [])
    assert list(names) == ["id", "row"]


def test_index_names_are_matched_stripped_and_case_folded():
    assert looks_like_index(" ID ") and looks_like_index("Row.Names") and looks_like_index("#")
    assert looks_like_index("Unnamed: 0") and looks_like_index("")
    assert not looks_like_index("Unnamed:0") and not looks_like_index("ids")
    assert not looks_like_index("id_gene")


def test_an_unnamed_first_column_of_distinct_whole_numbers_becomes_the_row_ids():
    rng = np.random.default_rng(2)
    X = np.column_stack([[7, 3, 11, 5], rng.normal(size=4), rng.normal(size=4)])
    t = table(X, names=["Unnamed: 0", "g1", "g2"])
    notes = []
    _, names, _ = check_values(t, False, False, notes)
    assert list(names) == ["g1", "g2"]
    assert list(t.ids) == ["7", "3", "11", "5"]
    assert notes[0].startswith(
        "the unnamed first column holds a distinct whole number per row (7, 3,"
    )


@pytest.mark.parametrize(
    "first", [[7, 3, 7, 5], [7.5, 3, 11, 5], [7, np.nan, 11, 5], [7, np.inf, 11, 5]]
)
def test_a_repeated_fractional_or_missing_unnamed_first_column_is_not_row_ids(first):
    rng = np.random.default_rng(2)
    X = np.column_stack([first, rng.normal(size=4), rng.normal(size=4)])
    t = table(X, names=["Unnamed: 0", "g1", "g2"])
    try:
        _, names, _ = check_values(t, True, False, [])
    except DataError:  # an infinite cell under --impute is imputed; never a row id either way
        return
    assert t.ids is None
    assert list(names) == ["Unnamed: 0", "g1", "g2"]


def test_an_unnamed_first_column_numbering_the_rows_is_left_out_not_used_as_ids():
    rng = np.random.default_rng(3)
    X = np.column_stack([[0, 1, 2, 3], rng.normal(size=4)])
    t = table(X, names=["Unnamed: 0", "g1"])
    notes = []
    _, names, _ = check_values(t, False, False, notes)
    assert list(names) == ["g1"] and t.ids is None
    assert "numbers the rows (0, 1, ...)" in notes[0]


def test_a_single_unnamed_column_is_a_feature():
    t = table(np.array([[3.0], [1.0], [2.0], [5.0]]), names=["Unnamed: 0"])
    _, names, _ = check_values(t, False, False, [])
    assert list(names) == ["Unnamed: 0"] and t.ids is None


# --- memory -------------------------------------------------------------------------------


def test_a_need_equal_to_the_budget_fits():
    budget = Budget(1000, "set by --max-memory", "raise it")
    check_fits(1000, budget, "x.csv")
    with pytest.raises(
        DataError, match=r"^x\.csv would need about 1001 bytes of memory, more than the 1000 bytes"
    ):
        check_fits(1001, budget, "x.csv")


def test_need_per_row_and_per_table():
    assert row_need(0) == NAME_BYTES
    assert row_need(3) == 3 * 8 * MEMORY_FACTOR + NAME_BYTES
    assert numbers_need(5, 3) == 5 * row_need(3) + 3 * NAME_BYTES
    assert numbers_need(0, 7) == 7 * NAME_BYTES


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0 bytes"),
        (1023, "1023 bytes"),
        (1024, "1.0 KB"),
        (10 * 1024 - 1, "10.0 KB"),
        (10 * 1024, "10 KB"),
        ((1 << 20) - 1, "1024 KB"),
        (1 << 20, "1.0 MB"),
        (1 << 30, "1.0 GB"),
        (1 << 40, "1.0 TB"),
        (15 << 40, "15 TB"),
    ],
)
def test_byte_counts_at_their_unit_boundaries(n, text):
    assert format_bytes(n) == text


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("1", 1),
        (" 2k ", 2048),
        ("3KB", 3 << 10),
        ("3kib", 3 << 10),
        ("0.5M", 1 << 19),
        (".5G", 1 << 29),
        ("1.T", 1 << 40),
        ("7B", 7),
        ("7 b", 7),
    ],
)
def test_sizes_in_every_unit(text, n):
    assert parse_size(text) == n


@pytest.mark.parametrize("text", ["0", "0.0G", "-1G", "1X", "G", "1 GBB", "1.2.3", ""])
def test_zero_negative_and_malformed_sizes_are_refused(text):
    with pytest.raises(DataError, match="--max-memory must be a size such as 8G"):
        parse_size(text)


def test_row_ids_from_an_unnamed_first_column_then_an_index_column_left_out():
    rng = np.random.default_rng(4)
    X = np.column_stack([[7, 3, 11, 5], [1, 2, 3, 4], [0, 1, 2, 3], rng.normal(size=4)])
    t = table(X, names=["Unnamed: 0", "id", "g1", "g2"])
    notes = []
    out, names, _ = check_values(t, False, False, notes)
    # "g1" reads 0..3 but is named like a feature: it stays; "id" is left out.
    assert list(names) == ["g1", "g2"] and out.shape == (4, 2)
    np.testing.assert_array_equal(out, X[:, 2:])
    assert t.ids.dtype == object and list(t.ids) == ["7", "3", "11", "5"]
    assert notes == [
        "the unnamed first column holds a distinct whole number per row (7, 3, ...): a row "
        "index, as pandas writes it, used as row names and not as a feature",
        "the column 'id' numbers the rows (1, 2, ...) under a row index's name: a row index, "
        "not a measurement, left out of the analysis",
    ]


def test_row_ids_from_the_first_of_two_columns():
    t = table(np.array([[7, 0.5], [3, 1.5], [11, 2.5], [5, 0.0]]), names=["Unnamed: 0", "g1"])
    out, names, _ = check_values(t, False, False, [])
    assert list(names) == ["g1"] and list(t.ids) == ["7", "3", "11", "5"]
    np.testing.assert_array_equal(out, [[0.5], [1.5], [2.5], [0.0]])


# --- exact messages and notes -------------------------------------------------------------


def test_a_measurement_as_target_is_refused_in_words():
    values = [f"{v / 10:.1f}" for v in range(MAX_NUMERIC_CLASSES + 1)] * 4  # 11 <= 44 / 3
    with pytest.raises(DataError) as err:
        check_labels(numeric_labels(values), "dose", "f.csv", [])
    assert str(err.value) == (
        "the target column 'dose' holds 11 distinct numbers (from 0 to 1), a measurement rather "
        "than classes: widefs classifies; choose a column of class labels with --target, or "
        "group the values into classes first"
    )
    with pytest.raises(DataError) as err:
        check_labels(numeric_labels(["a", "a", "a"]), "grp", "f.csv", [])
    assert str(err.value) == "target column 'grp' has a single class ('a'); need at least 2"
    notes = []
    check_labels(numeric_labels(["NA", "NA", "b", "b"]), "class", "f.csv", notes)
    assert notes == [
        "the label 'NA' (2 examples) is kept as a class; if it marks unknown labels, remove "
        "those rows"
    ]


def test_float_labels_are_classes_and_only_nan_is_missing():
    labels = np.array([1.0, 1.0, 2.5, 2.5], dtype=object)
    y = check_labels(RawTable(["g"], np.zeros((4, 1)), labels), "class", "f.csv", [])
    assert list(y) == ["1.0", "1.0", "2.5", "2.5"]
    labels[1] = float("nan")
    with pytest.raises(DataError, match=r"1 empty labels \(data rows 2\)"):
        check_labels(RawTable(["g"], np.zeros((4, 1)), labels), "class", "f.csv", [])


def test_missing_and_infinite_values_in_words():
    X = np.array([[1.0, np.inf], [2.0, 4.0], [3.0, -np.inf], [4.0, 5.0]])
    with pytest.raises(DataError) as err:
        check_values(table(X.copy()), False, False, [])
    assert str(err.value) == (
        "2 infinite values in 1 column: g1 (the first in data row 1, column 'g1'); rerun with "
        "--impute to replace them by each column's median, or fill them in"
    )
    notes = []
    check_values(table(X.copy()), True, False, notes)
    assert notes[0] == (
        "2 infinite values in 1 column replaced by the column's median (--impute); empty cells "
        "and NA, N/A, n/a, NaN, nan, null, NULL, None, #N/A, ? are read as missing"
    )
    t = table(np.array([[1.0, np.nan], [2.0, 4.0], [3.0, 1.0], [4.0, 5.0]]))
    t.ids = np.array(["s1", "s2", "s3", "s4"], object)  # row names of samples in rows
    with pytest.raises(DataError, match=r"\(the first in data row 1, column 'g1'\)"):
        check_values(t, False, False, [])


def test_values_are_float_and_names_objects_whatever_was_read():
    t = RawTable(
        ["g0", "g1"], np.array([[1, 2], [3, 4], [5, 7]]), np.array(["a", "b", "a"], object)
    )
    out, names, _ = check_values(t, False, False, [])
    assert out.dtype == np.float64 and names.dtype == object
    X = np.array([[1e151, 1.0], [2.0, 3.0], [1.0, 5.0]])
    with pytest.raises(DataError) as err:
        check_values(table(X), False, False, [])
    assert str(err.value) == (
        "values up to 1e+151 in columns: g0; magnitudes above 1e+150 overflow variances and "
        "distances: rescale those columns (e.g. divide by a power of ten, or take logarithms)"
    )


def test_excluded_rows_that_are_not_numbers_are_left_out_too():
    from widefs.cli.io._columns import drop_excluded

    t = RawTable(["g0", "t", "u"], None, np.array(["a", "b"], object), non_numeric=["t", "u"])
    drop_excluded(t, ["t"], "class", [])
    assert t.names == ["g0", "u"] and t.non_numeric == ["u"] and t.X is None


def test_annotation_columns_by_values_only_at_the_edges_of_a_wide_table():
    from widefs.cli.io._columns import annotation_note

    rng = np.random.default_rng(5)
    n, p = 12, 120
    X = rng.normal(size=(n, p))
    X[:, 60] = np.arange(n) % 3  # few values in the middle: not looked at
    X[:, 110] = np.arange(n) % 2  # few values among the last 50
    t = RawTable([f"g{j}" for j in range(p)], X, np.array(["a", "b"] * 6, object))
    notes = []
    annotation_note(t, notes)
    assert notes == [
        "numeric columns that look like sample annotations (their names, or few distinct "
        "values): g110; they are analysed as features: leave out any that describes the "
        "design or the outcome with --exclude"
    ]
    X[:, 110] = rng.normal(size=n)
    X[:, 0] = np.arange(n) % 2  # and among the first 50
    notes = []
    annotation_note(t, notes)
    assert "values): g0;" in notes[0]


def test_the_date_names_note_in_words():
    from widefs.cli.io._columns import date_names_note

    notes = []
    date_names_note(RawTable(["2-Sep", "g1"], None, np.array([])), notes)
    assert notes == [
        "1 feature names look like dates, as Excel turns gene names into (SEPT2 -> 2-Sep, "
        "MARCH1 -> 1-Mar): 2-Sep; correct them at the source (read the file into Excel as text, "
        "or use the current symbols SEPTIN2, MARCHF1)"
    ]


def test_on_genotype_like_data_only_names_flag_annotations():
    from widefs.cli.io._columns import annotation_note

    rng = np.random.default_rng(6)
    n = 12
    X = np.column_stack([rng.integers(0, 3, (n, 10)), rng.normal(50, 10, n)])
    t = RawTable([f"snp{j}" for j in range(10)] + ["age"], X, np.array(["a", "b"] * 6, object))
    notes = []
    annotation_note(t, notes)
    assert len(notes) == 1 and "values): age;" in notes[0]


def test_the_transpose_hint_in_words():
    rng = np.random.default_rng(0)
    notes = []
    check_values(table(rng.normal(size=(206, 41))), False, False, notes)
    assert notes[-1] == (
        "206 samples of 41 features: if the rows are features (genes x samples), rerun with "
        "--transpose"
    )


def test_no_room_left_under_the_address_space_limit_is_zero(monkeypatch):
    from widefs.cli.io import _memory

    monkeypatch.setattr(
        _memory.resource, "getrlimit", lambda _: (1000, _memory.resource.RLIM_INFINITY)
    )
    assert _memory._address_space_available() == 0


def test_a_float32_matrix_stays_float32_unless_cells_are_imputed():
    """The reader's float32 matrix is checked without a float64 copy (same values); imputing
    a median (the mean of two middle values, not a float32 in general: (0.2 + 0.3) / 2 here)
    widens it, so the imputed values are those of the float64 path."""

    def single(X):
        return RawTable(
            ["g0", "g1"],
            X,
            np.array(["a", "b"] * (X.shape[0] // 2) + ["a"] * (X.shape[0] % 2), object),
        )

    X = np.array([[1, 0.1], [2, 0.2], [3, np.nan], [4, 0.3], [5, 0.7]], dtype=np.float32)
    clean = X[[0, 1, 3, 4]]
    out, _, _ = check_values(single(clean), False, False, [])
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, clean)
    out, _, imputed = check_values(single(X.copy()), True, False, [])
    expected, _, _ = check_values(table(X), True, False, [])
    assert out.dtype == np.float64 and imputed == ["g1"]
    np.testing.assert_array_equal(out, expected)
    assert out[2, 1] == (float(X[1, 1]) + float(X[3, 1])) / 2 != float(np.float32(out[2, 1]))
