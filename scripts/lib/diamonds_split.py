"""A seeded 80/20 split of the shipped diamonds, the target log(price), as the scripts use it.

Usage: python3 scripts/lib/diamonds_split.py DIAMONDS.csv OUT_DIR SEED
Writes OUT_DIR/train.csv and OUT_DIR/heldout.csv: the rows shuffled by random.Random(SEED), the
first 80% for training; the last column (price) replaced by logprice.
"""
import csv
import math
import random
import sys


def main(source, out, seed):
    rows = list(csv.reader(open(source)))
    head, data = rows[0], rows[1:]
    random.Random(seed).shuffle(data)
    cut = int(len(data) * 0.8)
    for name, part in (("train", data[:cut]), ("heldout", data[cut:])):
        with open(f"{out}/{name}.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(head[:-1] + ["logprice"])
            for r in part:
                w.writerow(r[:-1] + [repr(math.log(float(r[-1])))])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
