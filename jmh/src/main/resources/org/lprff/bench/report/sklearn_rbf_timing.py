"""scikit-learn's RBFSampler in float32, timed for `lprff bench` (org.lprff.bench.report).

Usage: python3 sklearn_rbf_timing.py '{"shapes": [[d, m, rows], ...], "threads": [1, 2],
"repeats": 7, "warmups": 2}'

For each shape: X is rows x d standard-normal float32; RBFSampler(n_components=m).fit(X) once
(fit only draws the random weights), then transform(X) is timed: `warmups` calls, then the median
of `repeats` calls, under threadpoolctl's limit of each thread count (the BLAS product is the
only threaded part). Prints one JSON object on stdout. Exits 3 with
{"available": false, "error": ...} when numpy or scikit-learn cannot be imported.
"""
import json
import platform
import statistics
import sys
import time


def main(argv):
    config = json.loads(argv[1])
    try:
        import numpy as np
        import sklearn
        from sklearn.kernel_approximation import RBFSampler
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError as e:
        print(json.dumps({"available": False, "error": f"{type(e).__name__}: {e}",
                          "python": sys.executable}))
        return 3
    timings = []
    for d, m, rows in config["shapes"]:
        x = np.random.default_rng(7).standard_normal((rows, d)).astype(np.float32)
        sampler = RBFSampler(gamma=1.0 / (2.0 * d), n_components=m, random_state=0).fit(x)
        if sampler.transform(x).dtype != np.float32:
            print(json.dumps({"available": False, "python": sys.executable,
                              "error": f"RBFSampler returned {sampler.transform(x).dtype}, "
                                       f"not float32 (scikit-learn {sklearn.__version__})"}))
            return 3
        for threads in config["threads"]:
            with threadpool_limits(limits=threads):
                for _ in range(config["warmups"]):
                    sampler.transform(x)
                times = []
                for _ in range(config["repeats"]):
                    start = time.perf_counter()
                    sampler.transform(x)
                    times.append(time.perf_counter() - start)
            median = statistics.median(times)
            timings.append({"d": d, "m": m, "rows": rows, "threads": threads,
                            "median_s": median, "features_per_s": rows * m / median})
    blas = [{k: v for k, v in lib.items() if k in
             ("internal_api", "version", "architecture", "num_threads", "threading_layer")}
            for lib in threadpool_info()]
    print(json.dumps({"available": True, "python": sys.executable,
                      "python_version": platform.python_version(),
                      "sklearn": sklearn.__version__, "numpy": np.__version__,
                      "blas": blas, "timings": timings}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
