"""The final fit of an estimator that takes no sample weights: relabel only the sure
flips and leave the doubtful ones out?

Question (issue "Ahead of cleanlab"): where the estimator's ``fit`` takes per-sample
weights, the final model trains on both labels of each relabel, weighed by the
held-out probabilities (``contested="auto"``). k-NN takes none, so it trains on
the hard corrected labels, and cleanlab leads in 8 of the 9 5-NN dev cells. Without
weights, the nearest rendering of a relabel's weight ``w = p_new / (p_new +
p_given)`` is all or nothing: ``sure`` keeps a relabel whose given label is at most
the sure ratio of the new class (½, ⅓ in two classes, i.e. ``w >= 2/3``, ``3/4``)
and leaves the others out of the final fit (they are coin tosses, which a weighed
fit would train about evenly on both labels); ``aside`` leaves out every relabelled
sample (cleanlab's removal, of PLC's flags); ``aside-disputed`` also leaves out the
samples whose label the last pass's probabilities still dispute without a flip.
The run is the library's; only the final fit changes.

A follow-up asks the same of the estimators that can weigh (``weighable``): against
the library's weighed final fit (``weigh``), ``weigh-aside`` also leaves out the
samples still disputed without a flip, and ``aside-disputed`` is the rule above
(every relabel and every disputed sample out, no weights).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/unweighed_final.py run OUT.json SET [weighable]
    python benchmarks/studies/unweighed_final.py summary LOG.json...

``SET``: dev, unseen or fresh. Without ``weighable`` only the cells whose model
takes no ``sample_weight`` (5-NN) run; with it, only the others.
"""

import sys
import time

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    drawn_with_purity,
    gains_by_method,
    print_cell_table,
    rows_by_cell,
    run_and_dump,
    run_or_summarise,
    study_jobs,
)
from benchmarks.studies.soft_final import KEPT, _fit_plc_and_proba

SEEDS = (100, 101, 102)
VARIANTS = ("hard", "sure", "aside", "aside-disputed")
WEIGHABLE_VARIANTS = ("hard", "weigh", "weigh-aside", "aside-disputed")
UNWEIGHED_MODELS = ("5-nn",)


def left_out(variant, proba, given, labels):
    """Which samples the `variant`'s final fit leaves out (a boolean mask)."""
    from sklearn_plc._refit_run import sure_ratio_for
    from sklearn_plc.correction import relabel_weights

    changed = labels != given
    if variant == "aside":
        return changed
    if variant == "aside-disputed":
        return changed | (proba.argmax(axis=1) != labels)
    weight = relabel_weights(proba, given, labels)
    return changed & (weight < 1 / (1 + sure_ratio_for(proba.shape[1])))


def _weighable_fits(row, make, X_train, proba, given, labels, classes, score):
    """The weighable follow-up's final fits of one corrected run, into `row`."""
    from sklearn_plc._final_fit import keep_every_class, weighed_fit_on
    from sklearn_plc._validation import sample_weight_key
    from sklearn_plc.correction import relabel_weights

    key = sample_weight_key(make())
    weight = relabel_weights(proba, given, labels)
    disputed = (proba.argmax(axis=1) != labels) & (labels == given)
    for variant in WEIGHABLE_VARIANTS[1:]:
        start = time.perf_counter()
        if variant == "aside-disputed":
            out = keep_every_class(left_out(variant, proba, given, labels), labels)
            kept = np.flatnonzero(~out)
            fitted = make().fit(X_train[kept], classes[labels[kept]])
        else:
            out = keep_every_class(
                disputed if variant == "weigh-aside" else np.zeros_like(disputed),
                labels,
            )
            fitted = weighed_fit_on(
                make(),
                X_train,
                labels,
                given,
                weight,
                np.flatnonzero(~out),
                classes,
                {},
                key,
            )
        row[variant] = {
            "acc": score(fitted),
            "s": row["hard"]["s"] + time.perf_counter() - start,
            "n_left_out": int(out.sum()),
        }


def run_job(dataset, model, noise, seed, check, weighable=False):
    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    plc, seconds, (proba, _) = _fit_plc_and_proba(make, X_train, y_noisy, seed)
    row["hard"] = {
        "acc": score(plc),
        "s": seconds,
        "termination": plc.termination_condition_,
        "n_changed": int(np.sum(plc.labels_ != y_noisy)),
        "precision": float(np.mean((plc.labels_ == y_train)[plc.labels_ != y_noisy]))
        if np.any(plc.labels_ != y_noisy)
        else None,
    }
    variants = WEIGHABLE_VARIANTS if weighable else VARIANTS
    if plc.termination_condition_ in KEPT or proba is None:
        for variant in variants[1:]:
            row[variant] = row["hard"]
        return row
    classes = plc.classes_
    given = np.searchsorted(classes, y_noisy)
    labels = np.searchsorted(classes, plc.labels_)
    if weighable:
        _weighable_fits(row, make, X_train, proba, given, labels, classes, score)
        return row
    for variant in VARIANTS[1:]:
        out = left_out(variant, proba, given, labels)
        kept = np.flatnonzero(~out)
        start = time.perf_counter()
        fitted = make().fit(X_train[kept], classes[labels[kept]])
        row[variant] = {
            "acc": score(fitted),
            "s": seconds + time.perf_counter() - start,
            "n_left_out": int(out.sum()),
            # of the left-out samples, the share whose given label was wrong
            "left_out_noisy": float(np.mean(y_noisy[out] != y_train[out]))
            if out.any()
            else None,
        }
    return row


def run(out, what, variants=()):
    weighable = "weighable" in variants
    jobs = [
        (*job, weighable)
        for job in study_jobs(what, SEEDS)
        if (job[1] in UNWEIGHED_MODELS) != weighable
    ]
    run_and_dump(run_job, jobs, out)


def summary(*paths):
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    first = next(iter(cells.values()))[0]
    variants = WEIGHABLE_VARIANTS if "weigh" in first else VARIANTS
    methods = (*variants, "cleanlab")
    gains = gains_by_method(cells, methods)

    def describe(runs):
        corrected = [r for r in runs if r["hard"]["termination"] not in KEPT]
        if not corrected:
            return None
        out = " / ".join(
            f"{np.mean([r[v]['n_left_out'] for r in corrected]):.0f}"
            for v in variants[1:]
        )
        return [len(corrected), out]

    columns = [("corrected", "---:"), ("left out " + " / ".join(variants[1:]), "---:")]
    print_cell_table(cells, gains, methods, columns, describe)


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
