"""The Shah et al. (2010) reproduction: a small seeded run whose numbers are checked."""

import json
import shutil

import numpy as np
import pytest
from sklearn.model_selection import KFold

from widefs_reproduce import _store
from widefs_reproduce import shah2010 as exp
from widefs_reproduce.shah2010 import _scm
from widefs_reproduce.shah2010._data import grids, load


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("shah")
    argv = ["--quick", "--datasets", "colon", "--out", str(out)]
    assert exp.main(argv) == 0
    raw = json.loads((out / "shah2010" / "runs" / "colon-rep00.json").read_text())["result"]
    return out, argv, raw


def test_seeded_baseline_numbers(quick):
    # Colon's first 150 genes, repetition 0 (seed spawn_seeds(2010, 1)[0]): errors per outer
    # fold of the scikit-learn baselines, pinned.
    _, _, raw = quick
    assert raw["seed"] == 182329856 and (raw["m"], raw["n"]) == (62, 150)
    errors = {k: [f[k]["errors"] for f in raw["folds"]] for k in ("svm", "svm_gs", "svm_rfe")}
    assert errors == {
        "svm": [3, 4, 3, 3, 1],
        "svm_gs": [2, 1, 6, 3, 3],
        "svm_rfe": [4, 3, 2, 2, 1],
    }
    assert sum(len(f) for f in raw["folds"]) == 5 * 8  # 4 baselines, 3 SCMs, fixed margin


def test_seeded_scm_numbers(quick):
    # The SCMs on the same folds (quick grids): test errors and sizes per outer fold of the
    # CV-selected and bound-selected models, and the PAC-Bayes bounds, pinned.
    _, _, raw = quick
    folds = raw["folds"]

    def per_fold(kind, sel, field):
        return [f[kind][sel][field] for f in folds]

    assert per_fold("sc", "cv", "errors") == [3, 5, 4, 5, 2]
    assert per_fold("sc", "bound", "errors") == [3, 5, 5, 3, 2]
    assert per_fold("occam", "cv", "errors") == [3, 5, 7, 6, 4]
    assert per_fold("occam", "bound", "size") == [0, 0, 0, 0, 0]  # the empty conjunction
    # The empty conjunction predicts the majority class (tumor): its errors are the normal
    # tissues of each test fold.
    X, y = load("colon", 150)
    normal = [
        int(np.sum(y[te] == "normal"))
        for _, te in KFold(5, shuffle=True, random_state=raw["seed"]).split(X)
    ]
    assert per_fold("occam", "bound", "errors") == normal == [4, 6, 2, 5, 5]
    assert per_fold("pb", "cv", "errors") == [3, 5, 5, 2, 2]
    assert per_fold("pb", "cv", "size") == [2, 1, 2, 2, 2]
    assert per_fold("pb", "bound", "errors") == [3, 6, 6, 3, 5]
    np.testing.assert_allclose(
        per_fold("pb", "bound", "bound"),
        [0.606515, 0.599061, 0.62136, 0.594948, 0.610016],
        atol=1e-6,
    )
    np.testing.assert_allclose(
        per_fold("pb", "cv", "gibbs_errors"), [3.240862, 5.0, 5.0, 2.260879, 2.0], atol=1e-6
    )


def test_nested_cv_matches_separate_fits_per_size(quick):
    # The experiment scores every number of stumps v from the prefixes of one greedy run;
    # fitting one model per (config, v) must pick the same model and test errors.
    _, _, raw = quick
    X, y = load("colon", 150)
    rng = (X.min(axis=0), X.max(axis=0))
    g = grids(True)
    seed = raw["seed"]
    tr, te = next(iter(KFold(5, shuffle=True, random_state=seed).split(X)))
    inner = list(KFold(5, shuffle=True, random_state=seed + 1000).split(tr))
    for kind in ("sc", "occam"):
        spec = g[kind]
        scores = {}
        for ci, cfg in enumerate(_scm.configs(spec)):
            for v in range(1, spec["v"] + 1):
                scores[(ci, v)] = sum(
                    int(
                        np.sum(
                            _scm.make(kind, cfg, v, rng, "none")
                            .fit(X[tr][a], y[tr][a])
                            .predict(X[tr][b])
                            != y[tr][b]
                        )
                    )
                    for a, b in inner
                )
        ci, v = min(scores, key=lambda k: (scores[k], k[1], k[0]))
        chosen = raw["folds"][0][kind]["cv"]
        assert chosen["config"] == {**_scm.configs(spec)[ci], "v": v}
        model = _scm.make(kind, _scm.configs(spec)[ci], v, rng, "none").fit(X[tr], y[tr])
        assert chosen["errors"] == int(np.sum(model.predict(X[te]) != y[te]))
        assert chosen["size"] == len(model.rules_)


