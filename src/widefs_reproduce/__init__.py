"""Reproductions of the four papers behind widefs, run with ``widefs reproduce PAPER``.

A client of widefs's public API, like a user's script: nothing in ``widefs`` imports this
package. Each paper is a subpackage (``palatucci2008``, ``domingos1999``, ``shah2010``,
``soares2010``) whose ``main(argv=None) -> int`` takes ``--quick`` (a fast pass) and
``--out DIR``: it writes ``DIR/<paper>.md`` and its data (raw results, figures) under
``DIR/<paper>/``; the default DIR is a new folder ``widefs-<paper>`` in the current
directory, and the repository's ``docs/results`` pages are made with ``--out docs/results``.
The numbers each paper prints ship as data in ``widefs_reproduce/papers/<paper>.json``.

The ``widefs`` command finds the papers through the ``widefs.reproductions`` entry points
of the installed distribution (``pyproject.toml``), not by importing this package.
"""

__all__: list[str] = []
