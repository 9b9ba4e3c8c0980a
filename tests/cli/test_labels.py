"""Labels from a file of their own (``--labels``), joined by sample id in either orientation,
and the README's GEO series-matrix route run end to end on a series-matrix-like file."""

import gzip
import re
import shlex
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli.io._data import load_cli_data
from widefs.exceptions import DataError

README = Path(__file__).resolve().parents[2] / "README.md"


def expression(n=12, p=30, seed=0):
    """(samples x genes frame, labels by sample id): the truth every layout must give back."""
    rng = np.random.default_rng(seed)
    ids = [f"GSM{100 + i}" for i in range(n)]
    X = pd.DataFrame(rng.normal(7, 1, size=(n, p)).round(3), index=ids)
    X.columns = [f"{200 + j}_at" for j in range(p)]
    labels = pd.Series(np.where(np.arange(n) % 3 == 0, "tumour", "normal"), index=ids)
    X.loc[labels == "tumour", X.columns[:3]] += 2
    return X, labels


def write_labels(path, labels, sep="\t", header=("sample", "class"), order=None):
    table = labels.rename_axis("sample").rename("class").reset_index()
    if order is not None:
        table = table.iloc[order]
    table.to_csv(path, sep=sep, index=False, header=False if header is None else list(header))
    return path


def check(data, X, labels):
    np.testing.assert_array_equal(data.X, X.to_numpy())
    assert list(data.feature_names) == list(X.columns)
    assert list(data.y) == list(labels[X.index])


def test_samples_in_rows(tmp_path):
    X, labels = expression()
    X.to_csv(tmp_path / "expr.csv", index_label="id")
    path = write_labels(tmp_path / "samples.csv", labels, sep=",", order=np.arange(12)[::-1])
    data = load_cli_data(str(tmp_path / "expr.csv"), labels=str(path))
    check(data, X, labels)
    assert "labels from samples.csv: column 'class', joined to the 12 samples by their ids" in (
        data.notes
    )


def test_genes_in_rows(tmp_path):
    X, labels = expression()
    X.T.to_csv(tmp_path / "expr.tsv", sep="\t", index_label="ID_REF")
    path = write_labels(tmp_path / "samples.txt", labels, sep=";")
    data = load_cli_data(str(tmp_path / "expr.tsv"), labels=str(path))
    check(data, X, labels)
    assert any(n.startswith("samples in columns: 30 features in rows") for n in data.notes)


def test_the_labels_column_by_target_and_a_file_without_header(tmp_path):
    X, labels = expression()
    X.to_csv(tmp_path / "expr.csv", index_label="id")
    table = pd.DataFrame({"id": labels.index, "age": 50, "group": labels.to_numpy()})
    table.to_csv(tmp_path / "sheet.csv", index=False)
    data = load_cli_data(
        str(tmp_path / "expr.csv"), labels=str(tmp_path / "sheet.csv"), target="group"
    )
    check(data, X, labels)
    with pytest.raises(DataError, match="no column named 'class' among id, age, group"):
        load_cli_data(str(tmp_path / "expr.csv"), labels=str(tmp_path / "sheet.csv"))
    path = write_labels(tmp_path / "bare.tsv", labels, header=None)
    data = load_cli_data(str(tmp_path / "expr.csv"), labels=str(path))
    check(data, X, labels)
    assert "bare.tsv has no header line: its first line is read as a sample" in data.notes


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.iloc[2:],
            "2 of the 12 samples of .*expr.csv have no label in .*: GSM100, GSM101; add them",
        ),
        (
            lambda t: pd.concat([t, pd.DataFrame({"sample": ["GSM999"], "class": ["x"]})]),
            "1 ids of .* are not samples of .*expr.csv: GSM999; check that both files",
        ),
        (lambda t: pd.concat([t, t.iloc[:1]]), "sample ids appear more than once in .*: GSM100"),
        (
            lambda t: t.assign(sample=t["sample"] + "x"),
            "no sample id of .*expr.csv is in .*s.tsv: the data's sample ids: GSM100, ",
        ),
    ],
)
def test_ids_missing_or_repeated_on_either_side_are_one_line(tmp_path, capsys, edit, message):
    X, labels = expression()
    X.to_csv(tmp_path / "expr.csv", index_label="id")
    table = edit(labels.rename_axis("sample").rename("class").reset_index())
    table.to_csv(tmp_path / "s.tsv", sep="\t", index=False)
    argv = ["run", str(tmp_path / "expr.csv"), "--labels", str(tmp_path / "s.tsv")]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(message, err), err


