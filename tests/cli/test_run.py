"""``widefs run``: the report's content and the one-line errors on bad input."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.datasets import load_dataset
from widefs.scm import PACBayesSCM
from widefs.stats import highest_chance_accuracy, mgm_threshold


@pytest.fixture(scope="module")
def colon_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "report"
    assert main(["run", "colon", "--out", str(out)]) == 0
    return out


def test_colon_report_files_and_numbers(colon_report):
    names = {p.name for p in colon_report.iterdir()}
    assert {
        "report.md",
        "report.html",
        "chance_curve.png",
        "errors_allowed.png",
        "features.csv",
    } <= names
    md = (colon_report / "report.md").read_text()
    assert "](chance_curve.png)" in md and "](errors_allowed.png)" in md
    html = (colon_report / "report.html").read_text()
    # Self-contained: both figures embedded, no reference to files beside it.
    pngs = sorted(p.name for p in colon_report.glob("*.png"))
    assert (
        html.count('src="data:image/png;base64,') == len(pngs) >= 3
        and 'src="chance_curve.png"' not in html
    )
    assert "Nested cross-validated accuracy" in md and "MGM + naive Bayes" in md
    # The SCM row shows the fitted model's own training risk and bound.
    X, y = load_dataset("colon", as_frame=True, return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pb = PACBayesSCM().fit(X, y)
    row = f"| PAC-Bayes SCM | {len(pb.rules_)} | {pb.gibbs_risk_:.3f} | {pb.risk_bound_:.3f} |"
    assert row in md
    # M = 2000 genes, N = 31 validation examples (20 tumour / 11 normal): the analytic
    # numbers are Theorem 4.1's at the majority-class error rate 11/31.
    p = 11 / 31
    assert f"{100 * highest_chance_accuracy(2000, 31, p):.1f}%" in md
    assert re.search(rf"MGM threshold \(errors\) \| {mgm_threshold(2000, 31, p):.2f}", md)
    features = pd.read_csv(colon_report / "features.csv")
    assert len(features) == 2000
    selected = features.loc[features["mgm"] == 1, "errors"]
    assert (
        selected.max()
        < mgm_threshold(2000, 31, p)
        <= features.loc[features["mgm"] == 0, "errors"].min()
    )
    for png in ("chance_curve.png", "errors_allowed.png"):
        assert (colon_report / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def write_csv(path, frame):
    frame.to_csv(path, index=False)
    return str(path)


def toy_frame(n=30, p=20, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"g{i}" for i in range(p)])
    frame["label"] = np.where(np.arange(n) % 2 == 0, "a", "b")
    frame.loc[frame["label"] == "a", "g0"] += 3
    return frame


def test_user_csv_with_target(tmp_path):
    path = write_csv(tmp_path / "toy.csv", toy_frame())
    out = tmp_path / "out"
    assert main(["run", path, "--target", "label", "--out", str(out)]) == 0
    features = pd.read_csv(out / "features.csv")
    assert features.sort_values("errors").iloc[0]["feature"] == "g0"


@pytest.mark.parametrize(
    ("mutate", "args", "message"),
    [
        (None, ["missing.csv"], "file not found: missing.csv"),
        (lambda f: f, ["--target", "nope"], "target column 'nope' not found"),
        (lambda f: f.assign(label="a"), [], "single class ('a')"),
        (lambda f: f.assign(label=["a"] * 29 + ["b"]), [], "too few in: 'b' (1)"),
        (lambda f: f.assign(g3="x", g7="y"), [], "non-numeric feature columns: g3, g7"),
        (
            lambda f: f.assign(g5=[np.nan] + [1.0] * 29),
            [],
            "NaN or infinite values in columns: g5 (use --impute",
        ),
    ],
)
def test_bad_input_one_line_error_nothing_written(tmp_path, capsys, mutate, args, message):
    out = tmp_path / "out"
    if mutate is None:
        argv = ["run", str(tmp_path / args[0]), "--out", str(out)]
        message = message.replace("missing.csv", str(tmp_path / "missing.csv"))
    else:
        path = write_csv(tmp_path / "bad.csv", mutate(toy_frame()))
        target = [] if "--target" in args else ["--target", "label"]
        argv = ["run", path, *target, *args, "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("widefs: error: ") and message in err and "\n" not in err
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".widefs-report-")]


def test_impute_replaces_missing_values(tmp_path):
    frame = toy_frame()
    frame.loc[0, "g5"] = np.nan
    path = write_csv(tmp_path / "nan.csv", frame)
    out = tmp_path / "out"
    assert main(["run", path, "--target", "label", "--impute", "--out", str(out)]) == 0
    assert "imputed columns" in (out / "report.md").read_text()


def test_datasets_command(capsys):
    assert main(["datasets"]) == 0
    assert "colon" in capsys.readouterr().out


def test_leukemia_quick_report_is_complete(tmp_path):
    out = tmp_path / "leuk"
    assert main(["run", "leukemia", "--quick", "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    for heading in [
        "## Chance analysis",
        "## Set Covering Machines",
        "## CN2 rules",
        "## Class-specific ensemble",
        "## Method comparison",
        "## Stability of the selected features",
    ]:
        assert heading in md
    # Every method of the comparison has a row with an accuracy.
    table = md.split("## Method comparison")[1]
    for name in ["MGM + naive Bayes", "PAC-Bayes SCM", "CN2-POE rules", "CEFS ensemble"]:
        assert re.search(rf"\| {re.escape(name)}[^|]* \| \d+\.\d ± \d+\.\d \|", table), name


def test_multiclass_csv_skips_binary_only_methods(tmp_path):
    frame = toy_frame(n=45, p=30)
    frame["label"] = np.array(["a", "b", "c"] * 15)
    frame.loc[frame["label"] == "c", "g1"] += 3
    path = write_csv(tmp_path / "three.csv", frame)
    out = tmp_path / "out"
    assert (
        main(
            [
                "run",
                path,
                "--target",
                "label",
                "--quick",
                "--methods",
                "chance,scm,compare",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    md = (out / "report.md").read_text()
    assert "binary classifiers; this dataset has more than two classes" in md
    assert "| PAC-Bayes SCM | binary data only |" in md


def test_unknown_method_group(tmp_path, capsys):
    assert main(["run", "colon", "--methods", "chance,nope", "--out", str(tmp_path / "x")]) == 2
    assert "unknown --methods nope" in capsys.readouterr().err


def test_reproduce_runs_a_paper_quick(tmp_path):
    assert main(["reproduce", "palatucci2008", "--quick", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "palatucci2008.md").read_text()
    assert "Example 4.1" in text and "widefs **0.7975**" in text
