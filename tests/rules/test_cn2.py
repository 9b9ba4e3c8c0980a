"""A deliberately plain CN2 / CN2-POE (loops over examples and conditions) used as an oracle.

It follows the documented semantics of ``widefs.rules.CN2Classifier`` with Laplace quality
but shares none of its code: candidate conditions are enumerated one at a time and their
coverage counted example by example.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

EQ, LE, GT = 0, 1, 2


def _laplace(counts, target):
    n = sum(counts)
    hit = max(counts) if target is None else counts[target]
    return (hit + 1.0) / (n + len(counts))


def _satisfies(row_num, row_code, cond):
    f, op, v = cond
    if op == EQ:
        return row_code[f] == v
    x = row_num[f]
    if math.isnan(x):
        return False
    return x <= v if op == LE else x > v


def _merge(conds, cond):
    f, op, _ = cond
    if op != EQ:
        conds = [c for c in conds if not (c[0] == f and c[1] == op)]
    return tuple(sorted([*conds, cond]))


def _significant(counts, base, alpha):
    if alpha is None:
        return True
    keep = [i for i, b in enumerate(base) if b > 0]
    if len(keep) < 2:
        return False
    n = sum(counts)
    total = sum(base)
    g = 0.0
    for i in keep:
        if counts[i] > 0:
            g += counts[i] * math.log(counts[i] / (n * base[i] / total))
    return stats.chi2.sf(2 * g, len(keep) - 1) < alpha


def _poe(counts, target, m, prior, n_classes):
    n = sum(counts)
    hit = max(counts) if target is None else counts[target]
    e0 = (n_classes - 1) / n_classes
    eps = (n - hit + 2.0 * e0) / (n + 2.0)
    m_eff = max(1.0, math.log2(m))
    return eps / m_eff + (1 - 1 / m_eff) * prior


def find_rule(rows, num, codes, y, n_classes, nominal, target, prior, cfg):
    """Rows: list of example indices. Returns (conds, covered rows, counts) or None."""

    def counts_of(cov):
        c = [0] * n_classes
        for i in cov:
            c[y[i]] += 1
        return c

    base = counts_of(rows)
    poe = cfg["stopping"] == "poe"
    root = ((), list(rows), base, _laplace(base, target))
    beam, best, m = [root], (root if poe else None), 1
    est = _poe(base, target, 1, prior, n_classes) if poe else None
    while beam:
        if cfg["max_len"] is not None:
            beam = [b for b in beam if len(b[0]) < cfg["max_len"]]
        if not beam:
            break
        cands = []
        for member_idx, (_conds, cov, _, _) in enumerate(beam):
            for f in range(num.shape[1]):
                if nominal[f]:
                    values = sorted({codes[i, f] for i in cov if codes[i, f] >= 0})
                    tests = [(f, EQ, float(v)) for v in values]
                else:
                    values = sorted({num[i, f] for i in cov if not math.isnan(num[i, f])})
                    tests = [(f, LE, v) for v in values] + [(f, GT, v) for v in values]
                for cond in tests:
                    sub = [i for i in cov if _satisfies(num[i], codes[i], cond)]
                    if cfg["min_covered"] <= len(sub) < len(cov):
                        c = counts_of(sub)
                        cands.append((member_idx, cond, sub, c, _laplace(c, target)))
        if not cands:
            break
        order = sorted(range(len(cands)), key=lambda k: (-cands[k][4], -len(cands[k][2]), k))
        m_new = m + len(cands)
        round_best = None
        for k in order:
            if _significant(cands[k][3], base, cfg["alpha"]):
                if best is None or cands[k][4] > best[3]:
                    mi, cond, sub, c, q = cands[k]
                    round_best = (_merge(beam[mi][0], cond), sub, c, q)
                break
        new_beam, seen = [], set()
        for k in order:
            mi, cond, sub, c, q = cands[k]
            conds = _merge(beam[mi][0], cond)
            if frozenset(conds) in seen:
                continue
            seen.add(frozenset(conds))
            new_beam.append((conds, sub, c, q))
            if len(new_beam) == cfg["beam_width"]:
                break
        if poe:
            candidate = round_best if round_best is not None else best
            new_est = _poe(candidate[2], target, m_new, prior, n_classes)
            if new_est >= est:
                break
            best, est = candidate, new_est
        elif round_best is not None:
            best = round_best
        m, beam = m_new, new_beam
    return best


def learn(num, codes, y, n_classes, nominal, cfg):
    """Rule list as [(conds, counts)], for ordered or unordered mode."""
    n = len(y)
    rules = []
    if cfg["mode"] == "ordered":
        rows = list(range(n))
        while rows:
            remaining = [sum(1 for i in rows if y[i] == c) for c in range(n_classes)]
            if sum(1 for r in remaining if r) <= 1:
                break
            prior = 1 - max(remaining) / len(rows)
            best = find_rule(rows, num, codes, y, n_classes, nominal, None, prior, cfg)
            if best is None or not best[0]:
                break
            rules.append((best[0], best[2]))
            covered = set(best[1])
            rows = [i for i in rows if i not in covered]
        return rules
    for t in range(n_classes):
        rows = list(range(n))
        while any(y[i] == t for i in rows):
            remaining = [sum(1 for i in rows if y[i] == c) for c in range(n_classes)]
            # poe_prior="class": the error of the empty rule for class t on these rows.
            top = remaining[t] if cfg.get("poe_prior") == "class" else max(remaining)
            prior = 1 - top / len(rows)
            best = find_rule(rows, num, codes, y, n_classes, nominal, t, prior, cfg)
            if best is None or not best[0] or best[2][t] == 0:
                break
            full = [i for i in range(n) if all(_satisfies(num[i], codes[i], c) for c in best[0])]
            counts = [sum(1 for i in full if y[i] == c) for c in range(n_classes)]
            rules.append((best[0], counts))
            covered = set(best[1])
            rows = [i for i in rows if not (i in covered and y[i] == t)]
    return rules


# ---------------------------------------------------------------------------- tests
import itertools  # noqa: E402

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from widefs._utils import encode_transform  # noqa: E402
from widefs.rules import CN2Classifier  # noqa: E402

_OPS = {"==": EQ, "<=": LE, ">": GT}


def _random_problem(seed, n=50):
    """Two nominal and two numeric attributes (ties, NaNs, missing categories), 3 classes."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = rng.integers(0, 4, n)
    u = rng.integers(0, 8, n).astype(float)
    v = np.round(rng.normal(size=n), 1)
    y = (a + (u > 4) + rng.integers(0, 2, n)) % 3
    u[rng.random(n) < 0.1] = np.nan
    b_obj = np.array([f"b{k}" for k in b], dtype=object)
    b_obj[rng.random(n) < 0.1] = None
    X = pd.DataFrame({"a": pd.Categorical([f"a{k}" for k in a]), "b": b_obj, "u": u, "v": v})
    return X, np.array(["p", "q", "r"])[y]


