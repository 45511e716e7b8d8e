#!/usr/bin/python3
"""Reference for issue 5's diamonds acceptance: scikit-learn RBFSampler + Ridge on the demo's split.

The split, target, standardization and lambda choice are the demo's closed form (`./lprff demo`):
data row i is heldout iff mix64(seed + i) % 5 == 0 and validation iff mix64(seed + i) % 10 == 1
(mix64 = SplitMix64's finalizer); target log(price); features standardized with the mean and
population standard deviation of the train + validation rows; Gaussian kernel sigma = 2, m = 4096.
Ridge's alpha is lambda * n for lambda in the demo's grid (our objective is the mean squared
loss / 2 + lambda / 2 |w|^2, Ridge's the summed squared loss + alpha |w|^2), chosen on the
validation rows, then refit on train + validation. Each random_state draws other features; the
spread over them shows how much one draw moves the heldout MSE.

Usage: scripts/sklearn_diamonds_ridge.py [path/to/diamonds.csv [draws [split seed]]]
"""
import sys
import time

import numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import Ridge

MASK = (1 << 64) - 1
L2_GRID = (1e-7, 3e-7, 1e-6, 3e-6, 1e-5)  # DemoCommand.L2_GRID


def mix64(z):
    z &= MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def mse(model, z, y):
    return float(np.mean((model.predict(z) - y) ** 2))


def main(path="../shared/data/diamonds.csv", draws="3", seed="1", sigma=2.0, m=4096):
    seed = int(seed)
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    x, y = data[:, :9], np.log(data[:, 9])
    hashes = [mix64(seed + i) for i in range(len(y))]
    heldout = np.array([h % 5 == 0 for h in hashes])
    validation = np.array([h % 10 == 1 for h in hashes])
    fit = ~heldout & ~validation
    training = ~heldout
    mean, std = x[training].mean(0), x[training].std(0)
    xs = ((x - mean) / std).astype(np.float32)
    print(f"fit {fit.sum()}, validation {validation.sum()}, heldout {heldout.sum()} rows;"
          f" sigma {sigma}, m {m}")
    results = []
    for state in range(1, int(draws) + 1):
        start = time.time()
        sampler = RBFSampler(gamma=1 / (2 * sigma**2), n_components=m, random_state=state)
        z = sampler.fit(xs[training]).transform(xs)
        scores = {}
        for lam in L2_GRID:
            ridge = Ridge(alpha=lam * fit.sum()).fit(z[fit], y[fit])
            scores[lam] = mse(ridge, z[validation], y[validation])
        chosen = min(scores, key=scores.get)
        final = Ridge(alpha=chosen * training.sum()).fit(z[training], y[training])
        held = mse(final, z[heldout], y[heldout])
        results.append(held)
        print(f"random_state {state}: lambda {chosen:g} chosen on validation (validation MSE "
              + ", ".join(f"{lam:g}: {v:.5f}" for lam, v in scores.items())
              + f"), heldout MSE {held:.5f} ({time.time() - start:.0f} s)", flush=True)
    print(f"median heldout MSE over {len(results)} draws {np.median(results):.5f}"
          f" (min {min(results):.5f}, max {max(results):.5f})")


if __name__ == "__main__":
    main(*sys.argv[1:4])
