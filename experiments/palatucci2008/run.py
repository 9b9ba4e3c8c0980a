"""Reproduce Palatucci & Carlson (2008): Example 4.1, Figures 1-3.

Usage: `python experiments/palatucci2008/run.py [--quick] [--out DIR]`, the same as
`widefs reproduce palatucci2008 [--quick] [--out DIR]`: writes DIR/palatucci2008.md and its data under
DIR/palatucci2008/ (default DIR: ./widefs-palatucci2008). The repository's page is produced with
`--out docs/results`. Protocol and options: `widefs.experiments.palatucci2008`.
"""

import sys

from widefs.experiments.palatucci2008 import main

if __name__ == "__main__":
    sys.exit(main())
