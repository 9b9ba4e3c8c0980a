"""Reproduce Tables 7-10 of Soares (2010): class-specific ensemble feature selection.

Usage: `python experiments/soares2010/run.py [--quick] [--out DIR]`, the same as
`widefs reproduce soares2010 [--quick] [--out DIR]`: writes DIR/soares2010.md and its data under
DIR/soares2010/ (default DIR: ./widefs-soares2010). The repository's page is produced with
`--out docs/results`. Protocol and options: `widefs.experiments.soares2010`.
"""

import sys

from widefs.experiments.soares2010 import main

if __name__ == "__main__":
    sys.exit(main())
