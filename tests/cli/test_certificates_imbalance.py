"""``widefs run`` on imbalanced classes: balanced accuracy and per-class recall beside accuracy,
CN2 certified by its cross-validated score, and certificates that cannot inform say so."""

import html
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import GaussianNB

from widefs.analysis import CERTIFIED, CertificateOutcome
from widefs.cli import main
from widefs.cli.render import _certificates, _compare
from widefs.model_selection import (
    SearchCertificate,
    majority_baseline,
    nested_evaluate,
    search_certificate,
)
from widefs.rules import CN2Classifier

SICK, WELL = "<sick>", "well & fine"  # labels that are markup in HTML and markdown


@pytest.fixture(scope="module")
def imbalanced_run(tmp_path_factory):
    """56 samples, 50 vs 6, 20 features; the rare class is shifted in two of them."""
    rng = np.random.default_rng(4)
    tmp = tmp_path_factory.mktemp("imbalanced")
    frame = pd.DataFrame(rng.normal(size=(56, 20)), columns=[f"g{i}" for i in range(20)])
    frame["label"] = [WELL] * 50 + [SICK] * 6
    frame.loc[frame["label"] == SICK, ["g0", "g1"]] += 2.5
    path = tmp / "data.csv"
    frame.to_csv(path, index=False)
    out = tmp / "out"
    argv = ["run", str(path), "--target", "label", "--methods", "chance,rules,compare", "--quick"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*argv, "--permutations", "4", "--seed", "2", "--out", str(out)]) == 0
    X, y = frame.drop(columns="label").to_numpy(), frame["label"].to_numpy()
    return X, y, (out / "report.md").read_text(), (out / "report.html").read_text()


def _row(md, name):
    return next(line for line in md.splitlines() if line.startswith(f"| {name} |"))


def test_comparison_shows_balanced_accuracy_and_recall_from_the_library(imbalanced_run):
    X, y, md, page = imbalanced_run
    table = md.split("**Nested cross-validated accuracy**")[1]
    header = [c.strip() for c in _row(table, "method").split("|")]
    assert "balanced accuracy % (mean, 95% CI)" in header
    assert "recall % per class (95% CI)" in header
    res = nested_evaluate(GaussianNB(), X, y, cv=3, n_repeats=1, random_state=2)
    cells = [c.strip() for c in _row(table, "naive Bayes, all features").split("|")]
    lo, hi = res["balanced_ci"]
    balanced = f"{100 * res['balanced_mean']:.1f} \\[{100 * lo:.1f}, {100 * hi:.1f}\\]"
    assert cells[header.index("balanced accuracy % (mean, 95% CI)")] == balanced
    recall = cells[header.index("recall % per class (95% CI)")]
    (slo, shi), (wlo, whi) = res["class_recall_ci"]  # classes sorted: "<sick>", "well & fine"
    assert f"{100 * res['class_recall'][0]:.0f} \\[{100 * slo:.0f}, {100 * shi:.0f}\\]" in recall
    assert f"{100 * res['class_recall'][1]:.0f} \\[{100 * wlo:.0f}, {100 * whi:.0f}\\]" in recall
    # The majority class in both terms: 50 of 56 = 89.3% accuracy, 50.0% balanced accuracy.
    assert "Predicting the majority class scores 89.3%." in md
    assert "scores only 50.0% balanced accuracy" in md
    # HTML: the same cells, the labels escaped (never markup).
    assert "<th>balanced accuracy % (mean, 95% CI)</th>" in page
    assert "<th>recall % per class (95% CI)</th>" in page
    assert html.escape(SICK) + f" {100 * res['class_recall'][0]:.0f} [" in page
    assert html.escape(WELL) + f" {100 * res['class_recall'][1]:.0f} [" in page
    assert SICK not in page.replace(html.escape(SICK), "")


