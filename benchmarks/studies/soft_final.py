"""Train the final model on both labels of a doubtful relabel, weighted by the model?

Question (issue "Ahead of cleanlab"): a wrong flip costs as much as the noise it
replaces, while leaving a sample out costs one sample; cleanlab removes where PLC
flips. Between the two: where a run corrects, the final model sees each changed
sample twice, with its new label at weight ``w = p_new / (p_new + p_given)`` and
its given label at ``1 - w`` (``p`` from the probabilities the last pass read).
A sure flip (``w`` near 1) is a relabel; a coin toss (``w`` near ½) leaves the
sample neutral, close to setting it aside. ``soft-all`` also splits the samples
whose label is still disputed but was not flipped (label and top class, the same
rule). Only the final fit changes; estimators whose ``fit`` takes no
``sample_weight`` (5-NN) fit the hard labels, as ``keep``. Two variants logged
after ``soft`` shipped as ``contested="auto"`` (``run ... soft-loop`` runs both):
``soft-loop`` also weighs the relabels in every refit of the loop, with the weights
of the probabilities the last pass read (``_weighed_refits``), and ends with the
library's weighed final fit; ``soft-last`` weighs the final fit by the last refit's
probabilities alone, not the window's average (which keeps the first round's
models, trained on the labels as given).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/soft_final.py run OUT.json dev|unseen|fresh [soft-loop]
    python benchmarks/studies/soft_final.py summary LOG.json...

``dev``: the cells of ``judged_aside.py``'s dev set (dev splits, seeds 100-102);
``unseen`` / ``fresh``: the two checks, without the MLP (its one-run path has no
final refit).
"""

import sys
import time

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    drawn_with_purity,
    gains_by_method,
    patched,
    print_cell_table,
    rows_by_cell,
    run_and_dump,
    run_or_summarise,
    study_jobs,
)
from sklearn_plc._refit_run import LABELS_KEPT as KEPT

SEEDS = (100, 101, 102)
VARIANTS = ("keep", "soft", "soft-all")
LOOP_VARIANT = "soft-loop"
# weights from the last refit's probabilities alone, not the window's average
# (which keeps the first round's models, trained on the labels as given)
LAST_VARIANT = "soft-last"


def _fit_plc_and_proba(make, X, y, seed):
    """PLC on the hard labels (``contested="keep"``); the last pass's probabilities."""
    import sklearn_plc._refit_run as refit_run
    from sklearn_plc import PLCClassifier

    captured = {}
    run = refit_run.RefitRun.run

    def run_and_keep(self, *args, **kwargs):
        result = run(self, *args, **kwargs)
        corrector = result.corrector
        recorded = corrector.recorded
        captured["proba"] = np.array(corrector.pass_proba()) if recorded else None
        captured["last"] = np.array(recorded[-1]) if recorded else None
        return result

    with patched(refit_run.RefitRun, run=run_and_keep):
        start = time.perf_counter()
        plc = PLCClassifier(make(), random_state=seed, contested="keep").fit(X, y)
        seconds = time.perf_counter() - start
    return plc, seconds, (captured.get("proba"), captured.get("last"))


def _weighed_refits(make, X, y, seed):
    """PLC whose refits, too, fit each relabel on both labels; ``(model, seconds)``.

    Before each refit after the first round, the relabel weights of the
    probabilities the last pass read go to every fold fit (the folds' own rows
    of them), as the weighed final fit uses them.
    """
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    import sklearn_plc._out_of_fold as out_of_fold
    import sklearn_plc._refit_run as refit_run
    from sklearn_plc import PLCClassifier
    from sklearn_plc.correction import relabel_weights

    state = {}
    fold_proba, fit_round = out_of_fold._fold_proba, refit_run.RefitRun._fit_round

    def weighed_fold_proba(
        estimator, X, labels, train, predicted, classes, params, fit=None
    ):
        weights = state.get("weights")
        if weights is None or np.unique(labels[train]).shape[0] < 2:
            return fold_proba(
                estimator, X, labels, train, predicted, classes, params, fit
            )
        model = refit_run.weighed_fit(
            clone(estimator),
            _safe_indexing(X, train),
            labels[train],
            state["given"][train],
            weights[train],
            classes,
            out_of_fold.per_sample_params(params, train, labels.shape[0]),
            state["key"],
        )
        return out_of_fold.proba_per_class(model, _safe_indexing(X, predicted), classes)

    def weighed_fit_round(self, corrector, round_index, labels, **kwargs):
        state["weights"] = None
        if self.weight_key is not None and corrector.recorded:
            state["weights"] = relabel_weights(
                corrector.pass_proba(), corrector.initial_labels, labels
            )
            state["given"], state["key"] = corrector.initial_labels, self.weight_key
        return fit_round(self, corrector, round_index, labels, **kwargs)

    with (
        patched(out_of_fold, _fold_proba=weighed_fold_proba),
        patched(refit_run.RefitRun, _fit_round=weighed_fit_round),
    ):
        start = time.perf_counter()
        plc = PLCClassifier(make(), random_state=seed, contested="weigh").fit(X, y)
        seconds = time.perf_counter() - start
    return plc, seconds


