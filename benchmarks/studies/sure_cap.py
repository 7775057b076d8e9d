"""Stop relabelling at the sure ratio, and leave the doubt to the weighed final fit?

Question (issue "Ahead of cleanlab"): the threshold rises to ``theta_end=0.9``, so
the late passes flip labels whose probability is up to 0.9 of the top class's. The
weighed final fit gives such a flip ``w = 1 / (1 + ratio)``, 0.53-0.6 of the new
label, nearly neutral; but the loop's refits train on it as a whole label, and in
two classes, where the label is always the runner-up, it is a coin toss near the
boundary. ``refit_evidence.py`` saw binary forests undone 15 times with every refit
and 4 times with fewer. ``sure-cap-binary`` stops the threshold at the sure ratio
in two classes only (⅓: a margin of ½), ``sure-cap`` everywhere (½ with more
classes); the final fit stays the weighed one (``contested="set_aside"`` stops at
the same ratios but also sets the other disputes aside). It also saves the late
rounds' refits.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/sure_cap.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/sure_cap.py summary LOG.json...
"""

import sys

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    cell_gains,
    drawn_with_purity,
    fit_plc_row,
    print_cell_table,
    print_corrected_cost,
    run_or_summarise,
    study_run,
)
from benchmarks.studies.refit_evidence import KEPT

SEEDS = (100, 101, 102)
VARIANTS = ("default", "sure-cap-binary", "sure-cap")


def run_job(dataset, model, noise, seed, check):
    from sklearn_plc._refit_run import sure_ratio_for

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    row["n_classes"] = n_classes = int(np.unique(y_noisy).shape[0])
    fit = (make, X_train, y_noisy, seed, y_train, score)
    row["default"] = fit_plc_row(*fit)
    capped = fit_plc_row(*fit, theta_end=sure_ratio_for(n_classes))
    if row["default"]["termination"] in KEPT and row["default"]["n_refits"] <= 1:
        capped = row["default"]  # kept after the first round: nothing to cap
    row["sure-cap"] = capped
    row["sure-cap-binary"] = capped if n_classes == 2 else row["default"]
    return row


def summary(*paths):
    cells, methods, gains = cell_gains(paths, VARIANTS)

    def describe(runs):
        corrected = [r for r in runs if r["default"]["termination"] not in KEPT]
        if not corrected:
            return None
        undone = " / ".join(
            str(sum(r[v]["termination"] == "undone" for r in runs))
            for v in ("default", "sure-cap")
        )
        return [len(corrected), runs[0]["n_classes"], undone]

    columns = [("corrected", "---:"), ("classes", "---:"), ("undone", "---:")]
    print_cell_table(cells, gains, methods, columns, describe)
    print_corrected_cost(
        cells, VARIANTS, lambda row: row["default"]["termination"] not in KEPT
    )


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS), summary)
