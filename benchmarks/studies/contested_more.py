"""Contested corrections: more held-out estimates than two?

Question (issue "Ahead of cleanlab"; ``contested_first.py``): where the judge
contests a run's corrections, confident learning now reads the mean of two
held-out estimates of the labels as given: the first round's folds and ``cv``
(three) new folds. That mean left out fewer samples at a higher precision on
dev and on both checks than the new folds alone: the two partitions' models
disagree where one of them was unsure. Would more estimates help more, and is
it the number of partitions or the size of the folds' training sets? Each
variant costs fits that a contested run does not make now, against a cost
target that the tables miss and the unseen check meets with little room
(1.39 of 1.5 times cleanlab's).

Each run that the library ends contested is rerun with the library, recording
the first round's and the new folds' probabilities and the seeded estimator;
then more folds on the labels as given are fitted, on partitions drawn from a
generator seeded by the run's seed, and the final model is fitted again, as
the library fits it (the labels as given, every class kept), without
confident learning's flags on:

- ``cl-avg``: the mean of the first round's and the new folds' (the library;
  the refit must reproduce its accuracy);
- ``cl-avg5``: the first round's and five new folds' (two fits more: each
  fold model trains on four fifths of the samples, as cleanlab's);
- ``cl-avg3x2``: the first round's, the new folds' and three more new folds'
  (three fits more: a third partition);
- ``cl-3x2``: the two new partitions' alone (the cost of ``cl-avg3x2``,
  without the first round's folds, which trained on the four fifths the judge
  leaves);
- ``cl-avg2``: the first round's and *two* new folds' in place of the
  library's three (one fit fewer; each fold model trains on half the
  samples);
- ``cl-avg2x2``: the first round's and two new partitions of two folds each
  (one fit more than the library: three estimates).

The seconds spent on the extra folds (``extra_s_five``, ``extra_s_three``,
``extra_s_two``, ``extra_s_two_more``) and
on the library's contested ending (``contest_s``) are logged beside the
library's fit (``lib["s"]``), so that each variant's cost can be projected.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/contested_more.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/contested_more.py summary LOG.json...
    python benchmarks/studies/contested_more.py cells dev|unseen LOG.json
"""

import sys
import time
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies import contested_first
from benchmarks.studies.common import (
    jobs_run,
    load_rows,
    run_or_summarise,
)

VARIANTS = ("cl-avg", "cl-avg5", "cl-avg3x2", "cl-3x2", "cl-avg2", "cl-avg2x2")


def _projected_seconds(row, variant):
    """The run's seconds had the library fitted `variant`'s folds.

    ``cl-avg5``, ``cl-avg2`` and ``cl-avg2x2`` fit their new folds in place of
    the library's three (the contested ending's seconds, ``contest_s``); the
    others fit three more.
    """
    without_new = row["lib"]["s"] - row["contest_s"]
    if variant == "cl-avg5":
        return without_new + row["extra_s_five"]
    if variant == "cl-avg2":
        return without_new + row["extra_s_two"]
    if variant == "cl-avg2x2":
        return without_new + row["extra_s_two"] + row["extra_s_two_more"]
    return row["lib"]["s"] + row["extra_s_three"]


def _more_folds(estimator, X, given, classes, n_folds, seed):
    """Held-out probabilities of a new `n_folds`-fold partition, and its seconds."""
    from sklearn_plc._out_of_fold import make_splits, out_of_fold_proba

    start = time.perf_counter()
    splits = make_splits(n_folds, X, given, np.random.RandomState(seed), None)
    proba, _ = out_of_fold_proba(
        estimator, X, given, splits, classes, fit_params={}, n_jobs=None
    )
    return np.asarray(proba, dtype=float), time.perf_counter() - start


def _variants(drawn, row, estimator, new, first):
    X_train, _, run, given = drawn
    seed = row["seed"]

    def more_folds(n_folds, offset):
        return _more_folds(
            estimator, X_train, given, run.classes, n_folds, seed + offset
        )

    five, row["extra_s_five"] = more_folds(5, 5000)
    third, row["extra_s_three"] = more_folds(3, 3000)
    two, row["extra_s_two"] = more_folds(2, 2000)
    two_more, row["extra_s_two_more"] = more_folds(2, 2001)
    return {
        "cl-avg": (first + new) / 2,
        "cl-avg5": (first + five) / 2,
        "cl-avg3x2": (first + new + third) / 3,
        "cl-3x2": (new + third) / 2,
        "cl-avg2": (first + two) / 2,
        "cl-avg2x2": (first + two + two_more) / 3,
    }


def run_job(dataset, model, noise, seed, check):
    return contested_first.refitted_variants(
        (dataset, model, noise, seed, check), _variants
    )


def _accuracies(rows, variant):
    if variant == "cleanlab":
        return np.array([row["cleanlab"] for row in rows])
    return np.array([row[variant]["acc"] for row in rows])


def _variant_line(rows, variant):
    """One variant's figures over the contested runs of a log."""
    accuracy = _accuracies(rows, variant)
    library = _accuracies(rows, "cl-avg")
    standard = np.array([row["std"] for row in rows])
    over = 100 * (accuracy - library)
    line = (
        f"  {variant:10s} {100 * np.mean(accuracy - standard):+.2f} over Standard; "
        f"over cl-avg {over.mean():+.2f} ({(over > 0).sum()} better, "
        f"{(over < 0).sum()} worse)"
    )
    if variant == "cleanlab":
        return line
    n = sum(row[variant]["n"] for row in rows)
    wrong = sum(row[variant]["wrong"] for row in rows)
    line += f"; left out {n / len(rows):.0f} a run, precision {wrong / max(n, 1):.2f}"
    if variant != "cl-avg":
        cost = [_projected_seconds(row, variant) / row["lib"]["s"] for row in rows]
        line += f"; run time x{np.median(cost):.2f}"
    return line


def summary(*paths):
    """Per log: each variant a contested run over the library, and its cost."""
    for path in paths:
        rows = [row for row in load_rows(path) if "cl-avg" in row]
        reproduced = sum(
            abs(row["cl-avg"]["acc"] - row["lib"]["acc"]) < 1e-9 for row in rows
        )
        print(
            f"{path}: {len(rows)} contested runs; cl-avg reproduces the library "
            f"in {reproduced}"
        )
        for variant in (*VARIANTS, "cleanlab"):
            print(_variant_line(rows, variant))
        by_model = defaultdict(list)
        for row in rows:
            name = row["model"] if row["model"] != "base" else row["dataset"]
            by_model[name].append(row)
        for name, runs in sorted(by_model.items()):
            library = _accuracies(runs, "cl-avg")
            gains = (
                f"{v} {100 * np.mean(_accuracies(runs, v) - library):+.2f}"
                for v in VARIANTS[1:]
            )
            print(f"    {name}: {len(runs)} runs, " + ", ".join(gains))


def cells(what, path):
    """Cell figures of ``dev`` or ``unseen`` with each variant in its contested runs."""
    contested_first.cells(what, path, VARIANTS)


if __name__ == "__main__":
    run_or_summarise(
        __doc__, jobs_run(run_job, contested_first.jobs), summary, cells=cells
    )
