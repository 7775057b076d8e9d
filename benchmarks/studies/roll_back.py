"""Stop at the first refit that agrees clearly worse than the one before, and keep
the labels that one was trained on?

Question (issue "Ahead of cleanlab"): the held-out judge compares only the last
refit with the first (the labels as given). Where the late refits entrench the
model's own errors, as with forests in two classes, the last refit falls and the
undo throws away the early, sound corrections with the late ones; where it does
not fall far enough, the late ones stay. ``refit_evidence.py`` showed both: with
fewer refits, binary forests were undone 15 -> 4 times and gained. ``roll-back-1``
judges each refit against the refit before it (paired, on the same validation
samples): when it agrees worse by more than one standard error (the undo's bar),
the run ends with the labels the refit before was trained on, without that
refit's probabilities, and the usual verdict then compares those labels with the
given ones. ``roll-back-0`` ends at any drop. It also saves the refits after the
stop.

Usage (from the repository root, ``PYTHONPATH=.``; the variants need the
library hook that ``roll_back.patch`` adds, so apply it first and take it back
after)::

    git apply benchmarks/studies/roll_back.patch
    python benchmarks/studies/roll_back.py run OUT.json dev|unseen|fresh [VARIANT...]
    python benchmarks/studies/roll_back.py summary LOG.json...

``dev``: the cells of ``judged_aside.py``'s dev set (dev splits, seeds 100-102);
``unseen`` / ``fresh``: the two checks, without the MLP (one training run).
The variants set the patch's ``sklearn_plc._refit_run.ROLL_BACK`` (None: the
library's loop).
"""

import sys

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    drawn_with_purity,
    fit_plc_row,
    gains_by_method,
    patched,
    print_cell_table,
    print_corrected_cost,
    rows_by_cell,
    run_or_summarise,
    study_run,
)
from benchmarks.studies.refit_evidence import KEPT

SEEDS = (100, 101, 102)
VARIANTS = {"default": None, "roll-back-1": 1.0, "roll-back-0": 0.0}


def run_job(dataset, model, noise, seed, check, variants=tuple(VARIANTS)):
    import sklearn_plc._refit_run as refit_run

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    row["default"] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    for variant in variants:
        if variant == "default":
            continue
        if row["default"]["n_refits"] <= 2:
            row[variant] = row["default"]  # no refit to compare with the one before
            continue
        with patched(refit_run, ROLL_BACK=VARIANTS[variant]):
            row[variant] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    return row


def summary(*paths):
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    first = next(iter(cells.values()))[0]
    variants = [v for v in VARIANTS if v in first]
    methods = (*variants, "cleanlab")
    gains = gains_by_method(cells, methods)

    def describe(runs):
        ends = [r[v]["termination"] for r in runs for v in variants]
        if "rolled_back" not in ends:
            return None
        ended = " / ".join(
            str(sum(r[v]["termination"] == "rolled_back" for r in runs))
            for v in variants
        )
        undone = " / ".join(
            str(sum(r[v]["termination"] == "undone" for r in runs)) for v in variants
        )
        return [ended, undone]

    columns = [("rolled back", "---:"), ("undone", "---:")]
    print_cell_table(cells, gains, methods, columns, describe)
    print_corrected_cost(
        cells, variants, lambda row: row["default"]["termination"] not in KEPT
    )


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS, VARIANTS), summary)
