"""docs/results/fdr.md is exactly what ``benchmarks/bench_fdr.py --render-only`` writes from
the stored results in docs/results/fdr/: no hand edits, the command in its header is the one
that measured it, and the page keeps its shape (a verdict of at most five lines, the checks
as PASS/FAIL lines, at most 3,500 words)."""

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
BENCH = ROOT / "benchmarks"


def _module(name):
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module


@pytest.fixture(scope="module")
def bench():
    return _module("bench_fdr")


@pytest.fixture(scope="module")
def page():
    return (RESULTS / "fdr.md").read_text(encoding="utf-8")


def test_page_is_what_the_renderer_writes_from_the_stored_results(bench, page, tmp_path):
    shutil.copytree(RESULTS / "fdr", tmp_path / "fdr")
    assert bench.main(["--render-only", "--out", str(tmp_path)]) == 0
    written = (tmp_path / "fdr.md").read_text(encoding="utf-8")
    assert written.splitlines()[:10] == page.splitlines()[:10]  # the verdict and command first
    assert written == page


def test_header_names_the_command_that_measured_the_page(bench, page):
    run = bench.load(RESULTS / "fdr")
    head = page.split("## Checks")[0]
    commands = re.findall(r"Command: `([^`]+)`", head)
    assert commands == [run["fdr"]["command"]]
    assert commands[0].startswith("nice -n 10 python benchmarks/bench_fdr.py")
    assert "--quick" not in commands[0]
    assert run["fdr"]["replicates"] >= 50


def test_page_shape(page):
    verdict = page.split("Command:")[0].strip().splitlines()[1:]
    assert 1 <= len([line for line in verdict if line.strip()]) <= 5
    checks = page.split("## Checks")[1].split("\n## ")[0]
    assert len(re.findall(r"^- \*\*(PASS|FAIL)\*\* ", checks, flags=re.M)) == 4
    assert len(page.split()) <= 3500


def test_every_regime_and_method_is_stored(bench):
    run = bench.load(RESULTS / "fdr")
    cells = {(r["regime"], r["method"], r["q"]) for r in run["fdr"]["cells"]}
    for regime in bench.REGIMES:
        for method in bench.methods_for(regime):
            for q in bench.QS:
                assert (regime.label, method, q) in cells, (regime.label, method, q)
    kinds = {(r["regime"], r["method"], r["kind"]) for r in run["fdr"]["kinds"]}
    mixed = [r for r in bench.REGIMES if r.kind == "mixed"]
    assert len(kinds) == len(mixed) * 3 * len(bench.KINDS)


def _rows(power_default, power_limma, fdr=0.04):
    return [
        dict(
            regime="microarray 4v4",
            method=m,
            q=q,
            replicates=50.0,
            fdr=fdr,
            fdr_se=0.005,
            power=p,
            power_se=0.01,
        )
        for m, p in (("widefs default", power_default), ("limma", power_limma))
        for q in (0.05, 0.10)
    ]


def test_checks_fail_when_the_numbers_fail(bench):
    page = _module("_fdr_page")
    kinds = [
        dict(
            regime="mixed null, 8/40",
            method="widefs default",
            kind="cauchy",
            p001=0.0031,
            p001_se=0.0005,
            bh05=0.0,
            bh10=0.0,
        )
    ]
    lines = page.check_lines(page.Cells(_rows(0.40, 0.43)), kinds)
    assert (
        lines[0].startswith("- **FAIL**") and "microarray 4v4 q = 0.05: 0.400 vs 0.430" in lines[0]
    )
    assert lines[2].startswith("- **FAIL**") and "3.10e-03 > 3.00e-03" in lines[2]
    assert lines[3].startswith("- **PASS**")
    lines = page.check_lines(page.Cells(_rows(0.415, 0.43, fdr=0.07)), kinds[:0])
    assert lines[0].startswith("- **PASS**")
    assert lines[3].startswith("- **FAIL**") and "0.070 > 0.060" in lines[3]


def test_limma_path_equals_the_independent_moderated_statistics():
    pytest.importorskip("inmoose")
    limma = _module("_limma")
    rng = np.random.default_rng(3)
    sd = np.sqrt(4 * 0.09 / rng.chisquare(4, 500))
    E = sd[:, None] * rng.standard_normal((500, 12))
    for y in (np.repeat([0, 1], 6), np.repeat([0, 1, 2], 4)):
        p_inmoose, p_here = limma.limma_pvalues(E, y), limma.moderated_pvalues(E, y)
        np.testing.assert_allclose(p_inmoose, p_here, rtol=1e-10)
    # Every gene's residual variance equal: the prior's df is infinite (inmoose's eBayes
    # raises there), the moderated t is the t on the pooled df.
    y = np.repeat([0, 1], 4)
    E = rng.standard_normal((500, 8))
    means, _, s2, df = limma.group_fit(E, y)
    E = means[:, y] + (E - means[:, y]) / np.sqrt(s2)[:, None]
    assert limma.fit_f_prior(limma.group_fit(E, y)[2], df)[0] == np.inf
    np.testing.assert_allclose(limma.limma_pvalues(E, y), limma.moderated_pvalues(E, y), rtol=1e-10)


def test_simulated_data_is_what_the_page_says():
    sim = _module("_simulate_fdr")
    by = {r.label: r for r in sim.REGIMES}
    X, y, truth = sim.make_data(by["microarray 4v4"], 7)
    assert X.shape == (8, 10_000) and 0.02 <= truth.mean() <= 0.05 and truth[: truth.sum()].all()
    shift = X[y == 1].mean(axis=0) - X[y == 0].mean(axis=0)
    assert abs(np.abs(shift[truth]).mean() - 1) < 0.2 and abs(shift[~truth].mean()) < 0.05
    C, y, truth = sim.make_data(by["RNA-seq 6v6"], 7)
    assert C.dtype.kind == "i" and C.min() >= 0 and C.max() > 1000 and 0.02 <= truth.mean() <= 0.05
    X, y, kind = sim.make_data(by["mixed null, 8/40"], 7)
    assert np.bincount(kind).tolist() == [2000, 250, 250, 250, 250]
    binary = X[:, kind == 4]
    assert set(np.unique(binary)) == {0.0, 1.0} and (binary.sum(axis=0) == 2).all()
    assert 0.6 < (X[:, kind == 2] == 0).mean() < 0.8
    # Same seed, same data: every method sees the same replicate.
    np.testing.assert_array_equal(
        sim.make_data(by["RNA-seq 6v6"], 3)[0], sim.make_data(by["RNA-seq 6v6"], 3)[0]
    )
