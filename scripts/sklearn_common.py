"""What scripts/sklearn_digits.py and scripts/sklearn_multiclass26.py share: the exported CSVs
(the class last) standardized with the training rows and mapped by RBFSampler to float32."""
import numpy as np
from sklearn.kernel_approximation import RBFSampler


def load(path):
    a = np.loadtxt(path, delimiter=",", skiprows=1)
    return a[:, :-1], a[:, -1].astype(int)


def rbf_features(out, sigma, m):
    """(zt, yt, zh, yh): train and heldout rows of DIR/train.csv, DIR/heldout.csv as RFFs."""
    xt, yt = load(f"{out}/train.csv")
    xh, yh = load(f"{out}/heldout.csv")
    mu, sd = xt.mean(0), xt.std(0, ddof=1)
    sd[sd == 0] = 1
    xt, xh = (xt - mu) / sd, (xh - mu) / sd
    rbf = RBFSampler(gamma=1 / (2 * sigma**2), n_components=m, random_state=0)
    return (rbf.fit_transform(xt).astype(np.float32), yt,
            rbf.transform(xh).astype(np.float32), yh)


def export_csv(out, x, y, cut, column, label, fmt):
    """DIR/train.csv (rows :cut) and DIR/heldout.csv (cut:), columns {column}0.. and label."""
    header = ",".join([f"{column}{i}" for i in range(x.shape[1])] + [label])
    for name, rows in (("train", slice(0, cut)), ("heldout", slice(cut, None))):
        data = np.column_stack([x[rows], y[rows]])
        np.savetxt(f"{out}/{name}.csv", data, delimiter=",", header=header, comments="",
                   fmt=[fmt] * x.shape[1] + ["%d"])