def soft_split(given, final, proba, classes, every_dispute):
    """Rows, labels and weights of the soft final fit (indices into the samples).

    A changed sample appears twice: its final label at ``w``, its given label at
    ``1 - w``, ``w = p_final / (p_final + p_given)``. With `every_dispute`, an
    unchanged sample whose top class is another appears twice too (its label
    and the top class, the same rule). Unlike the library's
    ``_final_fit.weighed_fit``, a split sample with ``w = 1`` (no probability on
    the other label) also gets its zero-weight copy; the logs were made so.
    """
    n = given.shape[0]
    index = {c: i for i, c in enumerate(classes)}
    g = np.array([index[c] for c in given])
    f = np.array([index[c] for c in final])
    other = np.where(f != g, g, proba.argmax(axis=1))
    split = other != f if every_dispute else f != g
    rows = np.arange(n)
    p_keep = proba[rows, f]
    p_other = proba[rows, other]
    w = np.where(split, p_keep / np.maximum(p_keep + p_other, 1e-12), 1.0)
    extra = np.flatnonzero(split)
    all_rows = np.concatenate([rows, extra])
    labels = np.concatenate([f, other[extra]])
    weights = np.concatenate([w, 1.0 - w[extra]])
    return all_rows, classes[labels], weights


def run_job(dataset, model, noise, seed, check, loop=False):
    from sklearn_plc._validation import sample_weight_key

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    plc, seconds, (proba, last) = _fit_plc_and_proba(make, X_train, y_noisy, seed)
    row["keep"] = {
        "acc": score(plc),
        "s": seconds,
        "termination": plc.termination_condition_,
        "purity_after": float(np.mean(plc.labels_ == y_train)),
    }
    param = sample_weight_key(make())
    for variant in (*VARIANTS[1:], *((LAST_VARIANT,) if loop else ())):
        if plc.termination_condition_ in KEPT or proba is None or param is None:
            row[variant] = row["keep"]
            continue
        rows, labels, weights = soft_split(
            y_noisy,
            plc.labels_,
            last if variant == LAST_VARIANT else proba,
            plc.classes_,
            variant == "soft-all",
        )
        start = time.perf_counter()
        soft = make().fit(X_train[rows], labels, **{param: weights})
        row[variant] = {
            "acc": score(soft),
            "s": seconds + time.perf_counter() - start,
            "termination": plc.termination_condition_,
            "n_split": int(rows.shape[0] - y_noisy.shape[0]),
            "mean_given_weight": float(weights[y_noisy.shape[0] :].mean())
            if rows.shape[0] > y_noisy.shape[0]
            else None,
        }
    if loop and param is not None and plc.termination_condition_ not in KEPT[:2]:
        fitted, seconds = _weighed_refits(make, X_train, y_noisy, seed)
        row[LOOP_VARIANT] = {
            "acc": score(fitted),
            "s": seconds,
            "termination": fitted.termination_condition_,
            "purity_after": float(np.mean(fitted.labels_ == y_train)),
        }
    elif loop:
        row[LOOP_VARIANT] = row["keep"]
    return row


def run(out, what, variants=()):
    loop = LOOP_VARIANT in variants
    run_and_dump(run_job, study_jobs(what, SEEDS, loop), out)


def summary(*paths):
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    logged = all(LOOP_VARIANT in r for runs in cells.values() for r in runs)
    later = (LOOP_VARIANT, LAST_VARIANT) if logged else ()
    methods = (*VARIANTS, *later, "cleanlab")
    gains = gains_by_method(cells, methods)

    def describe(runs):
        corrected = sum(r["keep"]["termination"] not in KEPT for r in runs)
        return [corrected] if corrected else None

    print_cell_table(cells, gains, methods, [("corrected", "---:")], describe)


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
