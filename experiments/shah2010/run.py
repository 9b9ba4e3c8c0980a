"""Reproduce Tables I-V of Shah, Marchand & Corbeil (2010) on the bundled microarray data.

Usage: `python experiments/shah2010/run.py [--quick] [--out DIR]`, the same as
`widefs reproduce shah2010 [--quick] [--out DIR]`: writes DIR/shah2010.md and its data under
DIR/shah2010/ (default DIR: ./widefs-shah2010). The repository's page is produced with
`--out docs/results`. Protocol and options: `widefs.experiments.shah2010`.
"""

import sys

from widefs.experiments.shah2010 import main

if __name__ == "__main__":
    sys.exit(main())
