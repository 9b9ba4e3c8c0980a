"""Every range check of the model-file reader, met on both sides of its boundary.

A value just inside the range is a valid edit: the fields pass and the file is refused only
by its content hash (``EDITED``), which proves the field check let it through. A value just
outside is refused naming the field.
"""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from widefs.scm import OccamSCM, PACBayesSCM, SampleCompressionSCM, from_json
from widefs.scm._serialize import MAX_BITS, MAX_LABEL_CHARS, _float, _int, _on_dyadic_grid

EDITED = "the values do not match content_hash"
RANGE = (-4.0, 4.0)


def _data(seed=0, m=40, n=12):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(m, n)) * 4) / 4
    rule = (X[:, 2] > -0.5) & (X[:, 5] < 0.5)
    return X, np.where(rule ^ (rng.random(m) < 0.1), "tumor", "normal")


def _fit():
    X, y = _data()
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "sc": SampleCompressionSCM(select="none", p=0.5).fit(frame, y),
            "sc_bound": SampleCompressionSCM(p=0.5).fit(frame, y),
            "occam": OccamSCM(feature_range=RANGE, select="none", p=0.5).fit(X, y),
            "pb": PACBayesSCM(feature_range=RANGE, select="none").fit(X, y),
            "pb_margin": PACBayesSCM(feature_range=RANGE, margin=0.05, max_rules=3).fit(X, y),
        }


MODELS = _fit()


def _doc(key):
    return json.loads(MODELS[key].to_json())


def _expect(doc, message):
    with pytest.raises(ValueError, match=message) as info:
        from_json(json.dumps(doc))
    assert "\n" not in str(info.value)


def test_feature_indices_up_to_the_last_feature():
    doc = _doc("sc")
    n = doc["n_features_in"]
    rule, other = doc["rules"]
    assert other["feature"] != n - 1
    imp = doc["feature_importances"]
    imp[n - 1], imp[rule["feature"]] = imp[rule["feature"]], 0.0  # move rule 0 to the last
    rule["feature"], rule["feature_name"] = n - 1, doc["feature_names_in"][n - 1]
    _expect(doc, EDITED)
    rule["feature"] = n
    _expect(doc, rf"rules\[0\]\.feature must lie in \[0, {n - 1}\], got {n}")
    rule["feature"] = 0.0
    _expect(doc, r"rules\[0\]\.feature must be an integer, got 0\.0")
    doc = _doc("sc")
    doc["n_features_in"] = 0
    _expect(doc, r"n_features_in must lie in \[1, 2147483647\], got 0")


def test_rule_counts_between_the_kept_and_max_rules():
    doc = _doc("sc")  # select="none": every learned rule is kept
    k = len(doc["rules"])
    doc["n_rules_learned"] = k - 1
    _expect(doc, rf"n_rules_learned must lie in \[{k}, 10\], got {k - 1}")
    doc = _doc("sc_bound")  # select="bound": the rules kept are the first minimum of the path
    path = doc["bound_path"]
    k = len(doc["rules"])
    assert 0 < k < len(path) - 1 and doc["n_rules_learned"] == len(path) - 1
    doc["n_rules_learned"] = doc["params"]["max_rules"]  # the largest count allowed
    doc["bound_path"] = path + [path[k]] * (doc["params"]["max_rules"] + 1 - len(path))
    _expect(doc, EDITED)  # later ties of the minimum do not move the kept count
    doc["n_rules_learned"] += 1
    doc["bound_path"].append(1.0)
    _expect(doc, r"n_rules_learned must lie in \[\d+, 10\]")
    doc = _doc("sc_bound")
    doc["bound_path"][k + 1] = doc["bound_path"][k]
    _expect(doc, EDITED)
    doc["bound_path"][k - 1] = doc["bound_path"][k]  # a tie before: the first one is kept
    _expect(doc, rf"rules hold {k} rule\(s\), but select='bound' keeps {k - 1} of the")