def test_cn2_certificate_is_cross_validated_balanced_accuracy(imbalanced_run):
    X, y, md, _ = imbalanced_run
    cert = search_certificate(
        CN2Classifier(),
        X,
        y,
        score="cv",
        cv=5,
        scoring="balanced_accuracy",
        n_permutations=4,
        random_state=2,
    )
    section = md.split("## Search certificate: CN2 rules (significance)")[1].split("\n## ")[0]
    assert (
        "Its score, the 5-fold cross-validated balanced accuracy, is "
        + (f"{cert.observed:.3f} on the real labels")
        in section
    )
    assert f"| search p-value | {_cell(cert)} |" in section
    real = cert.cross_validation
    assert f"| cross-validated accuracy (real labels) | {real.accuracy:.3f} |" in section
    assert f"| cross-validated balanced accuracy | {real.balanced_accuracy:.3f} |" in section
    recall = re.search(r"\| cross-validated recall per class \| (.*) \|", section).group(1)
    assert f"{real.class_recall[0]:.3f}" in recall and f"{real.class_recall[1]:.3f}" in recall
    assert "| majority class: accuracy / balanced accuracy | 0.893 / 0.500 |" in section
    table = md.split("**Nested cross-validated accuracy**")[1]
    assert _row(table, "CN2 rules (significance)").split("|")[-3].strip() == (_cell(cert))


def _cell(cert):
    """The comparison's p-value cell of a certificate, written independently of the CLI."""
    if cert.uninformative is not None:
        return f"none ({cert.uninformative})"
    return f"{cert.pvalue:.3f}"


def _outcome(name, cert=None, error=None):
    item = next(item for item in CERTIFIED if item.name == name)
    fields = dict(group=item.group, name=item.name, score=item.score, compared_as=item.compared_as)
    return CertificateOutcome(**fields, certificate=cert, error=error)


def test_uninformative_certificates_in_words():
    perms = np.zeros((4, 3), int)
    saturated = SearchCertificate(1.0, np.array([1.0, 1.0, 0.95, 1.0]), perms, None)
    empty = SearchCertificate(0.7, np.array([0.6, 0.7, 0.5, 0.6]), perms, None, n_selected=[0])
    informative = SearchCertificate(0.9, empty.null_scores, perms, None)
    for cert, cell in [
        (saturated, "none (null at maximum)"),
        (empty, "none (nothing selected)"),
        (informative, "0.200"),
    ]:
        out = _outcome("PAC-Bayes SCM", cert)
        assert _certificates.pvalue_text(out.status, out.pvalue) == cell
    failed = _outcome("PAC-Bayes SCM", error="ValueError: boom")
    assert _certificates.pvalue_text(failed.status, failed.pvalue) == "failed"
    assert _certificates.pvalue_text("not certified", float("nan")) == "-"

    baseline = majority_baseline([0, 1] * 5)
    for cert, words in [
        (saturated, "no score on the real labels could give a p-value below 0.800"),
        (empty, "the method kept no feature on the real labels"),
    ]:
        section = _certificates._section(_outcome("PAC-Bayes SCM", cert), 4, baseline)
        text = "\n".join(block.markdown() for block in section.blocks if hasattr(block, "markdown"))
        assert "**No search p-value**" in text and words in text
        assert "**Search p-value" not in text
        assert "| search p-value | none: " in text
    section = _certificates._section(failed, 4, baseline)
    text = "\n".join(block.markdown() for block in section.blocks if hasattr(block, "markdown"))
    assert "could not be computed: ValueError: boom" in text


def test_comparison_row_without_any_kept_feature_says_so():
    row = {
        "applies": True,
        "features": 0.0,
        "stability": float("nan"),
        "search_pvalue": float("nan"),
        "certificate": "uninformative: no feature kept",
        "empty_folds": 3,
        "folds": 3,
        "note": "note",
    }
    n_sel, stability, pvalue, note = _compare._selection_cells(row)
    assert (n_sel, stability, pvalue) == ("0", "", "none (no feature kept)")
    assert note.startswith("note; fallback in 3 of 3 folds")
    row.update(certificate="ok", search_pvalue=0.0333, empty_folds=2, features=float("nan"))
    assert _compare._selection_cells(row)[:3] == ("all", "", "0.033")
    assert _compare._selection_cells(row)[3].startswith("note; fallback in 2 of 3 folds")
    row.update(certificate="not certified", empty_folds=0)
    assert _compare._selection_cells(row)[2:] == ("-", "note")
