import gzip
import json
import sys
from collections import defaultdict

import numpy as np


def _open(f):
    return gzip.open(f, "rt") if f.endswith(".gz") else open(f)


def load(f):
    return {
        (r["dataset"], r["model"], r["noise"], r["seed"]): r
        for r in json.load(_open(f))["runs"]
    }


def summary(runs, label):
    cells = defaultdict(list)
    for k, r in runs.items():
        cells[k[:3]].append(r)
    noisy = np.array(
        [
            [
                np.mean([r["plc"] - r["standard"] for r in rs]) * 100,
                np.mean([r["cleanlab"] - r["standard"] for r in rs]) * 100,
            ]
            for k, rs in cells.items()
            if k[2] != "clean"
        ]
    )
    clean = np.array(
        [
            [
                np.mean([r["plc"] - r["standard"] for r in rs]) * 100,
                np.mean([r["cleanlab"] - r["standard"] for r in rs]) * 100,
            ]
            for k, rs in cells.items()
            if k[2] == "clean"
        ]
    )
    print(
        f"{label:10s} noisy {noisy[:, 0].mean():+.2f} (cl {noisy[:, 1].mean():+.2f}) "
        f"within {np.sum(noisy[:, 0] >= -0.5)}/{len(noisy)} clahead "
        f"{np.sum(noisy[:, 1] - noisy[:, 0] > 1)} | clean {clean[:, 0].mean():+.2f} "
        f"within {np.sum(clean[:, 0] >= -0.5)}/{len(clean)} worst "
        f"{clean[:, 0].min():+.2f}"
    )
    return cells


def main():
    base = load(sys.argv[1])
    summary(base, "base")
    for f in sys.argv[2:]:
        var = load(f)
        common = {k: v for k, v in var.items() if k in base}
        summary({k: base[k] for k in common}, "base@")
        summary(common, f.split("/")[-1][:10])
        d = np.array([(common[k]["plc"] - base[k]["plc"]) * 100 for k in common])
        moved = np.sum(np.abs(d) > 1e-9)
        print(
            f"   paired {d.mean():+.3f} ± {d.std(ddof=1) / np.sqrt(len(d)):.3f}, "
            f"moved {moved}/{len(d)}"
        )
        bym = defaultdict(list)
        for k in common:
            bym[(k[1], "clean" if k[2] == "clean" else "noisy")].append(
                (common[k]["plc"] - base[k]["plc"]) * 100
            )
        print(
            "   ",
            {
                f"{a[:6]}/{b}": round(float(np.mean(v)), 2)
                for (a, b), v in sorted(bym.items())
            },
        )


if __name__ == "__main__":
    main()
