"""A stand-in for issue 12's held-back tabular set (16 features, 26 classes), for development.

Usage: python scripts/sklearn_multiclass26.py export DIR      (writes DIR/train.csv, DIR/heldout.csv)
       python scripts/sklearn_multiclass26.py reference DIR   (scikit-learn's reference on them)
       python scripts/sklearn_multiclass26.py single DIR L2   (one fit at l2 L2 on every training
                                                               row: the time-to-model pair)
Run the reference with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for its process (env -u ...),
so numpy's OpenBLAS picks its own kernel; the single fit prints the one it ran.
scikit-learn's make_classification (seed 7): 20,000 rows, 16 informative features, 26 classes of
two Gaussian clusters each, 80% train / 20% heldout, the class last. The reference standardizes
with the training rows, maps with RBFSampler (gamma = 1 / (2 sigma^2), sigma 4, m = 4096, float32)
and fits lbfgs LogisticRegression with C = 1 / (n lambda) for lambda on lprff's automatic path,
chosen on a seeded 10% of the training rows and refit on all of them (lprff's protocol).
"""
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

from sklearn_common import export_csv, rbf_features


def export(out):
    x, y = make_classification(n_samples=20000, n_features=16, n_informative=16, n_redundant=0,
                               n_classes=26, n_clusters_per_class=2, class_sep=2.0,
                               random_state=7)
    export_csv(out, x, y, int(0.8 * len(y)), "f", "label", "%.7g")


def reference(out, sigma=4.0, m=4096):
    zt, yt, zh, yh = rbf_features(out, sigma, m)
    warnings.filterwarnings("ignore")
    split = np.random.default_rng(1).random(len(yt)) < 0.1
    t0 = time.perf_counter()
    best = None
    for lam in (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7):
        c = 1 / (lam * (~split).sum())
        fit = LogisticRegression(C=c, max_iter=500).fit(zt[~split], yt[~split])
        p = np.clip(fit.predict_proba(zt[split]), 1e-15, 1)
        loss = -np.mean(np.log(p[np.arange(split.sum()), np.searchsorted(fit.classes_, yt[split])]))
        if best is None or loss < best[1]:
            best = (lam, loss)
        else:
            break
    model = LogisticRegression(C=1 / (best[0] * len(yt)), max_iter=500).fit(zt, yt)
    seconds = time.perf_counter() - t0
    error = float(np.mean(model.predict(zh) != yh))
    print(f"{'sklearn':<8} {error:10.4f} {seconds:9.1f}   (LogisticRegression lbfgs, full precision,"
          f" lambda {best[0]:g} chosen on a 10% split, refit)")


def single(out, lam, sigma=4.0, m=4096):
    from threadpoolctl import threadpool_info
    zt, yt, zh, yh = rbf_features(out, sigma, m)
    warnings.filterwarnings("ignore")
    lam = float(lam)
    t0 = time.perf_counter()
    model = LogisticRegression(C=1 / (lam * len(yt)), max_iter=1000).fit(zt, yt)
    seconds = time.perf_counter() - t0
    error = float(np.mean(model.predict(zh) != yh))
    blas = [f"{b.get('internal_api')} {b.get('version')} {b.get('architecture')}"
            f" ({b.get('num_threads')} threads)" for b in threadpool_info()
            if b.get("user_api") == "blas"]
    print(f"{'sklearn':<8} {error:10.4f} {seconds:9.1f}   (LogisticRegression lbfgs, one fit at"
          f" lambda {lam:g}, {int(np.max(model.n_iter_))} iterations, features {zt.dtype};"
          f" {', '.join(blas)})")


if __name__ == "__main__":
    if sys.argv[1] == "single":
        single(sys.argv[2], sys.argv[3])
    else:
        {"export": export, "reference": reference}[sys.argv[1]](sys.argv[2])
