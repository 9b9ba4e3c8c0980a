"""Self-describing JSON for fitted Set Covering Machines, validated field by field on load.

A model file is data, never code: :func:`model_from_json` checks every field (type,
range, length, known directions, finite numbers, feature indices in range, the
consistency of the bound path with the kept rules...) before building anything, and a
bad file is one ``ValueError`` naming the field. A well-formed file whose values were
changed after it was written (an edited threshold predicts differently) is caught by its
``content_hash``, the SHA-256 of the document's canonical JSON: refused, or loaded with a
warning when the caller says it was edited (``allow_edited=True``). The estimator
classes register themselves here with :func:`serializable`, so this module imports none
of them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from widefs.scm._bounds import MAX_BITS, dyadic_threshold
from widefs.scm._rules import StumpRule

__all__ = ["from_json", "model_from_json", "model_to_json", "serializable"]

FORMAT = "widefs.scm"
FORMAT_VERSION = 1
# Largest feature count a file may declare (feature indices are stored as 32-bit ints).
MAX_FEATURES = 2**31 - 1
# The dtypes a model's classes may have (byte order, then kind and size); a string dtype's
# width is bounded, since numpy allocates it for every label.
_CLASS_DTYPE = re.compile(r"[<>|=]?(?:b1|[iu][1248]|f[248]|U(\d{1,9})|O)")
MAX_LABEL_CHARS = 4096
# The document's SHA-256, over its canonical JSON without this key (see _content_hash).
HASH_KEY = "content_hash"
_RULE_KEYS = frozenset({"feature", "feature_name", "direction", "threshold", "interval", "bits"})

_MODEL_CLASSES: dict[str, type] = {}
# The decision-list layout (more than two classes): registered by widefs.scm._serialize_list.
_LIST_LAYOUT: dict[str, object] = {}


def serializable(cls: type) -> type:
    """Class decorator: register a Set Covering Machine for :func:`model_from_json`.

    The class declares ``_training_risk_attribute`` (``"empirical_risk_"`` or
    ``"gibbs_risk_"``), ``_rule_extra`` (``None``, ``"bits"`` or ``"interval"``: the field
    its rules carry) and ``_per_rule_arrays`` (fitted arrays with one entry per kept rule).
    """
    _MODEL_CLASSES[cls.__name__] = cls
    return cls


def _plain(value):
    """JSON-safe version of a parameter or label (numpy scalars, tuples, arrays)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _content_hash(doc: dict) -> str:
    """``"sha256:<hex>"`` of the document's canonical JSON (sorted keys, no spaces, ASCII),
    without its hash: reformatting a file keeps it, changing any value does not."""
    body = {k: v for k, v in doc.items() if k != HASH_KEY}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def model_to_json(model) -> str:
    """JSON text holding the estimator's class, parameters, classes, rules and bounds.

    Floats are written with Python's shortest round-trip repr, so thresholds (and hence
    predictions) are identical after :func:`model_from_json`. The last field is the
    document's ``content_hash``.
    """
    # The hash is taken of the document as a reader parses it back.
    doc = json.loads(json.dumps(_model_doc(model), allow_nan=False))
    doc[HASH_KEY] = _content_hash(doc)
    return json.dumps(doc, indent=1, allow_nan=False)


def _model_doc(model) -> dict:
    """The document of :func:`model_to_json`, without its hash."""
    check_is_fitted(model, "rules_")
    if model.classes_.size > 2:
        return _LIST_LAYOUT["write"](model)
    cls = type(model)
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "estimator": cls.__name__,
        "params": {k: _plain(v) for k, v in model.get_params(deep=False).items()},
        "classes": _plain(model.classes_),
        "classes_dtype": model.classes_.dtype.str,
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": (
            _plain(model.feature_names_in_) if hasattr(model, "feature_names_in_") else None
        ),
        "n_rules_learned": int(model.n_rules_learned_),
        "rules": [r.to_dict() for r in model.rules_],
        "feature_range": (
            [_plain(model.feature_range_[0]), _plain(model.feature_range_[1])]
            if hasattr(model, "feature_range_")
            else None
        ),
        "risk_bound": float(model.risk_bound_),
        cls._training_risk_attribute.rstrip("_"): float(
            getattr(model, cls._training_risk_attribute)
        ),
        "bound_path": _plain(model.bound_path_),
        "feature_importances": _plain(model.feature_importances_),
    }
    if hasattr(model, "bayes_risk_bound_"):
        doc["bayes_risk_bound"] = float(model.bayes_risk_bound_)
    for attr in cls._per_rule_arrays:
        doc[attr.rstrip("_")] = _plain(getattr(model, attr))
    return doc


