"""The classification side of issue 12 on data every scikit-learn install carries: digits.

Usage: python scripts/sklearn_digits.py export DIR      (writes DIR/train.csv, DIR/heldout.csv)
       python scripts/sklearn_digits.py reference DIR   (scikit-learn's reference on them)
The 1,797 8x8 digit images (64 features, 10 classes), shuffled with seed 7, 80% train / 20%
heldout, the class last. The reference standardizes with the training rows, maps with
RBFSampler (gamma = 1 / (2 sigma^2), sigma 4, m = 4096, float32) and fits lbfgs
LogisticRegression with C chosen by 5-fold cross-validation on the training rows (LogisticRegressionCV).
"""
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegressionCV

from sklearn_common import export_csv, rbf_features


def export(out):
    x, y = load_digits(return_X_y=True)
    order = np.random.default_rng(7).permutation(len(y))
    x, y = x[order], y[order]
    export_csv(out, x, y, int(0.8 * len(y)), "p", "digit", "%g")


def reference(out, sigma=4.0, m=4096):
    zt, yt, zh, yh = rbf_features(out, sigma, m)
    warnings.filterwarnings("ignore", category=FutureWarning)  # 1.9's attribute-layout notice
    t0 = time.perf_counter()
    model = LogisticRegressionCV(Cs=10, cv=5, max_iter=2000).fit(zt, yt)
    seconds = time.perf_counter() - t0
    error = float(np.mean(model.predict(zh) != yh))
    print(f"{'sklearn':<8} {error:10.4f} {seconds:9.1f}   (LogisticRegressionCV lbfgs, full precision,"
          f" C = {float(model.C_[0]):.3g})")


if __name__ == "__main__":
    {"export": export, "reference": reference}[sys.argv[1]](sys.argv[2])
