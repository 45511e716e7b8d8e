"""scikit-learn's side of `lprff bench --time-to-model` (org.lprff.bench.report.TimeToModelRun).

Usage: python3 sklearn_time_to_model.py export '{"set": "diamonds", "out": DIR, "csv": PATH}'
       python3 sklearn_time_to_model.py reference '{"set": ..., "out": DIR, "idx": DIR,
           "classification": bool, "sigma": s, "m": m, "l2": l2, "grid": [...], "folds": 5}'

export writes DIR/train.csv and DIR/heldout.csv (the target or class last), the split both sides
read: diamonds as scripts/diamonds-solvers.sh makes it (rows shuffled by Python's Random(7), 80%
train, target log(price)), digits as scripts/sklearn_digits.py does (numpy's default_rng(7)
permutation, 80% train). Fashion-MNIST needs no export: both sides read the IDX files (pixels / 255).

reference standardizes the CSV rows with the training rows' mean and sample deviation (as
`lprff featurize --standardize`; Fashion-MNIST is not standardized), maps them with
RBFSampler(gamma = 1 / (2 sigma^2), n_components = m) in float32, then fits at lprff's chosen
penalty (Ridge(alpha = l2 n), LogisticRegression(C = 1 / (l2 n))) and searches the same l2 grid
(RidgeCV by leave-one-out, LogisticRegressionCV by `folds`-fold cross-validation), every fit on
the BLAS threads the process has. Prints one JSON object; exits 3 with {"available": false,
"error": ...} when numpy, scikit-learn or threadpoolctl cannot be imported.
"""
import csv
import gzip
import json
import math
import platform
import random
import sys
import time
import warnings


def export(config):
    out = config["out"]
    if config["set"] == "diamonds":
        with open(config["csv"], newline="") as f:
            rows = list(csv.reader(f))
        head, data = rows[0], rows[1:]
        random.Random(7).shuffle(data)
        cut = int(len(data) * 0.8)
        for name, part in (("train", data[:cut]), ("heldout", data[cut:])):
            with open(f"{out}/{name}.csv", "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(head[:-1] + ["logprice"])
                for r in part:
                    w.writerow(r[:-1] + [repr(math.log(float(r[-1])))])
        return {"train_rows": cut, "heldout_rows": len(data) - cut}
    import numpy as np
    from sklearn.datasets import load_digits
    x, y = load_digits(return_X_y=True)
    order = np.random.default_rng(7).permutation(len(y))
    x, y = x[order], y[order]
    cut = int(0.8 * len(y))
    header = ",".join([f"p{i}" for i in range(x.shape[1])] + ["digit"])
    for name, rows in (("train", slice(0, cut)), ("heldout", slice(cut, None))):
        np.savetxt(f"{out}/{name}.csv", np.column_stack([x[rows], y[rows]]), delimiter=",",
                   header=header, comments="", fmt=["%g"] * x.shape[1] + ["%d"])
    return {"train_rows": cut, "heldout_rows": len(y) - cut}


def idx(path):
    import numpy as np
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(config):
    import numpy as np
    if config["set"] == "fashion-mnist":
        d = config["idx"]
        xt = idx(f"{d}/train-images-idx3-ubyte.gz").reshape(60000, -1) / np.float32(255)
        xh = idx(f"{d}/t10k-images-idx3-ubyte.gz").reshape(10000, -1) / np.float32(255)
        yt = idx(f"{d}/train-labels-idx1-ubyte.gz").astype(int)
        yh = idx(f"{d}/t10k-labels-idx1-ubyte.gz").astype(int)
        return xt.astype(np.float32), yt, xh.astype(np.float32), yh
    t = np.loadtxt(f"{config['out']}/train.csv", delimiter=",", skiprows=1)
    h = np.loadtxt(f"{config['out']}/heldout.csv", delimiter=",", skiprows=1)
    xt, xh = t[:, :-1], h[:, :-1]
    yt, yh = t[:, -1], h[:, -1]
    if config["classification"]:
        yt, yh = yt.astype(int), yh.astype(int)
    mu, sd = xt.mean(0), xt.std(0, ddof=1)
    sd[sd == 0] = 1
    return ((xt - mu) / sd).astype(np.float32), yt, ((xh - mu) / sd).astype(np.float32), yh


def reference(config):
    import numpy as np
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.linear_model import LogisticRegression, LogisticRegressionCV, Ridge, RidgeCV
    warnings.filterwarnings("ignore", category=FutureWarning)  # 1.9's attribute-layout notice
    xt, yt, xh, yh = load(config)
    n, classification = len(yt), config["classification"]
    t0 = time.perf_counter()
    rbf = RBFSampler(gamma=1 / (2 * config["sigma"] ** 2), n_components=config["m"],
                     random_state=0).fit(xt)
    zt, zh = rbf.transform(xt), rbf.transform(xh)
    transform_s = time.perf_counter() - t0

    def metric(model):
        p = model.predict(zh)
        return float(np.mean(p != yh)) if classification else float(np.mean((p - yh) ** 2))

    def timed(model):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            start = time.perf_counter()
            model.fit(zt, yt)
            seconds = time.perf_counter() - start
        converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
        return model, seconds, converged

    l2, grid = config["l2"], config["grid"]
    if classification:
        single = LogisticRegression(C=1 / (l2 * n), max_iter=1000)
        search = LogisticRegressionCV(Cs=[1 / (g * n) for g in grid], cv=config["folds"],
                                      max_iter=1000)
    else:
        single = Ridge(alpha=l2 * n)
        search = RidgeCV(alphas=[g * n for g in grid])
    single, single_s, single_ok = timed(single)
    search, search_s, search_ok = timed(search)
    chosen = 1 / (float(np.ravel(search.C_)[0]) * n) if classification else search.alpha_ / n
    from threadpoolctl import threadpool_info
    return {
        "features_dtype": str(zt.dtype), "train_rows": n, "heldout_rows": len(yh),
        "transform_s": transform_s,
        "single": {"model": type(single).__name__, "l2": l2, "fit_s": single_s,
                   "metric": metric(single), "converged": single_ok},
        "search": {"model": type(search).__name__, "l2": chosen, "fit_s": search_s,
                   "metric": metric(search), "converged": search_ok,
                   "how": "leave-one-out" if not classification
                   else f"{config['folds']}-fold cross-validation"},
        "blas": [{k: v for k, v in lib.items() if k in
                  ("user_api", "internal_api", "version", "architecture", "num_threads")}
                 for lib in threadpool_info()],
    }


def main(argv):
    config = json.loads(argv[2])
    try:
        import numpy as np
        import sklearn
        import threadpoolctl  # noqa: F401 (the reference records its BLAS kernel)
    except ImportError as e:
        print(json.dumps({"available": False, "error": f"{type(e).__name__}: {e}",
                          "python": sys.executable}))
        return 3
    result = {"export": export, "reference": reference}[argv[1]](config)
    result.update({"available": True, "python": sys.executable,
                   "python_version": platform.python_version(),
                   "sklearn": sklearn.__version__, "numpy": np.__version__})
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
