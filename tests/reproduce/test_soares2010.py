"""The Soares (2010) reproduction: a small seeded run whose numbers are checked, the paired
tests against independent computations, and the hypothesis variants against the library."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from widefs._utils import spawn_seeds
from widefs.ensemble import ClassSpecificEnsemble
from widefs.search import KNNEvaluator, SequentialSelector
from widefs_reproduce import _store
from widefs_reproduce import soares2010 as run
from widefs_reproduce._paired import (
    corrected_resampled_ttest,
    paired_tests,
    wilcoxon_signed_rank,
)
from widefs_reproduce.soares2010 import _data as data
from widefs_reproduce.soares2010 import _tables as tables
from widefs_reproduce.soares2010._runs import from_stored
from widefs_reproduce.soares2010._variants import cefs_variant, tie_aware_knn


def _split(name, s, n=2):
    spec = data.DATASETS[name]
    columns, nominal, y, _ = data.load(spec)
    seed = spawn_seeds(list(data.DATASETS).index(name), n)[s]
    train, test = data.split_indices(y, spec, np.random.RandomState(seed))
    Xtr, Xte, _ = data.preprocess(columns, nominal, train, test, spec)
    return Xtr, Xte, y[train], y[test], nominal, int(seed)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("soares")
    argv = ["--quick", "--datasets", "wine", "breast cancer", "--methods", "NB/SBS", "kNN/SFS"]
    assert run.main([*argv, "--out", str(out)]) == 0
    tasks = out / "soares2010" / "tasks"
    stored = {
        (name, method): from_stored(json.loads((tasks / f"pair-{file}.json").read_text())["result"])
        for name, method, file in (
            ("breast cancer", "NB/SBS", "breast_cancer-NB-SBS"),
            ("breast cancer", "kNN/SFS", "breast_cancer-kNN-SFS"),
            ("wine", "kNN/SFS", "wine-kNN-SFS"),
        )
    }
    rows = [
        {
            "dataset": n,
            "method": m,
            "split": i,
            "variant": "protocol",
            "no_fs": x["acc"][0],
            "traditional": x["acc"][1],
            "cefs": x["acc"][2],
            "n_test": x["n_test"],
        }
        for (n, m), r in stored.items()
        for i, x in enumerate(r["runs"])
    ]
    return (out / "soares2010.md").read_text(), pd.DataFrame(rows), stored, out, argv


def test_seeded_small_run(small):
    # Wine and breast cancer, 2 splits each (seeds spawn_seeds(dataset index, 2)):
    # correct test instances out of 64 (wine) and 150 (breast), pinned.
    _, raw, _, _, _ = small
    p = raw[raw["variant"] == "protocol"].set_index(["dataset", "method", "split"])
    counts = {
        k: tuple(
            round(v * (64 if k[0] == "wine" else 150)) for v in p.loc[k, ["traditional", "cefs"]]
        )
        for k in p.index
    }
    assert counts == {
        ("breast cancer", "NB/SBS", 0): (98, 104),
        ("breast cancer", "NB/SBS", 1): (108, 108),
        ("breast cancer", "kNN/SFS", 0): (100, 99),
        ("breast cancer", "kNN/SFS", 1): (115, 113),
        ("wine", "kNN/SFS", 0): (58, 60),
        ("wine", "kNN/SFS", 1): (62, 61),
    }


def test_split_matches_a_direct_fit(small):
    # Recompute one split outside the experiment with the public estimators.
    _, raw, _, _, _ = small
    Xtr, Xte, ytr, yte, nominal, seed = _split("wine", 1)
    sel = SequentialSelector("forward", evaluator=KNNEvaluator(categorical_features=nominal))
    ens = ClassSpecificEnsemble(sel, categorical_features=nominal, random_state=seed).fit(Xtr, ytr)
    row = raw[(raw["dataset"] == "wine") & (raw["method"] == "kNN/SFS") & (raw["split"] == 1)]
    row = row[row["variant"] == "protocol"].iloc[0]
    assert row["traditional"] == pytest.approx(np.mean(ens.predict_overall(Xte) == yte), abs=1e-6)
    assert row["cefs"] == pytest.approx(np.mean(ens.predict(Xte) == yte), abs=1e-6)


def test_page_is_made_of_the_run(small, monkeypatch):
    text, raw, stored, out, argv = small
    p = raw[(raw["variant"] == "protocol") & (raw["dataset"] == "wine")]
    d = 100 * (p["cefs"] - p["traditional"]).to_numpy()
    row = next(line for line in text.splitlines() if line.startswith("| wine | kNN/SFS |"))
    assert row.split("|")[3].strip() == f"{d.mean():+.2f}"  # the paired-test table
    assert "widefs reproduce soares2010 --quick --datasets wine" in text
    # The paired-test table (page) and the hypotheses per pair (appendix) are made of the
    # stored pairs.
    appendix = (out / "soares2010_appendix.md").read_text()
    assert "\n".join(tables.paired_summary_table(stored)) in text
    assert "\n".join(tables.hypotheses_table(stored)) in appendix
    # --render-only rewrites the same page from the stored tasks, computing nothing.
    monkeypatch.setattr(_store, "run_tasks", lambda *a: pytest.fail("computed"))
    (out / "soares2010.md").unlink()
    assert run.main([*argv, "--out", str(out), "--render-only"]) == 0
    assert (out / "soares2010.md").read_text() == text
    assert (out / "soares2010_appendix.md").read_text() == appendix
    # The dissertation's columns come from its Appendix A runs (15 per pair).
    assert data.PAPER_RUNS[("colon cancer", "kNN/GA")].shape == (15, 3)


def test_library_protocol_is_reproduced_by_the_variant_code():
    # With nothing changed, the variants' own SFS / SBS equals the library's selectors, so
    # a variant's effect is the variant's, not a second implementation's.
    for name, direction in (("breast cancer", "forward"), ("wine", "backward")):
        Xtr, Xte, ytr, _, nominal, seed = _split(name, 0)
        classes, codes = np.unique(ytr, return_inverse=True)
        sel = SequentialSelector(direction, evaluator=KNNEvaluator(categorical_features=nominal))
        ens = ClassSpecificEnsemble(sel, categorical_features=nominal, random_state=seed).fit(
            Xtr, ytr
        )
        v = cefs_variant(Xtr, codes, Xte, nominal, direction=direction)
        np.testing.assert_array_equal(v.overall, ens.overall_support_)
        for i, c in enumerate(classes):
            np.testing.assert_array_equal(v.members[i], ens.class_supports_[c])
        np.testing.assert_array_equal(classes[v.cefs], ens.predict(Xte))
        # Searching to the end can only find an equal or better training score path.
        best = cefs_variant(Xtr, codes, Xte, nominal, direction=direction, stopping="best")
        assert best.overall.sum() >= 1


def test_tie_aware_knn_matches_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n, C, k = 12, 3, int(rng.integers(1, 6))
        D = rng.integers(0, 4, size=(5, n)).astype(float)  # many ties
        y = rng.integers(0, C, size=n)
        got = tie_aware_knn(D, y, C, k)
        for i in range(5):
            kth = np.sort(D[i])[k - 1]
            votes = np.bincount(y[D[i] <= kth], minlength=C)
            tied = set(np.flatnonzero(votes == votes.max()).tolist())
            order = sorted(range(n), key=lambda j: (D[i, j], j))
            expect = next(y[j] for j in order if y[j] in tied)
            assert got[i] == expect


def test_paired_tests_against_scipy_and_the_formula():
    d = np.array([1.0, 2.0, -0.5, 3.0, 0.0, 2.5, 1.5])
    t0, p0 = corrected_resampled_ttest(d, n_train=100, n_test=0)
    ref = stats.ttest_rel(d, np.zeros_like(d))
    assert t0 == pytest.approx(ref.statistic, rel=1e-12) and p0 == pytest.approx(
        ref.pvalue, rel=1e-12
    )
    t, p = corrected_resampled_ttest(d, n_train=100, n_test=50)
    J = d.size
    assert t == pytest.approx(t0 * np.sqrt((1 / J) / (1 / J + 0.5)), rel=1e-12)
    assert p == pytest.approx(2 * stats.t.sf(abs(t), J - 1), rel=1e-12)
    # Exact Wilcoxon p without ties or zeros: enumerate all sign patterns.
    e = np.array([1.0, -2.0, 3.0, 4.0, 5.0, 6.5])
    ranks = stats.rankdata(np.abs(e))
    w = ranks[e > 0].sum()
    signs = np.array(np.meshgrid(*[[0, 1]] * e.size)).reshape(e.size, -1).T
    dist = signs @ ranks
    expect = min(1.0, 2 * min(np.mean(dist <= w), np.mean(dist >= w)))
    assert wilcoxon_signed_rank(e) == pytest.approx(expect, rel=1e-12)
    assert wilcoxon_signed_rank(np.zeros(5)) == 1.0
    out = paired_tests([1, 2, 3], [1, 3, 2], 10, 5)
    assert (out["wins"], out["ties"], out["losses"]) == (1, 1, 1)


def test_dissertation_appendix_matches_its_tables():
    # Appendix A's per-run accuracies average to Tables 7-10 (two decimals).
    for (name, method), runs in data.PAPER_RUNS.items():
        np.testing.assert_allclose(runs.mean(axis=0), data.PAPER[method][name], atol=0.006)
    assert len(data.PAPER_RUNS) == 23
    # Appendix B summary of voting kNN/SFS run 1 = the dissertation's Table 11.
    first = data.APPENDIX_B["kNN/SFS"]["congressional voting"][0]
    assert first["overall"] == [4, 7, 12] and first["classes"]["republican"] == [4, 7]


def test_splits_are_balanced_and_preprocessing_uses_training_rows_only():
    spec = data.DATASETS["arrhythmia"]
    columns, nominal, y, _ = data.load(spec)
    assert sorted(set(y)) == ["A", "N", "U"] and (y == "U").sum() == 22 and (y == "N").sum() == 245
    train, test = data.split_indices(y, spec, np.random.RandomState(0))
    assert {c: int((y[train] == c).sum()) for c in "ANU"} == {"A": 111, "N": 111, "U": 13}
    assert train.size + test.size == y.size and not set(train) & set(test)
    Xtr, Xte, _ = data.preprocess(columns, nominal, train, test, spec)
    assert np.isfinite(Xtr).all() and np.isfinite(Xte).all()  # mean imputation
    scale = np.abs(Xtr).max(axis=0)
    assert np.all((scale == 1) | (scale == 0))  # max-abs fitted on the training rows
    for how, check in (
        ("minmax", lambda a: np.all((a.min(0) == 0) | (a.max(0) == 0))),
        ("zscore", lambda a: np.allclose(a.mean(0), 0, atol=1e-9)),
    ):
        Xs, _, _ = data.preprocess(columns, nominal, train, test, spec, scaling=how)
        assert check(Xs)

    spec = data.DATASETS["breast cancer"]
    columns, nominal, y, _ = data.load(spec)
    assert nominal.all()
    train, test = data.split_indices(y, spec, np.random.RandomState(1))
    assert train.size == 136 and (y[train] == "recurrence-events").sum() == 68
    Xtr, Xte, n_cat = data.preprocess(columns, nominal, train, test, spec)
    # Codes are 0..K-1 on training rows, -1 only for categories never seen in training.
    for j in range(Xtr.shape[1]):
        assert set(Xtr[:, j]) <= set(range(n_cat[j]))
        seen = set(columns[j][train])
        unseen = np.array([v not in seen for v in columns[j][test]])
        np.testing.assert_array_equal(Xte[:, j] == -1, unseen)


def test_appendix_b_parser_on_a_snippet():
    text = (
        "Appendix B: Best found subsets Congressional Voting Dataset (NBC/SBS) "
        "Overall: 0 0 0 4 0 0 7 0 0 0 0 12 0 0 0 0 republican: 0 0 0 4 0 0 7 0 0 0 0 0 0 0 "
        "104 0 0 democrat: 0 0 0 4 5 0 0 0 0 0 11 0 0 0 0 0"
    )
    runs = data.parse_appendix_b(text)
    overall, classes = runs[("Voting", "NB/SBS")][0]
    assert overall == {4, 7, 12}
    assert classes == {"republican": {4, 7}, "democrat": {4, 5, 11}}


def test_breast_ordered_coding():
    from widefs_reproduce.soares2010._probes import ORDERED, ordered_columns

    spec = data.DATASETS["breast cancer"]
    columns, nominal, _, names = data.load(spec)
    coded, mask = ordered_columns(columns, nominal, names)
    for j, name in enumerate(names):
        if name in ORDERED:
            assert not mask[j] and coded[j].dtype == float
            raw = columns[j]
            expect = [np.nan if v == "?" else float(v.split("-")[0]) for v in raw]
            np.testing.assert_array_equal(coded[j], expect)
        else:
            assert mask[j] and coded[j] is columns[j]
    assert set(np.unique(coded[names.index("deg-malig")])) == {1.0, 2.0, 3.0}


def test_render_only_names_the_tasks_that_have_not_finished(small, tmp_path):
    import shutil

    _, _, _, out, argv = small
    shutil.copytree(out / "soares2010", tmp_path / "soares2010")
    (tmp_path / "soares2010" / "tasks" / "pair-wine-kNN-SFS.json").unlink()
    assert run.main([*argv, "--out", str(tmp_path), "--render-only"]) == 0
    text = (tmp_path / "soares2010.md").read_text()
    assert "**Partial page: 1 task(s) have not finished** (`pair-wine-kNN-SFS`)" in text
    row = next(x for x in text.splitlines() if x.startswith("| wine | 94.06 / 91.56 / 92.92 |"))
    assert "not run" in row
