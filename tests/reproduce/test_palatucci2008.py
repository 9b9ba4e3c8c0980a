"""The Palatucci & Carlson reproduction: a small seeded run whose numbers are checked."""

import csv

import numpy as np
import pytest
from sklearn.model_selection import LeaveOneOut, cross_val_predict
from sklearn.naive_bayes import GaussianNB

from widefs.datasets import load_dataset
from widefs.stats import expected_min_errors
from widefs_reproduce import palatucci2008 as exp
from widefs_reproduce.palatucci2008._protocol import RULES, gap_errors_allowed


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("palatucci")
    assert exp.main(["--quick", "--out", str(out)]) == 0
    with (out / "palatucci2008" / "runs.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    return out, (out / "palatucci2008.md").read_text(), rows


def _row(rows, dataset, seed, rule):
    return next(
        r for r in rows if r["dataset"] == dataset and r["seed"] == str(seed) and r["rule"] == rule
    )


def test_no_selection_equals_leave_one_out_gaussian_nb(quick):
    # Independent computation: with every feature kept, the protocol is plain leave-one-out
    # Gaussian naive Bayes (the halves only matter for scoring features).
    _, _, rows = quick
    X, y = load_dataset("colon", return_X_y=True)
    pred = cross_val_predict(GaussianNB(), np.asarray(X)[:, :500], y, cv=LeaveOneOut())
    for seed in (0, 1):
        assert float(_row(rows, "colon", seed, "all")["accuracy"]) == pytest.approx(
            np.mean(pred == y), abs=1e-6
        )


def test_seeded_quick_numbers(quick):
    # Colon's first 500 genes, seeds 0 and 1: M = 500, N = 31, E[X(1)] = 7.25 (at most 7
    # errors). Pinned leave-one-out accuracies (correct examples out of 62) of this run.
    _, _, rows = quick
    cut = expected_min_errors(500, 31, 0.5)
    assert 7 < cut < 8
    r = _row(rows, "colon", 0, "max_chance")
    assert (r["M"], r["N"], r["median_errors_allowed"]) == ("500", "31", "7.0")
    correct = {
        (seed, rule): round(62 * float(_row(rows, "colon", seed, rule)["accuracy"]))
        for seed in (0, 1)
        for rule in RULES
    }
    assert correct == {
        (0, "all"): 37,
        (0, "max_chance"): 52,
        (0, "fdr"): 47,
        (0, "mgm"): 40,
        (0, "oracle"): 52,
        (1, "all"): 37,
        (1, "max_chance"): 51,
        (1, "fdr"): 50,
        (1, "mgm"): 39,
        (1, "oracle"): 51,
    }
    # The oracle is the best single errors-allowed value: never below a fixed-cut rule.
    for seed in (0, 1):
        for rule in ("all", "max_chance", "mgm"):
            assert correct[(seed, "oracle")] >= correct[(seed, rule)]


def test_page_is_made_of_the_run(quick):
    out, text, rows = quick
    acc = [float(_row(rows, "colon", s, "max_chance")["accuracy"]) for s in (0, 1)]
    cell = f"{100 * np.mean(acc):.1f} ± {100 * np.std(acc, ddof=1):.1f}"
    colon = next(line for line in text.splitlines() if line.startswith("| colon |"))
    assert cell in colon.split("|")[6]
    oracle_e = [
        int(float(_row(rows, "colon", s, "oracle")["median_errors_allowed"])) for s in (0, 1)
    ]
    low, high = gap_errors_allowed(expected_min_errors(500, 31, 0.5), 15.5)
    inside = sum(low <= e <= high for e in oracle_e)
    assert f"colon: inside in {inside} of 2 seeds" in text
    # The paper prints only "80%" for Example 4.1; Figure 1 has no paper column.
    assert 'the paper prints "80%"' in text and "widefs **0.7975**" in text
    for png in ["figure1.png", "figure2_colon.png", "figure3_colon.png", "figure3_synthetic1.png"]:
        assert (out / "palatucci2008" / png).stat().st_size > 1000


def test_gap_in_errors_allowed_matches_brute_force():
    # e is in the gap when some cut t in [lo, hi] ("fewer than t errors") keeps exactly the
    # features with at most e errors: e = ceil(t) - 1.
    rng = np.random.default_rng(0)
    for _ in range(200):
        lo, hi = np.sort(rng.uniform(0, 20, size=2))
        if rng.random() < 0.3:
            lo = float(np.round(lo))  # integer ends are the delicate case
        ts = np.concatenate([np.linspace(lo, hi, 4001), [lo, hi]])
        brute = set((np.ceil(ts) - 1).astype(int).tolist())
        low, high = gap_errors_allowed(lo, hi)
        assert brute == set(range(low, high + 1))


def test_default_out_is_a_new_folder_in_the_working_directory(tmp_path, monkeypatch):
    from widefs_reproduce._common import output_paths

    monkeypatch.chdir(tmp_path)
    page, data = output_paths("palatucci2008", None)
    assert page == tmp_path / "widefs-palatucci2008" / "palatucci2008.md"
    assert data.is_dir() and data == tmp_path / "widefs-palatucci2008" / "palatucci2008"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        output_paths("palatucci2008", tmp_path / "file")


def test_every_selector_and_curve_is_built_by_the_protocol_helper():
    # One place pins the paper's protocol parameters: no other module of the reproductions
    # names the selector or the curve function.
    from pathlib import Path

    import widefs_reproduce
    from widefs_reproduce.palatucci2008 import _protocol

    root = Path(widefs_reproduce.__file__).parent
    for path in root.rglob("*.py"):
        if path.name == "_protocol.py" and path.parent.name == "palatucci2008":
            continue
        text = path.read_text(encoding="utf-8")
        for name in (
            "DiscriminativeSelector",
            "leave_one_out_threshold_curve",
            "threshold_in_errors",
        ):
            assert name not in text, (path, name)
    sel = _protocol.selector("mgm", seed=3, p_error="uniform", null="analytic")
    assert sel.get_params()["alpha"] == _protocol.PROTOCOL["alpha"] and sel.random_state == 3
    assert {k: sel.get_params()[k] for k in _protocol.PROTOCOL} == _protocol.PROTOCOL
