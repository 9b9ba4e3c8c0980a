"""Reproduce Tables 7-10 of Soares (2010): class-specific ensemble feature selection.

Usage::

    python experiments/soares2010/run.py            # full run, writes docs/results/soares2010.md
    python experiments/soares2010/run.py --quick    # seconds; used by the test suite

Protocol (Soares 2010, Sections 5.2.1-5.2.5): per dataset, 15 random train/test splits
with the training sizes of Table 6, training sets balanced across classes (arrhythmia:
111/111/13), the test set is the rest. Preprocessing is fitted on the training part:
continuous features are divided by their maximum absolute value (lymphoma: standardized,
as the dissertation did); missing values are imputed with the mean (continuous) or the
most frequent value (nominal; the dissertation says "median") for credit and
arrhythmia, and kept as their own category for breast cancer and voting ("left as
is"). kNN uses Euclidean distance on continuous and 0/1 mismatch on nominal features,
vote ties to the nearest neighbour's class, k tuned by leave-one-out on all features
from {1..10, 15, 25, n/4, n/2, 3n/4} for the overall model and from {1..10} for the
class-specific members. Naive Bayes is categorical (Laplace) on nominal and Gaussian on
continuous features. Searches: SBS and SFS stopping when the leave-one-out score stops
improving (ties to fewer features), and the GA with population 20, 40 generations,
crossover 0.6, mutation 0.001, elitism 0.8 (colon and lymphoma: population 40, elitism
0.9). Reported: mean test accuracy without selection, with traditional (overall)
selection, and with CEFS (unanimous members, else the overall-subset model).
"""

import sys

from widefs.experiments.soares2010 import main

if __name__ == "__main__":
    sys.exit(main())
