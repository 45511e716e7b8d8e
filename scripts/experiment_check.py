#!/usr/bin/env python3
"""Recomputes the figures of an `lprff experiment` folder's summary.md from its runs.csv alone.

    python3 scripts/experiment_check.py DIR      (needs numpy)

Independent of lprff's Java code: reads runs.csv with the csv module, ranks with numpy, and checks
every Spearman coefficient of the Figure 5 table (rows with a finite metric and a finite, positive
quantity; ties get average ranks) and Table 2 (the best full-precision mean, the 2% / 0.5-point
tolerance, each family's smallest configuration within it, the memory ratios). Prints what it
checked; exits 1 at the first disagreement. The LP-RFF families are the quantizer families (the
part of runs.csv's quantizer before a colon: sigma-delta:1:4 is LP-RFF sigma-delta); Table 2 has a
row for the paper's four families and for any other that ran.
"""
import csv
import math
import re
import sys
from collections import defaultdict

import numpy as np


def ranks(v):
    order = np.argsort(v, kind="mergesort")
    r = np.empty(len(v))
    sv = v[order]
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and sv[j + 1] == sv[i]:
            j += 1
        r[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x, y):
    rx, ry = ranks(np.asarray(x, float)), ranks(np.asarray(y, float))
    return float(np.corrcoef(rx, ry)[0, 1])


def fail(message):
    print("MISMATCH: " + message)
    sys.exit(1)


def main(folder):
    with open(folder + "/runs.csv", newline="") as f:
        runs = [{k: (v if k in ("method", "projection", "quantizer", "metric") else float(v))
                 for k, v in row.items()} for row in csv.DictReader(f)]
    summary = open(folder + "/summary.md", encoding="utf-8").read()
    print(f"{len(runs)} runs")

    quantities = {
        "1/(1-Δ1)": lambda r: 1 / (1 - r["delta1"]) if r["delta1"] != 1 else math.inf,
        "Δ2": lambda r: r["delta2"],
        "max(1/(1-Δ1), Δ2)": lambda r: max(1 / (1 - r["delta1"]) if r["delta1"] != 1
                                           else math.inf, r["delta2"]),
        "‖K - K~‖_F": lambda r: r["frobenius_error"],
        "‖K - K~‖_2": lambda r: r["spectral_error"],
    }
    for name, q in quantities.items():
        used = [r for r in runs if math.isfinite(r["heldout_metric"])
                and math.isfinite(q(r)) and q(r) > 0]
        rho = spearman([q(r) for r in used], [r["heldout_metric"] for r in used])
        m = re.search(r"^\| " + re.escape(name) + r" \| (-?[0-9.]+|n/a) \| (\d+) \|$", summary,
                      re.M)
        if not m:
            fail(f"no Spearman row for {name} in summary.md")
        if int(m.group(2)) != len(used) or abs(float(m.group(1)) - rho) > 0.0005 + 1e-12:
            fail(f"{name}: summary.md has rho {m.group(1)} over {m.group(2)} runs, runs.csv gives"
                 f" {rho:.3f} over {len(used)}")
        print(f"Spearman {name}: {rho:.3f} over {len(used)} runs (as summary.md)")

    configs = defaultdict(list)
    for r in runs:
        key = (r["method"], r["projection"], r["quantizer"], int(r["m"]), int(r["bits"]))
        configs[key].append(r)

    def mean(key):
        values = [r["heldout_metric"] for r in configs[key] if math.isfinite(r["heldout_metric"])]
        return sum(values) / len(values) if values else math.nan

    def memory(key):
        return int(configs[key][0]["memory_bits"])

    regression = runs[0]["metric"] == "mse"
    fp = [k for k in configs if k[0] == "rff" and math.isfinite(mean(k))]
    best = min(mean(k) for k in fp)
    limit = best * 1.02 if regression else best + 0.005
    def family(k):
        return k[2].split(":")[0]

    # Table 2's families: (row label, name in a ratio, membership), LP-RFF stochastic first.
    families = [
        ("LP-RFF stochastic", "LP-RFF", lambda k: k[0] == "lp-rff" and family(k) == "stochastic"),
        ("LP-RFF nearest", "LP-RFF nearest",
         lambda k: k[0] == "lp-rff" and family(k) == "nearest"),
    ] + [
        ("LP-RFF " + q, "LP-RFF " + q, lambda k, q=q: k[0] == "lp-rff" and family(k) == q)
        for q in ("shared-threshold", "lloyd-max", "sigma-delta")
    ] + [
        ("full-precision RFF", "FP RFF", lambda k: k[0] == "rff"),
        ("Nyström", "Nyström", lambda k: k[0] == "nystrom"),
    ]
    paper = {"LP-RFF stochastic", "LP-RFF nearest", "full-precision RFF", "Nyström"}

    def describe(k):
        method, projection, quantizer, m, bits = k
        s = (projection + ", " if projection else "") + f"m = {m}"
        if method != "nystrom":
            s += ", fp32" if bits == 32 else f", b = {bits}"
        if method == "lp-rff" and ":" in quantizer:
            s += ", " + quantizer
        return s

    smallest = {}
    for label, short, member in families:
        ran = [k for k in configs if member(k)]
        if not ran or all(math.isnan(mean(k)) for k in ran):
            said = "not run" if not ran else "every run diverged"
            row = re.search(r"^\| " + re.escape(label) + r" \| " + said + r" \|", summary, re.M)
            if row is None and (ran or label in paper):
                fail(f"{label}: {said}, but summary.md does not say so")
            if not ran and label not in paper and f"| {label} |" in summary:
                fail(f"{label}: not run, but summary.md has a row for it")
            print(f"{label}: {said} (as summary.md)")
            continue
        within = [k for k in ran if mean(k) <= limit]
        if within:
            smallest[short] = min(within, key=lambda k: (memory(k), mean(k)))
            text = f"| {label} | {describe(smallest[short])} | {memory(smallest[short]):,} |"
            if text not in summary:
                fail(f"summary.md lacks the row '{text}'")
    print(f"best full-precision mean {best:.6g}; tolerance limit {limit:.6g}")
    if "LP-RFF" not in smallest:
        if re.search(r"\| LP-RFF stochastic \| (none within tolerance|every run diverged|not run)",
                     summary) is None:
            fail("LP-RFF stochastic: nothing within tolerance, but summary.md does not say so")
        print("LP-RFF stochastic: none within tolerance, so no ratios (as summary.md)")
        print("OK: summary.md follows from runs.csv")
        return
    lp = memory(smallest["LP-RFF"])
    for label, short, member in families[1:]:
        if not any(member(k) and math.isfinite(mean(k)) for k in configs):
            continue
        if short not in smallest:
            if re.search(r"\| " + re.escape(label) + r" \| none within tolerance", summary) is None:
                fail(f"{label}: nothing within tolerance, but summary.md does not say so")
            print(f"{short}: none within tolerance (as summary.md)")
            continue
        ratio = memory(smallest[short]) / lp
        text = f"{short} / LP-RFF = {ratio:.1f}x"
        if text not in summary:
            fail(f"summary.md lacks '{text}' (smallest {short}: {smallest[short]},"
                 f" {memory(smallest[short])} bits; LP-RFF: {smallest['LP-RFF']}, {lp} bits)")
        print(f"{text}: {smallest[short]} over {smallest['LP-RFF']} (as summary.md)")
    print("OK: summary.md follows from runs.csv")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: experiment_check.py DIR (an lprff experiment --out folder)")
    main(sys.argv[1])