def _matrix(model, X):
    """The model's encoded matrix (numeric values with NaN, category codes with -1/-2)."""
    return encode_transform(model, X, model._encoding)


def _encoded(model, X):
    """The encoded matrix split as the reference reads it: numeric part, code part."""
    Xe = _matrix(model, X)
    nominal = model.categorical_features_
    return np.where(nominal, np.nan, Xe), np.where(nominal, Xe, -1).astype(int)


CONFIGS = [
    dict(stopping="significance", alpha=None, mode="ordered", beam_width=3, max_len=None),
    dict(stopping="significance", alpha=0.05, mode="ordered", beam_width=2, max_len=None),
    dict(stopping="significance", alpha=None, mode="unordered", beam_width=2, max_len=2),
    dict(stopping="poe", alpha=None, mode="ordered", beam_width=5, max_len=None),
    dict(stopping="poe", alpha=None, mode="unordered", beam_width=3, max_len=None),
    dict(stopping="poe", alpha=0.1, mode="ordered", beam_width=1, max_len=3),
    dict(
        stopping="poe", alpha=None, mode="unordered", beam_width=3, max_len=None, poe_prior="class"
    ),
    dict(stopping="poe", alpha=None, mode="ordered", beam_width=5, max_len=None, poe_prior="class"),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_rule_lists_match_plain_reference(seed, cfg):
    X, y = _random_problem(seed)
    min_covered = 2 if seed == 2 else 1
    model = CN2Classifier(
        cfg["stopping"],
        mode=cfg["mode"],
        beam_width=cfg["beam_width"],
        alpha=cfg["alpha"],
        max_rule_length=cfg["max_len"],
        min_covered=min_covered,
        poe_prior=cfg.get("poe_prior", "uncovered"),
    ).fit(X, y)
    num, codes = _encoded(model, X)
    y_codes = np.searchsorted(model.classes_, y)
    expected = learn(
        num,
        codes,
        list(y_codes),
        3,
        model.categorical_features_,
        {**cfg, "min_covered": min_covered},
    )
    got = [
        (
            tuple(sorted((c.feature, _OPS[c.op], float(c.value)) for c in r.conditions)),
            r.class_counts.tolist(),
        )
        for r in model.rules_
    ]
    assert got == [(conds, list(counts)) for conds, counts in expected]
    assert model.theory_size_ == sum(len(c) for c, _ in expected)
    assert len(expected) > 0


def test_exhaustive_depth_two_finds_best_conjunction():
    # With a beam wider than the candidate set and no test, the first rule is the best
    # (Laplace, then coverage) of all conjunctions of at most two conditions.
    X, y = _random_problem(5, n=40)
    model = CN2Classifier(alpha=None, beam_width=10_000, max_rule_length=2).fit(X, y)
    num, codes = _encoded(model, X)
    yc = np.searchsorted(model.classes_, y)
    conds = []
    for f in range(4):
        if model.categorical_features_[f]:
            conds += [(f, EQ, float(v)) for v in np.unique(codes[:, f][codes[:, f] >= 0])]
        else:
            vals = np.unique(num[:, f][~np.isnan(num[:, f])])
            conds += [(f, op, float(t)) for op in (LE, GT) for t in vals]
    masks = {c: np.array([_satisfies(num[i], codes[i], c) for i in range(len(y))]) for c in conds}
    best = None
    for size in (1, 2):
        for combo in itertools.combinations(conds, size):
            cov = np.logical_and.reduce([masks[c] for c in combo])
            if cov.sum() == 0:
                continue
            counts = np.bincount(yc[cov], minlength=3)
            key = ((counts.max() + 1) / (cov.sum() + 3), cov.sum())
            if best is None or key > best[0]:
                best = (key, counts)
    first = model.rules_[0]
    assert first.class_counts.tolist() == best[1].tolist()
    q = (first.class_counts.max() + 1) / (first.n_covered + 3)
    assert q == pytest.approx(best[0][0], rel=1e-12)


def test_missing_value_satisfies_no_condition():
    X, y = _random_problem(3, n=80)
    model = CN2Classifier(alpha=None).fit(X, y)
    num, codes = _encoded(model, X)
    for rule in model.rules_:
        covered = rule.mask(_matrix(model, X))
        for c in rule.conditions:
            if c.op == "==":
                assert (codes[covered, c.feature] >= 0).all()
            else:
                assert not np.isnan(num[covered, c.feature]).any()
    empty = pd.DataFrame({"a": pd.Categorical([np.nan]), "b": [None], "u": [np.nan], "v": [np.nan]})
    # No rule fires and no value is known: the training prior's class (not the default rule's).
    assert model.predict(empty)[0] == model.classes_[np.argmax(model.class_counts_)]


def test_ordered_prediction_is_first_firing_rule():
    X, y = _random_problem(4, n=80)
    model = CN2Classifier(alpha=None).fit(X, y)
    Xe = _matrix(model, X)
    pred = model.predict(X)
    for i in range(len(y)):
        label = model.default_class_
        for rule in model.rules_:
            if rule.mask(Xe[i : i + 1])[0]:
                label = rule.prediction
                break
        assert pred[i] == label
    proba = model.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert (model.classes_[proba.argmax(axis=1)] == pred).all()


def test_unordered_prediction_sums_counts_of_firing_rules():
    X, y = _random_problem(6, n=80)
    model = CN2Classifier("poe", mode="unordered").fit(X, y)
    Xe = _matrix(model, X)
    for i in range(len(y)):
        total = np.zeros(3)
        for rule in model.rules_:
            if rule.mask(Xe[i : i + 1])[0]:
                total += rule.class_counts
        if total.sum() == 0:
            total = model.default_counts_
        assert np.allclose(model.predict_proba(X.iloc[[i]])[0], total / total.sum())


def test_significance_matches_scipy_g_test():
    # The kernel's likelihood-ratio test (what fit uses) against scipy's G-test.
    import numba

    from widefs.rules._beam_quality import _significant

    # The helper has no CPython wrapper (only kernels call it): called from compiled code.
    significant = numba.njit(lambda *args: _significant(*args))
    rng = np.random.default_rng(3)
    problems = [  # three classes, and nine (past numpy's eight-term pairwise blocks)
        (np.array([[8, 1, 0], [3, 3, 3], [0, 0, 5], [10, 2, 1]]), np.array([20, 15, 10])),
        (rng.integers(0, 6, size=(40, 9)), rng.integers(5, 30, size=9)),
    ]
    for counts, base in problems:
        base_p = base / base.sum()
        decided = set()
        for alpha in (0.01, 0.05, 0.3):
            threshold = stats.chi2.isf(alpha, base.size - 1)
            for row in counts[counts.sum(axis=1) > 0]:
                got = significant(row, float(row.sum()), base_p, threshold)
                _, p = stats.power_divergence(row, base_p * row.sum(), lambda_="log-likelihood")
                assert got == (p < alpha)
                decided.add(bool(got))
        assert decided == {True, False}


def test_input_types_give_the_same_rules():
    X, y = _random_problem(7, n=60)
    frame_str = X.assign(a=X["a"].astype(str).astype("str"))
    arr = X.assign(a=X["a"].astype(object)).to_numpy(dtype=object)
    texts = []
    for data in (X, frame_str, arr):
        model = CN2Classifier("poe").fit(data, y)
        texts.append(
            [(tuple(c.label for c in r.conditions), r.class_counts.tolist()) for r in model.rules_]
        )
        assert model.categorical_features_.tolist() == [True, True, False, False]
    assert texts[0] == texts[1] == texts[2]


def test_unseen_category_matches_no_condition():
    X = np.array([["x", 0.0], ["y", 1.0], [None, 2.0], ["x", 3.0]], dtype=object)
    model = CN2Classifier(alpha=None).fit(X, ["a", "b", "a", "a"])
    assert [str(c) for r in model.rules_ for c in r.conditions] == ["x0 == x", "x0 == y"]
    Xq = np.array([["y", 0.0], ["z", 0.0], [np.nan, 0.0], ["x", 0.0]], dtype=object)
    assert _matrix(model, Xq)[:, 0].tolist() == [1, -2, -1, 0]
    assert model.predict(Xq).tolist() == ["b", "a", "a", "a"]


def test_categorical_features_override_and_errors():
    X = np.array([[1.0, 0.5], [2.0, 0.1], [1.0, 0.7], [3.0, 0.2]])
    y = ["a", "b", "a", "b"]
    model = CN2Classifier(alpha=None, categorical_features=[0]).fit(X, y)
    assert model.categorical_features_.tolist() == [True, False]
    assert model.categories_[0].tolist() == ["1.0", "2.0", "3.0"]
    with pytest.raises(ValueError, match="out of range"):
        CN2Classifier(categorical_features=[5]).fit(X, y)
    with pytest.raises(ValueError, match="entropy"):
        CN2Classifier(quality="entropy", mode="unordered").fit(X, y)
    with pytest.raises(ValueError, match="numeric when the model was fitted"):
        model.predict(np.array([["1.0", "abc"]], dtype=object))


def test_str_lists_rules_and_poe_records():
    X, y = _random_problem(8, n=80)
    model = CN2Classifier("poe").fit(X, y)
    text = str(model)
    assert text.splitlines()[0].startswith(f"CN2Classifier: {len(model.rules_)} rule")
    assert len(text.splitlines()) == len(model.rules_) + 2
    for rule in model.rules_:
        assert str(rule) in text
        assert rule.n_hypotheses > 1 and 0 <= rule.poe_error <= 1
    assert "CN2Classifier(" in str(CN2Classifier())


@pytest.mark.parametrize("seed", [0, 1])
def test_class_prior_is_the_empty_rules_error_in_unordered_mode(seed):
    # The first rule of each class is searched on all rows, so its Eq. 13 estimate uses
    # eps_prior = 1 - p_c ("class") or 1 - max_c p_c ("uncovered"); recompute it from the
    # rule's counts and number of hypotheses. A minority class's rules face the larger prior.
    X, y = _random_problem(seed)
    classes, counts = np.unique(y, return_counts=True)
    for prior_kind in ("class", "uncovered"):
        model = CN2Classifier("poe", mode="unordered", poe_prior=prior_kind).fit(X, y)
        for c, n_c in zip(classes, counts):
            first = next(r for r in model.rules_ if r.prediction == c)
            prior = 1 - (n_c if prior_kind == "class" else counts.max()) / counts.sum()
            n, hit = first.class_counts.sum(), first.class_counts[list(classes).index(c)]
            eps = (n - hit + 2.0 * 2 / 3) / (n + 2.0)  # m-estimate, m = 2, C = 3
            m_eff = max(1.0, np.log2(first.n_hypotheses))
            assert first.poe_error == pytest.approx(
                eps / m_eff + (1 - 1 / m_eff) * prior, rel=1e-12
            )
    ordered = [CN2Classifier("poe", poe_prior=p).fit(X, y) for p in ("class", "uncovered")]
    assert [str(r) for r in ordered[0].rules_] == [str(r) for r in ordered[1].rules_]


@pytest.mark.parametrize("seed", [0, 1])
def test_poe_penalty_grows_with_effective_hypotheses(seed):
    # Pure noise on nominal attributes. Eq. 13 accepts round k over k-1 only when the
    # gain (prior - eps_k) / (prior - eps_{k-1}) exceeds m'_k / m'_{k-1}: about 1.2 with
    # log2, about 6 with the identity, so the unmodified Eq. 13 keeps one condition per
    # rule while POE2 prunes less and classic CN2 (no test) least.
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(300, 8)).astype(str).astype(object)
    y = rng.integers(0, 2, 300)
    classic = CN2Classifier(alpha=None).fit(X, y)
    poe2 = CN2Classifier("poe").fit(X, y)
    poe_id = CN2Classifier("poe", poe_effective="identity").fit(X, y)
    assert all(r.length == 1 for r in poe_id.rules_)
    assert poe_id.theory_size_ < poe2.theory_size_ <= classic.theory_size_


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_search_score_is_the_training_accuracy_of_the_predictions(seed, cfg):
    """A decision list counts its correct training rows while it learns (the rows each rule
    takes, the default on the rest); that count must equal what predict says, with missing
    values, unseen categories and ties (a rule set is always scored by predict)."""
    X, y = _random_problem(seed, n=60 + 7 * seed)
    params = {k: v for k, v in cfg.items() if k != "max_len"}
    clf = CN2Classifier(max_rule_length=cfg["max_len"], **params).fit(X, y)
    assert clf.search_score_ == np.mean(clf.predict(X) == y)
    assert 0.0 < clf.search_score_ <= 1.0


