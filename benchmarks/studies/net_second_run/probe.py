"""Does a fresh net on PLC's final labels gain over PLC's one run? (issue 69 item 7)"""

import json
import sys
import warnings

import numpy as np

from benchmarks import tables

warnings.simplefilter("ignore")
name, out = sys.argv[1], sys.argv[2]
noises = sys.argv[3].split(",")
seeds = [int(s) for s in sys.argv[4].split(",")]
split = tables.DEV_SPLIT
_, posterior, _ = tables._posterior(name, 1, split)
dataset = tables.DATASETS[name]
X_train, X_test, y_train, y_test = tables._data(name, split)
rows = []
for noise in noises:
    for seed in seeds:
        cell = tables.NOISE_CELLS[noise]
        y_noisy, rate, _ = cell.corrupt(y_train, posterior, seed)
        row = {"noise": noise, "seed": seed, "rate": rate}
        for method in ("Standard", "PLC"):
            model = tables._make_method(method, dataset, seed, None)
            acc, _, s = tables._fit_and_score(
                model, dataset, seed, 1, X_train, y_noisy, X_test, y_test
            )
            row[method] = acc
            row[method + "_s"] = s
            if method == "PLC":
                labels = np.asarray(model.labels_)
                row["purity_before"] = float(np.mean(y_noisy == y_train))
                row["purity_after"] = float(np.mean(labels == y_train))
                row["termination"] = model.termination_condition_
        fresh = tables._make_method("Standard", dataset, seed, None)
        acc, _, s = tables._fit_and_score(
            fresh, dataset, seed, 1, X_train, labels, X_test, y_test
        )
        row["fresh"] = acc
        row["fresh_s"] = s
        rows.append(row)
        print(json.dumps(row), flush=True)
with open(out, "w") as log:
    json.dump(rows, log)