def test_page_is_made_of_the_run_and_resumes(quick, monkeypatch):
    out, argv, raw = quick
    text = (out / "shah2010.md").read_text()
    occam = sum(f["occam"]["cv"]["errors"] for f in raw["folds"])
    sc = sum(f["sc"]["cv"]["errors"] for f in raw["folds"])
    row = next(
        line
        for line in text.splitlines()
        if line.startswith("| Colon |") and "bits" not in line and line.count("|") == 12
    )
    cells = [c.strip() for c in row.split("|")]
    assert cells[2] == f"{occam:.1f}±0.0" and cells[5] == f"{sc:.1f}±0.0"
    assert "widefs reproduce shah2010 --quick --datasets colon --out" in text
    # Stored tasks are reused: a second run computes nothing.
    monkeypatch.setattr(exp, "one_repetition", lambda *a: pytest.fail("recomputed"))
    monkeypatch.setattr(exp, "one_hypothesis", lambda *a: pytest.fail("recomputed"))
    assert exp.main(argv) == 0


def test_task_store_recomputes_when_the_key_changes(tmp_path):
    calls = []

    def task(x):
        calls.append(x)
        return {"value": x}

    path = tmp_path / "t.json"
    assert _store.run_task(path, "a", task, 1) == {"value": 1}
    assert _store.run_task(path, "a", task, 2) == {"value": 1}  # stored, not recomputed
    assert _store.run_task(path, "b", task, 3) == {"value": 3}  # other settings: recomputed
    assert calls == [1, 3] and not list(tmp_path.glob("*.tmp"))


def test_render_only_renders_the_finished_repetitions(quick, tmp_path, monkeypatch):
    # A run stopped after repetition 0 of 2: --render-only computes nothing, renders the
    # finished repetition with the same numbers, and says how many are in and how to resume.
    out = quick[0]
    shutil.copytree(out, tmp_path / "out")
    monkeypatch.setattr(exp, "one_repetition", lambda *a: pytest.fail("computed"))
    monkeypatch.setattr(exp, "one_hypothesis", lambda *a: pytest.fail("computed"))
    argv2 = ["--quick", "--datasets", "colon", "--out", str(tmp_path / "out"), "--reps", "2"]
    assert exp.main([*argv2, "--render-only"]) == 0
    text = (tmp_path / "out" / "shah2010.md").read_text()
    assert "**Partial run: 1 of 2 repetitions.**" in text
    assert "- **Repetitions:** 1 of 2 planned (the paper: 20)" in text
    assert f"by `widefs reproduce shah2010 {' '.join(argv2)}`" in text
    table2 = [line for line in text.splitlines() if line.startswith("| Colon |")]
    full = [line for line in (out / "shah2010.md").read_text().splitlines()]
    assert table2 and all(line in full for line in table2)
    # Nothing stored: an error, not an empty page.
    with pytest.raises(ValueError, match="no complete repetition"):
        exp.main(["--quick", "--datasets", "colon", "--out", str(tmp_path / "e"), "--render-only"])
    with pytest.raises(ValueError, match="--fresh"):
        exp.main([*argv2, "--render-only", "--fresh"])


def test_tasks_run_repetition_by_repetition(tmp_path, monkeypatch):
    seen = []

    def stop(tasks, n_jobs):
        seen.extend((fn.__name__, args[1]) for _, _, fn, args in tasks)
        raise KeyboardInterrupt

    monkeypatch.setattr(_store, "run_tasks", stop)
    with pytest.raises(KeyboardInterrupt):
        argv = ["--quick", "--reps", "2", "--hypothesis-reps", "2", "--conjunction-reps", "2"]
        exp.main([*argv, "--out", str(tmp_path)])
    # Rep 0's data sets, its colon variant ("protocol" and "bound" are the colon runs) and
    # its conjunction-only runs, then rep 1's: a stopped run leaves whole repetitions behind.
    per_rep = [("one_repetition",)] * 2 + [("one_hypothesis",)] + [("one_conjunction",)] * 2
    assert seen == [(*t, r) for r in (0, 1) for t in per_rep]


