"""The review loop with and without reviewed labels judging the check, cell by cell.

    python compare.py dev_review_library.jsonl.gz \
        dev_review_without_trusted_witnesses.jsonl.gz
"""

import collections
import gzip
import json
import sys

import numpy as np


def load(path):
    with gzip.open(path, "rt") as handle:
        rows = [json.loads(line) for line in handle]
    return {(r["model"], r["dataset"], r["noise"], r["seed"]): r for r in rows}


def main(library_path, variant_path):
    library, variant = load(library_path), load(variant_path)
    cells = collections.defaultdict(list)
    for key, row in variant.items():
        cells[key[:3]].append((library[key], row))
    counts, gains = collections.Counter(), collections.defaultdict(list)
    for cell, runs in sorted(cells.items()):
        before = np.mean([old["before"] for old, _ in runs])

        def mean(order, which, runs=runs):
            return np.mean([pair[which]["after"][order] for pair in runs], axis=0)

        cleanlab = mean("cleanlab", 0)
        for name, plc, rnd in (
            ("library", mean("PLC", 0), mean("random", 0)),
            ("variant", mean("PLC", 1), mean("random", 1)),
        ):
            counts[name] += int(np.sum((plc >= rnd) & (plc >= cleanlab)))
            gains[f"{name} PLC"].append(np.mean(plc - before))
            gains[f"{name} random"].append(np.mean(rnd - before))
            points = " ".join(f"{100 * (v - before):+.1f}" for v in plc)
            print(" ".join(cell), name, "PLC", points)
    print("pairs >= random and cleanlab:", dict(counts))
    print({k: round(100 * np.mean(v), 2) for k, v in gains.items()})


if __name__ == "__main__":
    main(*sys.argv[1:3])
