"""How much do PLC's folds cost the detection of wrong labels?

Question (issue "Ahead of cleanlab"; follows ``residual.py``): cleanlab's
removal with PLC's first-round held-out probabilities (3 folds on the 80% that
the judge's set-aside leaves) gained less than cleanlab itself (5 folds on every
sample) on the dev cells. Which part costs: the set-aside or the folds? Each run
removes the samples that confident learning (cleanlab's ``find_label_issues``,
its defaults) flags from out-of-fold probabilities made four ways, and fits the
model on the rest:

- ``3f-80``: 3 folds on 80% of the samples, the other 20% predicted by every
  fold model (PLC's first round);
- ``3f-all``: 3 folds on every sample;
- ``5f-80``: 5 folds on 80%, the rest predicted by every fold model;
- ``5f-all``: 5 folds on every sample (cleanlab's own).

Besides accuracy, each records the removal's precision and recall against the
clean labels.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/detection.py run OUT.json SET
    python benchmarks/studies/detection.py summary LOG.json...

SET: ``dev`` (the memorising models of the dev cells, seeds 100-102),
``unseen`` or ``fresh``.
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

VARIANTS = ("3f-80", "3f-all", "5f-80", "5f-all")
SEEDS = (100, 101, 102)
VALIDATION_FRACTION = 0.2


def held_out_proba(make, X, y, n_folds, fraction, seed):
    """Out-of-fold probabilities; a set-aside `fraction` predicted by every fold.

    The library's :func:`~sklearn_plc._out_of_fold.out_of_fold_proba` on
    stratified folds of the samples not set aside.
    """
    from sklearn.model_selection import StratifiedKFold, train_test_split

    from sklearn_plc._out_of_fold import out_of_fold_proba

    rng = np.random.RandomState(seed)
    classes, encoded = np.unique(y, return_inverse=True)
    training = np.arange(y.shape[0])
    validation = None
    if fraction:
        training, validation = train_test_split(
            training, test_size=fraction, stratify=y, random_state=rng.randint(2**31)
        )
    folds = StratifiedKFold(n_folds, shuffle=True, random_state=rng.randint(2**31))
    splits = [
        (training[fit], training[test])
        for fit, test in folds.split(training, y[training])
    ]
    proba, _ = out_of_fold_proba(
        make(),
        X,
        encoded,
        splits,
        classes,
        fit_params={},
        n_jobs=None,
        validation=validation,
    )
    return proba


def run_job(dataset, model, noise, seed, check):
    from cleanlab.filter import find_label_issues

    drawn = memorising_cell(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X, _, y_clean, _, y, make), row, score = drawn
    X = np.asarray(X)
    encoded = np.searchsorted(np.unique(y), y)
    wrong = y != y_clean
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for variant in VARIANTS:
            n_folds = int(variant[0])
            fraction = VALIDATION_FRACTION if variant.endswith("80") else 0.0
            proba = held_out_proba(make, X, y, n_folds, fraction, seed)
            flagged = find_label_issues(encoded, proba, n_jobs=1)
            kept = np.flatnonzero(~flagged)
            row[variant] = {
                "acc": score(make().fit(X[kept], y[kept])),
                "removed": int(flagged.sum()),
                "precision": float(wrong[flagged].mean()) if flagged.any() else 0.0,
                "recall": float(flagged[wrong].mean()) if wrong.any() else 0.0,
            }
    return row


def summary(*paths):
    cells, methods, gains = cell_gains(paths, VARIANTS)

    def describe(runs):
        return [
            "/".join(
                f"{np.mean([r[v]['precision'] for r in runs]):.2f}" for v in VARIANTS
            ),
            "/".join(
                f"{np.mean([r[v]['recall'] for r in runs]):.2f}" for v in VARIANTS
            ),
        ]

    columns = [("precision", "---:"), ("recall", "---:")]
    print_cell_table(cells, gains, methods, columns, describe)
    rows = [r for runs in cells.values() for r in runs]
    for v in VARIANTS:
        print(
            f"{v}: precision {np.mean([r[v]['precision'] for r in rows]):.3f}, "
            f"recall {np.mean([r[v]['recall'] for r in rows]):.3f}"
        )


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS), summary)
