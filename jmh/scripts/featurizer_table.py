#!/usr/bin/python3
"""Markdown tables of FeaturizerBenchmark (JMH JSON) beside the scikit-learn reference.

Usage: featurizer_table.py jmh-result.json sklearn-before.jsonl sklearn-after.jsonl
For each (d, m): one row per projection and bit width with features/s on one thread (`fused`)
and on all cores (`fusedCommonPool`), and the ratio to RBFSampler float32 with the same thread
count (the median of the before and after measurements).
"""
import json
import statistics
import sys
from collections import defaultdict


def main(jmh_path, *sklearn_paths):
    sklearn = defaultdict(list)
    for path in sklearn_paths:
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    sklearn[(r["d"], r["m"], r["threads"])].append(r["features_per_s"])
    ours = {}
    for r in json.load(open(jmh_path)):
        method = r["benchmark"].rsplit(".", 1)[1]
        if method not in ("fused", "fusedCommonPool"):
            continue
        p = r["params"]
        us = r["primaryMetric"]["score"]  # microseconds per op of `rows` rows
        rate = int(p["rows"]) * int(p["m"]) / (us * 1e-6)
        ours[(int(p["d"]), int(p["m"]), p["projection"], int(p["bits"]), method)] = rate
    for d in sorted({k[0] for k in ours}):
        for m in sorted({k[1] for k in ours if k[0] == d}):
            ref1 = statistics.median(sklearn.get((d, m, "1"), [float("nan")]))
            refall = statistics.median(sklearn.get((d, m, "all"), [float("nan")]))
            print(f"\n**d = {d}, m = {m}**: scikit-learn RBFSampler float32 "
                  f"{ref1 / 1e6:.0f} M features/s on 1 thread, {refall / 1e6:.0f} M/s on all cores\n")
            print("| projection | bits | 1 thread (M/s) | x sklearn | all cores (M/s) | x sklearn |")
            print("|---|---:|---:|---:|---:|---:|")
            for proj in ("dense", "circulant", "fastfood", "orthogonal"):
                for bits in (1, 4, 8, 32):
                    one = ours.get((d, m, proj, bits, "fused"))
                    many = ours.get((d, m, proj, bits, "fusedCommonPool"))
                    if one is None or many is None:
                        continue
                    print(f"| `{proj}` | {bits} | {one / 1e6:.0f} | {one / ref1:.2f} | "
                          f"{many / 1e6:.0f} | {many / refall:.2f} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
