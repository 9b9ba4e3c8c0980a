"""Shared docstring fragments: whole-line placeholders, indented like the placeholder."""

import importlib
import inspect
import re

import pytest

from widefs._utils import Substitution


def test_fragment_takes_the_placeholders_indentation_and_nothing_else_changes():
    shared = Substitution(
        a="""
        a : int
            First line.
              Indented more.""",
    )

    @shared
    def f():
        """Title with %(a)s inline, {braces} and 50% kept.

        Parameters
        ----------
        %(a)s
        """

    lines = inspect.cleandoc(f.__doc__).splitlines()
    assert lines[0] == "Title with %(a)s inline, {braces} and 50% kept."
    assert lines[4:] == ["a : int", "    First line.", "      Indented more."]


def test_unknown_fragment_is_an_error():
    with pytest.raises(KeyError, match="'b'"):
        Substitution(a="x").substitute("Title.\n\n    %(b)s\n")


def test_no_public_docstring_keeps_a_placeholder():
    placeholder = re.compile(r"^\s*%\(\w+\)s\s*$", flags=re.M)
    left = []
    for name in ("scm", "search", "ensemble", "rules", "univariate", "model_selection"):
        module = importlib.import_module(f"widefs.{name}")
        left += [n for n in module.__all__ if placeholder.search(getattr(module, n).__doc__ or "")]
    assert left == []
