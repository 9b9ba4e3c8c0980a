"""Reproductions of the four papers' experiments (run with ``widefs reproduce PAPER``).

Each module has ``main(argv=None) -> int`` with a ``--quick`` mode and writes its page to
``docs/results/`` under the working directory; ``experiments/<paper>/run.py`` in the
repository calls the same function.
"""

REPRODUCTIONS = {
    "palatucci2008": "widefs.experiments.palatucci2008",
    "domingos1999": "widefs.experiments.domingos1999",
    "shah2010": "widefs.experiments.shah2010",
    "soares2010": "widefs.experiments.soares2010",
}

__all__ = ["REPRODUCTIONS"]
