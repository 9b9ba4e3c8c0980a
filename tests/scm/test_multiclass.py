"""More than two classes: the decision list of binary machines and its combined bound."""

import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from widefs._utils import sharing_label_free_work
from widefs.datasets import list_datasets, load_dataset
from widefs.model_selection import nested_evaluate, search_certificate
from widefs.scm import (
    OccamSCM,
    PACBayesSCM,
    SampleCompressionSCM,
    describe_model,
    from_json,
    occam_bound,
    pac_bayes_bound,
    sample_compression_bound,
)
from widefs.scm._multiclass import fit_decision_list, list_decisions, n_candidate_machines

RANGE = (-8.0, 8.0)


def _machines(**kw):
    return [
        SampleCompressionSCM(**kw),
        OccamSCM(feature_range=RANGE, **kw),
        PACBayesSCM(feature_range=RANGE, **kw),
    ]


def _three_classes(seed=0, m=90, n=30):
    """Class 0 where x0 > 0.5, else class 2 where x1 > 0, else class 1; 10% labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X[:, 0] > 0.5, "a", np.where(X[:, 1] > 0.0, "c", "b")).astype(object)
    flip = rng.random(m) < 0.1
    y[flip] = rng.choice(["a", "b", "c"], size=int(flip.sum()))
    return X, y


def _reachable(k):
    """Every (remaining classes, separated class) pair of every list the greedy can build."""
    seen = set()

    def walk(remaining):
        if len(remaining) < 2:
            return
        for a in remaining if len(remaining) > 2 else [max(remaining)]:
            seen.add((remaining, a))
            walk(remaining - {a})

    walk(frozenset(range(k)))
    return seen


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_candidate_count_is_every_pair_the_greedy_can_meet(k):
    assert n_candidate_machines(k) == len(_reachable(k))


def _numeric(name):
    """A bundled dataset as finite floats: categories as codes, missing values as medians."""
    X, y = load_dataset(name, return_X_y=True, as_frame=True)
    X = X.copy()
    for c in X.select_dtypes(include=object).columns:
        X[c] = pd.factorize(X[c])[0].astype(float)
        X.loc[X[c] < 0, c] = np.nan
    X = X.to_numpy(dtype=float)
    return np.where(np.isnan(X), np.nan_to_num(np.nanmedian(X, axis=0)), X), np.asarray(y)


BINARY = sorted(list_datasets().query("n_classes == 2").index)


@pytest.mark.parametrize("name", BINARY)
def test_two_classes_as_a_decision_list_are_the_binary_machine(name):
    X, y = _numeric(name)
    for est in _machines():
        est.set_params(feature_range=None) if hasattr(est, "feature_range") else None
        # (both fits share the presort of X: the labels do not enter it)
        with warnings.catch_warnings(), sharing_label_free_work():
            warnings.simplefilter("ignore")
            binary = clone(est).fit(X, y)
            listed = clone(est)
            Xv, codes = listed._validate_xy(X, y)
            fit_decision_list(listed, Xv, codes)
        (only,) = listed.machines_
        assert only.label == binary.classes_[1]
        assert only.machine.rules_ == binary.rules_ == listed.rules_
        assert only.machine.bound_path_.tolist() == binary.bound_path_.tolist()
        assert listed.risk_bound_ == binary.risk_bound_
        risk = binary._training_risk_attribute
        assert getattr(listed, risk) == pytest.approx(getattr(binary, risk), abs=1e-12)
        predicted = listed.classes_[list_decisions(listed, listed._check_X(X))]
        assert (predicted == binary.predict(X)).all()


def _node_bound(est, cm, X, y, m, delta):
    """A machine's bound recomputed from the bound functions and errors counted here."""
    rows = np.isin(y, cm.remaining)
    Xr, target = X[rows], y[rows] == cm.label
    mach = cm.machine
    n = X.shape[1]
    fired = mach.predict(Xr) == 1
    if isinstance(est, OccamSCM):
        return occam_bound(int((fired != target).sum()), m, n, [r.bits for r in mach.rules_], delta)
    if isinstance(est, SampleCompressionSCM):
        wrong = np.flatnonzero(fired != target)
        inside = np.isin(np.flatnonzero(rows)[wrong], mach.compression_set_).sum()
        return sample_compression_bound(int(wrong.size - inside), m, n, len(mach.rules_), delta)
    proba = mach.predict_proba(Xr)[:, 1]
    gibbs = float(np.sum(np.where(target, 1.0 - proba, proba))) / m
    return pac_bayes_bound(gibbs, m, n, mach.margin_ratios_, delta)


@pytest.mark.parametrize("est", _machines(), ids=lambda e: type(e).__name__)
def test_combined_bound_is_the_sum_of_machine_bounds_over_all_examples(est):
    X, y = _three_classes()
    est.fit(X, y)
    assert est.machines_[0].remaining == ("a", "b", "c")
    assert len(est.machines_) == 2 and len(est.machines_[1].remaining) == 2
    delta = est.delta / n_candidate_machines(3)
    bounds = [_node_bound(est, cm, X, y, X.shape[0], delta) for cm in est.machines_]
    for cm, b in zip(est.machines_, bounds, strict=True):
        assert cm.machine.risk_bound_ == pytest.approx(b, rel=1e-10)
    assert est.risk_bound_ == pytest.approx(min(1.0, sum(bounds)), rel=1e-10)
    # The classes of the first machine that fires, else the class left over (a plain walk).
    out = []
    for row in X:
        label = next(
            (cm.label for cm in est.machines_ if cm.machine.predict(row[None])[0] == 1),
            next(c for c in est.machines_[-1].remaining if c != est.machines_[-1].label),
        )
        out.append(label)
    assert (est.predict(X) == np.array(out, dtype=object)).all()
    risk = getattr(est, est._training_risk_attribute)
    if isinstance(est, PACBayesSCM):
        correct = est.predict_proba(X)[np.arange(y.size), np.searchsorted(est.classes_, y)]
        assert risk == pytest.approx(np.mean(1 - correct))
    else:
        assert risk == np.mean(est.predict(X) != y)
    assert est.search_score_ == 1 - risk


