"""For an estimator that cannot weigh (k-NN), leave the doubtful samples out of the
loop's fold fits too, not only of the final fit?

Question (issue "Ahead of cleanlab"): ``contested="auto"`` now leaves every
relabelled and every still-disputed sample out of an unweighted final fit (see
``unweighed_final.py``). The loop's fold models still train on the hard corrected
labels, and for k-NN a flipped label then votes at full weight in its neighbours'
next predictions: the correction confirms itself. ``loop-aside`` fits each round's
fold models without the samples that the final fit would leave out at that point
(relabelled or contested; a class is never emptied); every sample is still predicted
and examined. ``library`` is the shipped default.

After it shipped, ``loop-aside`` is the library for 5-NN, and a follow-up asks the
same of the estimators that can weigh (``weighable``): their final fit stays the
weighed one, and ``loop-aside`` leaves the same samples out of their fold fits.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/unweighed_loop.py run OUT.json SET [weighable]
    python benchmarks/studies/unweighed_loop.py summary LOG.json...

``SET``: dev, unseen or fresh. Without ``weighable`` only the cells whose model
takes no ``sample_weight`` (5-NN) run; with it, only the others.
"""

import sys

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    drawn_with_purity,
    fit_plc_row,
    gains_by_method,
    patched,
    print_cell_table,
    rows_by_cell,
    run_and_dump,
    run_or_summarise,
    study_jobs,
)
from benchmarks.studies.unweighed_final import KEPT, UNWEIGHED_MODELS

SEEDS = (100, 101, 102)
VARIANTS = ("library", "loop-aside")


def _loop_aside_patches():
    """``RefitRun`` methods whose fold fits leave out the doubtful samples."""
    from sklearn_plc._final_fit import keep_every_class, unweighed_set_aside
    from sklearn_plc._refit_run import RefitRun

    fit_round, round_proba = RefitRun._fit_round, RefitRun._round_proba

    def remembering_fit_round(self, corrector, round_index, labels, **kwargs):
        self._study_corrector = corrector
        return fit_round(self, corrector, round_index, labels, **kwargs)

    def round_proba_without_doubtful(self, model, X, labels, splits, *args, **kw):
        corrector = getattr(self, "_study_corrector", None)
        if splits is not None and corrector is not None and corrector.recorded:
            out = keep_every_class(unweighed_set_aside(corrector), labels)
            splits = [(fit[~out[fit]], test) for fit, test in splits]
        return round_proba(self, model, X, labels, splits, *args, **kw)

    return {
        "_fit_round": remembering_fit_round,
        "_round_proba": round_proba_without_doubtful,
    }


def run_job(dataset, model, noise, seed, check):
    from sklearn_plc._refit_run import RefitRun

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    row["library"] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    if row["library"]["termination"] in KEPT[:2]:  # kept after the first round
        row["loop-aside"] = row["library"]
        return row
    with patched(RefitRun, **_loop_aside_patches()):
        row["loop-aside"] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    return row


def run(out, what, variants=()):
    weighable = "weighable" in variants
    jobs = [
        job
        for job in study_jobs(what, SEEDS)
        if (job[1] in UNWEIGHED_MODELS) != weighable
    ]
    run_and_dump(run_job, jobs, out)


def summary(*paths):
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    methods = (*VARIANTS, "cleanlab")
    gains = gains_by_method(cells, methods)

    def describe(runs):
        corrected = [r for r in runs if r["library"]["termination"] not in KEPT]
        if not corrected:
            return None
        purity = " / ".join(
            f"{100 * np.mean([r[v]['purity_after'] for r in runs]):.1f}"
            for v in VARIANTS
        )
        return [len(corrected), purity]

    columns = [("corrected", "---:"), ("purity " + " / ".join(VARIANTS), "---:")]
    print_cell_table(cells, gains, methods, columns, describe)


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
