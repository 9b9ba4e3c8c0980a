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
import sys
from collections import defaultdict

__all__ = ["library_docs_skipped", "replaced_as_loaded"]


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


class _Then:
    """A loader: ``loader``, calling ``then(module)`` once the module has run; the module
    and its spec get ``loader`` back (nothing of this wrapper stays)."""

    def __init__(self, loader, then):
        self._loader, self._then = loader, then

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        self._then(module)


class _Replacing:
    """A meta path finder: finds the modules of ``replaced`` (a table like :data:`_REPLACED`)
    with the other finders, then replaces their attribute once they have run (the originals
    are kept in ``originals``). No ``importlib.abc`` bases: ``widefs --help`` loads this
    module, and importlib.abc costs it ~5 ms. Two such finders of one module both replace
    (each asks the others, and answers nothing while it asks)."""

    def __init__(self, replaced=_REPLACED):
        self.replaced = replaced
        self.originals: list[tuple[object, str, object]] = []
        self._asking: set[str] = set()

    def find_spec(self, name, path, target=None):
        if name not in self.replaced or name in self._asking:
            return None
        self._asking.add(name)
        try:
            spec = self._others_spec(name, path, target)
        finally:
            self._asking.discard(name)
        if spec is None:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Then(spec.loader, self._replace)
        return spec

    def _others_spec(self, name, path, target):
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = None if finder is self or find is None else find(name, path, target)
            if spec is not None:
                return spec
        return None

    def _replace(self, module) -> None:
        for path, replacement in self.replaced[module.__name__]:
            *owners, attribute = path.split(".")
            owner = module
            for name in owners:
                owner = getattr(owner, name, None)
            # The owner's own entry (a classmethod as defined, not bound), if it has one.
            original = vars(owner).get(attribute) if owner is not None else None
            if original is not None:
                self.originals.append((owner, attribute, original))
                setattr(owner, attribute, replacement)


@contextlib.contextmanager
def library_docs_skipped():
    """Within the block, scipy's array-API notes and matplotlib's property lists are not
    generated for the modules that load (see the module's docstring)."""
    with replaced_as_loaded(_REPLACED):
        yield


@contextlib.contextmanager
def replaced_as_loaded(replaced, *, loaded_too=False):
    """Within the block, each module of ``replaced`` that loads gets the attributes the table
    gives it (``loaded_too``: a module loaded before the block as well); the originals are
    put back at the block's end."""
    finder = _Replacing(replaced)
    sys.meta_path.insert(0, finder)
    try:
        for name in replaced if loaded_too else ():
            if name in sys.modules:
                finder._replace(sys.modules[name])
        yield
    finally:
        sys.meta_path.remove(finder)
        for owner, attribute, original in reversed(finder.originals):
            setattr(owner, attribute, original)
