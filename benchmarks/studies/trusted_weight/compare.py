# ruff: noqa
import json,sys
import numpy as np
for f in sys.argv[1:]:
    rows=[json.loads(l) for l in open(f)]
    ge=0; n=0; gP=[]; gR=[]; loss=0
    for r in rows:
        P=np.array(r['after']['PLC']); R=np.array(r['after']['random'])
        ge+=(P>=R-1e-9).sum(); n+=len(P); gP.append(P.mean()-r['before']); gR.append(R.mean()-r['before'])
        loss+= (P.min()<r['before']-0.005)
    print(f, f"PLC>=random {ge}/{n}  PLC gain {100*np.mean(gP):+.2f} random {100*np.mean(gR):+.2f}  cells with loss {loss}/{len(rows)}")
