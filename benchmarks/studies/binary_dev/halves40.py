import gzip
import json
import sys
import warnings

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "benchmarks/studies/binary_dev")
import probe
from joblib import Parallel, delayed

from benchmarks import unseen


def one(k):
    warnings.simplefilter("ignore")
    unseen._load = probe.load_dev
    unseen._noise = probe.noise_dev
    from sklearn.model_selection import train_test_split

    from sklearn_plc import PLCClassifier

    d, m, nz, seed = k
    X, y = unseen._load(d)
    Xtr, _, ytr, _ = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    yn = (
        ytr.copy()
        if nz == "clean"
        else unseen._noise(nz, seed).fit_resample(Xtr, ytr)[1]
    )
    plc = PLCClassifier(unseen._model(m), random_state=seed).fit(Xtr, yn)
    h = plc.halves_check_ or {}
    sel = h.get("replaced") or {}
    mem = plc.memorisation_ or {}
    return dict(
        key=list(k),
        gain=h.get("gain"),
        se=h.get("standard_error"),
        n_differ=h.get("n_differ"),
        n=len(yn),
        fifth_gain=sel.get("gain"),
        fifth_se=sel.get("standard_error"),
        sure=mem.get("sure_disputes"),
        oof=mem.get("out_of_fold_agreement"),
        margin=mem.get("judge_margin"),
        changed=int((plc.labels_ != yn).sum()) if False else None,
        noise=float(np.mean(yn != ytr)),
    )


with gzip.open("benchmarks/studies/binary_dev/base3.json.gz", "rt") as log:
    b = json.load(log)["runs"]
keys = [
    (r["dataset"], r["model"], r["noise"], r["seed"]) for r in b if r["halves_undone"]
]
out = Parallel(n_jobs=2)(delayed(one)(k) for k in keys)
with open("halves40.json", "w") as log:
    json.dump(out, log)
for o in out:
    z = o["gain"] / o["se"] if o["se"] else float("nan")
    fifth = None if o["fifth_gain"] is None else o["fifth_gain"] / o["fifth_se"]
    print(
        o["key"],
        f"z {z:+.2f} gain {o['gain'] * o['n']:+.1f}/n nd {o['n_differ']} "
        f"fifth {fifth} "
        f"sure {o['sure']:.3f} oof {o['oof']:.3f} noise {o['noise']:.2f}",
    )
