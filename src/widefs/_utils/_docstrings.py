"""Docstring fragments shared by several estimators, written once.

:class:`Substitution` (after imbalanced-learn's decorator of the same name) replaces each
placeholder line ``%(name)s`` of a docstring by the fragment ``name``, indented like the
placeholder, so a parameter documented the same way in several estimators has one text.
Only whole-line placeholders are replaced: the rest of a docstring needs no escaping.
"""

from __future__ import annotations

import inspect
import re
import textwrap

__all__ = ["Substitution"]

_PLACEHOLDER = re.compile(r"^([ \t]*)%\((\w+)\)s[ \t]*$", flags=re.M)


class Substitution:
    """Decorator filling the ``%(name)s`` lines of a docstring with shared fragments.

    Parameters
    ----------
    **fragments : str
        The text of each fragment, dedented; it takes the indentation of its placeholder.

    Examples
    --------
    >>> shared = Substitution(delta='''
    ...     delta : float, default=0.05
    ...         The bound holds with probability ``1 - delta``.''')
    >>> @shared
    ... def f(delta=0.05):
    ...     '''Do something.
    ...
    ...     Parameters
    ...     ----------
    ...     %(delta)s
    ...     '''
    >>> print(f.__doc__.splitlines()[4].strip(), "|", f.__doc__.splitlines()[5].strip())
    delta : float, default=0.05 | The bound holds with probability ``1 - delta``.
    """

    def __init__(self, **fragments: str):
        self.fragments = {name: inspect.cleandoc(text) for name, text in fragments.items()}

    def __call__(self, obj):
        obj.__doc__ = self.substitute(obj.__doc__)
        return obj

    def substitute(self, doc: str) -> str:
        """``doc`` with every placeholder line replaced; an unknown name is a ``KeyError``."""

        def fill(match: re.Match) -> str:
            indent, name = match.groups()
            if name not in self.fragments:
                raise KeyError(f"no docstring fragment named {name!r}")
            return textwrap.indent(self.fragments[name], indent)

        return _PLACEHOLDER.sub(fill, doc)
