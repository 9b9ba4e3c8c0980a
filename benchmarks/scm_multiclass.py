"""Multiclass Set Covering Machines: is the combined bound valid, and how do they fare on tumours?

Writes two sections of docs/results/scm_multiclass.md (the k-mer section of that page is
written by ``benchmarks/bench_scm_presence.py``):

- ``multiclass_validity``: 200 synthetic draws (100 with 3 classes, 100 with 5) from a known
  distribution (``make_wide_classification``: Gaussian classes, 8 informative features of
  50, a new distribution each draw), 600 training and 20,000 test examples; for each of the
  three machines, the share of draws whose combined bound is at or above the test error
  (PAC-Bayes: the Gibbs risk its bound is about, and twice it for the Bayes classifier);
- ``multiclass_real``: lymphoma, srbct and glioma under 2 x 5-fold stratified cross-validation:
  the three machines (size and machines chosen by the bound on each training part), a
  one-vs-rest linear SVM (C tuned by an inner 3-fold search) and a decision tree with as
  many splits as the sample-compression machine of the same fold; test error, bound and
  size per method, then the machines fitted on all examples with their equivalent genes.

Usage::

    nice -n 10 python benchmarks/scm_multiclass.py [--quick]

``--quick``: 10 draws and one repetition of the folds; prints, writes nothing.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _report import write_section  # noqa: E402

RANGE = (-12.0, 12.0)  # a-priori range of the synthetic features (all values lie inside)


def _machines(feature_range=RANGE):
    from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM

    return {
        "sample-compression SCM": SampleCompressionSCM(),
        "Occam SCM": OccamSCM(feature_range=feature_range),
        "PAC-Bayes SCM": PACBayesSCM(feature_range=feature_range),
    }


def _test_risks(model, X, y) -> tuple[float, float]:
    """(risk the bound is about, error of predict) on a test set."""
    error = float(np.mean(model.predict(X) != y))
    if not hasattr(model, "gibbs_risk_"):
        return error, error
    proba = model.predict_proba(X)
    gibbs = 1.0 - proba[np.arange(y.size), np.searchsorted(model.classes_, y)]
    return float(np.mean(gibbs)), error


def validity(n_draws: int, m: int = 600, n_test: int = 20_000) -> tuple[str, str]:
    """The bound-validity section (per class count and machine, draws with bound >= test
    risk) and its headline."""
    from sklearn.base import clone

    from widefs.datasets._synthetic import make_wide_classification

    rows = {}
    for k in (3, 5):
        for draw in range(n_draws // 2):
            X, y = make_wide_classification(
                m + n_test, 50, n_informative=8, effect_size=2.0, n_classes=k,
                random_state=1000 * k + draw,
            )  # fmt: skip
            assert np.abs(X).max() < RANGE[1]
            order = np.random.default_rng([k, draw]).permutation(y.size)
            train, test = order[:m], order[m:]
            for name, est in _machines().items():
                model = clone(est).fit(X[train], y[train])
                risk, error = _test_risks(model, X[test], y[test])
                bayes = getattr(model, "bayes_risk_bound_", model.risk_bound_)
                rows.setdefault((k, name), []).append((model.risk_bound_, risk, bayes, error))
    lines = [
        "## Is the combined bound valid? 200 synthetic draws",
        "",
        "`nice -n 10 python benchmarks/scm_multiclass.py`: each draw is a new distribution "
        "(`make_wide_classification(20600, 50, n_informative=8, effect_size=2.0, "
        "n_classes=k)`), 600 training and 20,000 test examples, delta = 0.05 (a valid bound "
        "fails in at most 5% of draws). The bound of a decision list is the sum of its "
        "machines' bounds at delta / N(k) (N = 6 for 3 classes, 65 for 5). PAC-Bayes bounds "
        "the Gibbs risk; its Bayes classifier (`predict`) has twice that bound.",
        "",
        "| classes | learner | draws | bound >= test risk | mean bound | mean test risk | "
        "Bayes: bound >= error |",
        "|---|---|---|---|---|---|---|",
    ]
    held = []
    for (k, name), vals in rows.items():
        b, r, bb, e = (np.array(v) for v in zip(*vals, strict=True))
        held.append(np.mean(b >= r))
        lines.append(
            f"| {k} | {name} | {b.size} | {np.mean(b >= r):.1%} | {b.mean():.3f} | "
            f"{r.mean():.3f} | {np.mean(bb >= e):.1%} |"
        )
    share = "every" if min(held) == 1 else f"at least {min(held):.0%} of the"
    headline = (
        f"the decision lists' risk bounds held on {share} synthetic draw (a valid bound: 95%)"
    )
    return "\n".join(lines) + "\n", headline


def _baselines(seed: int):
    from sklearn.model_selection import GridSearchCV
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    svm = make_pipeline(StandardScaler(), OneVsRestClassifier(SVC(kernel="linear")))
    grid = {"onevsrestclassifier__estimator__C": [0.001, 0.01, 0.1, 1.0]}
    return GridSearchCV(svm, grid, cv=3)


def _fold(X, y, train, test, seed) -> dict:
    """Test error, bound and size of every method on one outer fold."""
    from sklearn.tree import DecisionTreeClassifier

    out = {}
    lo, hi = X[train].min(axis=0), X[train].max(axis=0)
    for name, est in _machines((lo, hi)).items():
        model = est.fit(X[train], y[train])
        out[name] = (
            np.mean(model.predict(X[test]) != y[test]),
            model.risk_bound_,
            len(model.rules_),
        )
    splits = out["sample-compression SCM"][2]
    tree = DecisionTreeClassifier(max_leaf_nodes=max(splits + 1, 2), random_state=seed)
    tree.fit(X[train], y[train])
    out["decision tree (same size)"] = (
        np.mean(tree.predict(X[test]) != y[test]), np.nan, tree.tree_.node_count // 2
    )  # fmt: skip
    svm = _baselines(seed).fit(X[train], y[train])
    out["one-vs-rest linear SVM"] = (np.mean(svm.predict(X[test]) != y[test]), np.nan, X.shape[1])
    return out


def real_data(repeats: int) -> tuple[str, str]:
    """Nested CV of the multiclass machines and baselines on three tumour datasets, and the
    section's headline."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    from widefs.datasets import load_dataset
    from widefs.scm import describe_model

    lines = [
        "## Tumour subtypes: lymphoma, srbct, glioma",
        "",
        f"`nice -n 10 python benchmarks/scm_multiclass.py`: {repeats} x 5-fold stratified "
        "cross-validation (seed 0); on each training part the machines choose their size and "
        "the class each machine separates by the bound (feature ranges: the training part's "
        "minimum and maximum, so the Occam and PAC-Bayes bounds are heuristic), the SVM its C "
        "by an inner 3-fold search, and the tree gets as many splits as the sample-compression "
        "machine (at least one). Test error is mean ± sd over the folds; 'bound >= error' "
        "counts the folds whose bound is at or above the fold's test error.",
        "",
        "| dataset | method | test error | bound | bound >= error | size (median) |",
        "|---|---|---|---|---|---|",
    ]
    texts, scm, svm = [], [], []
    for name in ("lymphoma", "srbct", "glioma"):
        data = load_dataset(name)
        X, y = np.asarray(data.data, dtype=float), np.asarray(data.target)
        cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=repeats, random_state=0)
        folds = [_fold(X, y, tr, te, 0) for tr, te in cv.split(X, y)]
        for method in folds[0]:
            err, bound, size = (np.array(v, dtype=float) for v in zip(*[f[method] for f in folds]))
            valid = f"{np.mean(bound >= err):.0%}" if not np.isnan(bound).all() else ""
            if method.endswith("SCM"):
                scm.append((err.mean(), np.median(size)))
            elif method.endswith("SVM"):
                svm.append(err.mean())
            shown = f"{np.nanmean(bound):.3f}" if valid else ""
            lines.append(
                f"| {name} | {method} | {err.mean():.3f} ± {err.std():.3f} | {shown} | {valid} | "
                f"{np.median(size):.0f} |"
            )
        names = np.asarray(data.feature_names)
        for model in _machines((X.min(axis=0), X.max(axis=0))).values():
            texts.append(f"{name}: " + describe_model(model.fit(X, y), feature_names=names))
    lines += ["", "The machines fitted on all examples of each dataset:", "", "```text"]
    errors, sizes = zip(*scm, strict=True)
    headline = (
        f"on three tumour-subtype data sets the machines keep {min(sizes):.0f}-{max(sizes):.0f} "
        f"stumps at a test error of {min(errors):.2f}-{max(errors):.2f}, where a linear SVM on "
        f"every gene makes {min(svm):.2f}-{max(svm):.2f}"
    )
    return "\n".join([*lines, "\n\n".join(texts), "```"]) + "\n", headline


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts = {
            "multiclass_validity": validity(10 if args.quick else 200),
            "multiclass_real": real_data(1 if args.quick else 2),
        }
    for name, (text, headline) in parts.items():
        print(text)
        if not args.quick:
            write_page_section(name, text, headline)
    return 0


def write_page_section(name: str, text: str, headline: str) -> None:
    """Store section ``name`` of docs/results/scm_multiclass.md and render the page."""
    write_section(name, text, headline=headline)


if __name__ == "__main__":
    raise SystemExit(main())
