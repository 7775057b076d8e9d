"""Dev protocol log: validation_fraction and the undo bar (docs/development.md).

Run from the repository root at the commit that introduced validation_fraction
(its default was then None, the undo bar 2 standard errors):

    python benchmarks/studies/validation_fraction.py hard  OUT.json default,vf20e
    python benchmarks/studies/validation_fraction.py tables OUT.json default,vf20e
    python benchmarks/studies/validation_fraction.py lr    OUT.json default,vf20e

Variants: "_undo" sets the undo bar (sklearn_plc._ending.WORSE_STANDARD_ERRORS)
in the worker. Dev split 1 and seeds 100-102 only; nothing here uses split 0.
"""

import json
import sys
import warnings

import numpy as np
from joblib import Parallel, delayed

from benchmarks.studies.common import cells, with_standard

VARIANTS = {
    "default": {},
    "vf10": {"validation_fraction": 0.1},
    "vf20": {"validation_fraction": 0.2},
    "vf20e": {"validation_fraction": 0.2, "_undo": 1.0},
    "vf10e": {"validation_fraction": 0.1, "_undo": 1.0},
    "vf20z": {"validation_fraction": 0.2, "_undo": 0.0},
    "vf30e": {"validation_fraction": 0.3, "_undo": 1.0},
}


def run(dataset, model, noise, seed, variants):
    warnings.simplefilter("ignore")
    import sklearn_plc._ending as C
    from sklearn_plc import PLCClassifier

    measured = with_standard(dataset, model, noise, seed)
    if measured is None:
        return None
    (Xtr, Xte, ytr, yte, yn, make), out = measured
    for v in variants:
        params = dict(VARIANTS[v])
        undo = params.pop("_undo", 2.0)
        C.WORSE_STANDARD_ERRORS = undo
        p = PLCClassifier(make(), random_state=seed, **params).fit(Xtr, yn)
        sel = p.selection_ or {}
        out[v] = dict(
            acc=float(np.mean(p.predict(Xte) == yte)),
            z=float(sel.get("gain", np.nan) / sel["standard_error"])
            if sel and sel["standard_error"] > 0
            else None,
            undone=bool(sel.get("undone", False)),
            kept=p.termination_condition_ in ("not_memorising", "undone"),
            pur=float(np.mean(p.labels_ == ytr)),
        )
    return out


if __name__ == "__main__":
    what, out, variants = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    rows = Parallel(n_jobs=2)(delayed(run)(*j, variants) for j in cells(what))
    rows = [r for r in rows if r is not None]
    with open(out, "w") as file:
        json.dump(rows, file)
    print("done", len(rows))
