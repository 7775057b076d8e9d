# ruff: noqa
import json, sys, numpy as np
base = {}
for f in sys.argv[1].split(","):
    for l in open(f):
        r = json.loads(l); base[(r["dataset"], r["model"], r["noise"], r["seed"])] = r
ge_r = ge_p = n = 0; g_new = []; g_p = []; g_r = []; loss = 0; cells = 0
for l in open(sys.argv[2]):
    r = json.loads(l); b = base[(r["dataset"], r["model"], r["noise"], r["seed"])]
    N = np.array(r["after"]["PLC"]); P = np.array(b["after"]["PLC"]); R = np.array(b["after"]["random"])
    ge_r += (N >= R - 1e-9).sum(); ge_p += (N >= P - 1e-9).sum(); n += len(N); cells += 1
    g_new.append(N.mean() - b["before"]); g_p.append(P.mean() - b["before"]); g_r.append(R.mean() - b["before"]); loss += N.min() < b["before"] - 0.005
    f = lambda a: " ".join(f"{100*x:5.1f}" for x in a)
    print(f"{r['dataset']:13} {r['noise']:5} N {f(N)} | P {f(P)} | R {f(R)} | wr {r['wrong']['PLC'][-1]} {b['wrong']['PLC'][-1]} {b['wrong']['random'][-1]} sus {r['suspects']}")
print(f"new>=random {ge_r}/{n} new>=PLC {ge_p}/{n} gains new {100*np.mean(g_new):+.2f} PLC {100*np.mean(g_p):+.2f} random {100*np.mean(g_r):+.2f} loss cells {loss}/{cells}")
