"""Is the memorisation test still needed, now that a held-out judge can undo?

Question (issue "Ahead of cleanlab"): the memorisation test (``min_memorisation``)
keeps the labels of a model that does not fit its labels in sample, because
relabelling by such a model entrenched its own errors. It was chosen before the
held-out judge (``revert_if_worse`` on a set-aside, with the early stop at two
standard errors) and before the weighed final fit (``contested="auto"``) existed.
Today a run whose corrections train worse models is undone anyway, and a doubtful
relabel counts for less. cleanlab's largest lead on the unseen check is such a
refused model (Gaussian naive Bayes on flattened digits). ``judged`` runs the
library with the test passed whatever its figure (the refusal of a model too weak
to judge stays), so the judge alone decides. Only the runs that the test refuses
change; every other run is the library's own, fold for fold.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/memorisation_off.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/memorisation_off.py summary LOG.json...

``dev``: the cells of ``judged_aside.py``'s dev set (dev splits, seeds 100-102);
``unseen`` / ``fresh``: the two checks, without the MLP (its one-run path takes no
memorisation test).
"""

import sys

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    cell_gains,
    drawn_with_purity,
    fit_plc_row,
    patched,
    print_cell_table,
    run_or_summarise,
    study_run,
)

SEEDS = (100, 101, 102)
VARIANTS = ("default", "judged")


def run_job(dataset, model, noise, seed, check):
    import sklearn_plc._refit_run as refit_run

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    row["default"] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    if row["default"]["termination"] != "not_memorising":
        row["judged"] = row["default"]
        return row
    with patched(refit_run, memorises=lambda evidence, rate: True):
        row["judged"] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    return row


def summary(*paths):
    cells, methods, gains = cell_gains(paths, VARIANTS)

    def describe(runs):
        refused = [r for r in runs if r["default"]["termination"] == "not_memorising"]
        if not refused:
            return None
        outcomes = ", ".join(sorted(r["judged"]["termination"] for r in refused))
        return [len(refused), outcomes]

    columns = [("refused", "---:"), ("judged: outcomes", "---")]
    print_cell_table(cells, gains, methods, columns, describe)


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS), summary)
