"""A refused run's disagreements: the model's own confusions, or random labels?

Question (issue "Ahead of cleanlab", the refusal; follows ``noise_type_probe.py``):
where PLC refuses a model too weak to judge, removal gains under uniform noise
and loses under PMD noise, and the fixed-bar statistics of the probe overlap
across models and class counts. This study records the first round's held-out
probabilities of every refused run (``--dump DIR``, one ``.npz`` a run, not
committed) beside ``weak_removal.py``'s removal variants, so that statistics
calibrated by the model's own probabilities can be compared offline.

The statistic: each disputed sample's given label (not the model's top class)
is read as a draw from a mixture of two sources, the model's own confusion
(the label's share of the probability the model puts outside its top class)
and a label drawn at random among the other ``n_classes - 1`` classes.
The library's ``_random_labels.random_label_posterior`` fits the mixture's
weight by expectation-maximisation and gives each dispute's posterior of being
a random draw. In two classes the two sources are the same, and nothing is
read. The logged refits used this study's earlier copy of the mixture, which
ran 200 steps without a tolerance: 3 dev runs' sets differ from a rerun by 1
or 2 samples, and some logged shares in the third decimal.

``refit`` fits, for every dumped run, a final model without the disputes more
likely random than confused (``random``: posterior above ½), and without those
that are also sure disputes (``random-sure``), scored on the clean test labels.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/noise_mixture.py run OUT.json dev|unseen DUMP_DIR
    python benchmarks/studies/noise_mixture.py refit OUT.json dev|unseen DUMP_DIR
    python benchmarks/studies/noise_mixture.py summary LIB_LOG.json REFIT_LOG.json
    python benchmarks/studies/noise_mixture.py confirm OUT.json dev|unseen DUMP_DIR
    python benchmarks/studies/noise_mixture.py confirmed LIB_LOG.json OUT.json

``confirm`` runs the library as it is on every dumped run (the runs that the
library before the rule refused), or with ``trees`` for DUMP_DIR on every run
of a tree ensemble (the second check, ``fresh``, has no dumps); ``confirmed``
merges those rows into the earlier library log's and prints the headline and
the cells that moved.
"""

import os
import sys

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies import weak_removal
from benchmarks.studies.common import (
    RUN_KEY,
    drawn_with_purity,
    recorded_library_run,
    run_and_dump,
)
from sklearn_plc._random_labels import probability_resolution, random_label_posterior

VARIANTS = ("random", "random-sure", "random-coarse")


def more_random_than_confused(proba, labels, smoothing):
    """The disputes whose posterior of a random label is above ½.

    The study's variants read the library's mixture
    (:func:`sklearn_plc._random_labels.random_label_posterior`) without the
    shipped rule's second condition (a label less likely confused than
    random), at a given smoothing.
    """
    random = np.zeros(labels.shape[0], dtype=bool)
    if proba.shape[1] < 3:  # the two sources are the same: nothing is read
        return random
    _, disputed, posterior = random_label_posterior(proba, labels, smoothing)
    random[np.flatnonzero(disputed)[posterior > 0.5]] = True
    return random


def random_sets(proba, labels):
    """Each variant's samples to leave out (:data:`VARIANTS`).

    ``random``: smoothed by 0.001; ``random-coarse``: by the probabilities'
    resolution (:func:`sklearn_plc._random_labels.probability_resolution`).
    """
    from sklearn_plc._judge import sure_ratio_for
    from sklearn_plc.correction import confidence_ratio

    random = more_random_than_confused(proba, labels, 1e-3)
    sure = confidence_ratio(proba, labels) <= sure_ratio_for(proba.shape[1])
    coarse = more_random_than_confused(proba, labels, probability_resolution(proba))
    return {"random": random, "random-sure": random & sure, "random-coarse": coarse}


def refit_job(dataset, model, noise, seed, check, dump_dir):
    key = {"dataset": dataset, "model": model, "noise": noise, "seed": seed}
    path = os.path.join(dump_dir, dump_name(key))
    if not os.path.exists(path):
        return None
    dumped = np.load(path)
    proba, labels = dumped["proba"].astype(float), dumped["labels"]
    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    (X_train, _, y_noisy, make), row, score = drawn
    wrong = dumped["truth"] != labels
    row["share"] = (
        random_label_posterior(proba, labels, 1e-3)[0] if proba.shape[1] > 2 else 0.0
    )
    row.update(
        weak_removal.scored_without(
            random_sets(proba, labels),
            labels,
            wrong,
            lambda kept: score(make().fit(X_train[kept], y_noisy[kept])),
            None,  # nothing left out: the library's run (filled by summary)
        )
    )
    return row


