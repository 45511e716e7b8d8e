#!/usr/bin/python3
"""Reference for FeaturizerBenchmark: scikit-learn's RBFSampler.transform in float32.

Times transform() on 1000 rows of d standard-normal float32 inputs for each (d, m), median of
15 calls after 3 warm-up calls, and prints one JSON object per line:
{"d": .., "m": .., "threads": "all" | "1", "median_ms": .., "features_per_s": ..}.
Run with OPENBLAS_NUM_THREADS=1 for the single-thread reference.
"""
import json
import os
import statistics
import sys
import time

import numpy as np
import sklearn
from sklearn.kernel_approximation import RBFSampler

ROWS = 1000


def main():
    threads = "1" if os.environ.get("OPENBLAS_NUM_THREADS") == "1" else "all"
    for d in (9, 90, 784):
        for m in (1024, 8192):
            x = np.random.default_rng(7).standard_normal((ROWS, d)).astype(np.float32)
            sampler = RBFSampler(gamma=1.0 / (2.0 * d), n_components=m, random_state=0).fit(x)
            out = sampler.transform(x)
            if out.dtype != np.float32:
                sys.exit(f"RBFSampler returned {out.dtype}, expected float32 (sklearn {sklearn.__version__})")
            for _ in range(3):
                sampler.transform(x)
            times = []
            for _ in range(15):
                start = time.perf_counter()
                sampler.transform(x)
                times.append(time.perf_counter() - start)
            median = statistics.median(times)
            print(json.dumps({"d": d, "m": m, "threads": threads, "median_ms": median * 1e3,
                              "features_per_s": ROWS * m / median,
                              "sklearn": sklearn.__version__}), flush=True)


if __name__ == "__main__":
    main()
