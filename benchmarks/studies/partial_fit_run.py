"""Would a one-run path for ``partial_fit`` estimators pay: correction inside one fit?

Question (issue "Ahead of cleanlab", item 3): nets are corrected inside one
training run, at about one plain fit's cost. Can an incremental scikit-learn
learner (here ``MLPClassifier``) be run the same way: each epoch one
``partial_fit`` pass over shuffled mini-batches, each batch's probabilities read
just before the model trains on it (the training-pass probabilities), and a
correction pass after every epoch (``LabelCorrector`` with the nets' settings:
automatic warm-up at the agreement plateau, a window of 5 epochs, a quiet pass
at 0.1%)? This prototype runs outside the library: the features are scaled once
(a Pipeline has no ``partial_fit``), the epoch count is the plain fit's own
``n_iter_`` (cost parity); a second variant reads the probabilities after each
epoch instead (one ``partial_fit`` call an epoch). Both are compared with
Standard, PLC's refit path (scaled pipeline, defaults) and cleanlab on the hard
dev sets, seeds 100-102.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/studies/partial_fit_run.py run OUT.json
    PYTHONPATH=. python benchmarks/studies/partial_fit_run.py summary LOG.json
"""

import sys
import time
import warnings
from collections import defaultdict

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    dump_rows,
    load_rows,
    noisy_cell,
    run_or_summarise_log,
)

SEEDS = (100, 101, 102)
BATCH = 200  # MLPClassifier's own batch size


def cells():
    found = []
    for dataset in ("hard-dev", "hard4-dev", "binary-gb-dev", "weak20-dev"):
        level = "25" if dataset == "binary-gb-dev" else "35"
        for noise in (f"I-{level}", f"III-{level}", "U30"):
            found.append((dataset, noise))
    return found


def _mlp(seed):
    from sklearn.neural_network import MLPClassifier

    return MLPClassifier((64,), max_iter=300, random_state=seed)


