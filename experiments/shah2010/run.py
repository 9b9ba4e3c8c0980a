"""Reproduce Tables I-V of Shah, Marchand & Corbeil (2010) on the bundled microarray data.

Usage: `python experiments/shah2010/run.py [--quick]` (or `widefs reproduce shah2010 [--quick]`); the
protocol and options are documented in `widefs.experiments.shah2010`.
"""

import sys

from widefs.experiments.shah2010 import main

if __name__ == "__main__":
    sys.exit(main())
