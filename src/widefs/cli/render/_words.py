"""Words that agree with the numbers they count."""

from __future__ import annotations

__all__ = ["plural"]


def plural(n: int, word: str, words: str | None = None) -> str:
    """``"1 error"``, ``"2 errors"``: a count with its noun in the right number.

    Examples
    --------
    >>> plural(1, "error"), plural(0, "error"), plural(3, "class", "classes")
    ('1 error', '0 errors', '3 classes')
    """
    return f"{n} {word if n == 1 else (words or word + 's')}"
