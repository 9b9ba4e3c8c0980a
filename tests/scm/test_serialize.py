"""Model files are data: every field is checked on load; a bad file is one ValueError.

The property test mutates valid files the way corruption or tampering would (delete or add
a key, change a value's type, put NaN, infinities, negative or huge numbers, unknown words,
drop, duplicate or reverse list entries, wrap or unwrap values) and asserts: the file loads
and predicts exactly as the saved model, or loading raises ``ValueError``, never another
exception. Label strings are not mutated: renaming a class is an edit of a valid model,
not a corruption (and the loader cannot tell it from the original); nor are the free
numbers of a model (thresholds, ranges) set to other finite values.
"""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM, from_json


def _data(seed=0, m=40, n=12):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(m, n)) * 4) / 4
    rule = (X[:, 2] > -0.5) & (X[:, 5] < 0.5)
    return X, np.where(rule ^ (rng.random(m) < 0.1), "tumor", "normal")


def _models():
    X, y = _data()
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    codes = (y == "tumor").astype(int)
    rng = (-4.0, 4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            SampleCompressionSCM(select="none", p=0.5).fit(frame, y),
            SampleCompressionSCM("disjunction", feature_reuse=True, p=0.7).fit(X, codes),
            OccamSCM(feature_range=rng, select="none", p=0.5).fit(frame, y),
            OccamSCM("disjunction", feature_range=rng, eta=0.0, select="none").fit(X, codes == 1),
            PACBayesSCM(feature_range=rng, select="none").fit(frame, y),
            PACBayesSCM(feature_range=rng, margin=0.05, max_rules=3).fit(X, y),
        ]


MODELS = _models()
X_NEW = np.random.default_rng(9).normal(size=(300, 12)) * 3


def _outputs(model):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # X without the fitted feature names
        out = [model.predict(X_NEW)]
        if isinstance(model, PACBayesSCM):
            out.append(model.predict_proba(X_NEW))
    return out


def _doc(i):
    return json.loads(MODELS[i].to_json())


def _load(doc, allow_edited=False):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "widefs.scm model file loaded as edited", UserWarning)
        return from_json(json.dumps(doc), allow_edited=allow_edited)


def _canonical(doc):
    return json.dumps(doc, sort_keys=True)


@pytest.mark.parametrize("i", range(len(MODELS)))
def test_round_trip_is_exact(i):
    again = from_json(MODELS[i].to_json())
    assert type(again) is type(MODELS[i]) and again.rules_ == MODELS[i].rules_
    assert len(MODELS[i].rules_) >= 1
    for a, b in zip(_outputs(again), _outputs(MODELS[i]), strict=True):
        np.testing.assert_array_equal(a, b)
    assert again.get_support().tolist() == MODELS[i].get_support().tolist()
    assert again.risk_bound_ == MODELS[i].risk_bound_


def _set(doc, path, value):
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