def test_engine_fingerprint_follows_the_engines_results(monkeypatch):
    from widefs.scm import OccamSCM, SampleCompressionSCM

    base = _scm.engine_fingerprint()
    assert _scm.engine_fingerprint() == base
    fit = OccamSCM.fit

    def bound_off_by_1e9(self, X, y):  # a planted change of one bound in the 9th digit
        fit(self, X, y)
        self.risk_bound_ *= 1 + 1e-9
        return self

    with monkeypatch.context() as m:
        m.setattr(OccamSCM, "fit", bound_off_by_1e9)
        assert _scm.engine_fingerprint() != base
    predict = SampleCompressionSCM.predict

    def one_flipped(self, X):  # one prediction of the first example changed
        p = predict(self, X).copy()
        p[0] = self.classes_[1] if p[0] == self.classes_[0] else self.classes_[0]
        return p

    with monkeypatch.context() as m:
        m.setattr(SampleCompressionSCM, "predict", one_flipped)
        assert _scm.engine_fingerprint() != base
    assert _scm.engine_fingerprint() == base


def test_conjunction_runs_equal_the_protocol_when_its_grid_has_only_conjunctions(quick):
    # The quick grids hold conjunctions only: the conjunction-only task must then reproduce
    # the protocol's SCM results fold by fold (same folds, same selection).
    out, _, raw = quick
    conj = json.loads((out / "shah2010" / "conjunction" / "colon-rep00.json").read_text())
    conj = conj["result"]
    assert conj["seed"] == raw["seed"]
    for f_conj, f_raw in zip(conj["folds"], raw["folds"], strict=True):
        for kind in ("sc", "occam", "pb"):
            assert f_conj[kind] == f_raw[kind]
    text = (out / "shah2010.md").read_text()
    assert "## Conjunctions only (the paper's model) beside the protocol's grids" in text
    occam = sum(f["occam"]["cv"]["errors"] for f in raw["folds"])
    assert f"| Colon | Occam | {occam:.1f}±0.0 | {occam:.1f}±0.0 |" in text


def test_paired_change_against_scipy():
    from scipy import stats

    from widefs_reproduce.shah2010._probe_page import paired_change

    base = {"reps": [0, 1, 2, 3], "occam": [10, 12, 11, 9], "occam_folds": [2] * 20}
    var = {"reps": [0, 1, 2, 3], "occam": [12, 13, 11, 12], "occam_folds": [2, 3] * 10}
    c = paired_change(var, base, "occam")
    d = [2, 1, 0, 3]
    assert c["mean"] == pytest.approx(1.5) and c["se"] == pytest.approx(np.std(d, ddof=1) / 2)
    assert c["p"] == pytest.approx(stats.ttest_1samp(d, 0).pvalue, rel=1e-12)
    assert (c["up"], c["down"]) == (3, 0)
    assert c["fold_p"] == pytest.approx(2 * 0.5**10)  # ten equal positive differences
    assert paired_change({**var, "reps": [0, 1, 2, 4]}, base, "occam") is None


def test_disjunction_shares_count_the_chosen_model_types():
    from widefs_reproduce.shah2010._compare_page import disjunction_shares

    def fold(sc, occam, pb):
        return {
            k: {"cv": {"config": {"model_type": t}}}
            for k, t in zip(("sc", "occam", "pb"), (sc, occam, pb))
        }

    c, d = "conjunction", "disjunction"
    results = [
        {"dataset": "colon", "folds": [fold(c, d, c), fold(d, d, c)]},
        {"dataset": "leukemia", "folds": [fold(c, c, c), fold(c, d, c)]},
    ]
    shares = disjunction_shares(results)
    assert shares["sc"] == (0.25, 0.0, 0.5)
    assert shares["occam"] == (0.75, 0.5, 1.0)
    assert shares["pb"] == (0.0, 0.0, 0.0)