def summary(lib_log, refit_log):
    """``weak_removal.summarise`` of the variants, the library's log elsewhere."""
    by_key = {
        tuple(row[key] for key in RUN_KEY): row
        for row in weak_removal.logged_rows(lib_log)
    }
    for row in weak_removal.logged_rows(refit_log):
        lib = by_key[tuple(row[key] for key in RUN_KEY)]
        for name in VARIANTS:
            if row[name]["acc"] is None:
                row[name]["acc"] = lib["lib"]["acc"]
        lib.update({name: row[name] for name in VARIANTS})
    weak_removal.summarise(
        list(by_key.values()), VARIANTS, "refused with three or more classes"
    )


# The models the rule can change (those that memorise every label they dispute)
TREE_MODELS = ("random-forest", "extra-trees", "bagged-trees", "gradient-boosting")


def confirm_job(dataset, model, noise, seed, check, dump_dir):
    key = {"dataset": dataset, "model": model, "noise": noise, "seed": seed}
    if dump_dir == "trees":
        if model not in TREE_MODELS:
            return None
    elif not os.path.exists(os.path.join(dump_dir, dump_name(key))):
        return None
    recorded = recorded_library_run(dataset, model, noise, seed, check)
    _, row, _, seen = recorded
    evidence = seen["run"].memorisation or {}
    row["rate"] = evidence.get("rate")
    row["share"] = evidence.get("random_label_share")
    return row


def confirmed(lib_log, confirm_log):
    """The library log with the confirmed runs in place: headline, moved cells."""
    before = {
        tuple(row[key] for key in RUN_KEY): row
        for row in weak_removal.logged_rows(lib_log)
    }
    after = dict(before)
    for row in weak_removal.logged_rows(confirm_log):
        after[tuple(row[key] for key in RUN_KEY)] = row
    first = None
    for name, rows in (("before", before), ("after", after)):
        gains, ahead = weak_removal.cell_gains(list(rows.values()))
        values = np.array(list(gains.values()))
        print(
            f"{name}: {len(values)} cells, mean {values.mean():+.2f}, "
            f"within 0.5 {(values >= -0.5).sum()}, ≥ cleanlab {ahead}"
        )
        first = first or gains
    for cell in sorted(gains):
        if abs(gains[cell] - first[cell]) > 0.005:  # the logs keep 4 decimals
            print(f"  {' '.join(cell)}: {first[cell]:+.2f} -> {gains[cell]:+.2f}")


def dump_name(row):
    return "_".join(str(row[key]) for key in RUN_KEY) + ".npz"


def run_job(dataset, model, noise, seed, check, dump_dir):
    seen_runs = []
    original = weak_removal.recorded_library_run

    def recording(*args):
        recorded = original(*args)
        seen_runs.append(recorded)
        return recorded

    weak_removal.recorded_library_run = recording
    try:
        row = weak_removal.run_job(dataset, model, noise, seed, check)
    finally:
        weak_removal.recorded_library_run = original
    if row is None or row["lib"]["termination"] not in weak_removal.REFUSED:
        return row
    (_, y_train, _, _), _, _, seen = seen_runs[0]
    if "first_proba" in seen:
        classes = seen["run"].classes
        np.savez_compressed(
            os.path.join(dump_dir, dump_name(row)),
            proba=seen["first_proba"],
            labels=seen["corrector"].initial_labels,
            truth=np.searchsorted(classes, y_train),
        )
    return row


if __name__ == "__main__":
    command, path, *what = sys.argv[1:]
    if command == "run":
        which, dump_dir = what
        os.makedirs(dump_dir, exist_ok=True)
        found = [(*job, dump_dir) for job in weak_removal.jobs(which)]
        run_and_dump(run_job, found, path)
    elif command == "refit":
        which, dump_dir = what
        found = [(*job, dump_dir) for job in weak_removal.jobs(which)]
        run_and_dump(refit_job, found, path)
    elif command == "confirm":
        which, dump_dir = what
        found = [(*job, dump_dir) for job in weak_removal.jobs(which)]
        run_and_dump(confirm_job, found, path)
    elif command == "confirmed":
        confirmed(path, *what)
    elif command == "summary":
        summary(path, *what)
    else:
        raise SystemExit(__doc__)