# -- validation helpers: each raises one ValueError naming the field ------------------------
def _fail(field: str, problem: str):
    raise ValueError(f"Invalid {FORMAT} model file: {field} {problem}.")


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _object(value, field: str) -> dict:
    if not isinstance(value, dict):
        _fail(field, f"must be a JSON object, got {type(value).__name__} {_show(value)}")
    return value


def _keys(doc: dict, field: str, required: set[str], optional: set[str] = frozenset()) -> None:
    missing = sorted(required - doc.keys())
    if missing:
        _fail(field, f"misses the key(s) {missing}")
    unknown = sorted(doc.keys() - required - optional)
    if unknown:
        _fail(field, f"has unknown key(s) {unknown}")


def _int(value, field: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(field, f"must be an integer, got {_show(value)}")
    if not lo <= value <= hi:
        _fail(field, f"must lie in [{lo}, {hi}], got {_show(value)}")
    return value


def _float(value, field: str, lo: float = -math.inf, hi: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        _fail(field, f"must be a number, got {_show(value)}")
    try:
        value = float(value)
    except OverflowError:
        _fail(field, f"must be a finite number, got {_show(value)}")
    if not math.isfinite(value):
        _fail(field, f"must be a finite number, got {_show(value)}")
    if not lo <= value <= hi:
        _fail(field, f"must lie in [{lo:g}, {hi:g}], got {value!r}")
    return value


def _list(value, field: str, length: int | None = None) -> list:
    if not isinstance(value, list):
        _fail(field, f"must be a JSON list, got {type(value).__name__} {_show(value)}")
    if length is not None and len(value) != length:
        _fail(field, f"must have {length} entries, got {len(value)}")
    return value


def _floats(value, field: str, length: int, lo=-math.inf, hi=math.inf) -> np.ndarray:
    items = _list(value, field, length)
    return np.array([_float(v, f"{field}[{i}]", lo, hi) for i, v in enumerate(items)])


def _choice(value, field: str, choices: tuple[str, ...]) -> str:
    if value not in choices or not isinstance(value, str):
        _fail(field, f"must be one of {list(choices)}, got {_show(value)}")
    return value


def _class_dtype(text, n_classes: int) -> np.dtype:
    """``classes_dtype`` from a whitelist: numpy parses other dtype strings with Python's
    own parser (a ``SyntaxError`` escapes) and sizes strings as asked (``<U500000000``
    allocates 2 GB per label)."""
    match = _CLASS_DTYPE.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        _fail(
            "classes_dtype",
            f"must be a bool, integer, float, string or object dtype string such as '<i8', "
            f"'<U5' or '|O', got {_show(text)}",
        )
    width = int(match.group(1) or 0)
    if width > MAX_LABEL_CHARS or width * n_classes > MAX_LABEL_CHARS * 64:
        _fail("classes_dtype", f"holds labels of {width} characters, more than {MAX_LABEL_CHARS}")
    return np.dtype(text)


def _margin_interval(a: float, b: float, t: float, lo: float, hi: float, margin):
    """The ``(a, b, t)`` a PAC-Bayes learner derives from ``(a, b)`` (learned margin: ``t`` is
    the middle) or from ``t`` (fixed margin: ``[t - h, t + h]`` clipped, ``h = margin (B - A)``),
    with the learner's float operations."""
    if margin is None:
        return a, b, a + (b - a) / 2.0
    h = margin * (hi - lo)
    return max(t - h, lo), min(t + h, hi), t


def _on_dyadic_grid(t: float, lo: float, hi: float, bits: int) -> bool:
    """Whether ``t`` is a point of ``Lambda_bits(lo, hi)`` as the Occam learner computes it."""
    if not lo < hi:
        return False
    j = round(((t - lo) / (hi - lo) * 2.0 ** (bits + 1) + 1.0) / 2.0)
    return 1 <= j <= 2**bits and dyadic_threshold(lo, hi, bits, j) == t


# -- reading ---------------------------------------------------------------------------------
def model_from_json(text: str, *, allow_edited: bool = False):
    """Rebuild a fitted estimator from :func:`model_to_json` output, checking every field.

    Parameters
    ----------
    text : str
    allow_edited : bool, default=False
        Load a well-formed file whose values do not match its ``content_hash`` (or that has
        none), with a ``UserWarning`` saying so, instead of refusing it.

    Raises
    ------
    ValueError
        Naming the first field that is missing, unknown, of the wrong type, out of range,
        of the wrong length or inconsistent with the others; or, when every field is valid,
        saying that the values do not match the ``content_hash``.

    Examples
    --------
    >>> import numpy as np
    >>> from widefs.scm import SampleCompressionSCM
    >>> X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    >>> clf = SampleCompressionSCM().fit(X, ["a", "a", "b", "b"])
    >>> again = model_from_json(clf.to_json())
    >>> bool((again.predict(X) == clf.predict(X)).all()), again.rules_ == clf.rules_
    (True, True)
    >>> model_from_json(clf.to_json().replace('"<="', '"sideways"').replace('">"', '"sideways"'))
    Traceback (most recent call last):
    ...
    ValueError: Invalid widefs.scm model file: rules[0].direction must be one of ['>', '<='], got 'sideways'.
    """
    try:
        doc = json.loads(text)
    except RecursionError:
        _fail("the document", "is nested too deeply")
    except json.JSONDecodeError as exc:
        _fail("the document", f"is not valid JSON ({exc})")
    doc = _object(doc, "the document")
    fmt = doc.get("format")
    if fmt != FORMAT:
        raise ValueError(f"Not a {FORMAT} model: format is {_show(fmt)}.")
    if doc.get("format_version") != FORMAT_VERSION or isinstance(doc.get("format_version"), bool):
        raise ValueError(
            f"Unsupported {FORMAT} format version {_show(doc.get('format_version'))} "
            f"(this widefs reads version {FORMAT_VERSION})."
        )
    name = doc.get("estimator")
    if not isinstance(name, str) or name not in _MODEL_CLASSES:
        _fail("estimator", f"must be one of {sorted(_MODEL_CLASSES)}, got {_show(name)}")
    stored = doc.pop(HASH_KEY, None)
    actual = _content_hash(doc)
    if "machines" in doc:
        model = _LIST_LAYOUT["read"](_MODEL_CLASSES[name], doc)
    else:
        model = _Reader(_MODEL_CLASSES[name], doc).model
    # After the fields: a malformed value is named by its field, a valid edit by the hash.
    _check_content_hash(stored, actual, allow_edited)
    return model


def _check_content_hash(stored, actual: str, allow_edited: bool) -> None:
    if stored == actual:
        return
    if stored is None:
        problem = f"the document has no {HASH_KEY} (written by an earlier widefs or by hand, or the hash was removed)"
    elif not isinstance(stored, str):
        problem = f"{HASH_KEY} must be a string, got {_show(stored)}"
    else:
        problem = f"the values do not match {HASH_KEY}: the file was edited after it was written"
    if not allow_edited:
        raise ValueError(
            f"Invalid {FORMAT} model file: {problem}; pass allow_edited=True to load it as edited."
        )
    warnings.warn(f"{FORMAT} model file loaded as edited: {problem}.", UserWarning, stacklevel=4)


class _Reader:
    """Validates a parsed document of one estimator class and builds the model."""

    def __init__(self, cls: type, doc: dict):
        self.cls = cls
        risk_key = cls._training_risk_attribute.rstrip("_")
        required = {
            "format", "format_version", "estimator", "params", "classes", "classes_dtype",
            "n_features_in", "feature_names_in", "n_rules_learned", "rules", "feature_range",
            "risk_bound", risk_key, "bound_path", "feature_importances",
            *(a.rstrip("_") for a in cls._per_rule_arrays),
        }  # fmt: skip
        optional = {"bayes_risk_bound"} if hasattr(cls, "bayes_risk_bound_") else set()
        _keys(doc, "the document", required, optional)
        self.doc = doc
        model = self._params(_object(doc["params"], "params"))
        model.classes_ = self._classes(doc["classes"], doc["classes_dtype"])
        n = model.n_features_in_ = _int(doc["n_features_in"], "n_features_in", 1, MAX_FEATURES)
        # Lengths are checked against the document's own lists before anything is allocated.
        importances = _floats(doc["feature_importances"], "feature_importances", n, 0.0)
        names = doc["feature_names_in"]
        if names is not None:
            _list(names, "feature_names_in", n)
            for i, v in enumerate(names):
                if not isinstance(v, str):
                    _fail(f"feature_names_in[{i}]", f"must be a string, got {_show(v)}")
            model.feature_names_in_ = np.array(names, dtype=object)
        has_range = "feature_range" in cls._parameter_constraints
        rng = self._feature_range(doc["feature_range"], n, has_range)
        if has_range:
            model.feature_range_ = rng
        rules = self._rules(_list(doc["rules"], "rules"), model, rng)
        k = len(rules)
        learned = _int(doc["n_rules_learned"], "n_rules_learned", k, model.max_rules)
        path = _floats(doc["bound_path"], "bound_path", learned + 1, 0.0, 1.0)
        kept = int(np.argmin(path)) if model.select == "bound" else learned
        if kept != k:
            _fail(
                "rules",
                f"hold {k} rule(s), but select={model.select!r} keeps {kept} of the "
                f"{learned} learned (bound_path)",
            )
        risk = _float(doc["risk_bound"], "risk_bound", 0.0, 1.0)
        if risk != path[k]:
            _fail("risk_bound", f"must equal bound_path[{k}] = {path[k]!r}, got {risk!r}")
        if "bayes_risk_bound" in doc:
            bayes = _float(doc["bayes_risk_bound"], "bayes_risk_bound", 0.0, 1.0)
            if bayes != min(1.0, 2.0 * risk):
                _fail("bayes_risk_bound", f"must equal min(1, 2 risk_bound), got {bayes!r}")
        risk_key = cls._training_risk_attribute.rstrip("_")
        setattr(model, cls._training_risk_attribute, _float(doc[risk_key], risk_key, 0.0, 1.0))
        model.risk_bound_ = risk
        model.bound_path_ = path
        model.n_rules_learned_ = learned
        model.rules_ = rules
        model.selected_features_ = np.array([r.feature for r in rules], dtype=np.intp)
        if set(np.flatnonzero(importances).tolist()) != set(model.selected_features_.tolist()):
            _fail("feature_importances", "must be positive exactly at the rules' features")
        model.feature_importances_ = importances
        for attr in cls._per_rule_arrays:
            setattr(model, attr, self._per_rule(attr.rstrip("_"), k))
        self.model = model

    def _params(self, params: dict):
        model = self.cls()
        _keys(params, "params", set(model.get_params(deep=False)))
        if "feature_range" in params:
            params = {**params, "feature_range": self._range_param(params["feature_range"])}
        try:
            model.set_params(**params)
            model._validate_params()
        except (TypeError, ValueError) as exc:
            _fail("params", f"are not valid: {exc}")
        return model

    @staticmethod
    def _range_param(value):
        if value is None:
            return None
        pair = _list(value, "params.feature_range", 2)
        out = []
        for i, v in enumerate(pair):
            field = f"params.feature_range[{i}]"
            out.append(_floats(v, field, len(v)) if isinstance(v, list) else _float(v, field))
        return tuple(out)

    @staticmethod
    def _classes(classes, dtype_text) -> np.ndarray:
        _list(classes, "classes", 2)
        dtype = _class_dtype(dtype_text, len(classes))
        for i, c in enumerate(classes):
            ok = isinstance(c, str | int | float) and not (
                isinstance(c, float) and not math.isfinite(c)
            )
            if not ok:
                _fail(f"classes[{i}]", f"must be a string, a number or a boolean, got {_show(c)}")
        try:
            arr = np.array(classes, dtype=dtype)
            increasing = bool(arr[0] < arr[1])
        except (TypeError, ValueError, OverflowError):
            _fail("classes", f"do not fit classes_dtype {dtype_text!r}: {_show(classes)}")
        if _plain(arr) != classes or [type(v) for v in _plain(arr)] != [type(v) for v in classes]:
            _fail("classes", f"change when stored as {dtype_text!r}: {_show(classes)}")
        if not increasing:
            _fail(
                "classes", f"must be two distinct labels in increasing order, got {_show(classes)}"
            )
        return arr

    @staticmethod
    def _feature_range(value, n: int, has_range: bool):
        if not has_range:
            if value is not None:
                _fail("feature_range", "must be null for this estimator")
            return None
        pair = _list(value, "feature_range", 2)
        lo = _floats(pair[0], "feature_range[0]", n)
        hi = _floats(pair[1], "feature_range[1]", n)
        if np.any(lo > hi):
            _fail("feature_range", f"must have low <= high (feature {int(np.argmax(lo > hi))})")
        return lo, hi

    def _rules(self, items: list, model, rng) -> list[StumpRule]:
        extra = self.cls._rule_extra
        names = getattr(model, "feature_names_in_", None)
        rules = []
        for i, item in enumerate(items):
            where = f"rules[{i}]"
            d = _object(item, where)
            _keys(d, where, set(_RULE_KEYS), {"equivalent"})
            f = _int(d["feature"], f"{where}.feature", 0, model.n_features_in_ - 1)
            name = names[f] if names is not None else f"x{f}"
            if d["feature_name"] != name:
                _fail(f"{where}.feature_name", f"must be the name of feature {f}, {name!r}")
            direction = _choice(d["direction"], f"{where}.direction", (">", "<="))
            lo, hi = (rng[0][f], rng[1][f]) if rng is not None else (-math.inf, math.inf)
            t = _float(d["threshold"], f"{where}.threshold", lo, hi)
            interval = bits = None
            for key in ("interval", "bits"):
                if key != extra and d[key] is not None:
                    _fail(f"{where}.{key}", "must be null for this estimator")
            if extra == "interval":
                a, b = _floats(d["interval"], f"{where}.interval", 2, lo, hi).tolist()
                if not a < b or (a, b, t) != _margin_interval(a, b, t, lo, hi, model.margin):
                    _fail(
                        f"{where}.interval",
                        f"must be the margin interval of threshold {t!r} "
                        f"(margin={model.margin!r}), got {[a, b]!r}",
                    )
                interval = (a, b)
            elif extra == "bits":
                bits = _int(d["bits"], f"{where}.bits", 0, MAX_BITS)
                if not _on_dyadic_grid(t, lo, hi, bits):
                    _fail(f"{where}.threshold", f"must lie on the {bits}-bit grid of the range")
            equivalent = _equivalents(d.get("equivalent", []), where, model.n_features_in_, f)
            rules.append(StumpRule(f, name, direction, t, interval, bits, equivalent))
        features = [r.feature for r in rules]
        if not model.feature_reuse and len(set(features)) != len(features):
            _fail("rules", "use a feature twice, but feature_reuse is false")
        return rules

    def _per_rule(self, key: str, k: int) -> np.ndarray:
        if key == "compression_set":
            items = _list(self.doc[key], key, k)
            rows = [_int(v, f"{key}[{i}]", 0, MAX_FEATURES) for i, v in enumerate(items)]
            if len(set(rows)) != k:
                _fail(key, "must hold distinct training rows")
            return np.array(rows, dtype=np.intp)
        ratios = _floats(self.doc[key], key, k, 0.0, 1.0)
        if np.any(ratios <= 0):
            _fail(key, "must lie in (0, 1]")
        return ratios


# -- equivalent features (the decision-list layout: widefs.scm._serialize_list) ---------------
def _equivalents(value, where: str, n_features: int, feature: int) -> tuple:
    """A rule's equivalent features: ``[[feature, direction], ...]``, increasing, not its own."""
    field = f"{where}.equivalent"
    out = []
    for i, item in enumerate(_list(value, field)):
        pair = _list(item, f"{field}[{i}]", 2)
        g = _int(pair[0], f"{field}[{i}][0]", 0, n_features - 1)
        out.append((g, _choice(pair[1], f"{field}[{i}][1]", (">", "<="))))
    features = [g for g, _ in out]
    if feature in features:
        _fail(field, f"must not hold the rule's own feature {feature}")
    if any(a >= b for a, b in itertools.pairwise(features)):
        _fail(field, "must list distinct features in increasing order")
    return tuple(out)


def from_json(text: str, *, allow_edited: bool = False):
    """Rebuild any fitted widefs.scm model from its JSON (see ``model.to_json()``).

    Every field is checked on load (types, ranges, lengths, known directions, finite
    thresholds, feature indices in range, consistency of the rules with the bound path);
    a bad file raises one ``ValueError`` naming the field. A file whose values were
    changed after it was written (they no longer match its ``content_hash``) is refused
    in one line unless ``allow_edited=True``.

    Parameters
    ----------
    text : str
        The JSON written by ``model.to_json()``.
    allow_edited : bool, default=False
        Load a valid file that was edited (its values do not match its ``content_hash``,
        or it has none), with a ``UserWarning`` saying so.

    Returns
    -------
    SampleCompressionSCM, OccamSCM or PACBayesSCM
        Fitted; its predictions are identical to the saved model's.

    See Also
    --------
    SampleCompressionSCM.to_json : Writes the JSON.

    Examples
    --------
    >>> import numpy as np
    >>> from widefs.scm import OccamSCM
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> clf = OccamSCM(feature_range=(0.0, 4.0)).fit(X, [0, 0, 1, 1])
    >>> again = from_json(clf.to_json())
    >>> type(again).__name__, again.rules_ == clf.rules_
    ('OccamSCM', True)
    >>> from_json('[]')
    Traceback (most recent call last):
    ...
    ValueError: Invalid widefs.scm model file: the document must be a JSON object, got list [].
    >>> edited = clf.to_json().replace('"threshold": 1.0', '"threshold": 3.0')
    >>> from_json(edited)
    Traceback (most recent call last):
    ...
    ValueError: Invalid widefs.scm model file: the values do not match content_hash: the file was edited after it was written; pass allow_edited=True to load it as edited.
    """
    return model_from_json(text, allow_edited=allow_edited)
