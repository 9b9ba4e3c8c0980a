"""Smoke test of the Soares (2010) reproduction (quick mode) and checks of its protocol."""

import importlib

import numpy as np


def load_run():
    # experiments/soares2010/run.py calls this module's main.
    return importlib.import_module("widefs.experiments.soares2010")


def test_quick_mode_writes_the_report(tmp_path):
    run = load_run()
    out = tmp_path / "soares2010.md"
    assert run.main(["--quick", "--out", str(out)]) == 0
    text = out.read_text()
    assert "QUICK MODE" in text
    assert "| breast cancer | 66.44 / 68.89 / 69.20 |" in text  # Table 7, paper beside ours
    assert "proprietary, unavailable" in text  # Alabama
    assert "### Table 10: kNN/GA" in text and "| colon cancer | 65.90 / 67.69 / 68.97 |" in text
    row = next(line for line in text.splitlines() if line.startswith("| wine | 94.06 / 91.56"))
    ours = [float(cell.split(" ± ")[0]) for cell in row.split("|")[3:6]]
    assert all(0 <= v <= 100 for v in ours)


def test_splits_are_balanced_and_preprocessing_uses_training_rows_only():
    run = load_run()
    spec = run.DATASETS["arrhythmia"]
    columns, nominal, y, _ = run.load(spec)
    assert sorted(set(y)) == ["A", "N", "U"] and (y == "U").sum() == 22 and (y == "N").sum() == 245
    train, test = run.split_indices(y, spec, np.random.RandomState(0))
    assert {c: int((y[train] == c).sum()) for c in "ANU"} == {"A": 111, "N": 111, "U": 13}
    assert train.size + test.size == y.size and not set(train) & set(test)
    Xtr, Xte, _ = run.preprocess(columns, nominal, train, test, spec)
    assert np.isfinite(Xtr).all() and np.isfinite(Xte).all()  # mean imputation
    scale = np.abs(Xtr).max(axis=0)
    assert np.all((scale == 1) | (scale == 0))  # max-abs fitted on the training rows

    spec = run.DATASETS["breast cancer"]
    columns, nominal, y, _ = run.load(spec)
    assert nominal.all()
    train, test = run.split_indices(y, spec, np.random.RandomState(1))
    assert train.size == 136 and (y[train] == "recurrence-events").sum() == 68
    Xtr, Xte, n_cat = run.preprocess(columns, nominal, train, test, spec)
    # Codes are 0..K-1 on training rows, -1 only for categories never seen in training.
    for j in range(Xtr.shape[1]):
        assert set(Xtr[:, j]) <= set(range(n_cat[j]))
        seen = set(columns[j][train])
        unseen = np.array([v not in seen for v in columns[j][test]])
        np.testing.assert_array_equal(Xte[:, j] == -1, unseen)


def test_appendix_b_parser_on_a_snippet():
    run = load_run()
    text = (
        "Appendix B: Best found subsets Congressional Voting Dataset (NBC/SBS) "
        "Overall: 0 0 0 4 0 0 7 0 0 0 0 12 0 0 0 0 republican: 0 0 0 4 0 0 7 0 0 0 0 0 0 0 "
        "104 0 0 democrat: 0 0 0 4 5 0 0 0 0 0 11 0 0 0 0 0"
    )
    runs = run.parse_appendix_b(text)
    overall, classes = runs[("Voting", "NB/SBS")][0]
    assert overall == {4, 7, 12}
    assert classes == {"republican": {4, 7}, "democrat": {4, 5, 11}}
