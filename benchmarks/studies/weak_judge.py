"""Refuse a model too weak to judge; then, after an undo, set its sure disputes aside.

Question (issue "Ahead of cleanlab", deliverables 1 and 2): the refusal keeps the
labels when the first round's held-out sure disputes (label probability at most
half the top class's, a third in two classes) outnumber the held-out agreements
with the labels as given (``sklearn_plc._judge.can_judge``). With it in place,
does leaving an undone run's sure disputes out of the final fit
(``undo-aside-sure`` in ``contested.py``) still lose where it lost before?

Each run fits Standard, cleanlab's ``CleanLearning`` and PLC on the unseen
check's cells (``benchmarks.unseen``: its datasets, or the second check's
``FRESH_DATASETS``), and records four PLC results from as few fits as they
need:

- ``keep``: the library before the refusal (``REFUSE_WEAK_JUDGE = False``);
- ``refuse``: the refusal on;
- ``aside``: ``keep``, and an undone run's first-round sure disputes left out
  of the final fit;
- ``refuse-aside``: both.

A run the refusal stops is refitted without it for ``keep`` / ``aside``; an
undone run adds one final fit for the ``aside`` results.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/weak_judge.py run OUT.json DATASET...
    python benchmarks/studies/weak_judge.py summary LOG.json...
"""

import sys
import time
import warnings
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    gains_by_method,
    rows_by_cell,
    run_and_dump,
    run_or_summarise,
    unseen_cell,
)

VARIANTS = ("keep", "refuse", "aside", "refuse-aside")


def _fit_plc(make, X, y, seed, refuse):
    """PLC with the refusal on or off, and its first round's probabilities."""
    import sklearn_plc._refit_run as refit_run
    from sklearn_plc import PLCClassifier
    from sklearn_plc._corrector import LabelCorrector

    add_proba, refuse_before = LabelCorrector.add_proba, refit_run.REFUSE_WEAK_JUDGE

    def first_add_proba(self, proba):
        if not hasattr(self, "first_proba"):
            self.first_proba = np.array(proba, copy=True)
        return add_proba(self, proba)

    captured = {}
    run = refit_run.RefitRun.run

    def run_and_keep(self, *args, **kwargs):
        result = run(self, *args, **kwargs)
        captured["run"], captured["result"] = self, result
        return result

    LabelCorrector.add_proba = first_add_proba
    refit_run.RefitRun.run = run_and_keep
    refit_run.REFUSE_WEAK_JUDGE = refuse
    try:
        start = time.perf_counter()
        plc = PLCClassifier(make(), random_state=seed).fit(X, y)
        seconds = time.perf_counter() - start
    finally:
        LabelCorrector.add_proba = add_proba
        refit_run.RefitRun.run = run
        refit_run.REFUSE_WEAK_JUDGE = refuse_before
    return plc, seconds, captured


def _aside_model(captured, X):
    """The final model of an undone run fitted without its first-round sure disputes."""
    import sklearn_plc._refit_run as refit_run
    from sklearn_plc.correction import confidence_ratio

    run_path, result = captured["run"], captured["result"]
    corrector = result.corrector
    proba = corrector.first_proba
    disputed = confidence_ratio(proba, corrector.labels) <= refit_run.sure_ratio_for(
        proba.shape[1]
    )
    aside = refit_run.keep_every_class(disputed, corrector.labels)
    return run_path._final_model(
        run_path.estimator, corrector.labels, X, {}, aside
    ), int(aside.sum())


