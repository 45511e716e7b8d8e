"""scikit-learn's reference for scripts/diamonds-solvers.sh: the same split, full precision.

Usage: python scripts/sklearn_diamonds_solvers.py TRAIN.csv HELDOUT.csv
(the CSVs diamonds-solvers.sh writes: the last column is the target). Standardizes with the
training rows' mean and sample standard deviation, maps with RBFSampler (gamma = 1 / (2 sigma^2),
sigma 2, m = 4096, float32) and fits Ridge with alpha = n * lambda (lambda 1e-6), which is the
objective lprff's solvers minimize: (1/2n) ||Z w + b - t||^2 + (lambda/2) ||w||^2; then RidgeCV
over lprff's automatic l2 path (leave-one-out), beside `lprff train`'s defaults.
"""
import sys
import time

import numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import Ridge, RidgeCV


def load(path):
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64)
    return a[:, :-1], a[:, -1]


def main(train, heldout, sigma=2.0, m=4096, lam=1e-6):
    xt, yt = load(train)
    xh, yh = load(heldout)
    mu, sd = xt.mean(0), xt.std(0, ddof=1)
    xt, xh = (xt - mu) / sd, (xh - mu) / sd
    rbf = RBFSampler(gamma=1 / (2 * sigma**2), n_components=m, random_state=0)
    t0 = time.perf_counter()
    zt = rbf.fit_transform(xt).astype(np.float32)
    zh = rbf.transform(xh).astype(np.float32)
    t1 = time.perf_counter()
    model = Ridge(alpha=lam * len(yt)).fit(zt, yt)
    t2 = time.perf_counter()
    mse = float(np.mean((model.predict(zh) - yh) ** 2))
    print(f"{'sklearn Ridge':<22} {mse:12.5f} {'-':>11} {'-':>7} {t2 - t1:9.1f}"
          f"   (RBFSampler + Ridge at lambda {lam:g}, full precision; featurize {t1 - t0:.1f} s)")
    # What a scikit-learn user picks for "lambda without tuning": RidgeCV over the same path
    # as lprff's automatic l2 (alpha = n lambda), by efficient leave-one-out (GCV).
    path = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7]
    t3 = time.perf_counter()
    cv = RidgeCV(alphas=[l * len(yt) for l in path]).fit(zt, yt)
    t4 = time.perf_counter()
    mse = float(np.mean((cv.predict(zh) - yh) ** 2))
    print(f"{'sklearn RidgeCV':<22} {mse:12.5f} {'-':>11} {'-':>7} {t4 - t3:9.1f}"
          f"   (alpha chosen by leave-one-out: lambda {cv.alpha_ / len(yt):g})")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
