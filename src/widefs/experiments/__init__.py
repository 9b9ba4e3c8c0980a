"""Reproductions of the four papers' experiments (run with ``widefs reproduce PAPER``).

Each module has ``main(argv=None) -> int`` with a ``--quick`` mode and ``--out DIR``: it
writes ``DIR/<paper>.md`` and its data (raw results, figures) under ``DIR/<paper>/``; the
default DIR is a new folder ``widefs-<paper>`` in the current directory. The numbers each
paper prints ship as data in ``widefs/experiments/papers/<paper>.json``.
``experiments/<paper>/run.py`` in the repository calls the same function; the repository's
``docs/results`` pages are produced with ``--out docs/results``.
"""

REPRODUCTIONS = {
    "palatucci2008": "widefs.experiments.palatucci2008",
    "domingos1999": "widefs.experiments.domingos1999",
    "shah2010": "widefs.experiments.shah2010",
    "soares2010": "widefs.experiments.soares2010",
}

__all__ = ["REPRODUCTIONS"]
