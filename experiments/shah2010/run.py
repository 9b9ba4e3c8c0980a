"""Reproduce Tables I-V of Shah, Marchand & Corbeil (2010) on the bundled microarray data.

Protocol (Section VII): repeated 5-fold cross-validation (a random permutation of the data
per repetition, the same folds for every algorithm); every learning parameter (and gene
subset size) is chosen by a nested 5-fold CV on the training part only. Errors are the
number of misclassified examples over the 5 test folds, mean +- sd over repetitions.

Algorithms: linear SVM; SVM on the top 2^i genes of Golub's signal-to-noise ranking
(SVM+gs); SVM with recursive feature elimination inside the folds (SVM+rfe, halving);
AdaBoost with decision stumps; the Occam, sample-compression (SC) and PAC-Bayes Set
Covering Machines of widefs.scm, each also with *bound-based* selection (the parameters
and number of stumps minimising the risk bound on the training part; no nested CV);
the PAC-Bayes fixed-margin heuristic (Table IV) and the bound illustration (Table V) on
one repetition.

Usage::

    nice python experiments/shah2010/run.py            # full run (writes docs/results/shah2010.md)
    python experiments/shah2010/run.py --quick --out /tmp/shah.md
"""

import sys

from widefs.experiments.shah2010 import main

if __name__ == "__main__":
    sys.exit(main())
