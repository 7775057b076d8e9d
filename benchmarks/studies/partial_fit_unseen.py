"""The eval_pass path for partial_fit learners on the unseen check's datasets.

A check, not a place to choose: the unseen check's four datasets and three
noises (seeds 100-102, its own splits) with an ``MLPClassifier((64,),
max_iter=300)`` on features scaled on the training split (a Pipeline has no
``partial_fit``): Standard, ``PLCClassifier(confidence="eval_pass")`` and
cleanlab's ``CleanLearning``, each fitted one after the other in one job.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/studies/partial_fit_unseen.py run OUT.json
    PYTHONPATH=. python benchmarks/studies/partial_fit_unseen.py summary LOG.json
"""

import sys
import warnings
from collections import defaultdict

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    dump_rows,
    fit_and_score,
    load_rows,
    run_or_summarise_log,
)

DATASETS = ("breast_cancer", "digits-flat", "hard-4", "many-20")
NOISES = ("I-35", "III-35", "U30")
SEEDS = (100, 101, 102)


def run_job(dataset, noise, seed):
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler

    from benchmarks.tables import clean_learning
    from benchmarks.unseen import _load, _noise
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    X, y = _load(dataset)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    _, y_noisy = _noise(noise, seed).fit_resample(X_train, y_train)
    row = {"dataset": dataset, "noise": noise, "seed": seed}

    def mlp():
        return MLPClassifier((64,), max_iter=300, random_state=seed)

    methods = {
        "standard": mlp,
        "plc": lambda: PLCClassifier(mlp(), confidence="eval_pass", random_state=seed),
        "cleanlab": lambda: clean_learning(mlp(), seed),
    }
    for name, make in methods.items():
        row[f"{name}_s"], row[name] = fit_and_score(
            make(), X_train, y_noisy, X_test, y_test
        )
    return row


def run(out, jobs=2):
    work = [(d, n, s) for d in DATASETS for n in NOISES for s in SEEDS]
    dump_rows(Parallel(n_jobs=jobs)(delayed(run_job)(*job) for job in work), out)


def summary(path):
    by_cell = defaultdict(list)
    for row in load_rows(path):
        by_cell[(row["dataset"], row["noise"])].append(row)
    print("| cell | Standard | PLC eval_pass − Std | cleanlab − Std |")
    print("|---|---:|---:|---:|")
    plc_gains, clean_gains, plc_cost, clean_cost = [], [], [], []
    for key, rows in by_cell.items():
        std = 100 * np.mean([r["standard"] for r in rows])
        plc = 100 * np.mean([r["plc"] - r["standard"] for r in rows])
        clean = 100 * np.mean([r["cleanlab"] - r["standard"] for r in rows])
        plc_gains.append(plc)
        clean_gains.append(clean)
        plc_cost += [r["plc_s"] / r["standard_s"] for r in rows]
        clean_cost += [r["cleanlab_s"] / r["standard_s"] for r in rows]
        print(f"| {' '.join(key)} | {std:.1f} | {plc:+.1f} | {clean:+.1f} |")
    plc_gains, clean_gains = np.array(plc_gains), np.array(clean_gains)
    print(
        f"PLC eval_pass: mean {plc_gains.mean():+.2f}, worst {plc_gains.min():+.1f}, "
        f"≥ Std−0.5 {np.sum(plc_gains >= -0.5)}/{len(plc_gains)}, "
        f"≥ cleanlab {np.sum(plc_gains >= clean_gains - 1e-9)}, "
        f"median cost {np.median(plc_cost):.2f}×; cleanlab: mean "
        f"{clean_gains.mean():+.2f}, median cost {np.median(clean_cost):.2f}×"
    )


if __name__ == "__main__":
    run_or_summarise_log(__doc__, run, summary)
