"""The values biologists write, read as meant or refused in one line that says what to do:
missing-value spellings, decimal commas, UTF-16 and other encodings, labels with spaces, numeric
targets, constant columns, a shuffled row index, text cells, names a narrow terminal would cut,
line breaks inside labels in the rule boxes."""

import io

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from widefs.cli import main
from widefs.cli.io._data import LoadedData, load_cli_data
from widefs.cli.render._report import Code, Table
from widefs.exceptions import DataError


def frame(n=12, p=5, seed=0):
    rng = np.random.default_rng(seed)
    out = pd.DataFrame(rng.normal(size=(n, p)).round(4), columns=[f"g{j}" for j in range(p)])
    out["class"] = np.where(np.arange(n) % 2 == 0, "tumour", "normal")
    return out


def features(expected):
    return np.array(expected.drop(columns="class").to_numpy(dtype=float))  # writable


SPELLINGS = ["NA", "NaN", "null", "NULL", "#N/A", "n/a", "?", ""]


def test_missing_value_spellings_read_as_missing(tmp_path, capsys):
    expected = frame(n=len(SPELLINGS) + 4)
    text = expected.astype(object)
    for i, token in enumerate(SPELLINGS):
        text.iloc[i, 1 + i % 3] = token
    path = tmp_path / "na.csv"
    text.to_csv(path, index=False)
    with pytest.raises(DataError) as info:
        load_cli_data(str(path))
    assert str(info.value).startswith("8 missing values in 3 columns: g1, g2, g3 (the first in ")
    assert "data row 1, column 'g1'); rerun with --impute" in str(info.value)
    data = load_cli_data(str(path), impute=True)
    X = features(expected)
    for i in range(len(SPELLINGS)):
        X[i, 1 + i % 3] = np.nan
    np.testing.assert_array_equal(data.X, np.where(np.isnan(X), np.nanmedian(X, axis=0), X))
    assert any(n.startswith("8 missing values in 3 columns replaced by") for n in data.notes)
    assert data.imputed_columns == ["g1", "g2", "g3"]


def test_decimal_commas(tmp_path):
    expected = frame()
    path = tmp_path / "comma.csv"  # what a German or French Excel saves as "CSV"
    expected.to_csv(path, sep=";", decimal=",", index=False)
    assert "," in path.read_text()
    data = load_cli_data(str(path))
    np.testing.assert_array_equal(data.X, features(expected))
    assert "read with decimal commas (e.g. '1,5' is 1.5)" in data.notes
    # Labels keep their commas; a text cell still gets the pandas reader's message.
    expected["class"] = np.where(np.arange(12) % 2, "a,b", "c")
    expected.to_csv(path, sep=";", decimal=",", index=False)
    assert set(load_cli_data(str(path)).y) == {"a,b", "c"}
    cell = f"{expected.loc[3, 'g2']}".replace(".", ",")
    path.write_text(path.read_text().replace(f";{cell};", ";high;", 1))
    with pytest.raises(DataError, match=r"non-numeric feature columns: g2; e\.g\. 'high' in"):
        load_cli_data(str(path))


@pytest.mark.parametrize(
    ("encoding", "note"),
    [
        ("utf-16", "read as UTF-16 text"),  # Excel's "Unicode text": a BOM, tabs
        ("utf-16-le", "read as UTF-16 text without a byte-order mark"),
        ("utf-8-sig", None),
        ("cp1252", "not UTF-8: read as Windows-1252"),
    ],
)
def test_encodings(tmp_path, encoding, note):
    expected = frame()
    expected.columns = ["g\u00e9ne", *expected.columns[1:]]
    path = tmp_path / "unicode.txt"
    path.write_bytes(expected.to_csv(sep="\t", index=False).encode(encoding))
    data = load_cli_data(str(path))
    np.testing.assert_array_equal(data.X, features(expected))
    assert list(data.feature_names) == list(expected.columns[:-1])
    assert list(data.y) == list(expected["class"])
    assert (note in " ".join(data.notes)) if note else not data.notes


def test_binary_file_is_one_line(tmp_path):
    (tmp_path / "nul.csv").write_bytes(b"a,class\n" + bytes(5000))
    with pytest.raises(DataError, match="holds NUL bytes: it is not a text table"):
        load_cli_data(str(tmp_path / "nul.csv"))


def test_labels_are_stripped_with_a_note(tmp_path):
    expected = frame()
    expected["class"] = ["tumor", "tumor ", " normal", "normal\t"] * 3
    expected.to_csv(tmp_path / "s.csv", index=False)
    data = load_cli_data(str(tmp_path / "s.csv"))
    assert sorted(set(data.y)) == ["normal", "tumor"]
    assert "9 labels had spaces or line breaks around them, removed (e.g. 'tumor ' is read as " in (
        " ".join(data.notes)
    )


