#!/usr/bin/python3
"""Reference for issue 5's diamonds acceptance: scikit-learn RBFSampler + Ridge on the demo's split.

The split, target and standardization are the demo's (`./lprff demo`): data row i is heldout iff
mix64(seed + i) % 5 == 0 (SplitMix64's finalizer), target log(price), features standardized with
the train split's mean and population standard deviation; Gaussian kernel sigma = 2, m = 4096.
Usage: scripts/sklearn_diamonds_ridge.py [path/to/diamonds.csv]
"""
import sys
import time

import numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import Ridge

MASK = (1 << 64) - 1


def mix64(z):
    z &= MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def main(path="../shared/data/diamonds.csv", seed=1, sigma=2.0, m=4096):
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    x, y = data[:, :9], np.log(data[:, 9])
    heldout = np.array([mix64(seed + i) % 5 == 0 for i in range(len(y))])
    mean, std = x[~heldout].mean(0), x[~heldout].std(0)
    xtr = ((x[~heldout] - mean) / std).astype(np.float32)
    xte = ((x[heldout] - mean) / std).astype(np.float32)
    print(f"train {len(xtr)}, heldout {len(xte)} rows; sigma {sigma}, m {m}")
    sampler = RBFSampler(gamma=1 / (2 * sigma**2), n_components=m, random_state=seed).fit(xtr)
    ztr, zte = sampler.transform(xtr), sampler.transform(xte)
    for alpha in (1e-3, 1e-2, 1e-1, 1.0):
        start = time.time()
        ridge = Ridge(alpha=alpha).fit(ztr, y[~heldout])
        mse = np.mean((ridge.predict(zte) - y[heldout]) ** 2)
        print(f"alpha {alpha}: heldout MSE {mse:.5f} ({time.time() - start:.1f} s)")


if __name__ == "__main__":
    main(*sys.argv[1:2])