def test_bounds_and_risks_are_probabilities():
    for key, risk in (("sc", "empirical_risk"), ("pb", "gibbs_risk")):
        for value in (0.0, 1.0, 1):
            doc = _doc(key)
            doc[risk] = value
            _expect(doc, EDITED)
        for value in (-1e-300, np.nextafter(1.0, 2.0), True):
            doc[risk] = value
            _expect(doc, f"{risk} must ")
    doc = _doc("sc")
    k = len(doc["rules"])
    doc["bound_path"][0] = 1.0
    _expect(doc, EDITED)
    doc["bound_path"][0] = np.nextafter(1.0, 2.0)
    _expect(doc, r"bound_path\[0\] must lie in \[0, 1\]")
    doc = _doc("sc")
    doc["risk_bound"] = doc["bound_path"][k] = 1.0
    _expect(doc, EDITED)
    doc = _doc("sc")
    doc["risk_bound"] = np.nextafter(doc["risk_bound"], 0.0)
    _expect(doc, rf"risk_bound must equal bound_path\[{k}\]")


def test_the_bayes_bound_is_twice_the_gibbs_bound_at_most_one():
    doc = _doc("pb")
    assert doc["bayes_risk_bound"] == min(1.0, 2 * doc["risk_bound"])
    doc["bayes_risk_bound"] = np.nextafter(doc["bayes_risk_bound"], 0.0)
    _expect(doc, r"bayes_risk_bound must equal min\(1, 2 risk_bound\)")
    for risk, bayes in ((0.5, 1.0), (0.75, 1.0), (0.25, 0.5)):
        doc = _doc("pb")
        k = len(doc["rules"])
        doc["risk_bound"] = doc["bound_path"][k] = risk
        doc["bayes_risk_bound"] = bayes
        _expect(doc, EDITED)
        doc["bayes_risk_bound"] = np.nextafter(bayes, 0.0)
        _expect(doc, r"bayes_risk_bound must equal min\(1, 2 risk_bound\)")
    doc = _doc("pb")
    del doc["bayes_risk_bound"]  # optional: derived again from the bound
    _expect(doc, EDITED)
    doc = _doc("sc")
    doc["bayes_risk_bound"] = 1.0  # only a PAC-Bayes model has one
    _expect(doc, r"the document has unknown key\(s\) \['bayes_risk_bound'\]")


def test_importances_are_positive_exactly_at_the_rules_features():
    doc = _doc("sc")
    features = [r["feature"] for r in doc["rules"]]
    imp = doc["feature_importances"]
    free = next(j for j in range(len(imp)) if j not in features)
    imp[free] = -0.0  # zero, written with a sign
    _expect(doc, EDITED)
    imp[free] = 5e-324
    _expect(doc, "feature_importances must be positive exactly at the rules' features")
    doc = _doc("sc")
    doc["feature_importances"][features[0]] = 0.0
    _expect(doc, "feature_importances must be positive exactly at the rules' features")
    doc["feature_importances"][features[0]] = -1.0
    _expect(doc, rf"feature_importances\[{features[0]}\] must lie in \[0, inf\]")


def test_per_rule_arrays():
    doc = _doc("sc")
    rows = doc["compression_set"]
    rows[0] = 0 if rows[1] != 0 else 1
    _expect(doc, EDITED)
    rows[0] = rows[1]
    _expect(doc, "compression_set must hold distinct training rows")
    rows[0] = -1
    _expect(doc, r"compression_set\[0\] must lie in \[0, 2147483647\]")
    doc = _doc("pb")
    doc["margin_ratios"][0] = 1.0
    _expect(doc, EDITED)
    doc["margin_ratios"][0] = 5e-324
    _expect(doc, EDITED)
    doc["margin_ratios"][0] = 0.0
    _expect(doc, r"margin_ratios must lie in \(0, 1\]")
    doc["margin_ratios"][0] = np.nextafter(1.0, 2.0)
    _expect(doc, r"margin_ratios\[0\] must lie in \[0, 1\]")


