"""Reproduce Table 1 of Domingos (IJCAI 1999): CN2 vs CN2-POE1 vs CN2-POE2.

Usage: `python experiments/domingos1999/run.py [--quick] [--out DIR]`, the same as
`widefs reproduce domingos1999 [--quick] [--out DIR]`: writes DIR/domingos1999.md and its data under
DIR/domingos1999/ (default DIR: ./widefs-domingos1999). The repository's page is produced with
`--out docs/results`. Protocol and options: `widefs.experiments.domingos1999`.
"""

import sys

from widefs.experiments.domingos1999 import main

if __name__ == "__main__":
    sys.exit(main())
