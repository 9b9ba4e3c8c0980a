"""Reproduce Table 1 of Domingos (IJCAI 1999): CN2 vs CN2-POE1 vs CN2-POE2.

Usage: `python experiments/domingos1999/run.py [--quick]` (or `widefs reproduce domingos1999 [--quick]`); the
protocol and options are documented in `widefs.experiments.domingos1999`.
"""

import sys

from widefs.experiments.domingos1999 import main

if __name__ == "__main__":
    sys.exit(main())