def test_thresholds_within_the_feature_range():
    doc = _doc("pb_margin")  # a fixed margin: the interval follows the threshold
    rule = doc["rules"][0]
    lo, hi = RANGE
    h = 0.05 * (hi - lo)
    for t in (hi, lo):
        rule["threshold"] = t
        rule["interval"] = [max(t - h, lo), min(t + h, hi)]
        _expect(doc, EDITED)
    rule["threshold"] = np.nextafter(hi, 5.0)
    _expect(doc, r"rules\[0\]\.threshold must lie in \[-4, 4\]")
    doc = _doc("pb")  # a learned interval: the threshold is its middle
    rule = doc["rules"][0]
    rule["interval"] = [lo, hi]
    rule["threshold"] = 0.0
    _expect(doc, EDITED)
    rule["interval"] = [1.0, 1.0]
    rule["threshold"] = 1.0
    _expect(doc, r"rules\[0\]\.interval must be the margin interval of threshold 1\.0")
    doc = _doc("sc")  # no range: any finite threshold
    doc["rules"][0]["threshold"] = -1e308
    _expect(doc, EDITED)


def test_feature_range_low_may_equal_high():
    doc = _doc("occam")
    used = {r["feature"] for r in doc["rules"]}
    free = next(j for j in range(doc["n_features_in"]) if j not in used)
    doc["feature_range"][0][free] = doc["feature_range"][1][free] = 0.0
    _expect(doc, EDITED)
    doc["feature_range"][0][free] = np.nextafter(0.0, 1.0)
    _expect(doc, rf"feature_range must have low <= high \(feature {free}\)")


def test_dyadic_grid_ends():
    lo, hi = RANGE
    for bits in (0, 1, 3):
        step = (hi - lo) / 2 ** (bits + 1)
        first, last = lo + step, hi - step  # j = 1 and j = 2**bits
        assert _on_dyadic_grid(first, lo, hi, bits) and _on_dyadic_grid(last, lo, hi, bits)
        assert not _on_dyadic_grid(lo, lo, hi, bits)  # j = 0
        assert not _on_dyadic_grid(hi, lo, hi, bits)  # j = 2**bits + 1
    assert _on_dyadic_grid(0.0, lo, hi, 0)
    assert not _on_dyadic_grid(1.0, 1.0, 1.0, 0)  # an empty range has no grid
    assert not _on_dyadic_grid(0.5, 1.0, 0.0, 0)
    doc = _doc("occam")
    rule = doc["rules"][0]
    rule["bits"], rule["threshold"] = 0, 0.0
    _expect(doc, EDITED)
    rule["bits"] = MAX_BITS  # the largest count of bits
    rule["threshold"] = -1.0  # j = 3 2**(MAX_BITS - 3): a point of every finer grid
    _expect(doc, EDITED)
    rule["bits"] = MAX_BITS + 1
    _expect(doc, rf"rules\[0\]\.bits must lie in \[0, {MAX_BITS}\]")


def test_classes_strictly_increasing_and_label_widths():
    doc = _doc("sc")
    doc["classes"] = ["normal", "normal"]
    _expect(doc, "classes must be two distinct labels in increasing order")
    doc["classes"] = ["a", "b"]
    _expect(doc, EDITED)
    doc["classes_dtype"] = f"<U{MAX_LABEL_CHARS}"
    doc["classes"] = ["a" * MAX_LABEL_CHARS, "b"]
    _expect(doc, EDITED)
    doc["classes_dtype"] = f"<U{MAX_LABEL_CHARS + 1}"
    _expect(doc, f"classes_dtype holds labels of {MAX_LABEL_CHARS + 1} characters")
    doc = _doc("sc")
    doc["classes"], doc["classes_dtype"] = [False, True], "|b1"
    _expect(doc, EDITED)
    doc["classes"] = [0, 1]  # numbers where the dtype says booleans
    _expect(doc, r"classes change when stored as '\|b1'")
    doc["classes"], doc["classes_dtype"] = [0.5, math.pi], "<f8"
    _expect(doc, EDITED)
    doc["classes"] = [0.5, math.inf]
    _expect(doc, r"classes\[1\] must be a string, a number or a boolean")


def test_equivalents_strictly_increasing():
    doc = _doc("sc")
    rule = doc["rules"][0]
    f, n = rule["feature"], doc["n_features_in"]
    others = [j for j in range(n) if j != f]
    rule["equivalent"] = [[others[0], ">"], [others[-1], "<="]]
    _expect(doc, EDITED)
    rule["equivalent"] = [[others[0], ">"], [others[0], "<="]]
    _expect(doc, "must list distinct features in increasing order")
    rule["equivalent"] = [[others[-1], ">"], [others[0], "<="]]
    _expect(doc, "must list distinct features in increasing order")
    rule["equivalent"] = [[n - 1 if f != n - 1 else n - 2, ">"]]
    _expect(doc, EDITED)
    rule["equivalent"] = [[n, ">"]]
    _expect(doc, rf"rules\[0\]\.equivalent\[0\]\[0\] must lie in \[0, {n - 1}\]")


