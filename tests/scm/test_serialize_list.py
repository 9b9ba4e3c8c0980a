"""The decision-list layout of model files at its boundaries.

Each check of the reader is met on both sides: a value just inside is a valid edit (then
refused only by the content hash, which proves the field check let it through), a value
just outside is refused naming the field.
"""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from widefs.scm import OccamSCM, SampleCompressionSCM, from_json

EDITED = "the values do not match content_hash"


def _clean():
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(45, 6)) * 2) / 2
    y = np.digitize(X[:, 0], [-0.6, 0.6])
    return OccamSCM(feature_range=(-4.0, 4.0)).fit(X, y), X


def _noisy():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(16, 5)).astype(float)
    y = rng.integers(0, 4, size=16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SampleCompressionSCM().fit(X, y), X


CLEAN, X_CLEAN = _clean()
NOISY, X_NOISY = _noisy()


def _doc(model):
    return json.loads(model.to_json())


def _load(doc):
    return from_json(json.dumps(doc))


def test_round_trips_and_the_clipped_risk_bound():
    for model, X in ((CLEAN, X_CLEAN), (NOISY, X_NOISY)):
        again = from_json(model.to_json())
        np.testing.assert_array_equal(again.predict(X), model.predict(X))
        assert again.rules_ == model.rules_ and again.risk_bound_ == model.risk_bound_
        assert again.classes_.tolist() == model.classes_.tolist()
        np.testing.assert_array_equal(again.feature_importances_, model.feature_importances_)
        assert again.n_rules_learned_ == model.n_rules_learned_
        assert again.empirical_risk_ == model.empirical_risk_
        assert [cm.n_examples for cm in again.machines_] == [
            cm.n_examples for cm in model.machines_
        ]
    total = [sum(cm.machine.risk_bound_ for cm in m.machines_) for m in (CLEAN, NOISY)]
    assert total[0] < 1.0 and CLEAN.risk_bound_ == total[0]
    assert total[1] > 1.0 and NOISY.risk_bound_ == 1.0  # both sides of min(1, sum)


def _expect(doc, message):
    with pytest.raises(ValueError, match=message) as info:
        _load(doc)
    assert "\n" not in str(info.value)


def test_machine_labels_are_the_classes_left():
    doc = _doc(NOISY)  # labels 0, 3, 2 of classes 0..3
    assert [m["label"] for m in doc["machines"]] == [0, 3, 2]
    doc["machines"][2]["label"] = 1  # of the last two (1, 2), only the later one
    _expect(doc, r"machines\[2\]\.label must be one of \[2\] \(the classes left\), got 1")
    doc = _doc(NOISY)
    doc["machines"][1]["label"] = 0  # already separated
    _expect(doc, r"machines\[1\]\.label must be one of \[1, 2, 3\]")
    for bad in (-1, 4):
        doc = _doc(NOISY)
        doc["machines"][0]["label"] = bad
        _expect(doc, r"machines\[0\]\.label must lie in \[0, 3\]")
    doc = _doc(CLEAN)  # labels 0, 2 of 0..2: the first may be any class
    doc["machines"][0]["label"] = 1  # leaves 0 and 2: the last machine's 2 is the later one
    _expect(doc, EDITED)


def test_example_counts_never_grow():
    doc = _doc(NOISY)  # 16, 15, 13
    doc["machines"][1]["n_examples"] = 16  # equal to the previous: valid
    _expect(doc, EDITED)
    doc["machines"][1]["n_examples"] = 17
    _expect(doc, r"machines\[1\]\.n_examples must not exceed the previous machine's")
    doc = _doc(NOISY)
    doc["machines"][2]["n_examples"] = 2  # the smallest
    _expect(doc, EDITED)
    doc["machines"][2]["n_examples"] = 1
    _expect(doc, r"machines\[2\]\.n_examples must lie in \[2, 2147483647\]")


def test_the_risk_bound_is_the_clipped_sum():
    doc = _doc(CLEAN)
    doc["risk_bound"] = np.nextafter(doc["risk_bound"], 1.0)
    _expect(doc, re.escape("risk_bound must equal min(1, sum of the machines' bounds) = "))
    doc = _doc(NOISY)
    doc["risk_bound"] = np.nextafter(1.0, 0.0)
    _expect(doc, r"risk_bound must equal min\(1, sum of the machines' bounds\) = 1\.0")
    for bad in (1.5, -0.1):
        doc["risk_bound"] = bad
        _expect(doc, r"risk_bound must lie in \[0, 1\]")
    doc = _doc(CLEAN)
    doc["empirical_risk"] = 1.5
    _expect(doc, r"empirical_risk must lie in \[0, 1\]")
    doc["empirical_risk"] = 1.0  # the largest valid training risk
    _expect(doc, EDITED)


def test_the_list_shape_and_its_classes():
    doc = _doc(NOISY)
    doc["machines"].pop()
    _expect(doc, "machines must have 3 entries, got 2")
    doc = _doc(CLEAN)
    doc["classes"] = [0, 1]
    _expect(doc, "classes of a decision list must hold at least 3 labels, got 2")
    doc["classes"] = [0, 2, 1]
    _expect(
        doc,
        r"file: classes\[1:3\] must be two distinct labels in increasing order, got \[2, 1\]\.$",
    )
    doc["classes"] = [0, 1, 1]
    _expect(doc, r"classes\[1:3\] must be two distinct labels")
    doc = _doc(CLEAN)
    doc["classes"] = [0, 1, 3]  # other labels, still increasing: a valid edit
    _expect(doc, EDITED)
    doc = _doc(CLEAN)
    doc["classes"] = [0, 1, 2.5]
    _expect(doc, r"file: classes\[1:3\] change when stored as '<i8'")
    doc["classes"] = [0, 1, None]  # an entry is named by its index in the list
    _expect(doc, r"file: classes\[2\] must be a string, a number or a boolean, got None\.$")
    doc["classes"] = [None, 1, 2]
    _expect(doc, r"file: classes\[0\] must be a string")
    doc = _doc(CLEAN)
    doc["classes_dtype"] = "V8"
    _expect(doc, r"file: classes_dtype must be a bool, integer, float, string or object dtype")
    doc["classes"] = ["a" * 100, "b" * 100, "c" * 100]
    doc["classes_dtype"] = "<U100"  # fits, even though 100 characters are many
    _expect(doc, EDITED)
    doc["classes"] = [f"{i:03d}" for i in range(300)]
    doc["classes_dtype"] = "<U1000"  # 300 labels of 1,000 characters: over the bound
    _expect(doc, r"file: classes_dtype holds labels of 1000 characters")
    doc = _doc(CLEAN)
    del doc["empirical_risk"]
    _expect(doc, r"the document misses the key\(s\) \['empirical_risk'\]")
    doc = _doc(CLEAN)
    doc["extra"] = 1
    _expect(doc, r"the document has unknown key\(s\) \['extra'\]")


def test_each_machine_is_checked_as_a_model():
    doc = _doc(CLEAN)
    doc["machines"][0]["colour"] = 1
    _expect(doc, r"machines\[0\] has unknown key\(s\) \['colour'\]")
    doc = _doc(CLEAN)
    doc["machines"][1] = [1]
    _expect(doc, r"machines\[1\] must be a JSON object, got list")
    doc = _doc(CLEAN)
    doc["machines"][1]["model"] = "x"
    _expect(doc, r"machines\[1\]\.model must be a JSON object, got str")
    for shared in ("params", "classes", "classes_dtype", "n_features_in"):
        doc = _doc(CLEAN)
        doc["machines"][0]["model"][shared] = doc.get(shared, 0)
        _expect(doc, rf"machines\[0\]\.model must not repeat the shared field '{shared}'")
    doc = _doc(CLEAN)
    doc["machines"][1]["model"]["rules"][0]["feature"] = 6
    _expect(
        doc, r"^Invalid widefs\.scm model file: machines\[1\]\.model\.rules\[0\]\.feature must lie"
    )


def test_a_loaded_list_keeps_every_fitted_attribute():
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(45, 6)) * 2) / 2
    y = np.array(["a", "b", "c"], dtype=object)[np.digitize(X[:, 0], [-0.6, 0.6])]
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(6)])
    model = OccamSCM(feature_range=(-4.0, 4.0)).fit(frame, y)
    assert model.classes_.dtype == object
    again = from_json(model.to_json())
    assert again.classes_.dtype == object and again.classes_.tolist() == ["a", "b", "c"]
    assert again.feature_names_in_.tolist() == [f"g{j}" for j in range(6)]
    np.testing.assert_array_equal(again.feature_range_[0], model.feature_range_[0])
    np.testing.assert_array_equal(again.feature_range_[1], model.feature_range_[1])
    np.testing.assert_array_equal(again.selected_features_, model.selected_features_)
    np.testing.assert_array_equal(again.get_support(), model.get_support())
    assert again.get_params() == model.get_params()
    np.testing.assert_array_equal(again.predict(frame), model.predict(frame))
    for a, b in zip(again.machines_, model.machines_, strict=True):
        assert a.machine.classes_.tolist() == [0, 1]  # each machine: the class vs the rest
        np.testing.assert_array_equal(a.machine.predict(frame), b.machine.predict(frame))
        assert a.label == b.label and a.remaining == b.remaining


def test_a_long_label_in_a_bad_pair_keeps_its_letters():
    doc = _doc(CLEAN)
    doc["classes"] = ["X" * 80, "X" * 70, "Y"]  # a decreasing pair, shown truncated
    doc["classes_dtype"] = "<U80"
    _expect(doc, r"classes\[0:2\] must be two distinct labels in increasing order, got \['X{55}\.$")
    doc["classes"] = "abc"
    _expect(doc, "file: classes must be a JSON list, got str 'abc'")
