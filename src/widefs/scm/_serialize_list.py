"""The JSON layout of a multiclass decision list of Set Covering Machines.

The fields the machines share (format, estimator, parameters, features, ranges) are written
once; each machine follows as a binary model's own fields (rules, bound path, importances...)
with its class and example count. Reading rebuilds every machine with the binary reader,
so each is validated field by field as a binary model file is, then checks the list: the
classes (at least three, increasing), one machine per class but the last, each separating a
class still left (the last the later of the final two), example counts that never grow, and
a risk bound equal to the sum of the machines' bounds.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
from sklearn.base import clone

from widefs.scm._multiclass import ClassMachine, combined_importances
from widefs.scm._serialize import (
    _LIST_LAYOUT,
    HASH_KEY,
    MAX_FEATURES,
    _class_dtype,
    _fail,
    _float,
    _int,
    _keys,
    _list,
    _object,
    _plain,
    _Reader,
    model_to_json,
)

__all__ = ["list_doc", "read_list"]


# The fields a machine of a decision list shares with the list (written once, in the list).
_SHARED = (
    "format", "format_version", "estimator", "params", "n_features_in", "feature_names_in",
    "feature_range",
)  # fmt: skip


def list_doc(model) -> dict:
    """The JSON document of a decision list: the shared fields once, then each machine's own."""
    risk_key = type(model)._training_risk_attribute.rstrip("_")
    classes = list(model.classes_)
    machines = []
    for cm in model.machines_:
        own = json.loads(model_to_json(cm.machine))
        for key in (*_SHARED, "classes", "classes_dtype", HASH_KEY):
            own.pop(key)
        machines.append(
            {"label": classes.index(cm.label), "n_examples": int(cm.n_examples), "model": own}
        )
    first = json.loads(model_to_json(model.machines_[0].machine))
    return {
        **{key: first[key] for key in _SHARED},
        "classes": _plain(model.classes_),
        "classes_dtype": model.classes_.dtype.str,
        "risk_bound": float(model.risk_bound_),
        risk_key: float(getattr(model, model._training_risk_attribute)),
        "machines": machines,
    }


def _list_classes(classes, dtype_text) -> np.ndarray:
    """At least three labels, distinct and increasing, that fit ``dtype_text``."""
    items = _list(classes, "classes")
    if len(items) < 3:
        _fail("classes", f"of a decision list must hold at least 3 labels, got {len(items)}")
    _class_dtype(dtype_text, len(items))  # the width bound counts every label of the list
    for i in range(len(items) - 1):  # each neighbouring pair as a binary model's classes
        try:
            _Reader._classes(items[i : i + 2], dtype_text)
        except ValueError as exc:
            # The pair's message names "classes" or "classes[k]": name the list's own entries.
            field, _, problem = str(exc).split("model file: ", 1)[-1].rstrip(".").partition(" ")
            entry = re.fullmatch(r"classes\[(\d)\]", field)
            _fail(f"classes[{i + int(entry[1])}]" if entry else f"classes[{i}:{i + 2}]", problem)
    return np.array(items, dtype=np.dtype(dtype_text))


def _read_machine(cls, doc: dict, item, i: int, n_classes: int):
    """``(label index, n_examples, fitted machine)`` of ``machines[i]``."""
    where = f"machines[{i}]"
    item = _object(item, where)
    _keys(item, where, {"label", "n_examples", "model"})
    label = _int(item["label"], f"{where}.label", 0, n_classes - 1)
    n_examples = _int(item["n_examples"], f"{where}.n_examples", 2, MAX_FEATURES)
    own = _object(item["model"], f"{where}.model")
    for key in own.keys() & {*_SHARED, "classes", "classes_dtype"}:
        _fail(f"{where}.model", f"must not repeat the shared field {key!r}")
    machine_doc = {
        **{key: doc[key] for key in _SHARED},
        "classes": [0, 1],
        "classes_dtype": np.dtype(np.int64).str,
        **own,
    }
    try:
        machine = _Reader(cls, machine_doc).model
    except ValueError as exc:
        raise ValueError(
            str(exc).replace("model file: ", f"model file: {where}.model.", 1)
        ) from None
    return label, n_examples, machine


def read_list(cls, doc: dict):
    """Rebuild a decision list, checking every field (each machine as a binary model)."""
    risk_key = cls._training_risk_attribute.rstrip("_")
    required = {*_SHARED, "classes", "classes_dtype", "risk_bound", risk_key, "machines"}
    _keys(doc, "the document", required)
    classes = _list_classes(doc["classes"], doc["classes_dtype"])
    items = _list(doc["machines"], "machines", classes.size - 1)
    remaining = list(range(classes.size))
    machines, previous = [], math.inf
    for i, item in enumerate(items):
        label, n_examples, machine = _read_machine(cls, doc, item, i, classes.size)
        allowed = remaining if len(remaining) > 2 else remaining[-1:]
        if label not in allowed:
            _fail(
                f"machines[{i}].label", f"must be one of {allowed} (the classes left), got {label}"
            )
        if n_examples > previous:
            _fail(f"machines[{i}].n_examples", "must not exceed the previous machine's")
        machines.append(
            ClassMachine(classes[label], machine, tuple(classes[remaining]), n_examples)
        )
        remaining.remove(label)
        previous = n_examples
    risk = _float(doc["risk_bound"], "risk_bound", 0.0, 1.0)
    total = min(1.0, float(sum(cm.machine.risk_bound_ for cm in machines)))
    if risk != total:
        _fail("risk_bound", f"must equal min(1, sum of the machines' bounds) = {total!r}")
    model = clone(machines[0].machine)
    for attr in ("n_features_in_", "feature_names_in_", "feature_range_"):
        if hasattr(machines[0].machine, attr):
            setattr(model, attr, getattr(machines[0].machine, attr))
    model.classes_ = classes
    model.machines_ = machines
    model.rules_ = [r for cm in machines for r in cm.machine.rules_]
    model.selected_features_ = np.array([r.feature for r in model.rules_], dtype=np.intp)
    model.n_rules_learned_ = sum(cm.machine.n_rules_learned_ for cm in machines)
    model.feature_importances_ = combined_importances(machines, model.n_features_in_)
    model.risk_bound_ = risk
    setattr(model, cls._training_risk_attribute, _float(doc[risk_key], risk_key, 0.0, 1.0))
    return model


_LIST_LAYOUT.update(write=list_doc, read=read_list)
