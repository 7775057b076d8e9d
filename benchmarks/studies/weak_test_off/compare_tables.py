"""``python compare_tables.py LIBRARY.json VARIANT.json CLEANLAB.json``: dev logs."""

import collections
import json
import sys
from pathlib import Path

import numpy as np


def load(f):
    d = json.loads(Path(f).read_text())
    return {
        (x["dataset"], x["noise"], x["seed"]): x
        for x in d["runs"]
        if x["kind"] == "cell" and "PLC" in x
    }


a = load(sys.argv[1])
b = load(sys.argv[2])
cl = load(sys.argv[3]) if len(sys.argv) > 3 else {}
moved = []
for k in a:
    if k in b and abs(a[k]["PLC"]["accuracy"] - b[k]["PLC"]["accuracy"]) > 1e-9:
        moved.append(
            (
                k,
                a[k]["PLC"]["termination"],
                b[k]["PLC"]["termination"],
                round(
                    100 * (a[k]["PLC"]["accuracy"] - a[k]["Standard"]["accuracy"]), 1
                ),
                round(
                    100 * (b[k]["PLC"]["accuracy"] - b[k]["Standard"]["accuracy"]), 1
                ),
            )
        )
print("moved", len(moved), "of", len(a))
for m in sorted(moved):
    print(" ", m)
for name, r in (("before", a), ("after", b)):
    cells = collections.defaultdict(list)
    ccl = collections.defaultdict(list)
    for k, x in r.items():
        cells[k[:2]].append(100 * (x["PLC"]["accuracy"] - x["Standard"]["accuracy"]))
        if k in cl and "cleanlab" in cl[k]:
            ccl[k[:2]].append(
                100 * (cl[k]["cleanlab"]["accuracy"] - cl[k]["Standard"]["accuracy"])
            )
    clean = [np.mean(v) for k, v in cells.items() if k[1] == "clean"]
    noisy = {k: np.mean(v) for k, v in cells.items() if k[1] != "clean"}
    ahead = sum(1 for k, v in noisy.items() if k in ccl and np.mean(ccl[k]) - v > 1)
    nv = np.array(list(noisy.values()))
    print(
        name,
        "clean %.3f within %d/%d worst %.2f | noisy %.3f within %d/%d cleanlab ahead %d"  # noqa: UP031
        % (
            np.mean(clean),
            sum(np.array(clean) >= -0.5),
            len(clean),
            min(clean),
            nv.mean(),
            sum(nv >= -0.5),
            len(nv),
            ahead,
        ),
    )
    t = [
        x["PLC"]["fit_s"] / x["Standard"]["fit_s"]
        for x in r.values()
        if x["PLC"]["termination"] not in ("not_memorising", "too_weak_to_judge")
    ]
    print(
        f"   median corrected cost x plain {np.median(t):.1f}",
        "terminations",
        dict(collections.Counter(x["PLC"]["termination"] for x in r.values())),
    )
d = [(100 * (b[k]["PLC"]["accuracy"] - a[k]["PLC"]["accuracy"])) for k in a if k in b]
print(f"paired a run: {np.mean(d):.3f} +- {np.std(d) / np.sqrt(len(d)):.3f}")
