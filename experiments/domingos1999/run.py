"""Reproduce Table 1 of Domingos (IJCAI 1999): CN2 vs CN2-POE1 vs CN2-POE2.

Usage::

    nice python experiments/domingos1999/run.py            # full run, writes docs/results/
    python experiments/domingos1999/run.py --quick         # seconds; used by the test suite

Protocol (Sec. 4, after Clark & Boswell 1991): each dataset is split at random into 67%
training and 33% test, 20 times; error rate and theory size (total number of conditions)
are reported as mean +- standard error over the 20 splits. All methods see the same
splits. CN2-POE2 ranks rule versions by Laplace, as CN2 does, and stops each rule's beam
search with Eq. 13 (m-estimate with m = 2, m' = max(1, log2 m), prior = default error of
the examples not yet covered); CN2-POE1 uses the earlier POE1 integral in the same
rounds. Because the paper does not say which CN2 mode and significance setting "default
CN2" used, every method is run in ordered and unordered mode, and CN2 with and without
the likelihood-ratio test (alpha = 0.05).
"""

import sys

from widefs.experiments.domingos1999 import main

if __name__ == "__main__":
    sys.exit(main())
