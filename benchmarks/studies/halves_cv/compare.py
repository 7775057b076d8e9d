# ruff: noqa
"""Compare two dev logs run by run: python compare.py LIBRARY.json[.gz] VARIANT.json[.gz]."""

import gzip, json, sys, collections, numpy as np

load = lambda p: json.load(gzip.open(p) if p.endswith(".gz") else open(p))
base = load(sys.argv[1])["runs"]
var = load(sys.argv[2])["runs"]
key = lambda r: (r["dataset"], r["noise"], r["seed"])
B = {key(r): r for r in base if r["kind"] == "cell" and "PLC" in r}
V = {key(r): r for r in var if r["kind"] == "cell" and "PLC" in r}
common = sorted(set(B) & set(V))
print(len(common), "runs in both")
moved = []
cells_b, cells_v = collections.defaultdict(list), collections.defaultdict(list)
cost_b, cost_v = collections.defaultdict(list), collections.defaultdict(list)
for k in common:
    b, v = B[k], V[k]
    db = 100 * (b["PLC"]["accuracy"] - b["Standard"]["accuracy"])
    dv = 100 * (v["PLC"]["accuracy"] - b["Standard"]["accuracy"])
    cells_b[k[:2]].append(db)
    cells_v[k[:2]].append(dv)
    if abs(db - dv) > 1e-9 or b["PLC"]["termination"] != v["PLC"]["termination"]:
        moved.append(
            (
                k,
                b["PLC"]["termination"],
                v["PLC"]["termination"],
                round(db, 1),
                round(dv, 1),
            )
        )
    if "halves_gain" in b["PLC"] or "halves_gain" in v["PLC"]:
        fam = k[0]
        cost_b[fam].append(b["PLC"]["fit_s"] / b["Standard"]["fit_s"])
        cost_v[fam].append(v["PLC"]["fit_s"] / v["Standard"]["fit_s"])


def summ(cells):
    clean = [np.mean(x) for c, x in cells.items() if c[1] == "clean"]
    noisy = [np.mean(x) for c, x in cells.items() if c[1] != "clean"]
    return f"clean {np.mean(clean):+.2f}, {sum(c >= -0.5 for c in clean)}/{len(clean)}, worst {min(clean):+.2f} | noisy {np.mean(noisy):+.2f}, {sum(c >= -0.5 for c in noisy)}/{len(noisy)}"


print("base ", summ(cells_b))
print("cv=2 ", summ(cells_v))
print(len(moved), "runs moved")
for m in moved:
    print(" ", m)
for fam in sorted(cost_b):
    print(
        f"{fam:15s} checked runs {len(cost_b[fam])}: median PLC/Standard base {np.median(cost_b[fam]):.1f}x  cv=2 {np.median(cost_v[fam]):.1f}x"
    )
allb = sum(cost_b.values(), [])
allv = sum(cost_v.values(), [])
print(
    f"all checked runs {len(allb)}: base {np.median(allb):.1f}x cv=2 {np.median(allv):.1f}x"
)
