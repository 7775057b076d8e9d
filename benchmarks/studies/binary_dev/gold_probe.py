"""A random gold set as the judge (`validation_fraction="trusted"`) against the default.

Each run verifies `M` random training samples (their clean labels replace the noisy
ones and they are marked `trusted`) and fits the plain estimator, PLC with its
default judges, and PLC with `validation_fraction="trusted"` (at 5455bb6 and before:
the gold samples judge the run alone; since: they judge the check on halves), all on
the same labels.

    python benchmarks/studies/binary_dev/gold_probe.py OUT M [SETS [MODELS [NOISES]]]

SETS: the two-class dev sets by default; `multi-a` and `multi-b` (`probe.py`) are
two multi-class draws of this study's own.
"""

import json
import sys
import time
import warnings

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, ".")
sys.path.insert(0, "benchmarks/studies/binary_dev")
import probe

from benchmarks import unseen

MODELS = "random-forest,extra-trees,gradient-boosting,logistic,5-nn"


def cell(dataset, model, noise, seed, n_gold):
    from sklearn.model_selection import train_test_split

    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    X, y = probe.load_dev(dataset)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    if noise == "clean":
        y_noisy = y_train.copy()
    else:
        y_noisy = probe.noise_dev(noise, seed).fit_resample(X_train, y_train)[1]
    gold = np.random.RandomState(seed + 7).permutation(y_train.shape[0])[:n_gold]
    trusted = np.zeros(y_train.shape[0], dtype=bool)
    trusted[gold] = True
    labels = y_noisy.copy()
    labels[gold] = y_train[gold]
    row = {"dataset": dataset, "model": model, "noise": noise, "seed": seed}
    plain = unseen._model(model).fit(X_train, labels)
    row["standard"] = float(plain.score(X_test, y_test))
    for name, params in (("plc", {}), ("plc_gold", {"validation_fraction": "trusted"})):
        plc = PLCClassifier(unseen._model(model), random_state=seed, **params)
        plc.fit(X_train, labels, trusted=trusted)
        row[name] = float(plc.score(X_test, y_test))
        row[name + "_termination"] = plc.termination_condition_
    return row


if __name__ == "__main__":
    n_gold = int(sys.argv[2])
    sets = sys.argv[3].split(",") if len(sys.argv) > 3 else ["bin-a", "bin-b", "bin-c"]
    models = (sys.argv[4] if len(sys.argv) > 4 else MODELS).split(",")
    noises = (sys.argv[5] if len(sys.argv) > 5 else "clean,I-25,III-25,U30").split(",")
    grid = [
        (d, m, n, s)
        for d in sets
        for m in models
        for n in noises
        for s in (100, 101, 102, 103, 104)
    ]
    start = time.time()
    rows = Parallel(n_jobs=2)(delayed(cell)(*g, n_gold) for g in grid)
    with open(sys.argv[1], "w") as log:
        json.dump({"runs": rows, "wall_s": time.time() - start}, log)
    print("wall", time.time() - start)
