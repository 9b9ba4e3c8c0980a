"""Reproduce Tables 7-10 of Soares (2010): class-specific ensemble feature selection.

Usage: `python experiments/soares2010/run.py [--quick]` (or `widefs reproduce soares2010 [--quick]`); the
protocol and options are documented in `widefs.experiments.soares2010`.
"""

import sys

from widefs.experiments.soares2010 import main

if __name__ == "__main__":
    sys.exit(main())
