"""``widefs run`` loads scipy and matplotlib without generating docstrings it never shows."""

import json
import subprocess
import sys

import pytest

# Imports scipy.stats and matplotlib's artists inside the block, then reports what loaded.
PROBE = """
import inspect, json, sys
{before}
from widefs.cli._library_docs import library_docs_skipped
finders = len(sys.meta_path)
with library_docs_skipped():
    import numpy as np, scipy.stats, matplotlib.artist, matplotlib.lines
    signature = vars(matplotlib.artist.Artist)["_update_set_signature_and_docstring"]
    inside = (  # (scipy < 1.15 adds no array-API notes: its module has no FunctionDoc)
        getattr(getattr(scipy._lib._array_api, "FunctionDoc", None), "__name__", None),
        matplotlib.artist.kwdoc.__name__,
        signature.__func__.__name__,
        scipy.stats._distn_infrastructure.rv_generic._construct_doc.__name__,
    )
class Later(matplotlib.artist.Artist):  # defined after the block: matplotlib's set signature
    pass
line = matplotlib.lines.Line2D([0], [1], linewidth=2)
line.set(color="red", lw=3)  # set works as ever (aliases too)
import scipy._lib._array_api as xp
from scipy._lib._docscrape import FunctionDoc
print(json.dumps({{
    "inside": inside,
    "array_api_notes": hasattr(xp, "FunctionDoc"),
    "restored": [
        getattr(xp, "FunctionDoc", FunctionDoc) is FunctionDoc,
        matplotlib.artist.kwdoc.__name__ == "kwdoc",
        "visible" in inspect.signature(Later.set).parameters,
        scipy.stats._distn_infrastructure.rv_generic._construct_doc.__name__ == "_construct_doc",
    ],
    "finders_left": len(sys.meta_path) - finders,
    "loaders": [type(m.__loader__).__name__ for m in (xp, matplotlib.artist)],
    "ttest_doc": scipy.stats.ttest_ind.__doc__,
    "norm_doc": scipy.stats.norm.__doc__,
    "set_doc": matplotlib.lines.Line2D.set.__doc__,
    "set_signature": list(inspect.signature(matplotlib.lines.Line2D.set).parameters),
    "sf": float(scipy.stats.binom.sf(3, 10, 0.5)),
    "line": [line.get_linewidth(), line.get_color()],
}}))
"""


def _probe(before=""):
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(before=before)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_modules_loaded_inside_skip_the_generated_docs_and_keep_their_own():
    seen = _probe()
    own = "_OwnDoc" if seen["array_api_notes"] else None  # nothing to replace: left alone
    assert seen["inside"] == [own, "_no_property_list", "_no_set_signature", "_no_distribution_doc"]
    assert "%(before_notes)s" in seen["norm_doc"]  # the template, unfilled
    assert "Calculate the T-test for the means" in seen["ttest_doc"]
    assert "Array API Standard Support" not in seen["ttest_doc"]  # scipy._lib._array_api
    assert "Beginning in SciPy 1.9" not in seen["ttest_doc"]  # scipy.stats._axis_nan_policy
    assert "Properties:" not in (seen["set_doc"] or "")  # the property list was left out
    assert seen["set_signature"] == ["self", "kwargs"]
    assert seen["sf"] == pytest.approx(848 / 1024) and seen["line"] == [3, "red"]


def test_the_block_leaves_nothing_behind():
    seen = _probe()
    assert seen["restored"] == [True, True, True, True]
    assert seen["finders_left"] == 0
    assert seen["loaders"] == ["SourceFileLoader", "SourceFileLoader"]


def test_modules_loaded_before_the_block_are_left_alone():
    seen = _probe(before="import scipy.stats, matplotlib.lines")
    notes = seen["array_api_notes"]
    assert seen["inside"] == [
        "FunctionDoc" if notes else None,
        "kwdoc",
        "_update_set_signature_and_docstring",
        "_construct_doc",
    ]
    assert ("Array API Standard Support" in seen["ttest_doc"]) == notes
    assert "Beginning in SciPy 1.9" in seen["ttest_doc"]
    assert "%(" not in seen["norm_doc"] and "Methods" in seen["norm_doc"]
    assert "Properties:" in seen["set_doc"] and "linewidth" in seen["set_signature"]


def test_a_run_imports_inside_the_block(monkeypatch):
    from widefs.cli import _main
    from widefs.cli._as_loaded import _Replacing

    during = []

    def report(args, console, keep):
        during.append(any(isinstance(f, _Replacing) for f in sys.meta_path))
        return 0

    monkeypatch.setattr(_main, "_report", report)
    assert _main._run(None, None) == 0
    assert during == [True]
    assert not any(isinstance(f, _Replacing) for f in sys.meta_path)


# Two blocks replacing in one module: both replacements while inside, both undone after.
TWO_BLOCKS = """
import json
from widefs.cli._as_loaded import replaced_as_loaded
from widefs.cli._library_docs import library_docs_skipped
def mine(*args):
    return None
with library_docs_skipped(), replaced_as_loaded({"matplotlib.artist": [("getp", mine)]}):
    import matplotlib.artist as artist
    inside = [artist.kwdoc.__name__, artist.getp.__name__]
print(json.dumps([inside, [artist.kwdoc.__name__, artist.getp.__name__]]))
"""


def test_two_blocks_replace_in_one_module():
    out = subprocess.run(
        [sys.executable, "-c", TWO_BLOCKS], capture_output=True, text=True, check=True, timeout=300
    )
    inside, after = json.loads(out.stdout.strip().splitlines()[-1])
    assert inside == ["_no_property_list", "mine"]
    assert after == ["kwdoc", "getp"]
