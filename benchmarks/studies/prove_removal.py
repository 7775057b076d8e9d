"""Where PLC refuses a model, remove its disputes if the judge shows a clear gain?

Question (issue "Ahead of cleanlab"): where PLC refuses to correct (the model
does not memorise, or is too weak to judge), it keeps the labels as given, and
cleanlab's ``CleanLearning`` gains there by removing what it flags (naive Bayes
on flattened digits, +14 to +18 points on the unseen check). Removal whatever
the evidence lost on dev (``non_memorising.py``), and removal judged at one
standard error after an undo or a refusal lost too (``judged_aside.py``: the
ten runs it chose all lost). Relabelling a refused model where the judge's gain
clears k standard errors did not help either (``prove_gain.py``): its relabels
follow its own errors. Removal asks less of the model than a relabel (only that
the sample's given label is doubtful, not which class is right), so: does
removal with a burden of proof (the fold models refitted without the candidates
agree with the validation samples' given labels better than the first round's
by more than k standard errors, paired) keep dev level and gain where the
removal is real?

Each refused run records three candidate sets among the fold-trained samples,
from the first round's out-of-fold probabilities (models on the labels as given):
``sure`` (the label's probability at most the sure ratio of the top class's: ½,
⅓ in two classes), ``all`` (any sample whose top class is not its label) and
``cl`` (confident learning's ``find_label_issues``, cleanlab's rule on PLC's own
folds). For each: the same folds refitted without them, judged against the first
round (gain and standard error), and a final model fitted on every sample but
them, scored on the clean test labels. The summary builds ``SET-k`` (remove
where the judged gain clears k standard errors, otherwise the library's labels
as given) from these, exactly: the library's refused run is the final fit on the
labels as given.

It needs the study hook ``KEPT_HOOK`` in ``sklearn_plc._refit_run``
(``prove_removal.patch``; apply it in a worktree and run from there).

Usage (from the patched worktree's root, ``PYTHONPATH=.``)::

    python benchmarks/studies/prove_removal.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/prove_removal.py summary LOG.json...
"""

import sys
import time

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    drawn_with_purity,
    fit_plc_row,
    gains_by_method,
    patched,
    print_cell_table,
    print_gains_by_model,
    rows_by_cell,
    run_or_summarise,
    study_run,
)

SEEDS = (100, 101, 102)
CANDIDATES = ("sure", "all", "cl")
BARS = (1, 2, 3, 4)


def candidate_sets(proba, labels, trained):
    """The removal candidates among the `trained` samples, one mask per rule."""
    from cleanlab.filter import find_label_issues

    from sklearn_plc._final_fit import keep_every_class
    from sklearn_plc._refit_run import sure_ratio_for
    from sklearn_plc.correction import confidence_ratio

    ratio = confidence_ratio(proba, labels)
    sure = ratio <= sure_ratio_for(proba.shape[1])
    disputed = proba.argmax(axis=1) != labels
    index = np.flatnonzero(trained)
    flagged = np.zeros_like(trained)
    flagged[index] = find_label_issues(labels[index], proba[index], n_jobs=1)
    sets = {"sure": sure, "all": disputed, "cl": flagged}
    return {
        name: keep_every_class(mask & trained, labels) for name, mask in sets.items()
    }


def make_hook(record):
    """A ``KEPT_HOOK`` that fills `record` with each candidate set's evidence."""

    def hook(run, corrector, judge, estimator, X, splits, fit_params, validation):
        from sklearn.base import clone
        from sklearn.utils import _safe_indexing

        from sklearn_plc._out_of_fold import (
            fit_on_indices,
            out_of_fold_proba,
            per_sample_params,
        )
        from sklearn_plc.evidence import agreement_gain

        labels = corrector.initial_labels
        first = corrector.recorded[0]
        trained = np.zeros(labels.shape[0], dtype=bool)
        for _, test in splits:
            trained[test] = True
        reference = judge._reference["agrees"]
        for name, removed in candidate_sets(first, labels, trained).items():
            entry = {"n": int(removed.sum())}
            record[name] = entry
            if not removed.any():
                continue
            start = time.perf_counter()
            trimmed = [(fit[~removed[fit]], test) for fit, test in splits]
            proba, _ = out_of_fold_proba(
                estimator,
                X,
                labels,
                trimmed,
                run.classes,
                fit_params=fit_params,
                n_jobs=run.plc.n_jobs,
                validation=validation,
            )
            judged = judge.judged
            agrees = proba[judged].argmax(axis=1) == judge.given_labels[judged]
            entry["gain"], entry["se"] = agreement_gain(agrees, reference)
            kept = np.flatnonzero(~removed)
            entry["model"] = fit_on_indices(
                clone(estimator),
                _safe_indexing(X, kept),
                labels[kept],
                run.classes,
                per_sample_params(fit_params, kept, labels.shape[0]),
            )
            entry["extra_s"] = time.perf_counter() - start
            entry["mask"] = removed

    return hook


