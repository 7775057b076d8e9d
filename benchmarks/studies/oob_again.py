"""Out-of-bag confidence again, with today's guards: a dev probe for the cost target.

Question (issue "Ahead of cleanlab", cost): ``confidence="oob"`` fits a bagging
ensemble once a round instead of ``cv`` fold models, and was left an option when
PLC had neither the held-out judge nor the weighed final fit ("Out-of-bag
confidence for bagging ensembles" in the development record: about half the cost,
a point less on small ensembles). Does that still hold? Every dev job whose model
can score its out-of-bag samples (a random forest, bagged trees, the tables'
forests; :func:`~sklearn_plc._out_of_fold.supports_out_of_bag`) runs the library's
defaults (``cv``) and ``confidence="oob"``, one after the other in the same job so
the costs compare.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/oob_again.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/oob_again.py summary LOG.json...
"""

import sys
import warnings
from collections import defaultdict

import numpy as np
from sklearn.base import clone

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    fit_plc_row,
    load_rows,
    noisy_cell,
    patched,
    print_corrected_cost,
    print_gains_by_model,
    run_and_dump,
    run_or_summarise,
    study_jobs,
    unseen_cell,
    with_standard_and_cleanlab,
)
from sklearn_plc._refit_run import LABELS_KEPT as KEPT

SEEDS = (100, 101, 102)
VARIANTS = {"cv": {}, "oob": {"confidence": "oob"}, "oob-reseed": {"confidence": "oob"}}


def run_job(dataset, model, noise, seed, check):
    from sklearn_plc._out_of_fold import supports_out_of_bag

    warnings.simplefilter("ignore")
    cell = (unseen_cell if check else noisy_cell)(dataset, model, noise, seed)
    if cell is None or not supports_out_of_bag(cell[-1]()):
        return None  # before Standard and cleanlab are fitted for nothing
    drawn = with_standard_and_cleanlab(dataset, model, noise, seed, check)
    (X_train, _, y_train, _, y_noisy, make), row, score = drawn
    y_noisy = np.asarray(y_noisy)
    from sklearn_plc import _refit_run

    for variant, params in VARIANTS.items():
        patch = {}
        if variant == "oob-reseed":
            patch["out_of_bag_proba"] = reseeded(_refit_run.out_of_bag_proba)
        with patched(_refit_run, **patch):
            row[variant] = fit_plc_row(
                make, X_train, y_noisy, seed, y_train, score, **params
            )
    return row


def reseeded(out_of_bag_proba):
    """`out_of_bag_proba` with the ensemble's seed drawn from the labels it fits.

    A fixed ``random_state`` gives every round the same bootstrap samples, so
    the same members judge a sample in every round and the window averages one
    out-of-bag vote again and again. Seeding each round's ensemble from its
    labels (a refit happens only when they changed) makes the rounds' votes
    come from other members, and keeps each run reproducible.
    """
    import zlib

    def reseeded_proba(estimator, X, labels, classes, **kwargs):
        seed = zlib.crc32(np.ascontiguousarray(labels).tobytes())
        estimator = clone(estimator).set_params(random_state=seed)
        return out_of_bag_proba(estimator, X, labels, classes, **kwargs)

    return reseeded_proba


def run(out, what, variants=()):
    run_and_dump(run_job, study_jobs(what, SEEDS), out)


def summary(*paths):
    cells = defaultdict(list)
    for path in paths:
        for row in load_rows(path):
            cells[(row["dataset"], row["model"], row["noise"])].append(row)
    logged = [v for v in VARIANTS if all(v in r for rs in cells.values() for r in rs)]
    for variant in (*logged, "cleanlab"):
        gains = []
        for runs in cells.values():
            accuracy = [
                run["cleanlab"] if variant == "cleanlab" else run[variant]["acc"]
                for run in runs
            ]
            gains.append(100 * np.mean(np.array(accuracy) - [r["std"] for r in runs]))
        gains = np.array(gains)
        print(
            f"{variant}: {len(gains)} cells, mean {gains.mean():+.2f}, within 0.5 "
            f"{(gains >= -0.5).sum()}, worst {gains.min():+.1f}"
        )
    print_gains_by_model(cells, logged)
    print_corrected_cost(
        cells, logged, lambda row: row["cv"]["termination"] not in KEPT
    )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