def test_each_machine_is_the_best_bound_among_the_classes_left():
    X, y = _three_classes(3)
    est = OccamSCM(feature_range=RANGE).fit(X, y)
    delta = est.delta / n_candidate_machines(3)
    first = est.machines_[0]
    for label in ("a", "b", "c"):
        other = clone(est).set_params(delta=delta)
        y_bin = (y == label).astype(int)
        other.fit(X, y_bin)  # all examples: m is the same as in the list
        if label == first.label:
            assert other.rules_ == first.machine.rules_
            assert other.risk_bound_ == first.machine.risk_bound_
        assert other.risk_bound_ >= first.machine.risk_bound_


def test_gibbs_probabilities_match_monte_carlo_draws():
    X, y = _three_classes(1, m=120)
    est = PACBayesSCM(feature_range=RANGE, eta=0.5).fit(X, y)
    proba = est.predict_proba(X[:5])
    assert proba.shape == (5, 3) and np.allclose(proba.sum(axis=1), 1.0)
    draws = np.array([est.predict_gibbs(X[:5], random_state=s) for s in range(1000)])
    freq = np.stack([(draws == c).mean(axis=0) for c in est.classes_], axis=1)
    # 1000 draws: standard error at most sqrt(0.25 / 1000) = 0.0158; five of them allowed.
    assert np.abs(freq - proba).max() < 5 * 0.0158
    assert (proba.max(axis=1) < 0.99).any()  # (some rows are uncertain: the check means something)


@pytest.mark.parametrize("est", _machines(), ids=lambda e: type(e).__name__)
def test_json_round_trip_of_a_decision_list(est):
    X, y = _three_classes(2)
    est.fit(pd.DataFrame(X, columns=[f"g{i}" for i in range(X.shape[1])]), y)
    again = from_json(est.to_json())
    assert type(again) is type(est)
    assert again.rules_ == est.rules_ and again.risk_bound_ == est.risk_bound_
    assert [cm.label for cm in again.machines_] == [cm.label for cm in est.machines_]
    frame = pd.DataFrame(X, columns=list(est.feature_names_in_))
    assert (again.predict(frame) == est.predict(frame)).all()
    assert describe_model(again) == describe_model(est)
    np.testing.assert_array_equal(again.feature_importances_, est.feature_importances_)


def _tampered(text, edit):
    doc = json.loads(text)
    edit(doc)
    return json.dumps(doc)


def test_bad_decision_list_files_name_the_field():
    X, y = _three_classes(2)
    text = OccamSCM(feature_range=RANGE).fit(X, y).to_json()
    cases = {
        "risk_bound must equal": lambda d: d.update(risk_bound=0.5),
        r"machines\[1\].label must be one of": lambda d: d["machines"][1].update(
            label=d["machines"][0]["label"]
        ),
        r"machines\[0\].model.rules\[0\].direction": lambda d: d["machines"][0]["model"]["rules"][
            0
        ].update(direction="up"),
        r"machines\[0\].model must not repeat": lambda d: d["machines"][0]["model"].update(
            params={}
        ),
        "machines must have 2 entries": lambda d: d["machines"].pop(),
        r"classes\[1:3\]": lambda d: d.update(classes=["a", "c", "b"]),
        "n_examples must not exceed": lambda d: d["machines"][1].update(n_examples=10**6),
    }
    for message, edit in cases.items():
        with pytest.raises(ValueError, match=message):
            from_json(_tampered(text, edit))


def test_multiclass_in_nested_evaluation_and_certificates():
    X, y = _three_classes(4, m=60, n=12)
    res = nested_evaluate(OccamSCM(feature_range=RANGE), X, y, cv=3, random_state=0)
    assert 0.0 <= res["mean"] <= 1.0 and res["n_selected"] is not None
    cert = search_certificate(SampleCompressionSCM(), X, y, n_permutations=9, random_state=0)
    assert cert.observed == SampleCompressionSCM().fit(X, y).search_score_
    assert 1 / 10 <= cert.pvalue <= 1.0


def test_binary_only_methods_say_so():
    X, y = _three_classes()
    est = PACBayesSCM(feature_range=RANGE).fit(X, y)
    with pytest.raises(ValueError, match="defined for two classes"):
        next(est.staged_predict(X))
    with pytest.raises(ValueError, match="defined for two classes"):
        next(est.staged_predict_proba(X))


def test_describe_model_reads_as_a_decision_list():
    X, y = _three_classes()
    est = SampleCompressionSCM().fit(X, y)
    text = describe_model(est)
    first, second = est.machines_
    other = next(c for c in second.remaining if c != second.label)
    assert f"predict {first.label}" in text and f"else predict {other}" in text
    assert f"delta/{n_candidate_machines(3)}" in text
    assert f"{est.risk_bound_:.3f}" in text


def test_machines_of_the_list_cover_every_order_of_classes():
    # Four classes, each defined by its own feature: every machine separates one class.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(160, 8))
    y = np.argmax(X[:, :4], axis=1)
    est = SampleCompressionSCM().fit(X, y)
    labels = [cm.label for cm in est.machines_]
    assert len(labels) == 3 and len(set(labels)) == 3
    remaining = [set(cm.remaining) for cm in est.machines_]
    for before, after, label in itertools.zip_longest(remaining, remaining[1:], labels):
        if after is not None:
            assert after == before - {label}