def test_feature_reuse_and_names():
    doc = _doc("sc")
    first, second = doc["rules"]
    doc["feature_importances"][second["feature"]] = 0.0
    second["feature"], second["feature_name"] = first["feature"], first["feature_name"]
    _expect(doc, "rules use a feature twice, but feature_reuse is false")
    doc["params"]["feature_reuse"] = True
    _expect(doc, EDITED)
    doc = _doc("sc")
    doc["feature_names_in"][3] = 3
    _expect(doc, r"feature_names_in\[3\] must be a string, got 3")
    doc = _doc("sc")
    doc["feature_names_in"] = None  # no names: rules are named x<j>
    _expect(doc, r"rules\[0\]\.feature_name must be the name of feature \d+, 'x\d+'")
    for rule in doc["rules"]:
        rule["feature_name"] = f"x{rule['feature']}"
    _expect(doc, EDITED)


def test_the_header_checks():
    doc = _doc("sc")
    doc["format_version"] = True  # equal to 1 in Python, not a version
    _expect(doc, "^Unsupported widefs.scm format version True")
    doc["format_version"] = 1.0
    _expect(doc, EDITED)
    doc = _doc("sc")
    doc["estimator"] = ["SampleCompressionSCM"]
    _expect(doc, "estimator must be one of")
    doc = _doc("sc")
    doc["rules"][0]["direction"] = [">"]
    _expect(doc, r"rules\[0\]\.direction must be one of \['>', '<='\], got \['>'\]")
    with pytest.raises(ValueError, match="the document is nested too deeply"):
        from_json("[" * 100_000 + "]" * 100_000)


def test_number_parsers_at_their_limits():
    assert _int(0, "f", 0, 0) == 0 and _int(2**40, "f", 0, 2**40) == 2**40
    for bad, message in (
        (True, "must be an integer"),
        (1.0, "must be an integer"),
        (-1, "must lie in"),
    ):
        with pytest.raises(ValueError, match=f"Invalid widefs.scm model file: f {message}"):
            _int(bad, "f", 0, 5)
    assert _float(1, "f", 1.0, 1.0) == 1.0 and type(_float(1, "f")) is float
    for bad, message in (
        (10**400, "must be a finite number, got 1000"),
        (math.inf, "must be a finite number"),
        (False, "must be a number"),
        ("1", "must be a number"),
        (np.nextafter(1.0, 2.0), r"must lie in \[0, 1\], got 1\.0000000000000002"),
    ):
        with pytest.raises(ValueError, match=f"Invalid widefs.scm model file: f {message}"):
            _float(bad, "f", 0.0, 1.0)


def test_long_values_are_shown_truncated():
    from widefs.scm._serialize import _show

    assert _show("a" * 58) == repr("a" * 58)  # 60 characters: whole
    assert _show("a" * 59) == "'" + "a" * 56 + "..."  # 61: cut to 57 and marked
    assert len(_show(list(range(100)))) == 60


def test_a_point_past_the_grid_is_not_on_it():
    lo, hi = RANGE
    for bits in (1, 2, 4):
        step = (hi - lo) / 2 ** (bits + 1)
        assert not _on_dyadic_grid(hi + step, lo, hi, bits)  # j = 2**bits + 1


def test_the_feature_range_parameter():
    doc = _doc("occam")
    assert doc["params"]["feature_range"] == list(RANGE)
    again = from_json(json.dumps(doc))
    assert again.get_params()["feature_range"] == RANGE
    for bad, message in (
        ([0.0, 1.0, 2.0], r"params\.feature_range must have 2 entries, got 3"),
        ("ab", r"params\.feature_range must be a JSON list, got str"),
        ([0.0, "x"], r"params\.feature_range\[1\] must be a number, got 'x'"),
        ([[0.0, math.nan], 1.0], r"params\.feature_range\[0\]\[1\] must be a finite number"),
    ):
        doc["params"]["feature_range"] = bad
        _expect(doc, f"file: {message}")
    doc["params"]["feature_range"] = None  # the range of the training data: a valid edit
    _expect(doc, EDITED)


