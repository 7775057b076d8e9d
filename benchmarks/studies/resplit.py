"""New folds at every refit: does the window then average across partitions?

Question (issue "Ahead of cleanlab"): candidates named by two independent fold
partitions were 8-15 points more precise than one partition's ("A model too
weak to judge"). The refit loop draws its folds once, so the window of five
rounds averages models trained on the same partition. ``resplit`` draws new
folds (an int ``cv``) at every refit after the first, at no extra fit; the
set-aside judge is unchanged. ``lib`` is the library.

Usage (from the repository root; the hook ``RESPLIT_EACH_ROUND`` is in
``resplit.patch``: ``git apply benchmarks/studies/resplit.patch`` in a
worktree, then ``PYTHONPATH=WORKTREE``)::

    python benchmarks/studies/resplit.py run OUT.json SET
    python benchmarks/studies/resplit.py summary LOG.json...

SET: ``dev`` (the 80 dev cells of ``judged_aside.py``, seeds 100-102),
``unseen`` or ``fresh``.
"""

import sys
import warnings

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    cell_gains,
    fit_plc_row,
    patched,
    print_cell_table,
    print_corrected_cost,
    run_or_summarise,
    study_run,
    with_standard_and_cleanlab,
)

VARIANTS = ("lib", "resplit")
SEEDS = (100, 101, 102)


def run_job(dataset, model, noise, seed, check):
    import sklearn_plc._refit_run as refit_run

    drawn = with_standard_and_cleanlab(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X, _, y_clean, _, y, make), row, score = drawn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for variant in VARIANTS:
            with patched(refit_run, RESPLIT_EACH_ROUND=variant == "resplit"):
                row[variant] = fit_plc_row(make, X, y, seed, y_clean, score)
    return row


def summary(*paths):
    cells, methods, gains = cell_gains(paths, VARIANTS)

    def describe(runs):
        moved = sum(r["lib"]["acc"] != r["resplit"]["acc"] for r in runs)
        return [moved] if moved else None

    print_cell_table(cells, gains, methods, [("runs moved", "---:")], describe)
    print_corrected_cost(
        cells,
        VARIANTS,
        lambda r: r["lib"]["termination"] in ("converged", "max_iter"),
    )


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS), summary)
