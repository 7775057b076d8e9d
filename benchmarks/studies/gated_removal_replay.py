"""Replay the gated removal at several bars from a run that always took it."""

import collections
import gzip
import json
import sys

import numpy as np

new = [
    r
    for r in json.load(gzip.open(sys.argv[1]))["runs"]
    if r["kind"] == "cell" and "PLC" in r
]
old = {
    (r["dataset"], r["noise"], r["seed"]): r
    for r in json.load(open(sys.argv[2]))["runs"]
    if r["kind"] == "cell" and "PLC" in r
}
bars = [None, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0]


def acc(r, bar):
    """PLC's accuracy at `bar` (None: never take the gated removal)."""
    p = r["PLC"]
    cand = (
        p["termination"] == "disputes_removed" and p.get("holdout_compared") == "halves"
    )
    if not cand:
        return p["accuracy"], False
    o = old[(r["dataset"], r["noise"], r["seed"])]
    if bar is None:
        return o["PLC"]["accuracy"], False
    g, se, n = p["halves_gain"], p["halves_standard_error"], p["n_samples"]
    take = (g > 0) if bar == 0 else (g - 1 / n > bar * se)
    return (p["accuracy"] if take else o["PLC"]["accuracy"]), take


# sanity: non-candidate runs identical to old
diff = 0
ncand = 0
for r in new:
    o = old[(r["dataset"], r["noise"], r["seed"])]
    cand = (
        r["PLC"]["termination"] == "disputes_removed"
        and r["PLC"].get("holdout_compared") == "halves"
    )
    ncand += cand
    if not cand and abs(r["PLC"]["accuracy"] - o["PLC"]["accuracy"]) > 1e-12:
        diff += 1
print("runs", len(new), "candidates", ncand, "non-candidate runs that moved", diff)
rerun = {r["dataset"] for r in new}
new = new + [o for o in old.values() if o["dataset"] not in rerun]
for bar in bars:
    cells = collections.defaultdict(list)
    taken = 0
    for r in new:
        a, t = acc(r, bar)
        taken += t
        cells[(r["dataset"], r["noise"])].append(
            (
                a - r["Standard"]["accuracy"],
                r["cleanlab"]["accuracy"] - r["Standard"]["accuracy"],
            )
        )
    clean = [np.mean(v, 0) * 100 for k, v in cells.items() if k[1] == "clean"]
    noisy = [np.mean(v, 0) * 100 for k, v in cells.items() if k[1] != "clean"]
    clean, noisy = np.array(clean), np.array(noisy)
    print(
        f"bar {bar}: taken {taken}; clean {clean[:, 0].mean():+.2f} within {np.sum(clean[:, 0] >= -0.5)}/{len(clean)} worst {clean[:, 0].min():+.2f} (cl {clean[:, 1].mean():+.2f}); "
        f"noisy {noisy[:, 0].mean():+.2f} within {np.sum(noisy[:, 0] >= -0.5)}/{len(noisy)} (cl {noisy[:, 1].mean():+.2f}) cl ahead>1 {np.sum(noisy[:, 1] - noisy[:, 0] > 1)} >=cl {np.sum(noisy[:, 0] >= noisy[:, 1])}"
    )
    if bar in (1.0,):
        byds = collections.defaultdict(list)
        for k, v in cells.items():
            byds[k[0]].append(np.mean(v, 0) * 100)
        for d, v in byds.items():
            v = np.array(v)
            print("   ", d, f"{v[:, 0].mean():+.2f} (cl {v[:, 1].mean():+.2f})")