ISSUE_CASES = [
    # (mutation, the field the message names)
    (lambda d: [d], "the document must be a JSON object, got list"),
    (lambda d: {k: v for k, v in d.items() if k != "rules"}, r"misses the key\(s\) \['rules'\]"),
    (
        lambda d: {k: v for k, v in d.items() if k != "classes"},
        r"misses the key\(s\) \['classes'\]",
    ),
    (lambda d: _set(d, ["rules", 0, "feature"], -1), r"rules\[0\]\.feature must lie in \[0, 11\]"),
    (lambda d: _set(d, ["rules", 0, "feature"], 12), r"rules\[0\]\.feature must lie in \[0, 11\]"),
    (lambda d: _set(d, ["rules", 0, "direction"], "sideways"), r"rules\[0\]\.direction must be"),
    (
        lambda d: _set(d, ["rules", 0, "threshold"], math.nan),
        r"rules\[0\]\.threshold must be a finite",
    ),
    (
        lambda d: _set(d, ["rules", 0, "threshold"], "0.5"),
        r"rules\[0\]\.threshold must be a number",
    ),
    (lambda d: _set(d, ["classes"], ["normal", "tumor", "other"]), "classes must have 2 entries"),
    (lambda d: _set(d, ["classes"], ["tumor", "normal"]), "classes must be two distinct labels"),
    (lambda d: _set(d, ["feature_names_in"], ["a"] * 11), "feature_names_in must have 12 entries"),
    (lambda d: _set(d, ["n_features_in"], 10**11), r"n_features_in must lie in \[1, 2147483647\]"),
    (lambda d: _set(d, ["n_features_in"], 13), "feature_importances must have 13 entries"),
    (lambda d: _set(d, ["n_features_in"], True), "n_features_in must be an integer"),
    (lambda d: _set(d, ["risk_bound"], 0.5), r"risk_bound must equal bound_path\[2\]"),
    (lambda d: _set(d, ["bound_path"], [0.9, 0.8]), "bound_path must have 3 entries"),
    (lambda d: _set(d, ["params", "p"], -1), "params are not valid: The 'p' parameter"),
    (lambda d: _set(d, ["params", "colour"], 1), r"params has unknown key\(s\) \['colour'\]"),
    (lambda d: _set(d, ["rules", 0, "feature_name"], "g3"), r"rules\[0\]\.feature_name must be"),
    (lambda d: _set(d, ["rules", 0, "bits"], 3), r"rules\[0\]\.bits must be null"),
    (lambda d: _set(d, ["compression_set"], [0]), "compression_set must have 2 entries"),
    (lambda d: _set(d, ["estimator"], "Nope"), "estimator must be one of"),
    (lambda d: _set(d, ["feature_range"], [[0.0], [1.0]]), "feature_range must be null"),
    (lambda d: _set(d, ["rules"], d["rules"][:1]), r"rules hold 1 rule\(s\), but select='none'"),
]


@pytest.mark.parametrize(("mutate", "message"), ISSUE_CASES)
def test_each_bad_field_is_one_value_error_naming_it(mutate, message):
    doc = _doc(0)  # SampleCompressionSCM with feature names, 2 rules, select="none"
    assert len(doc["rules"]) == 2
    got = mutate(doc)
    with pytest.raises(ValueError, match=message):
        _load(doc if got is None else got)


def test_model_specific_fields_are_checked():
    occam = _doc(2)
    _set(occam, ["rules", 0, "bits"], occam["rules"][0]["bits"] + 1)
    with pytest.raises(ValueError, match=r"rules\[0\]\.threshold must lie on the \d+-bit grid"):
        _load(occam)
    pb = _doc(4)
    a, b = pb["rules"][0]["interval"]
    _set(pb, ["rules", 0, "interval"], [b, a])
    with pytest.raises(ValueError, match=r"rules\[0\]\.interval must be the margin interval"):
        _load(pb)
    pb = _doc(4)
    _set(pb, ["params", "margin"], 0.05)  # a learned interval read as a fixed margin
    with pytest.raises(ValueError, match=r"rules\[0\]\.interval must be the margin interval"):
        _load(pb)
    pb = _doc(4)
    _set(pb, ["margin_ratios"], [0.0] * len(pb["rules"]))
    with pytest.raises(ValueError, match="margin_ratios must lie in"):
        _load(pb)
    with pytest.raises(ValueError, match="not valid JSON"):
        from_json("{")
    with pytest.raises(ValueError, match=r"Not a widefs\.scm model"):
        from_json('{"format": "other"}')
    with pytest.raises(ValueError, match=r"Unsupported widefs\.scm format version"):
        from_json('{"format": "widefs.scm", "format_version": 2}')


# -- property-based: corrupt a valid file anywhere -------------------------------------------
FREE_NUMBERS = {"threshold", "interval", "feature_range"}  # any finite value is a valid edit
BAD_NUMBERS = [math.nan, math.inf, -math.inf, -1, -0.5, 0.5, 10**11, 2**63, 1e308, 0]
OTHER_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=6),
    st.lists(st.integers(-3, 3), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*path, i))


