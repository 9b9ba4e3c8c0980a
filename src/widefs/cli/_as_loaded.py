"""Attributes of libraries replaced as their modules load, for the duration of a block.

``widefs run`` uses it to skip work libraries do for texts it never shows
(:mod:`widefs.cli._library_docs`) and numba's compiler tables when it only loads cached
kernels (:mod:`widefs.cli._kernel_loads`). A meta path finder wraps the loader of each module
named in the table; once the module has run, each named attribute that the module (or its
class) defines is replaced, and the originals are put back at the block's end.
"""

from __future__ import annotations

import contextlib
import sys

__all__ = ["replaced_as_loaded"]


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
    """A meta path finder: finds the modules of ``replaced`` (``{module: [(attribute or "Class.attribute", replacement), ...]}``)
    with the other finders, then replaces their attribute once they have run (the originals
    are kept in ``originals``). No ``importlib.abc`` bases: ``widefs --help`` loads this
    module, and importlib.abc costs it ~5 ms. Two such finders of one module both replace
    (each asks the others, and answers nothing while it asks)."""

    def __init__(self, replaced):
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
