"""The ``widefs`` command line (``main(argv=None) -> int``)."""

from widefs.cli._main import main

__all__ = ["main"]
