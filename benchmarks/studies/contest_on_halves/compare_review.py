import collections
import json
import sys
from pathlib import Path

import numpy as np


def load(f):
    d = json.loads(Path(f).read_text())
    return {(x["model"], x["dataset"], x["noise"], x["seed"]): x for x in d["runs"]}


def summ(r, name, cl=None):
    cells = collections.defaultdict(list)
    for k, _x in r.items():
        cells[k[:3]].append(k)
    loss = 0
    pairs = 0
    tot = 0
    gains = []
    rgains = []
    for _c, ks in sorted(cells.items()):
        P = (
            np.mean(
                [np.array(r[k]["after"]["PLC"]) - r[k]["before"] for k in ks], axis=0
            )
            * 100
        )
        R = (
            np.mean(
                [np.array(r[k]["after"]["random"]) - r[k]["before"] for k in ks], axis=0
            )
            * 100
        )
        src = cl if cl is not None else r
        C = (
            np.mean(
                [np.array(src[k]["after"]["cleanlab"]) - r[k]["before"] for k in ks],
                axis=0,
            )
            * 100
        )
        loss += P.min() < -0.5
        pairs += int(np.sum((P >= R) & (P >= C)))
        tot += len(P)
        gains.append(P.mean())
        rgains.append(R.mean())
    print(
        name,
        "cells",
        len(cells),
        "cells with a loss",
        loss,
        "pairs >= both",
        pairs,
        "of",
        tot,
        f"gain PLC {np.mean(gains):.2f} random {np.mean(rgains):.2f}",
    )
    runs_below = sum(
        int(np.sum(np.array(x["after"]["PLC"]) - x["before"] < -0.01))
        for x in r.values()
    )
    print(
        "   run-k pairs more than a point below before (PLC):",
        runs_below,
        "of",
        5 * len(r),
    )


a = load(sys.argv[1])
b = load(sys.argv[2])
summ(a, "base")
summ(b, "new", cl=a)
summ(b, "new(own cleanlab)")
d = [
    np.array(b[k]["after"]["PLC"]) - np.array(a[k]["after"]["PLC"]) for k in a if k in b
]
print(
    "paired new-base PLC order per k:",
    (np.mean(d, axis=0) * 100).round(2),
    f"overall {np.mean(d) * 100:.2f} +- "
    f"{np.std(np.mean(d, axis=1)) * 100 / np.sqrt(len(d)):.2f}",
)
d = [
    np.array(b[k]["after"]["random"]) - np.array(a[k]["after"]["random"])
    for k in a
    if k in b
]
print("paired new-base random order per k:", (np.mean(d, axis=0) * 100).round(2))
print(
    "before same?",
    sum(abs(a[k]["before"] - b[k]["before"]) < 1e-9 for k in a if k in b),
    "of",
    len(a),
)
