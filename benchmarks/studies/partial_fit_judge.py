"""Judge a partial_fit learner's one run on a set-aside, as the refit path is judged.

Question (second check, "Refusing a model too weak to judge"): the MLP's one-run
path (``"auto"`` → ``"eval_pass"``) lost 19-28 points on quantiles-3 and
hastie-2, where nothing in the run sees harm. With ``revert_if_worse`` the run
now trains on all samples but a set-aside (``validation_fraction``); a copy of
the learner trains on the labels as given from the end of the warm-up, on the
same batches; the two are compared on the set-aside, the corrections undone
when the corrected run agrees clearly worse, and the final model fitted on
every sample. This runs Standard, PLC as before (``revert_if_worse=False``:
the earlier path, no set-aside) and PLC judged (the defaults), with the unseen
check's MLP, on the dev sets of ``partial_fit_auto.py`` (with cleanlab), the
unseen check's datasets and the second check's (cleanlab from their logs).

Not shipped: it lost on dev (see the write-up). The library change it measures
is ``partial_fit_judge.patch``; apply it first (``git apply
benchmarks/studies/partial_fit_judge.patch``).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/partial_fit_judge.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/partial_fit_judge.py summary LOG.json...
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
from benchmarks.studies.warm_up_start import _data, jobs_for

METHODS = ("unjudged", "judged")


def run_job(where, dataset, noise, seed):
    from benchmarks.tables import clean_learning
    from benchmarks.unseen import _model
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    X_train, X_test, y_train, y_test, y_noisy = _data(where, dataset, noise, seed)
    row = {"dataset": dataset, "noise": noise, "seed": seed}
    makers = {
        "standard": lambda: _model("mlp"),
        "unjudged": lambda: PLCClassifier(
            _model("mlp"), revert_if_worse=False, random_state=seed
        ),
        "judged": lambda: PLCClassifier(_model("mlp"), random_state=seed),
    }
    if where == "dev":
        makers["cleanlab"] = lambda: clean_learning(_model("mlp"), seed)
    for name, make in makers.items():
        model = make()
        start = time.perf_counter()
        model.fit(X_train, y_noisy)
        seconds = time.perf_counter() - start
        entry = {"acc": float(np.mean(model.predict(X_test) == y_test)), "s": seconds}
        if name in METHODS:
            entry["termination"] = model.termination_condition_
            entry["purity_after"] = float(np.mean(model.labels_ == y_train))
            entry["selection"] = model.selection_
        row[name] = entry
    row["purity_before"] = float(np.mean(y_noisy == y_train))
    return row


def run(out, where):
    run_and_dump(run_job, jobs_for(where), out)


def summary(*paths):
    cells = rows_by_cell(paths)
    rows = [row for runs in cells.values() for row in runs]
    methods = [m for m in (*METHODS, "cleanlab") if m in rows[0]]
    print("| cell | undone | " + " | ".join(methods) + " |")
    print("|---|---:|" + "---:|" * len(methods))
    gains = defaultdict(list)
    for key, runs in sorted(cells.items()):
        cell = {
            m: 100 * np.mean([r[m]["acc"] - r["standard"]["acc"] for r in runs])
            for m in methods
        }
        for m, g in cell.items():
            gains[m].append(g)
        undone = sum(r["judged"]["termination"] == "undone" for r in runs)
        print(
            f"| {' '.join(key)} | {undone} | "
            + " | ".join(f"{cell[m]:+.1f}" for m in methods)
            + " |"
        )
    for m in methods:
        cost = np.median(
            [r[m]["s"] / r["standard"]["s"] for runs in cells.values() for r in runs]
        )
        print(f"{m}: {gain_headline(gains[m])}, median cost {cost:.1f}x")


if __name__ == "__main__":
    run_or_summarise(__doc__, lambda out, where, _: run(out, where), summary)
