"""Does the automatic warm-up of a one-run path end on a flat start?

Question (second check, "Refusing a model too weak to judge"): on quantiles-3 the
MLP's agreement with its labels stays flat at chance for its first epochs, and
the automatic warm-up read that as the plateau and started correcting towards a
net at chance. ``plateau_epoch`` now asks for a climb before the level
(``recent < tolerance <= climbed``). This runs an ``MLPClassifier`` with
PLC's defaults (``"auto"``: the ``eval_pass`` path) under the new rule, finds
from the recorded agreement curve the epoch that the earlier rule
(``recent < tolerance`` only) would have picked, and where the two differ runs
the earlier rule too, on the dev sets of ``partial_fit_auto.py``, the unseen
check's datasets and the second check's.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/warm_up_start.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/warm_up_start.py summary LOG.json...
"""

import sys
import time
import warnings
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    gain_headline,
    rows_by_cell,
    run_and_dump,
    run_or_summarise,
)

SEEDS = (100, 101, 102)


def _earlier_rule(agreement, *, min_epochs=3, tolerance=0.005):
    if len(agreement) < max(min_epochs, 3):
        return False
    return (agreement[-1] - agreement[-3]) / 2 < tolerance


def _data(where, dataset, noise, seed):
    """A dev or check cell: ``(X_train, X_test, y_train, y_test, y_noisy)`` or None."""
    from benchmarks.studies.common import noisy_cell, unseen_cell

    make_cell = noisy_cell if where == "dev" else unseen_cell
    cell = make_cell(dataset, "logistic", noise, seed)
    return None if cell is None else cell[:5]


def one_run_rules_row(where, dataset, noise, seed, rules, fit_plc):
    """An MLP's Standard fit and its PLC run under each of `rules`, as a log row.

    ``fit_plc(X, y, seed, rule)`` returns ``(fitted PLCClassifier, seconds)``.
    None where the cell cannot be drawn.
    """
    from benchmarks.unseen import _model

    warnings.simplefilter("ignore")
    data = _data(where, dataset, noise, seed)
    if data is None:
        return None
    X_train, X_test, y_train, y_test, y_noisy = data
    row = {"dataset": dataset, "noise": noise, "seed": seed}
    start = time.perf_counter()
    standard = _model("mlp").fit(X_train, y_noisy)
    row["standard_s"] = time.perf_counter() - start
    row["standard"] = float(np.mean(standard.predict(X_test) == y_test))
    for rule in rules:
        fitted, seconds = fit_plc(X_train, y_noisy, seed, rule)
        row[rule] = {
            "acc": float(np.mean(fitted.predict(X_test) == y_test)),
            "s": seconds,
            "warm_up": fitted.warm_up_,
            "epochs": int(fitted.n_iter_),
            "final_threshold": float(fitted.theta_),
            "n_changed": int(np.sum(fitted.labels_ != y_noisy)),
            "purity_after": float(np.mean(fitted.labels_ == y_train)),
            "termination": fitted.termination_condition_,
        }
    row["purity_before"] = float(np.mean(y_noisy == y_train))
    return row


def timed_mlp_plc(X, y, seed, **partial_fit_run_names):
    """PLC's defaults around the unseen check's MLP, fitted on ``(X, y)``.

    Each keyword sets that name of ``sklearn_plc._partial_fit_run`` for the
    fit (a study's variant) and restores it after. Returns
    ``(fitted PLCClassifier, seconds)``.
    """
    import sklearn_plc._partial_fit_run as partial_fit_run
    from benchmarks.unseen import _model
    from sklearn_plc import PLCClassifier

    before = {name: getattr(partial_fit_run, name) for name in partial_fit_run_names}
    for name, value in partial_fit_run_names.items():
        setattr(partial_fit_run, name, value)
    try:
        start = time.perf_counter()
        plc = PLCClassifier(_model("mlp"), random_state=seed).fit(X, y)
        return plc, time.perf_counter() - start
    finally:
        for name, value in before.items():
            setattr(partial_fit_run, name, value)


def _plc(X, y, seed, rule):
    import sklearn_plc._partial_fit_run as partial_fit_run

    curves = []
    before = partial_fit_run.plateau_epoch

    def recording(agreement, **kwargs):
        curves.append(list(agreement))
        return (rule or before)(agreement, **kwargs)

    plc, seconds = timed_mlp_plc(X, y, seed, plateau_epoch=recording)
    return plc, seconds, curves[-1] if curves else []


def run_job(where, dataset, noise, seed):
    from benchmarks.unseen import _model

    warnings.simplefilter("ignore")
    X_train, X_test, y_train, y_test, y_noisy = _data(where, dataset, noise, seed)
    row = {"dataset": dataset, "noise": noise, "seed": seed}
    start = time.perf_counter()
    standard = _model("mlp").fit(X_train, y_noisy)
    row["standard_s"] = time.perf_counter() - start
    row["standard"] = float(np.mean(standard.predict(X_test) == y_test))
    plc, seconds, curve = _plc(X_train, y_noisy, seed, None)
    earlier = next(
        (i for i in range(len(curve)) if _earlier_rule(curve[: i + 1])), None
    )
    row["curve_to_warm_up"] = curve
    for name, fitted, s in [("climb", plc, seconds)] + (
        [("flat", *_plc(X_train, y_noisy, seed, _earlier_rule)[:2])]
        if earlier is not None and earlier != plc.warm_up_
        else []
    ):
        row[name] = {
            "acc": float(np.mean(fitted.predict(X_test) == y_test)),
            "s": s,
            "warm_up": fitted.warm_up_,
            "purity_after": float(np.mean(fitted.labels_ == y_train)),
        }
    row.setdefault("flat", row["climb"])
    row["purity_before"] = float(np.mean(y_noisy == y_train))
    return row


def jobs_for(where):
    from benchmarks.unseen import DATASETS, FRESH_DATASETS, FRESH_NOISES, NOISES

    if where == "dev":
        from benchmarks.studies.partial_fit_auto import cells

        return [(where, d, n, s) for d, n in cells() for s in SEEDS]
    datasets, noises = (
        (FRESH_DATASETS, FRESH_NOISES) if where == "fresh" else (DATASETS, NOISES)
    )
    return [(where, d, n, s) for d in datasets for n in noises for s in SEEDS]


def run(out, where):
    run_and_dump(run_job, jobs_for(where), out)


def summary(*paths):
    cells = rows_by_cell(paths)
    print("| cell | runs changed | flat start (earlier) | climb first (new) |")
    print("|---|---:|---:|---:|")
    totals = defaultdict(list)
    for key, runs in sorted(cells.items()):
        gains = {
            name: 100 * np.mean([r[name]["acc"] - r["standard"] for r in runs])
            for name in ("flat", "climb")
        }
        for name, gain in gains.items():
            totals[name].append(gain)
        changed = sum(r["flat"]["warm_up"] != r["climb"]["warm_up"] for r in runs)
        print(
            f"| {' '.join(key)} | {changed} | {gains['flat']:+.1f} | "
            f"{gains['climb']:+.1f} |"
        )
    for name, gains in totals.items():
        print(f"{name}: {gain_headline(gains)}")


if __name__ == "__main__":
    run_or_summarise(__doc__, lambda out, where, _: run(out, where), summary)
