import sys
from collections import defaultdict

import numpy as np
from cmp import load  # this folder's: the runs of a log by cell and seed


def summ(runs, label, key):
    cells = defaultdict(list)
    for k, r in runs.items():
        cells[k[:3]].append(r)

    def arr(noisy):
        return np.array(
            [
                [
                    np.mean([r["plc" + key] - r["standard" + key] for r in rs]) * 100,
                    np.mean([r["cleanlab" + key] - r["standard" + key] for r in rs])
                    * 100,
                ]
                for k, rs in cells.items()
                if (k[2] != "clean") == noisy
            ]
        )

    n, c = arr(True), arr(False)
    print(
        f"{label:8s}{key or '_acc':9s} noisy {n[:, 0].mean():+.2f} "
        f"(cl {n[:, 1].mean():+.2f}) within {np.sum(n[:, 0] >= -0.5)}/{len(n)} "
        f"clahead {np.sum(n[:, 1] - n[:, 0] > 1)} | clean {c[:, 0].mean():+.2f} "
        f"within {np.sum(c[:, 0] >= -0.5)}/{len(c)}"
    )
    return cells


base = load(sys.argv[1])
for key in ("", "_balanced"):
    summ(base, "base", key)
for f in sys.argv[2:]:
    var = load(f)
    common = {k: v for k, v in var.items() if k in base}
    for key in ("", "_balanced"):
        summ(common, f.split("/")[-1][:8], key)
    for key in ("", "_balanced"):
        d = np.array(
            [(common[k]["plc" + key] - base[k]["plc" + key]) * 100 for k in common]
        )
        print(
            f"   paired{key} {d.mean():+.3f} ± {d.std(ddof=1) / np.sqrt(len(d)):.3f}, "
            f"moved {np.sum(np.abs(d) > 1e-9)}/{len(d)}"
        )
    bym = defaultdict(list)
    for k in common:
        bym[(k[1][:6], k[2])].append(
            (
                (common[k]["plc_balanced"] - base[k]["plc_balanced"]) * 100,
                (common[k]["plc"] - base[k]["plc"]) * 100,
            )
        )
    print(
        "   bal/acc",
        {
            f"{a}/{b}": tuple(np.round(np.mean(v, 0), 2))
            for (a, b), v in sorted(bym.items())
            if np.any(np.abs(v) > 1e-9)
        },
    )
