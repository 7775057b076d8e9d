# ruff: noqa
"""Probe: the review loop's refits start from the last fit's labels (warm), not the given ones."""

import os, sys, json, time, warnings
import numpy as np

sys.path.insert(0, os.environ.get("ROOT", "."))
from joblib import Parallel, delayed


def one(dataset, model, noise, seed, mode):
    warnings.simplefilter("ignore")
    from sklearn.base import clone
    from sklearn_plc import PLCClassifier
    from benchmarks import review
    from benchmarks.tables import plc_ranking
    from benchmarks.unseen import _model

    X_train, X_test, y_train, y_test = review.load(dataset, review.DEV_SPLIT)
    y_noisy = (
        y_train.copy()
        if noise == "clean"
        else review._noisy_labels(noise, X_train, y_train, seed)
    )
    base = _model(model)
    acc = lambda f: float(np.mean(f.predict(X_test) == y_test))

    def fit_plc(labels, trusted=None):
        return PLCClassifier(clone(base), random_state=seed).fit(
            X_train, labels, trusted=trusted
        )

    before = fit_plc(y_noisy)
    row = {
        "dataset": dataset,
        "model": model,
        "noise": noise,
        "seed": seed,
        "before": acc(before),
        "termination": before.termination_condition_,
    }
    order = plc_ranking(before, "change")
    prev = before
    reviewed = np.zeros(0, dtype=np.intp)
    accs, purities, ends = [], [], []
    for k in review.KS:
        reviewed = review.reviewed_next(reviewed, order, k)
        start = (prev.labels_ if mode == "chain" else before.labels_).copy()
        start[reviewed] = y_train[reviewed]
        trusted = np.zeros(len(y_train), bool)
        trusted[reviewed] = True
        fitted = fit_plc(start, trusted)
        accs.append(acc(fitted))
        purities.append(float(np.mean(fitted.labels_ == y_train)))
        ends.append(fitted.termination_condition_)
        order = plc_ranking(fitted, "change")
        prev = fitted
    row["after"] = {"PLC-warm-" + mode: accs}
    row["purity"] = purities
    row["ends"] = ends
    return row


if __name__ == "__main__":
    datasets = sys.argv[1].split(",")
    models = sys.argv[2].split(",")
    noises = sys.argv[3].split(",")
    seeds = [int(s) for s in sys.argv[4].split(",")]
    mode = sys.argv[5]
    cells = [
        (d, m, n, s) for m in models for s in seeds for d in datasets for n in noises
    ]
    t = time.time()
    for r in Parallel(n_jobs=int(os.environ.get("JOBS", "2")), return_as="generator")(
        delayed(one)(*c, mode) for c in cells
    ):
        print(json.dumps(r), flush=True)
    print("wall", round(time.time() - t), file=sys.stderr)
