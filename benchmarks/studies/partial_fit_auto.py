"""Should ``confidence="auto"`` run ``partial_fit`` learners in one run (``eval_pass``)?

Question (issue "Ahead of cleanlab", item 3): the one-run path now takes a
Pipeline (its first steps fitted once, its last step trained by ``partial_fit``)
and ends as the learner's own ``fit`` would once the labels settle (its ``tol``
and ``n_iter_no_change`` on the loss over the current labels). Does it beat the
refit path (``"cv"``, today's "auto") and cleanlab, at lower cost, for the two
common incremental learners, as a user would build them: a scaled
``MLPClassifier((64,), max_iter=300)`` and a scaled ``SGDClassifier`` with
``loss="log_loss"`` (its defaults: ``max_iter=1000``, ``tol=1e-3``)?

Dev sets: hard-dev, hard4-dev, binary-gb-dev (PMD at 25%), weak20-dev, PMD
Type-I/III and 30% uniform noise, seeds 100-102. Each job fits Standard, PLC
``eval_pass``, PLC ``cv`` and cleanlab one after the other on the same labels.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/studies/partial_fit_auto.py run OUT.json
    PYTHONPATH=. python benchmarks/studies/partial_fit_auto.py summary LOG.json
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
    noisy_cell,
    run_or_summarise_log,
)

SEEDS = (100, 101, 102)
LEARNERS = ("mlp", "sgd")
METHODS = ("eval_pass", "cv", "cleanlab")


def cells():
    found = []
    for dataset in ("hard-dev", "hard4-dev", "binary-gb-dev", "weak20-dev"):
        level = "25" if dataset == "binary-gb-dev" else "35"
        for noise in (f"I-{level}", f"III-{level}", "U30"):
            found.append((dataset, noise))
    return found


def learner(name, seed):
    from sklearn.linear_model import SGDClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if name == "mlp":
        model = MLPClassifier((64,), max_iter=300, random_state=seed)
    else:
        model = SGDClassifier(loss="log_loss", random_state=seed)
    return make_pipeline(StandardScaler(), model)


def run_job(dataset, noise, seed, name):
    from benchmarks.tables import clean_learning
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    X_train, X_test, y_train, _y_test, y_noisy, _ = noisy_cell(
        dataset, "logistic", noise, seed
    )
    y_test = _y_test
    row = {"dataset": dataset, "noise": noise, "seed": seed, "learner": name}
    makers = {
        "std": lambda: learner(name, seed),
        "eval_pass": lambda: PLCClassifier(
            learner(name, seed), confidence="eval_pass", random_state=seed
        ),
        "cv": lambda: PLCClassifier(
            learner(name, seed), confidence="cv", random_state=seed
        ),
        "cleanlab": lambda: clean_learning(learner(name, seed), seed),
    }
    for method, make in makers.items():
        model = make()
        row[f"{method}_s"], row[method] = fit_and_score(
            model, X_train, y_noisy, X_test, y_test
        )
        if method in ("eval_pass", "cv"):
            row[f"{method}_purity"] = float(np.mean(model.labels_ == y_train))
            row[f"{method}_termination"] = model.termination_condition_
            row[f"{method}_rounds"] = int(model.n_iter_)
    row["purity_before"] = float(np.mean(y_noisy == y_train))
    return row


def run(out, jobs=2):
    work = [
        (*cell, seed, name) for name in LEARNERS for cell in cells() for seed in SEEDS
    ]
    rows = Parallel(n_jobs=jobs, verbose=5)(delayed(run_job)(*job) for job in work)
    dump_rows(rows, out)


def summary(path):
    rows = load_rows(path)
    for name in LEARNERS:
        by_cell = defaultdict(list)
        for row in rows:
            if row["learner"] == name:
                by_cell[(row["dataset"], row["noise"])].append(row)
        if not by_cell:
            continue
        print(f"\n{name}\n")
        print("| cell | Std | " + " | ".join(f"{m} − Std" for m in METHODS) + " |")
        print("|---|---:|" + "---:|" * len(METHODS))
        gains, costs = defaultdict(list), defaultdict(list)
        for key, cell in by_cell.items():
            std = 100 * np.mean([r["std"] for r in cell])
            parts = []
            for m in METHODS:
                gain = 100 * np.mean([r[m] - r["std"] for r in cell])
                gains[m].append(gain)
                costs[m] += [r[f"{m}_s"] / r["std_s"] for r in cell]
                parts.append(f"{gain:+.1f}")
            print(f"| {' '.join(key)} | {std:.1f} | " + " | ".join(parts) + " |")
        clean = np.array(gains["cleanlab"])
        for m in METHODS:
            g = np.array(gains[m])
            print(
                f"{m}: mean {g.mean():+.2f}, worst {g.min():+.1f}, "
                f"≥ Std−0.5 {np.sum(g >= -0.5)}/{len(g)}, "
                f"≥ cleanlab {np.sum(g >= clean - 1e-9)}, "
                f"median cost {np.median(costs[m]):.1f}×"
            )


if __name__ == "__main__":
    run_or_summarise_log(__doc__, run, summary)
