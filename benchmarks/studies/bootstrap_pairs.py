"""Does a bootstrap ensemble fit a relabel's two rows as the weights say?

Question (issue "Ahead of cleanlab"): on dev, where PLC corrects, cleanlab
still leads with the bagging ensembles (random forest, bagged trees) and not
with extra trees, boosting or k-NN (``residual.py``). The weighed final fit
gives a relabelled sample two rows, its new label at weight ``w`` and its given
label at ``1 - w``. A tree of a bootstrap ensemble draws rows, not samples, so
the two rows are drawn independently: about 40% of the trees hold both (the
leaf votes ``w``), 23% only the new row and 23% only the given row (a pure leaf
votes it fully, whatever its weight), 14% neither. The given label keeps an
expected vote of ``(0.23 + 0.40 (1 - w)) / 0.86`` of the trees that see the
sample: 0.31 at ``w = 0.9``, where the weights meant 0.1. A hard relabel
(the given row dropped) gives it 0; it comes closer to ``1 - w`` than the pair's
vote where ``w`` is above ``1 - a / (2 - b)``, with ``a`` and ``b`` the shares
of one row and of both among the trees that see the sample: about 0.83
(:data:`HARD_ABOVE`).

The probe refits the final model of each corrected run of a bootstrap
ensemble, from the run's own labels and weights (no new fold fits):

- ``lib``: the library's model (both rows of every relabel);
- ``hard-sure``: a relabel whose weight is above :data:`HARD_ABOVE` keeps only
  its new row, at full weight; the others as the library;
- ``hard``: every relabel keeps only its new row (the hard corrected labels).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/bootstrap_pairs.py run OUT.json SET
    python benchmarks/studies/bootstrap_pairs.py summary LOG.json...

SET: ``dev`` (memorising models of the dev cells, seeds 100-102), ``unseen``
or ``fresh``; only the bootstrap ensembles' runs are refitted. The log was made
when a refit waited for a twentieth of the labels (``min_correction_rate``
0.05); with ``sklearn_plc._refit_run.REFIT_MIN_CORRECTION_RATE = 0.05`` it
repeats to the digit.
"""

import sys
import warnings

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    cell_gains,
    memorising_cell,
    print_cell_table,
    run_or_summarise,
    study_run,
)

VARIANTS = ("lib", "hard-sure", "hard")
SEEDS = (100, 101, 102)
# a row's chance to be drawn by a bootstrap of as many rows: 1 - 1/e
DRAWN = 1 - np.exp(-1)
BOTH = DRAWN**2  # a tree holds both rows of a relabel
ONE = DRAWN * (1 - DRAWN)  # a tree holds one given row and not the other
# among the trees that see a relabelled sample, the given label's expected vote
# from its pair is a + b (1 - w), a and b as below; a hard relabel's 0 is nearer
# the weights' 1 - w where w is above this
_A, _B = ONE / (BOTH + 2 * ONE), BOTH / (BOTH + 2 * ONE)
HARD_ABOVE = 1 - _A / (2 - _B)


def bootstrap_ensemble(model):
    """Whether `model` (or a Pipeline's last step) draws its rows by bootstrap."""
    from sklearn_plc._out_of_fold import supports_out_of_bag

    last = model.steps[-1][1] if hasattr(model, "steps") else model
    return supports_out_of_bag(last)


def run_job(dataset, model, noise, seed, check):
    from benchmarks.studies.residual import _fit_rows
    from sklearn_plc import PLCClassifier

    drawn = memorising_cell(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X, _, y_clean, _, y, make), row, score = drawn
    if not bootstrap_ensemble(make()):
        return None
    X = np.asarray(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plc = PLCClassifier(make(), random_state=seed).fit(X, y)
        row["termination"] = plc.termination_condition_
        row["lib"] = {"acc": score(plc)}
        weight = plc.relabel_weight_
        changed = plc.labels_ != y
        if not (weight < 1).any():
            row["hard-sure"] = row["hard"] = row["lib"]
            return row
        labels = np.searchsorted(plc.classes_, plc.labels_)
        given = np.searchsorted(plc.classes_, y)
        every = np.ones(len(y), dtype=bool)
        row["n_changed"] = int(changed.sum())
        row["n_hard_sure"] = int((changed & (weight > HARD_ABOVE)).sum())
        row["purity_after"] = float(np.mean(plc.labels_ == y_clean))
        for variant, hard in (
            ("hard-sure", changed & (weight > HARD_ABOVE)),
            ("hard", changed),
        ):
            fit_weight = np.where(hard, 1.0, weight)
            acc, _ = _fit_rows(make, X, labels, given, fit_weight, every, score)
            row[variant] = {"acc": acc}
    return row


def summary(*paths):
    cells, methods, gains = cell_gains(paths, VARIANTS)

    def describe(runs):
        corrected = [r for r in runs if "n_changed" in r]
        if not corrected:
            return None
        return [
            len(corrected),
            round(np.mean([r["n_changed"] for r in corrected])),
            round(np.mean([r["n_hard_sure"] for r in corrected])),
        ]

    columns = [("corrected", "---:"), ("relabels", "---:"), ("above", "---:")]
    print_cell_table(cells, gains, methods, columns, describe)


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS), summary)
