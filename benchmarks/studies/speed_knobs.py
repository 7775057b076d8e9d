"""What the documented ways to a cheaper run cost in accuracy, on dev.

Question (issue "Ahead of cleanlab", cost): the defaults cost about twice
cleanlab's time where PLC corrects, and fewer refits have lost accuracy as a
default. A user who needs a faster run has two settings: ``min_correction_rate``
(a pass that changes at most this share of the labels is quiet, and a refit
waits for more changes than that) and ``cv`` (fold models a round). What does
each buy and cost? Every dev job runs the library's defaults and the variants
below, one after the other in the same job so the costs compare:

- ``mcr-0.1``, ``mcr-0.2``: ``min_correction_rate`` 0.1 and 0.2 (``"auto"`` was
  0.05 for a refit estimator when the logs were made);
- ``cv-2``: two folds a round instead of three.

0.1 then became the refit default, so ``lib`` now fits what ``mcr-0.1`` did, and
``mcr-0.05`` fits what the logs' ``lib`` rows did (the same runs, to the digit).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/speed_knobs.py run OUT.json dev|unseen|fresh [VARIANT...]
    python benchmarks/studies/speed_knobs.py summary LOG.json...
"""

import sys

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    cell_gains,
    drawn_with_purity,
    fit_plc_row,
    gain_headline,
    print_corrected_cost,
    print_gains_by_model,
    rows_by_cell,
    run_or_summarise,
    study_run,
)
from sklearn_plc._refit_run import LABELS_KEPT as KEPT

SEEDS = (100, 101, 102)
VARIANTS = {
    "lib": {},
    "mcr-0.05": {"min_correction_rate": 0.05},
    "mcr-0.1": {"min_correction_rate": 0.1},
    "mcr-0.2": {"min_correction_rate": 0.2},
    "cv-2": {"cv": 2},
}


def run_job(dataset, model, noise, seed, check, variants=tuple(VARIANTS)):
    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    for variant in variants:
        row[variant] = fit_plc_row(
            make, X_train, y_noisy, seed, y_train, score, **VARIANTS[variant]
        )
    return row


def summary(*paths):
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    logged = tuple(
        v for v in VARIANTS if all(v in r for rs in cells.values() for r in rs)
    )
    cells, methods, gains = cell_gains(paths, logged)
    for method in methods:
        cell_gain = [gains[key][method] for key in cells]
        ahead = sum(gains[key][method] >= gains[key]["cleanlab"] for key in cells)
        print(f"{method}: {gain_headline(cell_gain)}, >= cleanlab {ahead}")
    print_gains_by_model(cells, logged)
    print_corrected_cost(
        cells, logged, lambda row: row["lib"]["termination"] not in KEPT
    )


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS, VARIANTS), summary)
