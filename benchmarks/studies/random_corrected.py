"""Where PLC corrects a memorising model, leave out the labels drawn at random.

Question (issue "Ahead of cleanlab"): on the unseen check cleanlab's largest
leads over a corrected run are tree ensembles under uniform noise (extra trees
on hard-4 U30: PLC +2.27, cleanlab +7.02). A label drawn at random from the
other classes carries no trace of the right class, and where the model is
often wrong itself, relabelling it to the model's top class is a guess, while
leaving it out needs only the knowledge that it is wrong. Under
feature-dependent (PMD) noise the wrong labels follow the model's own
confusion, and there relabelling is the better action. The mixture that the
library reads for a model too weak to judge (``sklearn_plc._random_labels``:
each first-round dispute as a draw from the model's confusion or at random)
separates the two kinds model by model, so this study applies it to corrected
runs as well.

Each corrected run of a memorising model (``converged`` or ``max_iter``, a
weighed final fit) is refitted with the library's defaults; then final models
are fitted as the library's is (every relabel on both its labels, by the same
weights), but without:

- ``random-all``: the samples whose given label the mixture on the first
  round's held-out probabilities spots as drawn at random;
- ``random-flipped``: those of them that the run relabelled (removal instead
  of a relabel);
- ``random-unflipped``: those of them that it did not relabel.

A run that the held-out judge undid (``undone``) trains its final model on the
labels as given; there ``random-all`` leaves the spotted samples out of that
fit (the rule that a model too weak to judge follows). A probe, not the rule
shipped: where the corrections were contested (``corrections_contested``),
``random-all`` leaves the spotted samples out with confident learning's
disputes (``run OUT SET corrections_contested``; logs
``random_contested_{dev,unseen,fresh}.json``).

Each row also logs the fitted share of random labels among the first round's
disputes (``share``). Only the memorising models' corrected runs can change;
the other runs are read from a log of the same library (dev:
``weak_removal_dev.json``; unseen: ``unseen_2026-11-27.json``; the second
check, ``fresh``, its tree ensembles and boosting only:
``noise_mixture_confirm_fresh.json``).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/random_corrected.py run OUT dev|unseen|fresh [END...]
    python benchmarks/studies/random_corrected.py summary BASE_LOG... LOG.json...

Logs: ``random_corrected_{dev,unseen,fresh}.json`` (the corrected runs; on
the second check the undone ones too) and
``random_corrected_{dev,unseen}_undone.json`` (``run OUT.json dev undone``).
For dev, give the base logs ``weak_removal_dev.json`` and
``noise_mixture_confirm_dev.json`` first (the library's too-weak rule); for
the unseen check ``unseen_2026-11-27.json`` and
``noise_mixture_confirm_unseen.json``; for the second check
``noise_mixture_confirm_fresh.json``.
"""

import sys

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies import unflipped_aside, weak_removal
from benchmarks.studies.common import (
    RUN_KEY,
    STUDIES_DIR,
    recorded_library_run,
    run_and_dump,
    run_or_summarise,
)

VARIANTS = ("random-all", "random-flipped", "random-unflipped")
CHANGED = (*unflipped_aside.CORRECTED, "undone")
# a probe, not the shipped rule: a contested run's final fit with the random
# labels left out too (``run OUT dev corrections_contested``)
PROBED = ("corrections_contested",)
BASE_LOGS = {
    **unflipped_aside.BASE_LOGS,
    "fresh": STUDIES_DIR + "noise_mixture_confirm_fresh.json",
}


def jobs(what, endings=CHANGED):
    """The memorising models' runs of the base log that end in `endings`."""
    return unflipped_aside.jobs(what, endings, BASE_LOGS)


def random_sets(first_proba, labels, given, fixed=None):
    """Each variant's set (:data:`VARIANTS`), and the fitted share of random labels."""
    from sklearn_plc._random_labels import random_labels

    spotted, share = random_labels(np.asarray(first_proba, dtype=float), given)
    if fixed is not None:
        spotted &= ~fixed
    flipped = labels != given
    return {
        "random-all": spotted,
        "random-flipped": spotted & flipped,
        "random-unflipped": spotted & ~flipped,
    }, share


def run_job(dataset, model, noise, seed, check):
    recorded = recorded_library_run(dataset, model, noise, seed, check)
    if recorded is None:
        return None
    (X_train, y_train, _, make), row, score, seen = recorded
    run = seen.get("run")
    termination = row["lib"]["termination"]
    if (
        termination not in (*CHANGED, *PROBED)
        or run is None
        or "first_proba" not in seen
    ):
        return row
    corrector = seen["corrector"]
    labels, given = corrector.labels, corrector.initial_labels
    wrong = run.classes[given] != y_train  # the given label is wrong
    sets, share = random_sets(seen["first_proba"], labels, given, corrector.fixed)
    row["share"] = None if share is None else float(share)
    row["rate"] = run.memorisation.get("rate") if run.memorisation else None
    if termination in ("undone", "corrections_contested"):
        # the final fit trains on the labels as given (contested: without
        # confident learning's disputes, which the random labels join)
        contested = seen["ended"][2] if termination != "undone" else None
        spotted = sets["random-all"]
        if contested is not None:
            spotted = spotted | contested

        def score_given_without(kept):
            if contested is not None and not (~contested & ~kept).any():
                return row["lib"]["acc"]  # nothing left out beyond the library's
            return score(make().fit(X_train[kept], run.classes[given[kept]]))

        row.update(
            weak_removal.scored_without(
                {"random-all": spotted},
                labels,
                wrong,
                score_given_without,
                row["lib"]["acc"],
            )
        )
        # nothing was relabelled: every spotted sample is unflipped
        row["random-unflipped"] = row["random-all"]
        row["random-flipped"] = {"n": 0, "wrong": 0, "acc": row["lib"]["acc"]}
        return row
    if run.weight_key is None:
        return row
    score_without = unflipped_aside.weighed_scorer(make, X_train, run, corrector, score)
    row.update(
        weak_removal.scored_without(
            sets, labels, wrong, score_without, row["lib"]["acc"]
        )
    )
    return row


def summary(*paths):
    """The variants on every logged run, then ``random-all`` as shipped.

    A later log's row replaces an earlier one's (give the base logs first). As
    shipped, the rule applies only where the memorisation rate reaches
    ``_ending.RANDOM_LABELS_MIN_MEMORISATION`` (the dev set's wine runs are a
    logistic regression below it).
    """
    from sklearn_plc._ending import RANDOM_LABELS_MIN_MEMORISATION

    weak_removal.summary(*paths, candidates=VARIANTS, runs_changed="changed")
    by_key = {}
    for path in paths:
        for row in weak_removal.logged_rows(path):
            by_key[tuple(row[key] for key in RUN_KEY)] = row
    rows = list(by_key.values())
    for row in rows:
        if (row.get("rate") or 0.0) < RANDOM_LABELS_MIN_MEMORISATION:
            for variant in VARIANTS:
                row.pop(variant, None)
    print(f"\nwith the memorisation bar ({RANDOM_LABELS_MIN_MEMORISATION}):")
    for variant in ("lib", "random-all"):
        gains, ahead = weak_removal.cell_gains(rows, variant)
        values = np.array(list(gains.values()))
        print(
            f"  {variant}: {len(values)} cells, mean {values.mean():+.2f}, "
            f"within 0.5 {(values >= -0.5).sum()}, >= cleanlab {ahead}"
        )


def run(out, what, endings=()):
    """Run the jobs of `what` whose base log ends in `endings` (the changed ones)."""
    run_and_dump(run_job, jobs(what, tuple(endings) or CHANGED), out)


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
