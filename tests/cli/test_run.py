"""``widefs run``: the report's content and the one-line errors on bad input."""

import hashlib
import os
import re
import signal
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main
from widefs.datasets import load_dataset
from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM
from widefs.stats import highest_chance_accuracy
from widefs.univariate import DiscriminativeSelector

# A line of a finished stage (stderr is not a terminal); a failure's own line is one line.
STAGE_LINE = re.compile(r"^widefs: \[ *[\d.]+ s\] .*\n", flags=re.M)


@pytest.fixture(scope="module")
def colon_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "report"
    assert main(["run", "colon", "--permutations", "5", "--out", str(out)]) == 0
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
    # numbers are Theorem 4.1's at the majority-class error rate 11/31, shown as a bound
    # (imbalanced classes); the thresholds use the permutation null, as the selector does.
    p = 11 / 31
    assert f"{100 * highest_chance_accuracy(2000, 31, p):.1f}% (at most)" in md
    Xc, yc = load_dataset("colon", return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = DiscriminativeSelector(statistic="errors", n_permutations=1000, random_state=0)
        sel.fit(Xc, yc)
    assert sel.null_ == "permutation"
    assert re.search(rf"MGM threshold \(errors\) \| {sel.threshold_:.2f}", md)
    features = pd.read_csv(colon_report / "features.csv")
    assert len(features) == 2000
    selected = features.loc[features["MGM"] == 1, "errors"]
    assert selected.max() < sel.threshold_ <= features.loc[features["MGM"] == 0, "errors"].min()
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


def same_rows(frame):
    out = frame.copy()
    features = [c for c in out.columns if c != "label"]
    out[features] = out[features].iloc[0].to_numpy()
    return out


@pytest.mark.parametrize(
    ("mutate", "args", "message"),
    [
        (None, ["missing.csv"], "file not found: missing.csv"),
        (lambda f: f, ["--target", "nope"], "target column 'nope' not found"),
        (lambda f: f.head(0), [], "has a header but no data rows"),
        (
            lambda f: f.assign(label=["", " ", ""] + ["b"] * 27),
            [],
            "3 empty labels (data rows 1, 2, 3)",
        ),
        (lambda f: f.assign(label="a"), [], "single class ('a')"),
        (lambda f: f.assign(label=["a"] * 29 + ["b"]), [], "too few in: 'b' (1)"),
        (lambda f: f.assign(g3="x", g7="y"), [], "non-numeric feature columns: g3, g7"),
        (
            lambda f: f.assign(g5=[np.nan] + [1.0] * 29),
            [],
            "1 missing value in 1 column: g5 (the first in data row 1, column 'g5'); rerun "
            "with --impute",
        ),
        (
            lambda f: f.assign(**{f"g{i}": 1.0 for i in range(20)}),
            [],
            "all 20 feature columns are constant",
        ),
        (same_rows, [], "all 20 feature columns are constant (every row has the same values)"),
        (
            lambda f: f.assign(g3=1e307, g4=-1e200),
            [],
            "values up to 1e+307 in columns: g3, g4; magnitudes above 1e+150 overflow",
        ),
        (
            lambda f: f.assign(g3=[1e307] + [np.nan] * 29),
            ["--impute"],
            "values up to 1e+307 in columns: g3",
        ),
        (
            lambda f: f,
            ["--seed", "-5"],
            "argument --seed: must be between 0 and 4294967295, got -5",
        ),
        (lambda f: f, ["--seed", "1.5"], "argument --seed: must be an integer, got '1.5'"),
        (lambda f: f, ["--quick", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        (
            lambda f: f,
            ["--jobs", "0"],
            "argument --jobs: must be a positive integer or -1, got '0'",
        ),
        (lambda f: f, ["--jobs", "two"], "argument --jobs: must be a positive integer or -1"),
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
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".widefs-")]


def test_jobs_do_not_change_the_report(tmp_path):
    """--jobs spreads folds, permutations and feature blocks over processes; the report is the same."""
    path = write_csv(tmp_path / "toy.csv", toy_frame())
    texts = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        argv = ["run", path, "--target", "label", "--quick", "--permutations", "3"]
        assert main([*argv, "--jobs", jobs, "--out", str(out)]) == 0
        # Warnings a library raises once per process (the oldest environment's matplotlib
        # under pyparsing 3.3, at its first text layout) reach the first run only.
        md = (out / "report.md").read_text().split("\n## Warnings from libraries\n")[0]
        texts.append(md)
        texts.append((out / "features.csv").read_text())
    assert texts[0] == texts[2] and texts[1] == texts[3]
    assert "Search certificate" in texts[0]


@pytest.mark.parametrize("jobs", [1, 2, -1])
def test_jobs_bound_the_blas_threads_of_the_analysis(tmp_path, monkeypatch, jobs):
    """--jobs N keeps numpy's and scipy's BLAS on N threads while the analysis runs (-1:
    every core, left alone); the limit ends with it."""
    from threadpoolctl import threadpool_info, threadpool_limits

    import widefs.cli._main as cli_main

    def blas_threads():
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

    seen = []
    analysis = cli_main._analysis

    def recording(*args, **kwargs):
        seen.append(blas_threads())
        return analysis(*args, **kwargs)

    monkeypatch.setattr(cli_main, "_analysis", recording)
    path = write_csv(tmp_path / "toy.csv", toy_frame())
    argv = ["run", path, "--target", "label", "--quick", "--methods", "chance"]
    with threadpool_limits(limits=3, user_api="blas"):  # the caller's setting, not the cores'
        assert blas_threads() and set(blas_threads()) == {3}
        assert main([*argv, "--jobs", str(jobs), "--out", str(tmp_path / "out")]) == 0
        assert set(blas_threads()) == {3}  # restored
    assert seen and set(seen[0]) == {3 if jobs == -1 else jobs}


@pytest.mark.parametrize("jobs, value", [("1", "1"), ("2", None), ("-1", None)])
def test_a_one_job_command_starts_blas_with_one_thread(monkeypatch, jobs, value):
    """--jobs 1: the BLAS libraries the command loads start with one thread (an OpenBLAS
    with more spins them at load); more jobs: joblib's own limit for its workers stays; the
    caller's environment is restored and a value the caller set is kept."""
    import widefs.cli._main as cli_main

    names = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
    for name in names:
        monkeypatch.delenv(name, raising=False)
    seen = []
    monkeypatch.setattr(cli_main, "_command", lambda args: seen.append(
        {n: os.environ.get(n) for n in names}) or 0)  # fmt: skip
    assert main(["run", "colon", "--jobs", jobs]) == 0
    assert seen == [dict.fromkeys(names, value)]
    assert not any(n in os.environ for n in names)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    assert main(["run", "colon", "--jobs", jobs]) == 0
    assert seen[1]["OPENBLAS_NUM_THREADS"] == "4" and os.environ["OPENBLAS_NUM_THREADS"] == "4"


def test_empty_file(tmp_path, capsys):
    (tmp_path / "empty.csv").write_text("")
    assert main(["run", str(tmp_path / "empty.csv"), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip().endswith("empty.csv is empty (no header line)")


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", ["features.csv", "report.md", "report.html", "stability.png"])
def test_out_never_overwrites_the_input(tmp_path, capsys, monkeypatch, name):
    """``widefs run features.csv --out .`` refuses before any work; the input is untouched."""
    path = tmp_path / name
    write_csv(path, toy_frame())
    before = sha(path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", name, "--target", "label", "--out", "."]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"widefs: error: --out . would overwrite the input file {name} (the report writes "
        f"{name} there); choose another --out directory\n"
    )
    assert sha(path) == before and sorted(p.name for p in tmp_path.iterdir()) == [name]
    # The same file reached through a symbolic link is recognised too.
    (tmp_path / "link.csv").symlink_to(path)
    assert main(["run", "link.csv", "--target", "label", "--out", "."]) == 2
    assert "would overwrite the input file link.csv" in capsys.readouterr().err


def test_out_beside_the_input_is_fine(tmp_path):
    path = tmp_path / "data.csv"
    write_csv(path, toy_frame())
    before = sha(path)
    assert (
        main(["run", str(path), "--target", "label", "--methods", "chance", "--out", str(tmp_path)])
        == 0
    )
    assert sha(path) == before and (tmp_path / "report.html").exists()


def test_out_problems_are_one_line(tmp_path, capsys, monkeypatch):
    data = write_csv(tmp_path / "d.csv", toy_frame())
    a_file = tmp_path / "taken"
    a_file.write_text("keep me")
    cases = [
        (a_file, "--out {} exists and is not a directory"),
        (a_file / "sub", "--out {}: {} is not a directory"),
    ]
    for out, message in cases:
        assert main(["run", data, "--target", "label", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message.format(out, a_file) in err
    assert a_file.read_text() == "keep me"
    (tmp_path / "out" / "report.md").mkdir(parents=True)
    assert main(["run", data, "--target", "label", "--out", str(tmp_path / "out")]) == 2
    assert "contains a directory named report.md" in capsys.readouterr().err

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("widefs.cli._guard.tempfile.TemporaryDirectory", refuse)
    assert main(["run", data, "--target", "label", "--out", str(tmp_path / "new")]) == 2
    assert capsys.readouterr().err == (
        f"widefs: error: --out {tmp_path / 'new'} is not writable (Permission denied); "
        "choose another directory\n"
    )


def test_label_na_is_a_class_with_a_note(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    frame = toy_frame().assign(label=lambda f: f["label"].map({"a": "NA", "b": "b"}))
    path = write_csv(tmp_path / "na.csv", frame)
    out = tmp_path / "out"
    assert main(["run", path, "--target", "label", "--methods", "chance", "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert "NA (15), b (15)" in md
    note = "the label 'NA' (15 examples) is kept as a class; if it marks unknown labels, remove those rows"
    assert note in md and f"Note: {note}" in capsys.readouterr().out


def test_tiny_classes_use_fewer_folds_and_say_so(tmp_path):
    path = write_csv(tmp_path / "tiny.csv", toy_frame(n=4, p=6))
    out = tmp_path / "out"
    argv = [
        "run",
        path,
        "--target",
        "label",
        "--methods",
        "chance,compare",
        "--quick",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    md = (out / "report.md").read_text()
    assert "Every method below was evaluated with 1 x 2-fold" in md
    assert "the smallest class has only 2 examples, so 2-fold instead of 3-fold" in md


def test_tiny_multiclass_rules_split_holds_every_class(tmp_path):
    """6 examples, 3 classes: a third held out is 2 < 3 classes; the split grows to 3 and says so."""
    frame = toy_frame(n=6, p=4).assign(label=["a", "b", "c"] * 2)
    path = write_csv(tmp_path / "three.csv", frame)
    out = tmp_path / "out"
    assert main(["run", path, "--target", "label", "--methods", "rules", "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert "trained on 3 examples and tested once on the other 3" in md
    assert "The held-out part was enlarged from a third to one example per class." in md


def test_ctrl_c_exits_130_with_one_line(tmp_path, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("widefs.cli.io.load_cli_data", interrupted)
    assert main(["run", "colon", "--out", str(tmp_path / "o")]) == 130
    assert capsys.readouterr().err == "widefs: interrupted\n"
    assert not (tmp_path / "o").exists()


def test_ctrl_c_in_a_real_process(tmp_path):
    """SIGINT while the analysis runs: status 130, one line on stderr, no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "widefs.cli", "run", "colon", "--out", str(tmp_path / "o")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        # As from a shell: pytest-xdist workers ignore SIGINT, and an ignored SIGINT is
        # inherited (Python then installs no KeyboardInterrupt handler in the child).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    for line in proc.stdout:  # the dataset table is printed once the analysis starts
        if "samples" in line:
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    # The stages that ended before the interruption have their lines; then one line.
    assert STAGE_LINE.sub("", err) == "widefs: interrupted\n"
    assert not (tmp_path / "o").exists()


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


def _scm_models(X, y):
    """``(report name, fitted model)`` of the three SCMs as widefs run fits them."""
    names = {"PAC-Bayes SCM": PACBayesSCM, "sample-compression SCM": SampleCompressionSCM}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [(n, cls().fit(X, y)) for n, cls in {**names, "Occam SCM": OccamSCM}.items()]


def test_multiclass_csv_gets_scm_decision_lists_with_bounds(tmp_path):
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
    X, y = frame.drop(columns="label"), frame["label"].to_numpy()
    scm, table = md.split("## Set Covering Machines")[1], md.split("## Method comparison")[1]
    assert "decision list of 2 binary machines" in scm
    for name, model in _scm_models(X, y):
        risk = getattr(model, model._training_risk_attribute)
        assert f"| {name} | {len(model.rules_)} | {risk:.3f} | {model.risk_bound_:.3f} |" in scm
        for i, cm in enumerate(model.machines_, 1):
            assert f"| {name} | {i} | {cm.label} vs " in scm
        assert re.search(rf"\| {re.escape(name)} \| \d+\.\d ± \d+\.\d \|", table), name
    assert "binary data only" not in md


def test_unknown_method_group(tmp_path, capsys):
    assert main(["run", "colon", "--methods", "chance,nope", "--out", str(tmp_path / "x")]) == 2
    assert "unknown --methods nope" in capsys.readouterr().err


def test_lymphoma_reports_three_scm_rows_with_bounds(tmp_path):
    out = tmp_path / "lymphoma"
    assert main(["run", "lymphoma", "--methods", "scm", "--quick", "--out", str(out)]) == 0
    scm = (out / "report.md").read_text().split("## Set Covering Machines")[1]
    X, y = load_dataset("lymphoma", return_X_y=True, as_frame=True)
    for name, model in _scm_models(X, y):
        assert len(model.machines_) == 2
        assert re.search(
            rf"\| {re.escape(name)} \| \d+ \| [\d.]+ \| {model.risk_bound_:.3f} \|", scm
        )
    assert "## Search certificate: sample-compression SCM" in scm
