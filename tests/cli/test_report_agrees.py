"""A report that agrees with itself: one verdict per method, wherever it is named; one name
per rule; no duplicated columns; words that agree in number; the chance level the text uses
marked on its figure; terminal tables that wrap at word boundaries in 80 columns."""

import contextlib
import csv
import io
import re

import numpy as np
import pandas as pd
import pytest

from widefs.cli import main


def _unescape(md: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", md)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Every part on 40 x 300 imbalanced data with a signal, stdout and stderr captured."""
    tmp = tmp_path_factory.mktemp("agree")
    rng = np.random.default_rng(3)
    y = np.array(["tumour"] * 26 + ["normal"] * 14)
    X = rng.normal(size=(40, 300))
    X[y == "normal", :6] += 1.2
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(300)])
    frame["class"] = y
    frame.to_csv(tmp / "d.csv", index=False)
    out, stdout, stderr = tmp / "out", io.StringIO(), io.StringIO()
    args = ["run", str(tmp / "d.csv"), "--permutations", "19", "--null-permutations", "50"]
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        assert main([*args, "--out", str(out)]) == 0
    md = _unescape((out / "report.md").read_text())
    return {"out": out, "md": md, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}


def _sections(md: str) -> dict:
    parts = re.split(r"^## ", md, flags=re.M)[1:]
    return {p.split("\n", 1)[0]: p for p in parts}


def _table_rows(section: str, first_header: str) -> list[list[str]]:
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[start + 1 :]]


def test_one_verdict_per_method_wherever_it_is_named(run):
    sections = _sections(run["md"])
    table = {r[0]: f"{r[1]}: {r[2]}" for r in _table_rows(sections["Verdicts"], "method")}
    compared = {
        r[0] for r in _table_rows(sections["Method comparison (nested cross-validation)"], "method")
    }
    assert set(table) == compared  # every compared method has exactly one verdict row
    named = re.findall(r"\*\*Verdict on (.+?)\*\*: (.+)", run["md"])
    assert {name for name, _ in named} >= {"CN2-POE rules", "PAC-Bayes SCM", "MGM + naive Bayes"}
    for name, sentence in named:
        assert sentence == table[name], name  # the same words as the table, everywhere
    # The single split is described as such, never as a verdict.
    cn2 = sections["CN2 rules with process-oriented estimation (Domingos 1999)"]
    assert "One split of" in cn2 and "no usable signal" not in cn2
    assert "no usable signal" not in sections["Verdicts"]


def test_a_verdict_follows_its_evidence(run):
    rows = _table_rows(_sections(run["md"])["Verdicts"], "method")
    for name, label, evidence in rows:
        interval = re.search(r"interval \[([\d.]+)%, ([\d.]+)%\], which (lies above|includes) "
                             r"chance \(([\d.]+)%\)", evidence)  # fmt: skip
        low, chance = float(interval[1]), float(interval[4])
        assert (interval[3] == "lies above") == (low > chance), name
        p = re.search(r"search p-value ([\d.]+)", evidence)
        certified = p is not None and float(p[1]) <= 0.05
        expected = {
            (True, True): "signal beyond chance",
            (False, True): "search beats noise, accuracy not shown",
            (True, False): "accurate, search not certified",
            (False, False): "no evidence beyond chance",
        }[low > chance, certified]
        assert label == expected, name


def test_one_name_per_rule_across_tables(run):
    sections = _sections(run["md"])
    selection = {
        r[0] for r in _table_rows(sections["Discriminative feature selection"], "threshold")
    }
    loo = {r[0] for r in _table_rows(sections["Leave-one-out accuracy by threshold"], "threshold")}
    # The screen's FDR / Bonferroni rules and the paper's binomial ones are different rules.
    assert {"FDR 5%", "Bonferroni 5%"} <= selection
    assert not {"FDR 5%", "Bonferroni 5%"} & loo
    assert {"FDR 5% of errors (binomial)", "Bonferroni 5% of errors (binomial)"} <= loo
    assert {"MGM", "E[X(1)]"} <= selection & loo, (selection, loo)  # the same rule, one name


def test_features_csv_has_no_duplicated_columns(run):
    header, *rows = list(csv.reader((run["out"] / "features.csv").read_text().splitlines()))
    assert len(header) == len(set(header))
    pvalues = [j for j, h in enumerate(header) if h.startswith("p-value")]
    columns = {header[j]: tuple(r[j] for r in rows) for j in pvalues}
    assert len(set(columns.values())) == len(columns)  # no column repeats another
    # The report's p-value column is one of them, under the same name.
    shown = _table_rows(_sections(run["md"])["Discriminative feature selection"], "feature")
    assert shown
    head = re.search(r"^\| feature \| (.+) \|$", run["md"], flags=re.M)[1].split(" | ")
    assert set(head) - {"yes"} <= set(header)


def test_words_agree_in_number(run):
    for text in (run["md"], run["stdout"]):
        assert not re.search(
            r"(?<![\d.,])1 (errors|rounds|examples|features|classes|warnings|kinds|"
            r"relabellings|rules|stumps|folds)\b",
            text,
        )


def test_terminal_tables_wrap_at_word_boundaries_in_80_columns(run):
    lines = run["stdout"].splitlines()
    assert max(len(line) for line in lines) <= 80
    names = _table_rows(_sections(run["md"])["Verdicts"], "method")
    words = {w for name, *_ in names for w in name.split()}
    cells = [c.strip() for line in lines for c in line.split("│")]
    cell_words = {w for c in cells for w in c.split()}
    assert words <= cell_words  # "sample-compression", not "sample-com" + "pression"


def test_the_chance_figure_marks_the_level_the_text_uses():
    from widefs.analysis import analyse
    from widefs.cli.render._chance import chance_sections

    rng = np.random.default_rng(0)
    y = np.array(["a"] * 30 + ["b"] * 10)
    X = rng.normal(size=(40, 200))
    result = analyse(X, y, methods=["chance"], quick=True, n_null_permutations=30)
    fit = result.chance
    data = type("Data", (), {"feature_names": [f"x{j}" for j in range(200)], "y": y, "name": "d"})
    chance = chance_sections(result, data)[0]
    figure = next(b for b in chance.blocks if getattr(b, "name", "") == "chance_curve.png")
    labels = [t.get_text() for t in figure.figure.axes[0].get_legend().get_texts()]
    used = f"{100 * fit.chance_accuracy[fit.null_used]:.1f}%"
    assert fit.null_used == "permutation"  # imbalanced classes
    assert [label for label in labels if "(in use)" in label] == [
        f"this data, permutation null: {used} (in use)"
    ]
    headline = "".join(span.text for span in chance.blocks[0].text.inline())
    assert f"reaching {used} accuracy" in headline
