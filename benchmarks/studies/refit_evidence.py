"""Refit when the evidence moved since the last fit is worth a refit, not the count?

Question (issue "Ahead of cleanlab", the cost target): a round refits when more
labels changed since the last fit than a quiet pass may change (5% of the
samples). Every change counts as one, but the weighed final fit (the default,
``contested="auto"``) does not see them as one: a relabel trains at
``w = p_new / (p_new + p_old)`` on its new class and ``1 - w`` on the old, so it
moves ``2w - 1 = (p_new - p_old) / (p_new + p_old)`` of a label. A sure relabel
(``p_old`` near 0) moves a whole label; the late passes' near coin tosses, at a
ratio of 0.7-0.9, move 0.05-0.18 of one, yet they trigger the third and fourth
refits of a typical corrected run. ``evidence`` counts each change since the last
fit by the label it moves, ``(p_new - p_fitted) / (p_new + p_fitted)`` with the
probabilities the pass read, and refits when that sum passes the same bar.
``sure`` counts only the changes whose old label was at most the sure ratio of
the new class (½, ⅓ in two classes) - the ones the final fit keeps as relabels.
A refit costs a fit per fold; the rounds in between read the last refit's
probabilities at the raised threshold, as after any quiet pass.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/refit_evidence.py run OUT.json dev|unseen|fresh [VAR...]
    python benchmarks/studies/refit_evidence.py summary LOG.json...

``dev``: the cells of ``judged_aside.py``'s dev set (dev splits, seeds 100-102);
``unseen`` / ``fresh``: the two checks, without the MLP (one training run, no
refits). Each variant logs its accuracy, fit seconds and number of fits (the
rounds that refitted, plus the final fit).
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
    print_corrected_cost,
    rows_by_cell,
    run_or_summarise,
    study_run,
)
from benchmarks.studies.soft_final import KEPT

SEEDS = (100, 101, 102)
VARIANTS = ("default", "evidence", "sure")


def _weights_since_fit(corrector, fitted_labels):
    """Each label's relabel weight against the label it was fitted on, and the
    changed mask (``correction.relabel_weights``: 1 where unchanged)."""
    from sklearn_plc.correction import relabel_weights

    labels = corrector.labels
    weight = relabel_weights(corrector.pass_proba(), fitted_labels, labels)
    return weight, labels != fitted_labels


def _evidence_moved(self, corrector, fitted_labels):
    # a change moves 2w - 1 of a label: (p_new - p_fitted) / (p_new + p_fitted)
    weight, changed = _weights_since_fit(corrector, fitted_labels)
    return float(np.clip(2.0 * weight[changed] - 1.0, 0.0, 1.0).sum())


def _sure_moved(self, corrector, fitted_labels):
    from sklearn_plc._refit_run import sure_ratio_for

    # sure: p_fitted <= ratio * p_new, i.e. w >= 1 / (1 + ratio)
    weight, changed = _weights_since_fit(corrector, fitted_labels)
    ratio = sure_ratio_for(corrector.pass_proba().shape[1])
    return int(np.count_nonzero(weight[changed] >= 1.0 / (1.0 + ratio)))


MOVED = {"evidence": _evidence_moved, "sure": _sure_moved}


def run_job(dataset, model, noise, seed, check, variants=VARIANTS):
    from sklearn_plc._refit_run import RefitRun

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    row["default"] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    for variant in variants:
        if variant == "default":
            continue
        if row["default"]["termination"] in KEPT and row["default"]["n_refits"] <= 1:
            row[variant] = row["default"]  # the labels were kept after round 0
            continue
        with patched(RefitRun, _moved_since_fit=MOVED[variant]):
            row[variant] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    return row


def summary(*paths):
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    first = next(iter(cells.values()))[0]
    variants = [v for v in VARIANTS if v in first]
    methods = (*variants, "cleanlab")
    gains = gains_by_method(cells, methods)

    def describe(runs):
        corrected = [r for r in runs if r["default"]["termination"] not in KEPT]
        if not corrected:
            return None
        refits = [
            f"{np.mean([r[v]['n_refits'] for r in corrected]):.1f}" for v in variants
        ]
        return [len(corrected), " / ".join(refits)]

    columns = [("corrected", "---:"), ("refits " + " / ".join(variants), "---:")]
    print_cell_table(cells, gains, methods, columns, describe)
    print_corrected_cost(
        cells, variants, lambda row: row["default"]["termination"] not in KEPT
    )


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS, VARIANTS), summary)
