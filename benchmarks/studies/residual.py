"""Where PLC corrects and cleanlab still wins: is it the action or the detection?

Question (issue "Ahead of cleanlab"): on the runs that PLC corrects with a
memorising model, cleanlab's ``CleanLearning`` still gains more in many cells
(digits with forests on the unseen check: purity 63% → 91% for PLC, yet a
smaller gain). Is that what the final fit does with the samples (relabel
against remove), or which samples are named? This probe refits the final model
of each corrected run several ways, from the run's own held-out probabilities
(no new fold fits):

- ``lib``: the library's model (weighed relabels);
- ``cl-given``: confident learning (cleanlab's ``find_label_issues``, its
  defaults) on the labels as given with the run's first-round held-out
  probabilities, the flagged samples removed: cleanlab's action and detection
  on PLC's folds;
- ``cl-final``: confident learning on the corrected labels with the last
  pass's probabilities, the flagged samples removed, the rest fitted as the
  library does (weighed relabels);
- ``drop-changed``: every relabelled sample removed, the rest as given (PLC
  detects, cleanlab's action);
- ``sure-drop``: relabels with weight at least ⅔ kept (weighed), the other
  relabelled samples removed;
- ``drop-disputed``: every relabelled sample and every sample whose label the
  last pass's top class disputes removed, the rest as given (what
  ``contested="auto"`` does for an estimator without sample weights).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/residual.py run OUT.json SET
    python benchmarks/studies/residual.py summary LOG.json...

SET: ``dev`` (memorising models of the dev cells, seeds 100-102), ``unseen``
or ``fresh``.
"""

import sys
import time
import warnings

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    cell_gains,
    memorising_cell,
    patched,
    print_cell_table,
    run_or_summarise,
    study_run,
)

VARIANTS = ("lib", "cl-given", "cl-final", "drop-changed", "sure-drop", "drop-disputed")
SEEDS = (100, 101, 102)
SURE_WEIGHT = 2 / 3


def _captured_fit(make, X, y, seed):
    """PLC with the defaults; also the first-round and last-pass probabilities."""
    from sklearn_plc import PLCClassifier
    from sklearn_plc._corrector import LabelCorrector

    seen = {}
    add_proba, pass_proba = LabelCorrector.add_proba, LabelCorrector.pass_proba

    def first_add_proba(self, proba):
        seen.setdefault("first", np.array(proba, dtype=np.float64))
        return add_proba(self, proba)

    def recording_pass_proba(self):
        proba = pass_proba(self)
        seen["last"] = np.array(proba, dtype=np.float64)
        return proba

    with patched(
        LabelCorrector, add_proba=first_add_proba, pass_proba=recording_pass_proba
    ):
        start = time.perf_counter()
        plc = PLCClassifier(make(), random_state=seed).fit(X, y)
        seconds = time.perf_counter() - start
    return plc, seconds, seen


def _fit_rows(make, X, labels, given, weight, keep, score):
    """Fit on the `keep` rows, a relabel weighed as the library does."""
    from sklearn_plc._final_fit import weighed_fit
    from sklearn_plc._out_of_fold import fit_on_indices
    from sklearn_plc._validation import sample_weight_key

    classes = np.unique(given)
    rows = np.flatnonzero(keep)
    model = make()
    key = sample_weight_key(model)
    if key is not None and weight is not None and (weight[rows] < 1).any():
        fitted = weighed_fit(
            model,
            X[rows],
            labels[rows],
            given[rows],
            weight[rows],
            classes,
            {},
            key,
        )
    else:
        fitted = fit_on_indices(model, X[rows], labels[rows], classes, {})
    return score(fitted), int((~keep).sum())


def _issues(labels, proba):
    from cleanlab.filter import find_label_issues

    return find_label_issues(labels, proba, n_jobs=1)


def run_job(dataset, model, noise, seed, check):
    drawn = memorising_cell(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X, _, y_clean, _, y, make), row, score = drawn
    X = np.asarray(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plc, seconds, seen = _captured_fit(make, X, y, seed)
        row["termination"] = plc.termination_condition_
        row["purity_before"] = float(np.mean(y == y_clean))
        row["lib"] = {"acc": score(plc), "s": seconds}
        if plc.termination_condition_ not in ("converged", "max_iter"):
            for variant in VARIANTS[1:]:
                row[variant] = row["lib"]
            return row
        encoded = np.searchsorted(plc.classes_, y)
        labels = np.searchsorted(plc.classes_, plc.labels_)
        weight = plc.relabel_weight_
        changed = labels != encoded
        every = np.ones(len(y), dtype=bool)
        disputed = seen["last"].argmax(axis=1) != labels
        keeps = {
            "cl-given": (~_issues(encoded, seen["first"]), encoded, None),
            "cl-final": (~_issues(labels, seen["last"]), labels, weight),
            "drop-changed": (~changed, encoded, None),
            "sure-drop": (every & ~(changed & (weight < SURE_WEIGHT)), labels, weight),
            "drop-disputed": (~(changed | disputed), encoded, None),
        }
        for variant, (keep, fit_labels, fit_weight) in keeps.items():
            kept_labels = fit_labels[keep]
            acc, removed = _fit_rows(
                make, X, fit_labels, encoded, fit_weight, keep, score
            )
            row[variant] = {
                "acc": acc,
                "removed": removed,
                "purity_kept": float(
                    np.mean(plc.classes_[kept_labels] == y_clean[keep])
                ),
            }
        row["purity_lib"] = float(np.mean(plc.labels_ == y_clean))
    return row


def summary(*paths):
    cells, methods, gains = cell_gains(paths, VARIANTS)

    def describe(runs):
        corrected = [r for r in runs if "purity_lib" in r]
        if not corrected:
            return None
        return [
            len(corrected),
            f"{np.mean([r['purity_before'] for r in corrected]):.2f}",
            f"{np.mean([r['purity_lib'] for r in corrected]):.2f}",
            f"{np.mean([r['cl-given']['purity_kept'] for r in corrected]):.2f}",
            round(np.mean([r["cl-given"]["removed"] for r in corrected])),
        ]

    columns = [
        ("corrected", "---:"),
        ("purity", "---:"),
        ("PLC", "---:"),
        ("cl-given kept", "---:"),
        ("removed", "---:"),
    ]
    print_cell_table(cells, gains, methods, columns, describe)


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS), summary)
