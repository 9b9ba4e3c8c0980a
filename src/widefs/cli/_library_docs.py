"""Docstrings that libraries generate as they load, left out while ``widefs run`` imports them.

As its modules load, scipy (1.15+) adds notes to the docstrings of ~600 functions (array-API
backends, the ``axis``/``nan_policy`` parameters), parsing each docstring with its numpydoc
reader first, and fills the template of each of its ~130 distributions' docstrings;
matplotlib lists every settable property of each Artist class in the
docstring and signature of its ``set``. Together ~0.3 s CPU of a colon run's ~1.8 s of
imports, for texts a run never shows. Inside :func:`library_docs_skipped`, as each module
of :data:`_REPLACED` loads, what it generates them with is replaced by what leaves a
function's own docstring (and ``set``'s ``**kwargs`` signature) as written; the originals
are put back at the block's end. Only ``help()`` texts and signatures change, of what loaded
inside the block: nothing a function computes reads them. A module loaded before the block
is left alone; where a library no longer has the name, nothing is replaced.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict

from widefs.cli._as_loaded import replaced_as_loaded

__all__ = ["library_docs_skipped"]


class _OwnDoc(defaultdict):
    """What scipy's ``xp_capabilities`` decorator reads of a ``FunctionDoc``: sections to
    append to (``doc["Notes"]``), and ``str(doc)`` whose first line is dropped and whose
    rest becomes the docstring: the function's own, unparsed."""

    def __init__(self, func, *args, **kwargs):
        super().__init__(list)
        self._doc = getattr(func, "__doc__", None) or ""

    def __str__(self) -> str:
        return "\n" + self._doc


def _no_property_list(artist) -> str:
    return ""


def _no_distribution_doc(self, docdict, shapes_vals=None) -> None:
    """A scipy.stats distribution keeps its docstring's template unfilled."""


def _no_set_signature(cls) -> None:
    """Each Artist class's ``set`` keeps its ``**kwargs`` signature (matplotlib lists the
    class's properties there: ``inspect.signature`` only; ``set`` works the same)."""


# module -> (attribute or "Class.attribute", replacement): what the module generates docs
# with when it (or a later one) defines functions and classes.
_REPLACED = {
    "scipy._lib._array_api": [("FunctionDoc", _OwnDoc)],
    "scipy._lib._util": [("FunctionDoc", _OwnDoc)],  # rng and batch notes
    "scipy.stats._axis_nan_policy": [("FunctionDoc", _OwnDoc)],  # axis, nan_policy, keepdims
    "scipy.stats._distn_infrastructure": [("rv_generic._construct_doc", _no_distribution_doc)],
    "matplotlib.artist": [
        ("kwdoc", _no_property_list),
        ("Artist._update_set_signature_and_docstring", classmethod(_no_set_signature)),
    ],
}


@contextlib.contextmanager
def library_docs_skipped():
    """Within the block, scipy's array-API notes and distribution docstrings and matplotlib's
    property lists are not generated for the modules that load (see the module's docstring)."""
    with replaced_as_loaded(_REPLACED):
        yield