def test_repeated_ids_in_the_data_and_misuse(tmp_path):
    X, labels = expression()
    X.index = [*X.index[:-1], X.index[0]]
    X.to_csv(tmp_path / "expr.csv", index_label="id")
    path = write_labels(tmp_path / "s.tsv", labels)
    with pytest.raises(DataError, match=r"sample ids appear more than once in .*expr\.csv"):
        load_cli_data(str(tmp_path / "expr.csv"), labels=str(path))
    with pytest.raises(DataError, match="--labels and --transpose: give one"):
        load_cli_data(str(tmp_path / "expr.csv"), labels=str(path), transpose=True)
    with pytest.raises(DataError, match="--labels applies to a data file"):
        load_cli_data("colon", labels=str(path))
    with pytest.raises(DataError, match=r"--labels .*nope\.tsv: file not found"):
        load_cli_data(str(tmp_path / "expr.csv"), labels=str(tmp_path / "nope.tsv"))


def series_matrix(path, X, labels):
    """A GEO series matrix: '!' description lines (a blank one among them), a quoted table."""
    ids = list(X.index)
    q = "\t".join

    def row(key, cells):
        return q([key, *(f'"{c}"' for c in cells)]) + "\n"

    lines = [
        '!Series_title\t"A made-up series"\n',
        '!Series_geo_accession\t"GSE0"\n',
        "\n",
        row("!Sample_title", [f"patient {i}" for i in range(len(ids))]),
        row("!Sample_geo_accession", ids),
        row("!Sample_characteristics_ch1", [f"tissue: {labels[i]}" for i in ids]),
        row("!Sample_characteristics_ch1", ["age: 50"] * len(ids)),
        "!series_matrix_table_begin\n",
        row('"ID_REF"', ids).replace('""ID_REF""', '"ID_REF"'),
    ]
    for gene, values in X.T.iterrows():
        lines.append(q([f'"{gene}"', *map(str, values)]) + "\n")
    lines.append("!series_matrix_table_end\n")
    with gzip.open(path, "wt") as fh:
        fh.writelines(lines)


def test_the_readmes_geo_route_end_to_end(tmp_path):
    X, labels = expression(n=15, p=40)
    series_matrix(tmp_path / "GSExxxx_series_matrix.txt.gz", X, labels)
    block = re.search(r"<!-- geo-route -->\n```bash\n(.*?)```", README.read_text(), re.S)
    commands = block.group(1).strip()
    prepare, run = commands.rsplit("\n", 1)
    subprocess.run(["bash", "-euo", "pipefail", "-c", prepare], cwd=tmp_path, check=True)
    assert (tmp_path / "samples.tsv").read_text().splitlines()[:2] == [
        "sample\tclass",
        f"GSM100\ttissue: {labels['GSM100']}",
    ]
    argv = shlex.split(run)
    assert argv[:2] == ["widefs", "run"]
    data = load_cli_data(str(tmp_path / argv[2]), labels=str(tmp_path / argv[4]))
    check(data, X, "tissue: " + labels)
    assert any(n.startswith("skipped the 8 lines before the table") for n in data.notes)
    out = tmp_path / "report"
    args = [str(tmp_path / a) if a.endswith(("gz", "tsv")) else a for a in argv[2:]]
    assert main(["run", *args, "--methods", "chance", "--quick", "--out", str(out)]) == 0
    assert "tissue: tumour" in (out / "report.md").read_text()
