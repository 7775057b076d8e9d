"""Study (issue 60): learners that train in epochs, run once (``"eval_pass"``).

Question: where does one training run with a pass after every epoch fail, and
what in the mechanism fails there? First lead: on a rare class the warm-up
ends while the model still predicts the common class alone (its agreement
with the labels is the common class's share and levels off at once), and the
passes then move the rare class's labels away. Records Standard, cleanlab and
PLC (the library as it stands, the defaults, and ``confidence="eval_pass"``),
accuracy and balanced accuracy, per dev cell:

- ``hard-dev``, ``binary-gb-dev`` with I-35, III-35, U30, seeds 100-102;
- ``rare15-dev``, ``rare6-dev`` (a rare positive class) with P30 (30% of
  the positives labelled negative) and U20, seeds 100-104.

Dev protocol only; verdict and figures on the design page ("The warm-up on a
rare class"), logs ``epoch_learners_{mlp,sgd}_*.json`` beside this script. It
stays while issue 60 (SGD in one run, the one run's judge) is open. Any family of
the unseen check runs on the same cells (its own ``"auto"`` path): the refit
families' logs ``epoch_learners_refit_*.json`` (design page, "Judge the
corrections that no refit trained on"). Run from the repository root (a baseline
from a git worktree of the commit before the change)::

    OMP_NUM_THREADS=1 python -m benchmarks.studies.epoch_learners run OUT.json MODEL...
    python -m benchmarks.studies.epoch_learners summary LOG.json...
"""

import json
import sys
import time
import warnings
from collections import defaultdict

import numpy as np

SEEDS = (100, 101, 102)
RARE_SEEDS = (100, 101, 102, 103, 104)

# The dev sets, split by the seed (the rare ones: fraud, defect or diagnosis labels)
DEV_SETS = {
    "hard-dev": dict(
        n_samples=2000, n_features=20, n_informative=8, n_classes=3, random_state=11
    ),
    "binary-gb-dev": dict(
        n_samples=3000,
        n_features=10,
        n_informative=6,
        n_redundant=2,
        n_classes=2,
        n_clusters_per_class=3,
        random_state=21,
    ),
    "rare15-dev": dict(
        n_samples=3000,
        n_features=20,
        n_informative=6,
        n_classes=2,
        weights=[0.85],
        flip_y=0,
        random_state=61,
    ),
    "rare6-dev": dict(
        n_samples=4000,
        n_features=15,
        n_informative=5,
        n_classes=2,
        weights=[0.94],
        flip_y=0,
        class_sep=1.2,
        random_state=67,
    ),
}


def load(dataset, seed):
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    X, y = make_classification(**{"n_clusters_per_class": 2, **DEV_SETS[dataset]})
    return train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)


def _noise(name, seed):
    from benchmarks.unseen import _noise as unseen_noise
    from sklearn_plc.noise import UniformNoise

    if name == "U20":
        return UniformNoise(0.2, random_state=seed)
    return unseen_noise(name, seed)  # P30 (30% of the positives labelled 0), PMD


def _model(name):
    from benchmarks.unseen import _model as unseen_model

    if name == "sgd":
        from sklearn.linear_model import SGDClassifier
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(
            StandardScaler(), SGDClassifier(loss="log_loss", random_state=0)
        )
    return unseen_model(name)


def cells(models):
    hard = [
        (d, m, n, s)
        for d in ("hard-dev", "binary-gb-dev")
        for m in models
        for n in ("I-35", "III-35", "U30")
        for s in SEEDS
    ]
    rare = [
        (d, m, n, s)
        for d in ("rare15-dev", "rare6-dev")
        for m in models
        for n in ("P30", "U20")
        for s in RARE_SEEDS
    ]
    return hard + rare


def run_one(dataset, model, noise, seed):
    from sklearn.metrics import balanced_accuracy_score

    from benchmarks.tables import clean_learning
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    X_train, X_test, y_train, y_test = load(dataset, seed)
    _, y_noisy = _noise(noise, seed).fit_resample(X_train, y_train)
    y_noisy = np.asarray(y_noisy)
    row = dict(dataset=dataset, model=model, noise=noise, seed=seed)
    row["purity"] = float(np.mean(y_noisy == y_train))
    makers = {
        "standard": lambda: _model(model),
        "cleanlab": lambda: clean_learning(_model(model), seed),
        "plc": lambda: PLCClassifier(_model(model), random_state=seed),
    }
    if model == "sgd":
        makers["plc_eval"] = lambda: PLCClassifier(
            _model(model), confidence="eval_pass", random_state=seed
        )
    for name, make in makers.items():
        fitted = make()
        start = time.perf_counter()
        fitted.fit(X_train, y_noisy)
        row[name + "_s"] = time.perf_counter() - start
        predicted = fitted.predict(X_test)
        row[name] = float(np.mean(predicted == y_test))
        row[name + "_bal"] = float(balanced_accuracy_score(y_test, predicted))
        if name.startswith("plc"):
            row[name + "_termination"] = fitted.termination_condition_
            row[name + "_warm_up"] = getattr(fitted, "warm_up_", None)
            row[name + "_purity"] = float(np.mean(fitted.labels_ == y_train))
    return row


def run(out, models):
    from joblib import Parallel, delayed

    start = time.time()
    rows = Parallel(n_jobs=2, verbose=5)(
        delayed(run_one)(*cell) for cell in cells(models)
    )
    with open(out, "w") as handle:
        json.dump({"seconds": time.time() - start, "rows": rows}, handle)


def summary(paths):
    """Per log and set group: mean gain over Standard, cells >= cleanlab, worst cell."""
    for path in paths:
        with open(path) as handle:
            rows = json.load(handle)["rows"]
        methods = [m for m in ("plc", "plc_eval", "cleanlab") if m in rows[0]]
        by_cell = defaultdict(list)
        for row in rows:
            by_cell[(row["dataset"], row["model"], row["noise"])].append(row)
        print(path)
        for stat in ("", "_bal"):
            for group in ("hard", "rare"):
                keys = [k for k in by_cell if ("rare" in k[0]) == (group == "rare")]
                if not keys:
                    continue
                line = [f"  {group}{stat or '_acc'} ({len(keys)} cells):"]
                gains = {
                    m: [
                        100
                        * np.mean(
                            [r[m + stat] - r["standard" + stat] for r in by_cell[k]]
                        )
                        for k in keys
                    ]
                    for m in methods
                }
                for m in methods:
                    pairs = zip(gains[m], gains["cleanlab"], strict=True)
                    ahead = sum(g >= c - 1e-9 for g, c in pairs)
                    harmed = sum(g < -0.5 for g in gains[m])
                    line.append(
                        f"{m} {np.mean(gains[m]):+.2f} (>=CL {ahead}, "
                        f"harmed {harmed}, worst {min(gains[m]):+.1f})"
                    )
                print(" ".join(line))
        for m in methods:
            if m == "cleanlab":
                continue
            cost = np.median([r[m + "_s"] / r["standard_s"] for r in rows])
            print(f"  {m} median cost {cost:.1f}x a plain fit")


def main(argv):
    command, *rest = argv
    if command == "run":
        run(rest[0], rest[1:] or ["mlp"])
    else:
        summary(rest)


if __name__ == "__main__":
    main(sys.argv[1:])