def test_per_rule_arrays_have_one_entry_per_rule():
    doc = _doc("pb")
    k = len(doc["rules"])
    doc["margin_ratios"].append(0.5)
    _expect(doc, f"file: margin_ratios must have {k} entries, got {k + 1}")
    doc = _doc("sc")
    doc["compression_set"] = doc["compression_set"][:-1]
    _expect(doc, f"file: compression_set must have {k} entries")


def test_label_width_bound_counts_every_label():
    from widefs.scm._serialize import _class_dtype

    total = MAX_LABEL_CHARS * 64
    assert _class_dtype(f"<U{MAX_LABEL_CHARS}", 64) == np.dtype(f"<U{MAX_LABEL_CHARS}")
    with pytest.raises(ValueError, match=f"classes_dtype holds labels of {MAX_LABEL_CHARS} char"):
        _class_dtype(f"<U{MAX_LABEL_CHARS}", 65)
    assert _class_dtype("<U2", total // 2) == np.dtype("<U2")  # width x count == the bound
    with pytest.raises(ValueError, match="classes_dtype holds labels of 2 characters"):
        _class_dtype("<U2", total // 2 + 1)
    assert _class_dtype("<i8", total + 1) == np.dtype("<i8")  # numbers have no width
    with pytest.raises(ValueError, match=r"got 'U5,\('$|got 'U5,\('\.$"):
        _class_dtype("U5,(", 2)


def test_feature_range_field_by_field():
    doc = _doc("occam")
    n = doc["n_features_in"]
    doc["feature_range"][0] = doc["feature_range"][0] + [0.0]
    _expect(doc, rf"file: feature_range\[0\] must have {n} entries, got {n + 1}\.$")
    doc = _doc("occam")
    doc["feature_range"][1] = doc["feature_range"][1][:-1]
    _expect(doc, rf"file: feature_range\[1\] must have {n} entries, got {n - 1}\.$")
    doc = _doc("occam")
    doc["feature_range"] = [doc["feature_range"][0]]
    _expect(doc, r"file: feature_range must have 2 entries, got 1\.$")
    doc["feature_range"] = 3
    _expect(doc, r"file: feature_range must be a JSON list, got int 3\.$")
    doc = _doc("occam")
    used = {r["feature"] for r in doc["rules"]}
    free = [j for j in range(n) if j not in used]
    lo, hi = doc["feature_range"]
    lo[free[0]] = hi[free[0]]  # equal: allowed
    lo[free[1]] = hi[free[1]] + 1.0  # the first feature with low > high is named
    _expect(doc, rf"file: feature_range must have low <= high \(feature {free[1]}\)\.$")
    doc = _doc("occam")
    doc["feature_range"][1][0] = "x"
    _expect(doc, r"file: feature_range\[1\]\[0\] must be a number, got 'x'\.$")


def test_per_feature_range_parameter_round_trips():
    X, y = _data()
    lo, hi = X.min(axis=0) - 1.0, X.max(axis=0) + 1.0
    model = OccamSCM(feature_range=(lo.tolist(), hi.tolist())).fit(X, y)
    again = from_json(model.to_json())
    got = again.get_params()["feature_range"]
    np.testing.assert_array_equal(got[0], lo)
    np.testing.assert_array_equal(got[1], hi)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    doc = json.loads(model.to_json())
    doc["params"]["feature_range"][1][2] = math.inf
    _expect(doc, r"file: params\.feature_range\[1\]\[2\] must be a finite number, got inf\.$")
    doc["params"]["feature_range"] = [0.0, "x"]
    _expect(doc, r"file: params\.feature_range\[1\] must be a number, got 'x'\.$")


def test_rule_fields_named_in_full():
    doc = _doc("pb")
    doc["rules"][0]["interval"] = [-1.0, 0.0, 1.0]
    _expect(doc, r"file: rules\[0\]\.interval must have 2 entries, got 3\.$")
    doc["rules"][0]["interval"], doc["rules"][0]["threshold"] = [0.0, 5.0], 2.5
    _expect(doc, r"file: rules\[0\]\.interval\[1\] must lie in \[-4, 4\], got 5\.0\.$")
    doc = _doc("sc")
    doc["rules"][1] = [1]
    _expect(doc, r"file: rules\[1\] must be a JSON object, got list \[1\]\.$")
    doc = _doc("sc")
    doc["rules"][1]["colour"] = 1
    _expect(doc, r"file: rules\[1\] has unknown key\(s\) \['colour'\]\.$")
    doc = _doc("sc")
    doc["rules"][0]["threshold"] = "x"
    _expect(doc, r"file: rules\[0\]\.threshold must be a number, got 'x'\.$")
    doc["rules"][0]["threshold"] = 10**400
    _expect(doc, r"file: rules\[0\]\.threshold must be a finite number, got 1000")
    doc = _doc("sc")
    doc["feature_names_in"] = "g"
    _expect(doc, r"file: feature_names_in must be a JSON list, got str 'g'\.$")


def _tied_model():
    # Feature 3 repeats feature 1, feature 4 mirrors it: a rule on 1 lists both.
    X, y = _data()
    X = np.column_stack([X, X[:, 2], -X[:, 2]])
    return SampleCompressionSCM().fit(X, y)


def test_equivalent_features_round_trip_and_are_checked():
    model = _tied_model()
    rule = next(r for r in model.rules_ if r.equivalent)
    i = model.rules_.index(rule)
    again = from_json(model.to_json())
    assert again.rules_ == model.rules_ and again.rules_[i].equivalent == rule.equivalent
    doc = json.loads(model.to_json())
    f = doc["rules"][i]["feature"]
    where = rf"rules\[{i}\]\.equivalent"
    for bad, message in (
        ([[f, ">"]], rf"{where} must not hold the rule's own feature {f}\.$"),
        ([[13, ">"], [12, "<="]], rf"{where} must list distinct features in increasing order\.$"),
        ([[12, "?"]], rf"{where}\[0\]\[1\] must be one of \['>', '<='\], got '\?'\.$"),
        ([[12]], rf"{where}\[0\] must have 2 entries, got 1\.$"),
        ("x", rf"{where} must be a JSON list, got str 'x'\.$"),
    ):
        doc["rules"][i]["equivalent"] = bad
        _expect(doc, f"file: {message}")
    del doc["rules"][i]["equivalent"]  # optional: no equivalents
    with pytest.warns(UserWarning, match="loaded as edited"):
        edited = from_json(json.dumps(doc), allow_edited=True)
    assert edited.rules_[i].equivalent == ()


def test_hash_messages_show_the_value():
    doc = _doc("sc")
    doc["content_hash"] = 12345
    _expect(doc, r"file: content_hash must be a string, got 12345; pass allow_edited=True")
    doc["classes"] = {"a": 1}
    _expect(doc, r"file: classes must be a JSON list, got dict \{'a': 1\}\.$")


@pytest.mark.parametrize("key", list(MODELS))
def test_every_fitted_attribute_round_trips(key):
    model = MODELS[key]
    again = from_json(model.to_json())
    assert again.get_params(deep=True) == model.get_params(deep=True)
    np.testing.assert_array_equal(again.bound_path_, model.bound_path_)
    np.testing.assert_array_equal(again.selected_features_, model.selected_features_)
    np.testing.assert_array_equal(again.feature_importances_, model.feature_importances_)
    assert again.n_rules_learned_ == model.n_rules_learned_
    assert again.classes_.dtype == model.classes_.dtype
    for attr in ("feature_names_in_", "compression_set_", "margin_ratios_"):
        if hasattr(model, attr):
            assert getattr(again, attr).dtype == getattr(model, attr).dtype
            np.testing.assert_array_equal(getattr(again, attr), getattr(model, attr))
    if hasattr(model, "feature_range_"):
        np.testing.assert_array_equal(again.feature_range_[0], model.feature_range_[0])
        np.testing.assert_array_equal(again.feature_range_[1], model.feature_range_[1])
    risk = model._training_risk_attribute
    assert getattr(again, risk) == getattr(model, risk)
