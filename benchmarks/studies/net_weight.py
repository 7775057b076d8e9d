"""Fit each relabel on its net evidence only: remove the contested part of a flip?

Question (issue "Ahead of cleanlab"): the shipped final fit (``contested="auto"``,
``soft`` here) fits a relabelled sample twice, its new label at
``w = p_new / (p_new + p_given)`` and its given label at ``1 - w``. The two copies
partly cancel: ``min(w, 1 - w)`` of the sample's weight goes to each of the two
classes, which is pure doubt. ``net`` removes that doubt instead of fitting it, as
cleanlab removes where the model disputes a label: the sample keeps only its new
label, at weight ``w - (1 - w) = 2w - 1``. A sure flip (``w`` near 1) is a full
relabel, as before; a coin toss (``w`` near ½) is left out of the final fit, where
``soft`` fits it as half of each class. Only the final fit changes; the run and its
labels are the same as ``keep``'s, and estimators whose ``fit`` takes no
``sample_weight`` (5-NN) fit the hard labels in every variant.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/net_weight.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/net_weight.py summary LOG.json...

``dev``: the cells of ``judged_aside.py``'s dev set (dev splits, seeds 100-102);
``unseen`` / ``fresh``: the two checks, without the MLP (its one-run path has no
final refit).
"""

import sys
import time

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    cell_gains,
    drawn_with_purity,
    print_cell_table,
    run_or_summarise,
    study_run,
)
from benchmarks.studies.soft_final import KEPT, _fit_plc_and_proba

SEEDS = (100, 101, 102)
VARIANTS = ("keep", "soft", "net")


def net_rows_and_weights(relabel_weight):
    """Rows kept in the ``net`` final fit and their weights (``2w - 1`` where changed).

    `relabel_weight` is 1 where the label was not changed; a changed sample whose
    weight is at most ½ is left out.
    """
    net = np.where(relabel_weight < 1, 2.0 * relabel_weight - 1.0, 1.0)
    kept = np.flatnonzero(net > 0)
    return kept, net[kept]


def run_job(dataset, model, noise, seed, check):
    from sklearn_plc._final_fit import weighed_fit
    from sklearn_plc._validation import sample_weight_key
    from sklearn_plc.correction import relabel_weights

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    plc, seconds, (proba, _) = _fit_plc_and_proba(make, X_train, y_noisy, seed)
    row["keep"] = {
        "acc": score(plc),
        "s": seconds,
        "termination": plc.termination_condition_,
        "purity_after": float(np.mean(plc.labels_ == y_train)),
        "n_changed": int(np.sum(plc.labels_ != y_noisy)),
    }
    key = sample_weight_key(make())
    if plc.termination_condition_ in KEPT or proba is None or key is None:
        row["soft"] = row["net"] = row["keep"]
        return row
    classes = plc.classes_
    given = np.searchsorted(classes, y_noisy)
    labels = np.searchsorted(classes, plc.labels_)
    weight = relabel_weights(proba, given, labels)
    start = time.perf_counter()
    soft = weighed_fit(make(), X_train, labels, given, weight, classes, {}, key)
    row["soft"] = {"acc": score(soft), "s": seconds + time.perf_counter() - start}
    kept, net = net_rows_and_weights(weight)
    start = time.perf_counter()
    fitted = make().fit(X_train[kept], classes[labels[kept]], **{key: net})
    changed = weight < 1
    row["net"] = {
        "acc": score(fitted),
        "s": seconds + time.perf_counter() - start,
        "n_left_out": int(X_train.shape[0] - kept.shape[0]),
        "n_changed": int(changed.sum()),
        # of the changed samples, the share whose new label is right, weighted
        "net_purity": float(
            np.sum(net * (classes[labels[kept]] == y_train[kept]) * changed[kept])
            / max(np.sum(net * changed[kept]), 1e-12)
        ),
    }
    return row


def summary(*paths):
    cells, methods, gains = cell_gains(paths, VARIANTS)

    def describe(runs):
        corrected = sum(r["keep"]["termination"] not in KEPT for r in runs)
        left_out = np.mean([r["net"].get("n_left_out", 0) for r in runs])
        return [corrected, f"{left_out:.0f}"] if corrected else None

    columns = [("corrected", "---:"), ("left out", "---:")]
    print_cell_table(cells, gains, methods, columns, describe)


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS), summary)
