# ruff: noqa
"""Probe: trusted samples weighted W in PLC's refits of the review loop."""
import os, sys, json, time
import numpy as np
import sklearn_plc
from sklearn_plc import PLCClassifier
W = float(os.environ.get("TW", "1"))
_fit = PLCClassifier.fit
def fit(self, X, y, *, trusted=None, sample_weight=None, **kw):
    if trusted is not None and W != 1:
        sample_weight = np.where(trusted, W, 1.0)
    return _fit(self, X, y, trusted=trusted, sample_weight=sample_weight, **kw)
PLCClassifier.fit = fit
from benchmarks import review
_nl = review._noisy_labels
review._noisy_labels = lambda noise, X, y, seed: y.copy() if noise == 'clean' else _nl(noise, X, y, seed)
from joblib import Parallel, delayed
datasets = sys.argv[1].split(","); models = sys.argv[2].split(","); noises = sys.argv[3].split(","); seeds = [int(s) for s in sys.argv[4].split(",")]
orders = sys.argv[5].split(",")
jobs = int(os.environ.get("JOBS", "1"))
cells = [(d, m, n, s) for d in datasets for m in models for n in noises for s in seeds]
def one(d, m, n, s):
    import sklearn_plc, numpy as np
    from sklearn_plc import PLCClassifier as P
    P.fit = fit
    review._noisy_labels = lambda noise, X, y, seed: y.copy() if noise == 'clean' else _nl(noise, X, y, seed)
    return review.run_cell(d, m, n, s, review.DEV_SPLIT, orders, review.KS)
t = time.time()
rows = Parallel(n_jobs=jobs)(delayed(one)(*c) for c in cells)
for r in rows:
    print(json.dumps({k: r[k] for k in ("dataset", "model", "noise", "seed", "standard", "before", "clean")} | {"after": r["after"], "wrong": r["wrong_reviewed"]}), flush=True)
print("wall", round(time.time() - t), file=sys.stderr)
