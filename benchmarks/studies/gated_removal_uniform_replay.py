# ruff: noqa  (a study probe, removed in the commit after the one that adds it)
"""Replay d9ded72's gated removal with a noise-type witness (an oracle of it).

Where a gate kept the labels, d9ded72's study took confident learning's removal
where the check on halves called it clearly better. Here it is taken only in
runs whose noise has a uniform part (the noise cell's name), the best a witness
of random-looking labels could do, and replayed at several bars.

    git show d9ded72:benchmarks/studies/gated_removal_dev.json.gz > gated.json.gz
    git show eb8eb42:benchmarks/logs/tables_dev_halves.json > before.json
    python gated_removal_uniform_replay.py gated.json.gz before.json
"""

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


def candidate(r):
    p = r["PLC"]
    return (
        p["termination"] == "disputes_removed" and p.get("holdout_compared") == "halves"
    )


def accuracy(r, bar, gate):
    p = r["PLC"]
    if not candidate(r):
        return p["accuracy"], False
    before = old[(r["dataset"], r["noise"], r["seed"])]["PLC"]["accuracy"]
    if bar is None or not gate(r):
        return before, False
    take = p["halves_gain"] - 1 / p["n_samples"] > bar * p["halves_standard_error"]
    return (p["accuracy"] if take else before), take


rerun = {r["dataset"] for r in new}
runs = new + [o for o in old.values() if o["dataset"] not in rerun]
gates = {
    "every gated run (d9ded72)": lambda r: True,
    "noise with a uniform part (oracle)": lambda r: "U" in r["noise"],
    "pure PMD": lambda r: r["noise"] != "clean" and not set("UA") & set(r["noise"]),
}
for name, gate in gates.items():
    for bar in (None, 1.0, 2.0, 3.0):
        cells, taken = collections.defaultdict(list), 0
        for r in runs:
            a, t = accuracy(r, bar, gate)
            taken += t
            cells[(r["dataset"], r["noise"])].append(
                (
                    a - r["Standard"]["accuracy"],
                    r["cleanlab"]["accuracy"] - r["Standard"]["accuracy"],
                )
            )
        noisy = np.array(
            [np.mean(v, 0) * 100 for k, v in cells.items() if k[1] != "clean"]
        )
        print(
            f"{name:36s} bar {bar}: taken {taken:3d}; noisy {noisy[:, 0].mean():+.2f} "
            f"within {np.sum(noisy[:, 0] >= -0.5)}/{len(noisy)} "
            f"cleanlab ahead > 1: {np.sum(noisy[:, 1] - noisy[:, 0] > 1)}"
        )
