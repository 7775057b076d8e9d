# ruff: noqa
import os, sys, json, glob, numpy as np, collections

base = {}
for f in sys.argv[1:]:
    for l in open(f):
        r = json.loads(l)
        base[(r["dataset"], r["model"], r["noise"], r["seed"])] = r
warm = {}
for f in glob.glob(os.path.join(os.path.dirname(__file__), "warm_*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        warm[(r["dataset"], r["model"], r["noise"], r["seed"])] = r
pairs = collections.Counter()
gains = collections.defaultdict(list)
below = collections.Counter()
cells = collections.Counter()
for key, w in sorted(warm.items()):
    wa = np.array(list(w["after"].values())[0])
    b = w["before"]
    kind = "clean" if key[2] == "clean" else "noisy"
    cells[kind] += 1
    below["warm", kind] += (wa - b).min() < -0.005
    gains["warm", kind].append((wa - b).mean())
    line = f"{key} before {b * 100:.1f} warm {np.round((wa - b) * 100, 1)} ends {w['ends']}"
    if key in base:
        p = np.array(base[key]["after"]["PLC"])
        rnd = np.array(base[key]["after"]["random"])
        assert abs(base[key]["before"] - b) < 1e-9, (key, base[key]["before"], b)
        pairs["warm>=rnd", kind] += int(np.sum(wa >= rnd - 1e-9))
        pairs["plc>=rnd", kind] += int(np.sum(p >= rnd - 1e-9))
        pairs["n", kind] += len(p)
        pairs["warm>=plc", kind] += int(np.sum(wa >= p - 1e-9))
        below["plc", kind] += (p - b).min() < -0.005
        gains["plc", kind].append((p - b).mean())
        gains["rnd", kind].append((rnd - b).mean())
        line += (
            f" | plc {np.round((p - b) * 100, 1)} rnd {np.round((rnd - b) * 100, 1)}"
        )
    print(line)
print(dict(pairs))
print(dict(below))
print(dict(cells))
print({k: round(100 * np.mean(v), 2) for k, v in gains.items()})
