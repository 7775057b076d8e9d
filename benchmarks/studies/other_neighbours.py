"""Does the unweighted rule of ``contested="auto"`` carry over to other k-NN models?

A check, not a choice (issue "Ahead of cleanlab"): the rule for estimators whose
``fit`` takes no sample weights (leave every relabelled and every still-disputed
sample out of the final fit and of the later fold fits) was chosen on 5-NN. This
runs it on neighbour models that no study used, on the datasets of the 5-NN cells
(dev sets, then both checks): 3-NN, and 15-NN weighted by distance.
``library`` is the default, ``keep`` the hard corrected labels (what ``"auto"`` did
for these models before), and ``relabelled`` leaves out only the relabelled samples,
not those still disputed without a flip (15-NN set aside more than half of the hard
4-class set and lost there); ``bounded`` is the library's rule unless it would leave
out more than half the samples, and then ``relabelled``'s. 5-NN runs too, for the
comparison.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/other_neighbours.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/other_neighbours.py summary LOG.json...
"""

import sys
import warnings

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    fit_plc_row,
    gains_by_method,
    patched,
    print_cell_table,
    print_headlines,
    rows_by_cell,
    run_and_dump,
    run_or_summarise,
    study_jobs,
    with_standard_and_cleanlab,
)
from benchmarks.studies.refit_evidence import KEPT

SEEDS = (100, 101, 102)
VARIANTS = ("library", "relabelled", "bounded", "keep")
MODELS = ("5-nn", "3-nn", "15-nn-distance")
NEW_MODELS = MODELS[1:]


def _neighbours(name):
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    k, weights = {
        "5-nn": (5, "uniform"),
        "3-nn": (3, "uniform"),
        "15-nn-distance": (15, "distance"),
    }[name]
    return make_pipeline(StandardScaler(), KNeighborsClassifier(k, weights=weights))


def _relabelled(corrector):
    """The relabelled samples only (the ``relabelled`` variant's leave-out)."""
    return corrector.labels != corrector.initial_labels


def _bounded(corrector):
    """The library's leave-out, or the relabelled only where it is most samples."""
    doubtful = corrector.contested() | (corrector.labels != corrector.initial_labels)
    if 2 * np.count_nonzero(doubtful) > doubtful.shape[0]:
        return _relabelled(corrector)
    return doubtful


def run_job(dataset, model, noise, seed, check):
    import benchmarks.unseen as unseen
    import sklearn_plc._refit_run as refit_run

    warnings.simplefilter("ignore")
    known = unseen._model

    def model_by_name(name):
        return _neighbours(name) if name in NEW_MODELS else known(name)

    with patched(unseen, _model=model_by_name):
        drawn = with_standard_and_cleanlab(dataset, model, noise, seed, check)
        if drawn is None:
            return None
        (X_train, _, y_train, _, y_noisy, make), row, score = drawn
        y_noisy = np.asarray(y_noisy)
        fit = (make, X_train, y_noisy, seed, y_train, score)
        row["library"] = fit_plc_row(*fit)
        row["keep"] = fit_plc_row(*fit, contested="keep")
        with patched(refit_run, unweighed_set_aside=_relabelled):
            row["relabelled"] = fit_plc_row(*fit)
        with patched(refit_run, unweighed_set_aside=_bounded):
            row["bounded"] = fit_plc_row(*fit)
    return row


def run(out, what, variants=()):
    jobs = [
        (dataset, model, noise, seed, check)
        for dataset, five_nn, noise, seed, check in study_jobs(what, SEEDS)
        if five_nn == "5-nn"
        for model in MODELS
    ]
    run_and_dump(run_job, jobs, out)


def summary(*paths):
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    first = next(iter(cells.values()))[0]
    methods = (*(v for v in VARIANTS if v in first), "cleanlab")
    gains = gains_by_method(cells, methods)

    def describe(runs):
        corrected = [r for r in runs if r["library"]["termination"] not in KEPT]
        return [len(corrected)] if corrected else None

    print_cell_table(cells, gains, methods, [("corrected", "---:")], describe)
    for model in MODELS:
        mine = {key: runs for key, runs in cells.items() if key[1] == model}
        print(f"\n{model}:", end="")
        print_headlines(mine, gains, methods)


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
