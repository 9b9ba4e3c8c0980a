"""A GEO series matrix labelled from its own sample lines: ``--target "disease state"`` finds
the characteristic on whichever ``!Sample_characteristics_ch1`` line holds it, strips the
``key:`` prefix, and the run goes end to end; unknown keys list what is there."""

import gzip

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.cli.io._data import load_cli_data
from widefs.exceptions import DataError


def series_matrix(path, n=16, p=40, seed=0, bad=None, swap_lines=False):
    """A series matrix as GEO writes it: a preamble of ``!`` lines, then probes x samples.

    The first characteristics line is the tissue (one class for every sample); the second
    holds the disease state. ``swap_lines`` puts the two keys on different lines for half of
    the samples (GEO does this when samples were submitted with different fields).
    """
    rng = np.random.default_rng(seed)
    ids = [f"GSM{100 + i}" for i in range(n)]
    state = ["tumor" if i % 2 else "normal" for i in range(n)]
    X = rng.normal(size=(p, n)).round(3)
    X[3, np.array(state) == "tumor"] += 4
    probes = [f"{200000 + j}_at" for j in range(p)]

    def line(key, cells):
        return "\t".join([key, *[f'"{c}"' for c in cells]])

    tissue = ["tissue: colon"] * n
    disease = [f"disease state: {s}" for s in state]
    first, second = tissue[:], disease[:]
    if swap_lines:
        for i in range(0, n, 2):
            first[i], second[i] = disease[i], tissue[i]
    rows = ["\t".join(['"ID_REF"', *[f'"{i}"' for i in ids]])]
    for j, probe in enumerate(probes):
        cells = [str(v) for v in X[j]]
        if bad is not None and j == bad[0]:
            cells[bad[1]] = "n/a?"
        rows.append("\t".join([f'"{probe}"', *cells]))
    text = "\n".join(
        [
            '!Series_title\t"A study"',
            '!Series_geo_accession\t"GSE1"',
            "",
            line("!Sample_title", [f"patient {i} {s}" for i, s in enumerate(state)]),
            line("!Sample_geo_accession", ids),
            line("!Sample_source_name_ch1", [f"colon {s}" for s in state]),
            line("!Sample_characteristics_ch1", first),
            line("!Sample_characteristics_ch1", second),
            line("!Sample_characteristics_ch1", [f"age: {40 + i}" for i in range(n)]),
            "!series_matrix_table_begin",
            *rows,
            "!series_matrix_table_end",
            "",
        ]
    )
    path.write_bytes(gzip.compress(text.encode()))
    return str(path), X, state, probes


@pytest.mark.parametrize("swap", [False, True])
def test_second_characteristics_line_gives_the_classes(tmp_path, swap):
    path, X, state, probes = series_matrix(tmp_path / "GSE1_series_matrix.txt.gz", swap_lines=swap)
    data = load_cli_data(path, target="disease state")
    assert list(data.y) == state  # the prefix "disease state: " is stripped
    np.testing.assert_array_equal(data.X, X.T)
    assert list(data.feature_names) == probes
    assert any("sample characteristic 'disease state'" in n for n in data.notes)


def test_title_and_source_name(tmp_path):
    path, _, state, _ = series_matrix(tmp_path / "GSE1_series_matrix.txt.gz")
    assert list(load_cli_data(path, target="source_name").y) == [f"colon {s}" for s in state]
    with pytest.raises(
        DataError, match=r"at least 2 examples.*16 in all"
    ):  # one title per sample: not classes
        load_cli_data(path, target="title")


def test_case_of_the_key_does_not_matter(tmp_path):
    path, _, state, _ = series_matrix(tmp_path / "GSE1_series_matrix.txt.gz")
    assert list(load_cli_data(path, target="Disease State").y) == state


def test_unknown_key_lists_the_keys_and_their_classes(tmp_path):
    path, *_ = series_matrix(tmp_path / "GSE1_series_matrix.txt.gz")
    with pytest.raises(DataError) as info:
        load_cli_data(path, target="class")
    message = str(info.value)
    assert "'tissue' (1 classes: colon)" in message
    assert "'disease state' (2 classes: normal, tumor)" in message
    assert "'age' (16 classes: 40, 41, 42, 43, ...)" in message
    assert "title and source_name" in message
    assert "\n" not in message


def test_bad_cell_is_located_by_probe_and_sample(tmp_path):
    path, *_ = series_matrix(tmp_path / "GSE1_series_matrix.txt.gz", bad=(5, 2))
    with pytest.raises(DataError) as info:
        load_cli_data(path, target="disease state")
    message = str(info.value)
    assert "200005_at" in message and "GSM102" in message, message


def test_missing_cell_is_located_by_probe_and_sample(tmp_path):
    series_matrix(tmp_path / "GSE1_series_matrix.txt.gz", bad=(7, 3))
    text = gzip.decompress((tmp_path / "GSE1_series_matrix.txt.gz").read_bytes()).decode()
    (tmp_path / "m.txt").write_text(text.replace("n/a?", "null"))
    with pytest.raises(
        DataError,
        match=r"1 missing value in 1 row: 200007_at \(the first in "
        r"row '200007_at', column 'GSM103'\)",
    ):
        load_cli_data(str(tmp_path / "m.txt"), target="disease state")


def test_samples_without_the_key_are_named(tmp_path):
    series_matrix(tmp_path / "GSE1_series_matrix.txt.gz")
    text = gzip.decompress((tmp_path / "GSE1_series_matrix.txt.gz").read_bytes()).decode()
    (tmp_path / "m.txt").write_text(text.replace('"disease state: tumor"', '""', 1))
    with pytest.raises(
        DataError,
        match=r"1 of the 16 samples have no value in the sample "
        r"characteristic 'disease state' .*: GSM101; choose another --target",
    ):
        load_cli_data(str(tmp_path / "m.txt"), target="disease state")


def test_run_end_to_end(tmp_path):
    path, *_ = series_matrix(tmp_path / "GSE1_series_matrix.txt.gz", swap_lines=True)
    out = tmp_path / "out"
    argv = ["run", path, "--target", "disease state", "--quick", "--methods", "chance,scm"]
    assert main([*argv, "--permutations", "5", "--out", str(out)]) == 0
    features = pd.read_csv(out / "features.csv")
    assert features.sort_values("errors")["feature"].iloc[0] == "200003_at"
