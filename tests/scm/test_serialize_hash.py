"""Model files carry a content hash: a value changed after writing is refused in one line,
or loaded with a warning when the caller says the file was edited."""

import hashlib
import json
import os
import re
import warnings

import numpy as np
import pytest

from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM, from_json

RANGE = (-4.0, 4.0)
EDITED = re.escape(
    "Invalid widefs.scm model file: the values do not match content_hash: the file was "
    "edited after it was written; pass allow_edited=True to load it as edited."
)


def _data(seed=0, m=30, n=6, n_classes=2):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(m, n)) * 2) / 2
    score = X[:, 0] + (X[:, 1] > 0)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


def _models():
    X, y = _data()
    X3, y3 = _data(1, m=45, n_classes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "sc": (SampleCompressionSCM(select="none").fit(X, y), X),
            "occam": (OccamSCM(feature_range=RANGE).fit(X, y), X),
            "pb": (PACBayesSCM(feature_range=RANGE).fit(X, y), X),
            "list": (OccamSCM(feature_range=RANGE).fit(X3, y3), X3),
        }


MODELS = _models()


def _independent_hash(doc):
    body = {k: v for k, v in doc.items() if k != "content_hash"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


@pytest.mark.parametrize("key", list(MODELS))
def test_the_hash_is_the_sha256_of_the_canonical_document(key):
    model, X = MODELS[key]
    text = model.to_json()
    doc = json.loads(text)
    assert list(doc)[-1] == "content_hash"
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", doc["content_hash"])
    assert doc["content_hash"] == _independent_hash(doc)
    if key == "list":  # one hash for the whole list, none per machine
        assert all("content_hash" not in m["model"] for m in doc["machines"])
    # Reformatting and reordering keys is not an edit: loads without a warning.
    reordered = json.dumps(dict(reversed(list(doc.items()))), separators=(",", ":"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = from_json(reordered)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


def _edit_threshold(doc):
    rules = doc["machines"][0]["model"]["rules"] if "machines" in doc else doc["rules"]
    rule = rules[0]
    if rule["bits"] is not None:  # an Occam threshold stays on its dyadic grid
        rule["bits"] += 1
        lo, hi = RANGE
        rule["threshold"] = lo + (hi - lo) / 2 ** (rule["bits"] + 1)
    elif rule["interval"] is not None:  # a learned PAC-Bayes interval keeps its middle
        a, b = rule["interval"]
        rule["interval"] = [a - 0.5, b + 0.5]
    else:
        rule["threshold"] += 0.25


@pytest.mark.parametrize("key", list(MODELS))
def test_a_valid_edit_is_refused_or_loaded_as_edited(key):
    model, _ = MODELS[key]
    doc = json.loads(model.to_json())
    _edit_threshold(doc)
    text = json.dumps(doc)
    with pytest.raises(ValueError, match=f"^{EDITED}$") as info:
        from_json(text)
    assert "\n" not in str(info.value)
    with pytest.warns(
        UserWarning, match="^widefs.scm model file loaded as edited: the values"
    ) as rec:
        edited = from_json(text, allow_edited=True)
    if "MUTANT_UNDER_TEST" not in os.environ:  # mutmut's trampolines add frames
        assert rec[0].filename == __file__  # points at the caller's line
    assert type(edited) is type(model)
    assert edited.rules_ != model.rules_
    with pytest.raises(ValueError, match=f"^{EDITED}$"):
        type(model).from_json(text)


def test_an_edit_of_any_number_is_refused():
    model, _ = MODELS["sc"]
    doc = json.loads(model.to_json())
    for path in (("params", "p"), ("bound_path", 0), ("empirical_risk",)):
        edited = json.loads(json.dumps(doc))
        node = edited
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = node[path[-1]] / 2 if node[path[-1]] else 0.5
        with pytest.raises(ValueError, match=f"^{EDITED}$|^Invalid widefs.scm model file: "):
            from_json(json.dumps(edited))
    params = json.loads(json.dumps(doc))
    params["params"]["p"] = 2.0  # valid parameter, same rules: the hash decides
    with pytest.raises(ValueError, match=f"^{EDITED}$"):
        from_json(json.dumps(params))


def test_a_missing_or_malformed_hash():
    model, X = MODELS["sc"]
    doc = json.loads(model.to_json())
    del doc["content_hash"]
    missing = "the document has no content_hash"
    with pytest.raises(
        ValueError, match=f"^Invalid widefs.scm model file: {missing} .*as edited.$"
    ):
        from_json(json.dumps(doc))
    with pytest.warns(UserWarning, match=f"loaded as edited: {missing}"):
        again = from_json(json.dumps(doc), allow_edited=True)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    for bad in (5, None, ["sha256:0"], {"a": 1}):
        doc["content_hash"] = bad
        what = "has no content_hash" if bad is None else "content_hash must be a string, got "
        with pytest.raises(ValueError, match=re.escape(what)):
            from_json(json.dumps(doc))
    doc["content_hash"] = "sha256:" + "0" * 64
    with pytest.raises(ValueError, match=f"^{EDITED}$"):
        from_json(json.dumps(doc))


def test_a_malformed_field_is_named_before_the_hash():
    model, _ = MODELS["sc"]
    doc = json.loads(model.to_json())
    doc["rules"][0]["direction"] = "sideways"
    for allow in (False, True):
        with pytest.raises(ValueError, match=r"rules\[0\]\.direction must be one of"):
            from_json(json.dumps(doc), allow_edited=allow)


def test_the_unchanged_file_loads_identically_with_either_flag():
    for model, X in MODELS.values():
        text = model.to_json()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for allow in (False, True):
                again = from_json(text, allow_edited=allow)
                np.testing.assert_array_equal(again.predict(X), model.predict(X))


def test_the_hash_of_non_ascii_names_is_of_the_escaped_text():
    import pandas as pd

    X, y = _data()
    frame = pd.DataFrame(X, columns=[f"gène_{j}" for j in range(X.shape[1])])
    model = SampleCompressionSCM().fit(frame, y)
    doc = json.loads(model.to_json())
    assert doc["content_hash"] == _independent_hash(doc)  # ensure_ascii: "\u00e8", not UTF-8
    assert from_json(model.to_json()).feature_names_in_.tolist() == list(frame.columns)


def test_the_class_method_takes_the_flag_too():
    X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    clf = SampleCompressionSCM().fit(X, [0, 0, 1, 1])
    doc = json.loads(clf.to_json())
    doc["rules"][0]["threshold"] = doc["rules"][0]["threshold"] + 0.25  # a valid value, edited
    text = json.dumps(doc)
    with pytest.raises(ValueError, match="edited"):
        SampleCompressionSCM.from_json(text)
    with pytest.warns(UserWarning, match="edited"):
        again = SampleCompressionSCM.from_json(text, allow_edited=True)
    assert again.rules_[0].threshold == doc["rules"][0]["threshold"]
