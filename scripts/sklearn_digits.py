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
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import LogisticRegressionCV


def export(out):
    x, y = load_digits(return_X_y=True)
    order = np.random.default_rng(7).permutation(len(y))
    x, y = x[order], y[order]
    cut = int(0.8 * len(y))
    header = ",".join([f"p{i}" for i in range(x.shape[1])] + ["digit"])
    for name, rows in (("train", slice(0, cut)), ("heldout", slice(cut, None))):
        data = np.column_stack([x[rows], y[rows]])
        np.savetxt(f"{out}/{name}.csv", data, delimiter=",", header=header, comments="",
                   fmt=["%g"] * x.shape[1] + ["%d"])


def reference(out, sigma=4.0, m=4096):
    def load(path):
        a = np.loadtxt(path, delimiter=",", skiprows=1)
        return a[:, :-1], a[:, -1].astype(int)
    xt, yt = load(f"{out}/train.csv")
    xh, yh = load(f"{out}/heldout.csv")
    mu, sd = xt.mean(0), xt.std(0, ddof=1)
    sd[sd == 0] = 1
    xt, xh = (xt - mu) / sd, (xh - mu) / sd
    rbf = RBFSampler(gamma=1 / (2 * sigma**2), n_components=m, random_state=0)
    zt = rbf.fit_transform(xt).astype(np.float32)
    zh = rbf.transform(xh).astype(np.float32)
    warnings.filterwarnings("ignore", category=FutureWarning)  # 1.9's attribute-layout notice
    t0 = time.perf_counter()
    model = LogisticRegressionCV(Cs=10, cv=5, max_iter=2000).fit(zt, yt)
    seconds = time.perf_counter() - t0
    error = float(np.mean(model.predict(zh) != yh))
    print(f"{'sklearn':<8} {error:10.4f} {seconds:9.1f}   (LogisticRegressionCV lbfgs, full precision,"
          f" C = {float(model.C_[0]):.3g})")


if __name__ == "__main__":
    {"export": export, "reference": reference}[sys.argv[1]](sys.argv[2])