def test_a_continuous_target_is_refused_as_not_classes(tmp_path, capsys):
    expected = frame(n=62)
    expected["class"] = np.linspace(20.5, 80, 62).round(1)  # an age, a concentration
    expected.to_csv(tmp_path / "age.csv", index=False)
    assert main(["run", str(tmp_path / "age.csv"), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == (
        "widefs: error: the target column 'class' holds 62 distinct numbers (from 20.5 to 80), "
        "a measurement rather than classes: widefs classifies; choose a column of class labels "
        "with --target, or group the values into classes first\n"
    )
    expected["class"] = np.arange(62) % 31 + 30  # integer ages, 31 values
    expected.to_csv(tmp_path / "age.csv", index=False)
    with pytest.raises(DataError, match="holds 31 distinct numbers"):
        load_cli_data(str(tmp_path / "age.csv"))


def test_a_numeric_target_with_few_values_runs_as_classes_with_a_note(tmp_path):
    expected = frame(n=66)
    expected["class"] = np.arange(66) % 11 + 40  # an integer age, 11 values: classes
    expected.to_csv(tmp_path / "grade.csv", index=False)
    data = load_cli_data(str(tmp_path / "grade.csv"))
    assert len(set(data.y)) == 11
    assert (
        "the target column 'class' holds numbers (40, 41, 42, 43, 44, 45, 46, 47, ... (11 in "
        "all)): each distinct value is a class (11 classes), and their order is not used"
    ) in data.notes
    expected["class"] = np.where(np.arange(66) % 2, "tumour", "normal")
    expected.to_csv(tmp_path / "words.csv", index=False)
    assert not any("holds numbers" in n for n in load_cli_data(str(tmp_path / "words.csv")).notes)


def test_constant_columns_are_counted(tmp_path):
    expected = frame(p=10)
    expected[["g2", "g5", "g7"]] = 3.25
    expected.to_csv(tmp_path / "c.csv", index=False)
    data = load_cli_data(str(tmp_path / "c.csv"))
    assert data.X.shape[1] == 10
    assert any(n.startswith("3 of the 10 feature columns are constant") for n in data.notes)


def test_a_shuffled_row_index_becomes_the_row_names(tmp_path):
    """What pandas writes after sorting: an unnamed first column of integers in any order."""
    expected = frame(n=20).sample(frac=1, random_state=3)
    assert not expected.index.is_monotonic_increasing
    expected.to_csv(tmp_path / "sorted.csv")
    data = load_cli_data(str(tmp_path / "sorted.csv"))
    np.testing.assert_array_equal(data.X, features(expected))
    assert list(data.feature_names) == ["g0", "g1", "g2", "g3", "g4"]
    assert any(
        n.startswith("the unnamed first column holds a distinct whole number per row")
        for n in data.notes
    )
    # A named column of distinct integers is a measurement, kept.
    expected.to_csv(tmp_path / "named.csv", index_label="age")
    assert load_cli_data(str(tmp_path / "named.csv")).feature_names[0] == "age"


def test_a_text_cell_is_named_with_its_value_and_row(tmp_path):
    expected = frame()
    expected["g2"] = expected["g2"].astype(object)
    expected.loc[3, "g2"] = "high"
    expected.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(DataError) as info:
        load_cli_data(str(tmp_path / "t.csv"))
    assert str(info.value) == (
        "non-numeric feature columns: g2; e.g. 'high' in column 'g2', data row 4. widefs "
        "reads numbers: convert or remove those columns (a missing value may be an empty cell "
        "or one of NA, N/A, n/a, NaN, nan, null, NULL, None, #N/A, ?)"
    )


def test_genes_in_rows_without_a_class_row_suggests_the_ways(tmp_path):
    genes = frame(n=10, p=40).drop(columns="class").T
    genes.columns = [f"GSM{i}" for i in range(10)]
    genes.to_csv(tmp_path / "genes.tsv", sep="\t", index_label="ID_REF")
    with pytest.raises(DataError, match="give their labels with --labels FILE"):
        load_cli_data(str(tmp_path / "genes.tsv"))


def render(renderable, width):
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def test_a_narrow_terminal_does_not_cut_names_to_the_same_text():
    names = ["Hsa.692.1", "Hsa.692.2", "Hsa.692.10"]
    table = Table(
        ["feature", "errors", "validation accuracy", "selected"],
        [(n, 3, "90.3%", "yes") for n in names],
    )
    text = render(table.rich(), 36)
    assert "\u2026" not in text
    cells = [
        "".join(line.split("\u2502")[1].strip() for line in block) for block in _row_blocks(text)
    ]
    assert cells == names


def _row_blocks(text):
    """The body lines of a rich table, grouped by row (a row ends where the next begins)."""
    body = [ln for ln in text.splitlines() if ln.startswith("\u2502")]
    blocks = []
    for line in body:
        if line.split("\u2502")[2].strip():  # the errors column starts a row
            blocks.append([])
        blocks[-1].append(line)
    return blocks


def test_rule_boxes_escape_line_breaks_in_labels():
    from argparse import Namespace

    from widefs.cli._main import _analysis
    from widefs.cli.render._models import rules_sections, scm_sections

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    y = np.where(np.arange(40) % 2, "tumor\n  2. IF fake", "normal")
    X[y == "normal", 0] += 3
    data = LoadedData(
        "d", X, y.astype(object), np.array([f"g{j}" for j in range(6)], object), "d", []
    )
    args = Namespace(
        quick=True, seed=0, jobs=None, null="auto", permutations=2, null_permutations=None
    )
    analysis = _analysis(args, data, ["scm", "rules"], "auto", None)
    boxes = [
        b
        for s in rules_sections(analysis, data) + scm_sections(analysis, data)
        for b in s.blocks
        if isinstance(b, Code)
    ]
    assert len(boxes) == 2
    for box in boxes:
        # A box's logical lines: a list of them, or one text whose data carry no line break.
        lines = box.text.split("\n") if isinstance(box.text, str) else box.text
        logical = [line for line in lines if line]
        shown = render(box.rich(), 300).splitlines()
        assert len(shown) == len(lines) + 2  # a border line above and below
        assert "tumor\\x0a  2. IF fake" in "".join(shown) and not any(
            line.strip("\u2502 ").startswith("2. IF fake") for line in shown
        )
        assert box.markdown().count("\n") == len(lines) + 1 and logical
