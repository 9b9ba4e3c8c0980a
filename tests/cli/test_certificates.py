"""``widefs run``: search certificates in the report, driven by ``--permutations``."""

import re
import warnings

import numpy as np
import pandas as pd

from widefs.cli import main
from widefs.exceptions import HeuristicBoundWarning
from widefs.model_selection import search_certificate
from widefs.scm import SampleCompressionSCM
from widefs.univariate import DiscriminativeSelector


def _toy(tmp_path, n=30, p=12):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"g{i}" for i in range(p)])
    frame["label"] = np.where(np.arange(n) % 2 == 0, "a", "b")
    frame.loc[frame["label"] == "a", "g0"] += 3
    path = tmp_path / "toy.csv"
    frame.to_csv(path, index=False)
    return str(path), frame


def _table_row(md, name):
    return next(line for line in md.splitlines() if line.startswith(f"| {name} |"))


def test_certificates_in_report_match_the_library(tmp_path):
    path, frame = _toy(tmp_path)
    out = tmp_path / "out"
    argv = ["run", path, "--target", "label", "--methods", "chance,scm,compare", "--quick"]
    assert main([*argv, "--permutations", "7", "--seed", "3", "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    table = md.split("**Nested cross-validated accuracy**")[1]
    X, y = frame.drop(columns="label").to_numpy(), frame["label"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeuristicBoundWarning)
        scm = search_certificate(SampleCompressionSCM(), X, y, n_permutations=7, random_state=3)
    ds = search_certificate(
        DiscriminativeSelector(null="analytic", random_state=3),
        X,
        y,
        n_permutations=7,
        random_state=3,
    )
    header = _table_row(table, "method")
    assert "search p-value" in header
    column = header.split("|").index(" search p-value ")
    assert (
        _table_row(table, "sample-compression SCM").split("|")[column].strip()
        == f"{scm.pvalue:.3f}"
    )
    assert (
        _table_row(table, "FDR 5% + naive Bayes").split("|")[column].strip() == f"{ds.pvalue:.3f}"
    )
    assert _table_row(table, "naive Bayes, all features").split("|")[column].strip() == "-"
    assert "## Search certificate: sample-compression SCM" in md
    assert "on 7 random relabellings" in md
    observed = re.search(r"training accuracy of the kept stumps, is ([0-9.]+)", md).group(1)
    assert observed == f"{scm.observed:.3f}"
    assert (out / "certificate-sample-compression-scm.png").stat().st_size > 1000
    assert "a search p-value of 0.3 would say" in md
    # Both permutation nulls of the run use the same N.
    assert re.search(r"\| label permutations \| 7 \|", md)


def test_quick_default_permutations(tmp_path):
    path, _ = _toy(tmp_path, n=20, p=6)
    out = tmp_path / "out"
    argv = ["run", path, "--target", "label", "--methods", "scm", "--quick", "--out", str(out)]
    assert main(argv) == 0
    assert "on 9 random relabellings" in (out / "report.md").read_text()
