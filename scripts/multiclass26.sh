#!/usr/bin/env bash
# Issue 12's held-back tabular shape (16 features, 26 classes) on a synthetic stand-in
# (scripts/sklearn_multiclass26.py: make_classification, 20,000 rows, seed-7 80/20 split):
# lprff at m = 4096, circulant, sigma 4, BITS bits (default 4; heldout at full precision),
# trained by `lprff train`'s defaults (lbfgs, l2 chosen on a seeded 10% of the training rows)
# and by `--solver sgd` (rate probed); scikit-learn's lbfgs LogisticRegression on full-precision
# RBFSampler features with the same l2 protocol.
# Usage: PYTHON=/path/to/venv/bin/python scripts/multiclass26.sh [BITS]
set -euo pipefail
REFERENCE=sklearn_multiclass26.py LABEL=label exec "$(dirname "$0")/digits-classification.sh" "$@"
