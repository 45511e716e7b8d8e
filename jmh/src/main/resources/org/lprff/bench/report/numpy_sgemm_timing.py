"""numpy's sgemm (float32 matrix product) on all threads, timed for `lprff bench`: the FMA peak a
tuned BLAS demonstrates on this machine, one of the roofline's two peak measurements.

Usage: python3 numpy_sgemm_timing.py '{"n": 2048, "repeats": 7, "warmups": 2}'

C = A B for n x n standard-normal float32 A and B: `warmups` products, then the median of
`repeats`; 2 n^3 flops each. The caller runs this with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
unset, so that OpenBLAS picks its kernel from the CPU; the kernel threadpoolctl reports is
printed. Prints one JSON object on stdout; exits 3 with {"available": false, "error": ...} when
numpy or threadpoolctl cannot be imported.
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
        from threadpoolctl import threadpool_info
    except ImportError as e:
        print(json.dumps({"available": False, "error": f"{type(e).__name__}: {e}",
                          "python": sys.executable}))
        return 3
    n = config["n"]
    rng = np.random.default_rng(7)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c = np.empty((n, n), dtype=np.float32)
    for _ in range(config["warmups"]):
        np.matmul(a, b, out=c)
    times = []
    for _ in range(config["repeats"]):
        start = time.perf_counter()
        np.matmul(a, b, out=c)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    blas = [{k: v for k, v in lib.items() if k in
             ("internal_api", "version", "architecture", "num_threads", "threading_layer")}
            for lib in threadpool_info() if lib.get("user_api") == "blas"]
    print(json.dumps({"available": True, "python": sys.executable,
                      "python_version": platform.python_version(), "numpy": np.__version__,
                      "n": n, "median_s": median, "flops_per_s": 2.0 * n ** 3 / median,
                      "threads": max([lib.get("num_threads", 0) for lib in blas] or [0]),
                      "blas": blas}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
