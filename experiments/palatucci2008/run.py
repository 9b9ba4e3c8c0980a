"""Reproduce Palatucci & Carlson (2008): Example 4.1, Figures 1-3.

Usage: `python experiments/palatucci2008/run.py [--quick]` (or `widefs reproduce palatucci2008 [--quick]`); the
protocol and options are documented in `widefs.experiments.palatucci2008`.
"""

import sys

from widefs.experiments.palatucci2008 import main

if __name__ == "__main__":
    sys.exit(main())