def _get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def _kind(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    return type(v).__name__


@st.composite
def corrupted(draw):
    i = draw(st.integers(0, len(MODELS) - 1))
    doc = _doc(i)
    path = draw(st.sampled_from(list(_paths(doc))))
    old = _get(doc, path)
    free = any(key in FREE_NUMBERS for key in path if isinstance(key, str))
    label = bool(path) and path[0] in ("classes", "feature_names_in")
    ops = ["replace", "wrap"]
    if path:
        ops.append("delete")
    if isinstance(old, dict):
        ops.append("add key")
    if isinstance(old, list) and old:
        ops += ["drop", "duplicate", "reverse", "unwrap"]
    op = draw(st.sampled_from(ops))
    new = None
    if op == "replace":
        choices = [OTHER_VALUES.filter(lambda v, old=old: _kind(v) != _kind(old))]
        if not free:
            choices.append(st.sampled_from(BAD_NUMBERS))
        else:
            choices.append(st.sampled_from([math.nan, math.inf, -math.inf]))
        if isinstance(old, str) and not label:
            choices.append(st.text(max_size=8).filter(lambda v, old=old: v != old))
        new = draw(st.one_of(*choices))
    elif op == "wrap":
        new = [old]
    elif op == "add key":
        new = {**old, draw(st.text(min_size=1, max_size=4).filter(lambda k: k not in old)): 1}
    elif op == "drop":
        new = old[:-1] if draw(st.booleans()) else old[1:]
    elif op == "duplicate":
        new = [*old, old[-1]]
    elif op == "reverse":
        new = old[::-1]
    elif op == "unwrap":
        new = old[0]
    if op == "delete":
        parent = _get(doc, path[:-1])
        del parent[path[-1]]
    elif path:
        _get(doc, path[:-1])[path[-1]] = new
    else:
        doc = new
    return i, doc


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corrupted())
def test_a_corrupted_file_predicts_identically_or_raises_value_error(case):
    # Loaded as edited, so that the fields are checked and not only the content hash.
    i, doc = case
    try:
        text = json.dumps(doc)
    except ValueError:  # NaN cannot always be written (allow_nan is the default here)
        return
    if _canonical(doc) != _canonical(_doc(i)):  # any change is refused by default
        with pytest.raises(ValueError):
            from_json(text)
    try:
        model = _load(doc, allow_edited=True)
    except ValueError:
        return
    for a, b in zip(_outputs(model), _outputs(MODELS[i]), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "dtype",
    [
        "U5,(",  # numpy hands this to Python's parser: a SyntaxError escaped
        "(,)i4",
        "(2,)U3",
        "i4,f8",
        "V8",
        "M8",
        "S5",
        "<U",
        "",
        5,
    ],
)
def test_classes_dtype_comes_from_a_whitelist(dtype):
    doc = _doc(0)
    doc["classes_dtype"] = dtype
    with pytest.raises(
        ValueError, match="classes_dtype must be a bool, integer, float, string"
    ) as info:
        _load(doc)
    assert type(info.value) is ValueError


def test_classes_dtype_width_is_bounded():
    doc = _doc(0)
    for wide in ("<U5000", "<U500000000"):  # the second would allocate 2 GB per label
        doc["classes_dtype"] = wide
        with pytest.raises(ValueError, match=f"classes_dtype holds labels of {wide[2:]} char"):
            _load(doc)
    for ok in ("<U4096", "|b1", "<i8", "<u2", "<f4", "|O", "<U6"):
        doc["classes_dtype"] = ok
        try:
            _load(doc, allow_edited=True)
        except ValueError as exc:  # the labels may not fit that dtype: said about classes
            assert str(exc).startswith("Invalid widefs.scm model file: classes "), exc
