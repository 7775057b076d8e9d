import gzip
import json
import sys
from collections import defaultdict

import numpy as np


def _open(f):
    return gzip.open(f, "rt") if f.endswith(".gz") else open(f)


def load(f):
    return {
        (r["dataset"], r["noise"], r["seed"]): r
        for r in json.load(_open(f))["runs"]
        if r["kind"] == "cell" and "PLC" in r
    }


base, var = load(sys.argv[1]), load(sys.argv[2])
cl = load(sys.argv[3]) if len(sys.argv) > 3 else None  # a log with cleanlab


def summ(runs, label):
    cells = defaultdict(list)
    for k, r in runs.items():
        c = (
            cl[k]["cleanlab"]["accuracy"] - cl[k]["Standard"]["accuracy"]
            if cl and k in cl and "cleanlab" in cl[k]
            else np.nan
        )
        cells[k[:2]].append(
            ((r["PLC"]["accuracy"] - r["Standard"]["accuracy"]) * 100, c * 100)
        )
    noisy = np.array([np.mean(v, 0) for k, v in cells.items() if k[1] != "clean"])
    clean = np.array([np.mean(v, 0) for k, v in cells.items() if k[1] == "clean"])
    print(
        f"{label:6s} noisy {noisy[:, 0].mean():+.2f} "
        f"within {np.sum(noisy[:, 0] >= -0.5)}/{len(noisy)} "
        f"clahead {np.sum(noisy[:, 1] - noisy[:, 0] > 1)} | clean "
        f"{clean[:, 0].mean():+.2f} within {np.sum(clean[:, 0] >= -0.5)}/{len(clean)} "
        f"worst {clean[:, 0].min():+.2f}"
    )


common = [k for k in var if k in base]
summ({k: base[k] for k in common}, "base")
summ({k: var[k] for k in common}, "var")
d = np.array(
    [(var[k]["PLC"]["accuracy"] - base[k]["PLC"]["accuracy"]) * 100 for k in common]
)
print(
    f"paired {d.mean():+.3f} ± {d.std(ddof=1) / np.sqrt(len(d)):.3f}; "
    f"moved {np.sum(np.abs(d) > 1e-9)}/{len(d)}"
)
byds = defaultdict(list)
for k in common:
    byds[(k[0], "clean" if k[1] == "clean" else "noisy")].append(
        (var[k]["PLC"]["accuracy"] - base[k]["PLC"]["accuracy"]) * 100
    )
print(
    {
        f"{a}/{b}": round(float(np.mean(v)), 2)
        for (a, b), v in sorted(byds.items())
        if np.any(np.abs(v) > 1e-9)
    }
)