@pytest.mark.parametrize("mode", ["ordered", "unordered"])
def test_a_row_with_every_value_missing_gets_the_training_prior(mode):
    """No rule can use such a row: the class frequencies of all training examples, not the
    default rule's (in a decision list, the few examples no rule took: often one class)."""
    X, y = _random_problem(4, n=80)
    model = CN2Classifier(mode=mode, alpha=None).fit(X, y)
    prior = np.array([np.sum(y == c) for c in model.classes_], dtype=float)
    assert model.class_counts_.tolist() == prior.tolist()
    blank = X.iloc[:3].copy()
    blank[:] = np.nan
    np.testing.assert_allclose(model.predict_proba(blank), np.tile(prior / prior.sum(), (3, 1)))
    assert (model.predict(blank) == model.classes_[np.argmax(prior)]).all()
    if mode == "ordered":
        assert not np.allclose(model.default_counts_ / model.default_counts_.sum(), prior / 80)
    # One observed value is a row the rules may use: predicted as before.
    partial = blank.copy()
    partial.iloc[0, 0] = X.iloc[0, 0]
    Xe = _matrix(model, partial.iloc[:1])
    fired = [r for r in model.rules_ if r.mask(Xe)[0]]
    if fired and mode == "ordered":
        expected = fired[0].class_counts / fired[0].class_counts.sum()
        np.testing.assert_allclose(model.predict_proba(partial.iloc[:1])[0], expected)