def run_job(dataset, model, noise, seed):
    from benchmarks.tables import clean_learning

    warnings.simplefilter("ignore")
    cell = unseen_cell(dataset, model, noise, seed)
    if cell is None:
        return None
    X_train, X_test, y_train, y_test, y_noisy, make = cell
    row = {"dataset": dataset, "model": model, "noise": noise, "seed": seed}

    def score(fitted):
        return float(np.mean(fitted.predict(X_test) == y_test))

    start = time.perf_counter()
    standard = make().fit(X_train, y_noisy)
    row["standard_s"] = time.perf_counter() - start
    row["standard"] = score(standard)
    start = time.perf_counter()
    cleaner = clean_learning(make(), seed).fit(X_train, y_noisy)
    row["cleanlab_s"] = time.perf_counter() - start
    row["cleanlab"] = score(cleaner)
    plc, seconds, captured = _fit_plc(make, X_train, y_noisy, seed, refuse=True)
    row["evidence"] = plc.memorisation_
    refused = plc.termination_condition_ == "too_weak_to_judge"
    results = {"refuse": (plc, seconds, captured)}
    results["keep"] = (
        _fit_plc(make, X_train, y_noisy, seed, refuse=False)
        if refused
        else results["refuse"]
    )
    for name, (fitted, seconds, captured) in list(results.items()):
        entry = {
            "acc": score(fitted),
            "s": seconds,
            "termination": fitted.termination_condition_,
            "purity_after": float(np.mean(fitted.labels_ == y_train)),
        }
        row[name] = entry
        aside = dict(entry, n_set_aside=0)
        if fitted.termination_condition_ == "undone":
            start = time.perf_counter()
            model_aside, aside["n_set_aside"] = _aside_model(captured, X_train)
            aside["s"] = seconds + time.perf_counter() - start
            aside["acc"] = score(model_aside)
        row["aside" if name == "keep" else "refuse-aside"] = aside
    row["purity_before"] = float(np.mean(y_noisy == y_train))
    return row


def run(out, datasets):
    from benchmarks.unseen import FRESH_DATASETS, FRESH_NOISES, MODELS, NOISES, SEEDS

    jobs_list = [
        (d, m, n, s)
        for m in MODELS
        for d in datasets
        for n in (FRESH_NOISES if d in FRESH_DATASETS else NOISES)
        for s in SEEDS
    ]
    rows = run_and_dump(run_job, jobs_list, out)
    skipped = sorted(
        {job[:3] for job, row in zip(jobs_list, rows, strict=True) if row is None}
    )
    if skipped:
        print(f"skipped (PMD level not reachable): {skipped}")


def summary(*paths):
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    methods = (*VARIANTS, "cleanlab")
    gains = gains_by_method(cells, methods, standard="standard")
    print("| cell | refused | " + " | ".join(methods) + " |")
    print("|---|---:|" + "---:|" * len(methods))
    for key, runs in sorted(cells.items()):
        refused = sum(r["refuse"]["termination"] == "too_weak_to_judge" for r in runs)
        print(
            f"| {' '.join(key)} | {refused} | "
            + " | ".join(f"{gains[key][m]:+.1f}" for m in methods)
            + " |"
        )
    by_dataset = defaultdict(list)
    for key in cells:
        by_dataset[key[0]].append(key)
    print(
        "\n| variant | set | cells | mean Δ | ≥ Std − 0.5 | worst | ≥ cleanlab "
        "| median cost |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for method in methods:
        for name, keys in [*sorted(by_dataset.items()), ("all", list(cells))]:
            values = [gains[k][method] for k in keys]
            ahead = sum(gains[k][method] >= gains[k]["cleanlab"] for k in keys)
            seconds = [
                (r[method + "_s"] if method == "cleanlab" else r[method]["s"])
                / r["standard_s"]
                for k in keys
                for r in cells[k]
            ]
            print(
                f"| {method} | {name} | {len(keys)} | {np.mean(values):+.2f} | "
                f"{sum(v >= -0.5 for v in values)} | {min(values):+.1f} | "
                f"{ahead if method != 'cleanlab' else '–'} | "
                f"{np.median(seconds):.1f}× |"
            )


if __name__ == "__main__":
    run_or_summarise(
        __doc__, lambda out, first, rest: run(out, [first, *rest]), summary
    )
