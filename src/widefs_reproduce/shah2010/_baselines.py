"""Table I: linear SVM, SVM on Golub's top genes, SVM-RFE and AdaBoost (scikit-learn).

Every learning parameter (C, the number of genes, the number of boosting rounds) is chosen
by the nested 5-fold CV on the training part; gene rankings and RFE run inside each
training part, so no selection sees a test example.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

__all__ = ["golub_ranking", "rfe_subsets", "run_baselines"]


def _svm(C):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return make_pipeline(StandardScaler(), SVC(kernel="linear", C=C))


def errors(pred, y) -> int:
    """Number of misclassified examples."""
    return int(np.sum(np.asarray(pred) != np.asarray(y)))


def golub_ranking(X, y_bin):
    """Genes by decreasing |mu1 - mu0| / (sd1 + sd0) (Golub et al. 1999), ties to the lower index."""
    a, b = X[y_bin], X[~y_bin]
    score = np.abs(a.mean(0) - b.mean(0)) / (a.std(0) + b.std(0) + 1e-300)
    return np.argsort(-score, kind="stable")


def rfe_subsets(X, y, sizes):
    """SVM-RFE by halving (Guyon et al. 2002): genes kept at each size in ``sizes``."""
    keep = np.arange(X.shape[1])
    out = {}
    for size in sorted(set(sizes), reverse=True):
        while keep.size > size:
            w = _svm(1.0).fit(X[:, keep], y)[-1].coef_.ravel()
            n_next = max(size, keep.size // 2)
            # drop the genes with the smallest |w| (stable: ties keep the lower index)
            ranked = np.argsort(-np.abs(w), kind="stable")[:n_next]
            keep = keep[np.sort(ranked)]
        out[size] = keep.copy()
    return out


def _linear_svm(Xtr, ytr, Xte, yte, inner, g):
    cv = {
        C: sum(errors(_svm(C).fit(Xtr[a], ytr[a]).predict(Xtr[b]), ytr[b]) for a, b in inner)
        for C in g["svm_C"]
    }
    C = min(cv, key=lambda c: (cv[c], g["svm_C"].index(c)))
    return {"errors": errors(_svm(C).fit(Xtr, ytr).predict(Xte), yte)}


def _svm_gs(Xtr, ytr, Xte, yte, inner, g, pos):
    sizes = [min(2**i, Xtr.shape[1]) for i in g["gs_i"]]
    cv = Counter()
    for a, b in inner:
        order = golub_ranking(Xtr[a], ytr[a] == pos)
        for s in sizes:
            for C in g["gs_C"]:
                f = order[:s]
                cv[(s, C)] += errors(
                    _svm(C).fit(Xtr[a][:, f], ytr[a]).predict(Xtr[b][:, f]), ytr[b]
                )
    s, C = min(cv, key=lambda k: (cv[k], k[0], k[1]))
    f = golub_ranking(Xtr, ytr == pos)[:s]
    return {"errors": errors(_svm(C).fit(Xtr[:, f], ytr).predict(Xte[:, f]), yte), "size": s}


def _svm_rfe(Xtr, ytr, Xte, yte, inner, g):
    sizes = [min(2**i, Xtr.shape[1]) for i in g["rfe_i"]]
    cv = Counter()
    for a, b in inner:
        subsets = rfe_subsets(Xtr[a], ytr[a], sizes)
        for s in sizes:
            f = subsets[s]
            cv[s] += errors(_svm(1.0).fit(Xtr[a][:, f], ytr[a]).predict(Xtr[b][:, f]), ytr[b])
    s = min(cv, key=lambda k: (cv[k], k))
    f = rfe_subsets(Xtr, ytr, [s])[s]
    return {
        "errors": errors(_svm(1.0).fit(Xtr[:, f], ytr).predict(Xte[:, f]), yte),
        "size": int(s),
    }


def _ada(rounds):
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    return AdaBoostClassifier(
        DecisionTreeClassifier(max_depth=1), n_estimators=rounds, random_state=0
    )


def _adaboost(Xtr, ytr, Xte, yte, inner, g):
    rounds = g["ada_rounds"]
    cv = Counter()
    for a, b in inner:  # staged predictions: every number of rounds from one fit
        stages = list(_ada(max(rounds)).fit(Xtr[a], ytr[a]).staged_predict(Xtr[b]))
        for r in rounds:
            cv[r] += errors(stages[min(r, len(stages)) - 1], ytr[b])
    r = min(cv, key=lambda k: (cv[k], k))
    return {"errors": errors(_ada(r).fit(Xtr, ytr).predict(Xte), yte), "size": int(r)}


def run_baselines(X, y, tr, te, inner, g) -> dict:
    """Test errors (and chosen sizes) of the four baselines on one outer fold."""
    Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
    pos = np.unique(y)[1]
    return {
        "svm": _linear_svm(Xtr, ytr, Xte, yte, inner, g),
        "svm_gs": _svm_gs(Xtr, ytr, Xte, yte, inner, g, pos),
        "svm_rfe": _svm_rfe(Xtr, ytr, Xte, yte, inner, g),
        "adaboost": _adaboost(Xtr, ytr, Xte, yte, inner, g),
    }
