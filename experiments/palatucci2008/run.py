"""Reproduce Palatucci & Carlson (2008): Example 4.1, Figures 1-3.

Usage::

    python experiments/palatucci2008/run.py            # full run, writes docs/results/
    python experiments/palatucci2008/run.py --quick    # seconds; used by the test suite

Protocol (Section 5.2): leave-one-out over all examples; in each round the remaining
examples are split into stratified equal halves (the odd one goes to validation), one
Gaussian naive Bayes per feature is trained on one half and its errors counted on the
other, features are selected by the threshold, and a Gaussian naive Bayes on the
selected features, retrained on both halves, tests the held-out example. The random
halves make the result vary with the seed, so every dataset is run with several seeds
and we report mean +- standard deviation over seeds.
"""

import sys

from widefs.experiments.palatucci2008 import main

if __name__ == "__main__":
    sys.exit(main())