def one_run(
    X, labels, n_classes, epochs, seed, proba_source="training_pass", theta_end=0.9
):
    """The prototype: one partial_fit run with a correction pass per epoch.

    ``"training_pass"``: each mini-batch is predicted just before the model
    trains on it (one ``partial_fit`` call per batch). ``"eval_pass"``: one
    ``partial_fit`` call per epoch (the model's own mini-batches), then every
    sample is predicted by the model at the end of the epoch.
    """
    from sklearn_plc._corrector import LabelCorrector
    from sklearn_plc.skorch import plateau_epoch

    rng = np.random.default_rng(seed)
    model = _mlp(seed)
    classes = np.arange(n_classes)
    corrector = LabelCorrector(
        labels,
        theta=0.3,
        beta=0.1,
        theta_end=theta_end,
        schedule="additive",
        min_correction_rate=0.001,
        warm_up=None,  # at the plateau of the training-pass agreement
        window=5,
        runner_up_ratio=0.5,
        distribution_alignment=True,
    )
    agreement = []
    max_warm_up = max(1, epochs // 2)
    for epoch in range(epochs):
        order = rng.permutation(labels.shape[0])
        if proba_source == "eval_pass":
            model.partial_fit(X[order], corrector.labels[order], classes=classes)
            proba = model.predict_proba(X)
        else:
            proba = np.full((labels.shape[0], n_classes), 1.0 / n_classes)
            for start in range(0, order.shape[0], BATCH):
                batch = order[start : start + BATCH]
                if epoch > 0 or start > 0:
                    proba[batch] = model.predict_proba(X[batch])
                model.partial_fit(X[batch], corrector.labels[batch], classes=classes)
        corrector.add_proba(proba)
        agreement.append(float(np.mean(proba.argmax(axis=1) == corrector.labels)))
        if corrector.warm_up is None and (
            plateau_epoch(agreement) or corrector.n_rounds + 1 >= max_warm_up
        ):
            corrector.end_warm_up()
        corrector.run_round()
    return model, corrector


def run_job(dataset, noise, seed, only=None):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from benchmarks.tables import clean_learning
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    X_train, X_test, y_train, y_test, y_noisy, _ = noisy_cell(
        dataset, "logistic", noise, seed
    )
    scaler = StandardScaler().fit(X_train)
    Xs_train, Xs_test = scaler.transform(X_train), scaler.transform(X_test)
    row = {"dataset": dataset, "noise": noise, "seed": seed}
    start = time.perf_counter()
    plain = _mlp(seed).fit(Xs_train, y_noisy)
    row["standard_s"] = time.perf_counter() - start
    row["std"] = float(np.mean(plain.predict(Xs_test) == y_test))
    row["epochs"] = int(plain.n_iter_)
    n_classes = int(np.unique(y_noisy).shape[0])
    # "sure": in two classes relabel only at a margin of 1/2 (ratio 1/3), the
    # refit path's BINARY_SURE_RATIO for contested="set_aside"
    sure_end = 1 / 3 if n_classes == 2 else 0.9
    variants = {
        "one_run": ("training_pass", 0.9),
        "one_run_eval": ("eval_pass", 0.9),
        "one_run_eval_sure": ("eval_pass", sure_end),
    }
    for name, (source, theta_end) in variants.items():
        if only is not None and name not in only:
            continue
        start = time.perf_counter()
        model, corrector = one_run(
            Xs_train, y_noisy, n_classes, plain.n_iter_, seed, source, theta_end
        )
        row[name] = {
            "fit_s": time.perf_counter() - start,
            "acc": float(np.mean(model.predict(Xs_test) == y_test)),
            "purity_after": float(np.mean(corrector.labels == y_train)),
            "warm_up": int(corrector.warm_up),
        }
    if only is None or "library" in only:  # the library's path, as shipped
        start = time.perf_counter()
        plc = PLCClassifier(_mlp(seed), confidence="eval_pass", random_state=seed)
        plc.fit(Xs_train, y_noisy)
        row["library"] = {
            "fit_s": time.perf_counter() - start,
            "acc": float(np.mean(plc.predict(Xs_test) == y_test)),
            "purity_after": float(np.mean(plc.labels_ == y_train)),
            "warm_up": plc.warm_up_,
        }
    if only is not None:  # a variant alone, merged into an earlier log
        return row
    start = time.perf_counter()
    plc = PLCClassifier(
        make_pipeline(StandardScaler(), _mlp(seed)), random_state=seed
    ).fit(X_train, y_noisy)
    row["refit"] = {
        "fit_s": time.perf_counter() - start,
        "acc": float(np.mean(plc.predict(X_test) == y_test)),
        "purity_after": float(np.mean(plc.labels_ == y_train)),
        "termination": plc.termination_condition_,
    }
    start = time.perf_counter()
    cleaner = clean_learning(_mlp(seed), seed).fit(Xs_train, y_noisy)
    row["cleanlab"] = {
        "fit_s": time.perf_counter() - start,
        "acc": float(np.mean(cleaner.predict(Xs_test) == y_test)),
    }
    row["purity_before"] = float(np.mean(y_noisy == y_train))
    return row


def run(out, jobs=2):
    work = [(*cell, seed) for cell in cells() for seed in SEEDS]
    rows = Parallel(n_jobs=jobs)(delayed(run_job)(*job) for job in work)
    dump_rows(rows, out)


def summary(path):
    by_cell = defaultdict(list)
    for row in load_rows(path):
        by_cell[(row["dataset"], row["noise"])].append(row)
    methods = (
        "one_run",
        "one_run_eval",
        "one_run_eval_sure",
        "library",
        "refit",
        "cleanlab",
    )
    print("| cell | Standard | " + " | ".join(f"{m} − Std" for m in methods) + " |")
    print("|---|---:|" + "---:|" * len(methods))
    gains, costs = defaultdict(list), defaultdict(list)
    for key, rows in by_cell.items():
        std = 100 * np.mean([r["std"] for r in rows])
        parts = []
        for m in methods:
            if any(m not in r for r in rows):
                parts.append("")
                continue
            gain = 100 * np.mean([r[m]["acc"] - r["std"] for r in rows])
            gains[m].append(gain)
            # a variant run later carries its own Standard time
            costs[m] += [
                r[m]["fit_s"] / r[m].get("standard_s", r["standard_s"]) for r in rows
            ]
            parts.append(f"{gain:+.1f}")
        print(f"| {' '.join(key)} | {std:.1f} | " + " | ".join(parts) + " |")
    for m in methods:
        if not gains[m]:
            continue
        g = np.array(gains[m])
        print(
            f"{m}: mean {g.mean():+.2f}, worst {g.min():+.1f}, "
            f"≥ Std−0.5 {np.sum(g >= -0.5)}/{len(g)}, "
            f"median cost {np.median(costs[m]):.2f}×"
        )


if __name__ == "__main__":
    run_or_summarise_log(__doc__, run, summary)
