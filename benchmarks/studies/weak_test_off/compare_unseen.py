"""Compare a variant's unseen-check runs with the library's logged runs.

``python compare_unseen.py VARIANT.json LIBRARY.json [LIBRARY.json ...]``: the
library's runs at the variant's keys (dataset, model, noise, seed); the runs that
moved, and per set (clean, noisy) the mean gain a cell over Standard, cells within
0.5, and cells where cleanlab (the library log's) leads by more than a point.
"""

import collections
import json
import sys
from pathlib import Path

import numpy as np


def runs(path):
    data = json.loads(Path(path).read_text())
    return {(r["dataset"], r["model"], r["noise"], r["seed"]): r for r in data["runs"]}


variant = runs(sys.argv[1])
library = {}
for path in sys.argv[2:]:
    library.update(runs(path))
keys = [k for k in variant if k in library]
moved = [k for k in keys if abs(variant[k]["plc"] - library[k]["plc"]) > 1e-9]
print(f"{len(keys)} runs matched, {len(moved)} moved")
for k in sorted(moved):
    lib, var = library[k], variant[k]
    print(
        f"  {k}: {lib['termination']} -> {var['termination']}, "
        f"{100 * (lib['plc'] - lib['standard']):+.1f} -> "
        f"{100 * (var['plc'] - var['standard']):+.1f}"
    )
for clean in (True, False):
    cells = collections.defaultdict(list)
    for k in keys:
        if (k[2] == "clean") == clean:
            cells[k[:3]].append(k)
    if not cells:
        continue
    for name, source in (("library", library), ("variant", variant)):
        gains, ahead = [], 0
        for ks in cells.values():
            gain = np.mean(
                [100 * (source[k]["plc"] - source[k]["standard"]) for k in ks]
            )
            lead = np.mean(
                [100 * (library[k]["cleanlab"] - library[k]["standard"]) for k in ks]
            )
            gains.append(gain)
            ahead += lead - gain > 1
        gains = np.array(gains)
        print(
            f"{'clean' if clean else 'noisy'} {name}: {gains.mean():+.2f} a cell, "
            f"{np.sum(gains >= -0.5)} of {len(gains)} within 0.5, worst "
            f"{gains.min():+.2f}, cleanlab ahead by > 1 in {ahead}"
        )
paired = [100 * (variant[k]["plc"] - library[k]["plc"]) for k in keys]
error = np.std(paired) / np.sqrt(len(paired))
print(f"paired {np.mean(paired):+.3f} +- {error:.3f} a run")