def run_job(dataset, model, noise, seed, check):
    import sklearn_plc._refit_run as refit_run

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    record = {}
    with patched(refit_run, KEPT_HOOK=make_hook(record)):
        row["default"] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    wrong = y_noisy != y_train
    for name, entry in record.items():
        if "model" in entry:
            mask = entry.pop("mask")
            entry["acc"] = score(entry.pop("model"))
            entry["precision"] = float(wrong[mask].mean())
        row[name] = entry
    return row


def removal_variant(row, name, k):
    """``NAME-k``'s run: removal where its gain clears `k` SEs, else the library's."""
    entry = row.get(name)
    if entry is None or "acc" not in entry or not entry["gain"] > k * entry["se"]:
        return row["default"]
    return {
        **row["default"],
        "acc": entry["acc"],
        "s": row["default"]["s"] + entry["extra_s"],
        "termination": "removed",
    }


VARIANTS = ("default", *(f"{name}-{k}" for name in CANDIDATES for k in BARS))


def with_variants(row):
    row = dict(row)
    for name in CANDIDATES:
        for k in BARS:
            row[f"{name}-{k}"] = removal_variant(row, name, k)
    return row


def summary(*paths):
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    cells = {key: [with_variants(r) for r in runs] for key, runs in cells.items()}
    methods = (*VARIANTS, "cleanlab")
    gains = gains_by_method(cells, methods)

    def describe(runs):
        refused = [r for r in runs if "sure" in r]
        if not refused:
            return None
        return [
            len(refused),
            "; ".join(
                f"{r['default']['termination'][:4]} "
                + " ".join(
                    f"{name} {100 * (r[name]['acc'] - r['default']['acc']):+.1f}"
                    f"@{r[name]['gain'] / r[name]['se']:.1f}"
                    if "acc" in r[name] and r[name]["se"] > 0
                    else f"{name} -"
                    for name in CANDIDATES
                )
                for r in refused
            ),
        ]

    columns = [("refused", "---:"), ("per run: Δ accuracy @ z of each set", "---")]
    print_cell_table(cells, gains, ("default", "cleanlab"), columns, describe)
    print()
    for variant in methods:
        values = [gains[key][variant] for key in cells]
        ahead = sum(gains[key][variant] >= gains[key]["cleanlab"] for key in cells)
        within = sum(v >= -0.5 for v in values)
        print(
            f"{variant}: mean {np.mean(values):+.2f}, within 0.5 {within}, "
            f"≥ cleanlab {ahead} of {len(values)}"
        )
    print("\nper model family:")
    print_gains_by_model(cells, ("default", "sure-3", "all-3", "cl-3", "cl-4"))
    print("\nrefused runs, by z bucket (Δ accuracy over the library, points):")
    runs = [r for rs in cells.values() for r in rs]
    for name in CANDIDATES:
        pairs = [
            (
                r[name]["gain"] / r[name]["se"],
                100 * (r[name]["acc"] - r["default"]["acc"]),
            )
            for r in runs
            if name in r and "acc" in r[name] and r[name]["se"] > 0
        ]
        for low, high in ((-np.inf, 1), (1, 2), (2, 3), (3, 4), (4, np.inf)):
            chosen = [d for z, d in pairs if low < z <= high]
            if chosen:
                print(
                    f"  {name} z in ({low}, {high}]: {len(chosen)} runs, mean "
                    f"{np.mean(chosen):+.2f}, lost > 0.5 in "
                    f"{sum(d < -0.5 for d in chosen)}"
                )


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS), summary)
