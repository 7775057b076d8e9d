"""Where PLC corrects, leave out the labels it still disputes but did not flip.

Question (issue "Ahead of cleanlab"): on dev as on the unseen check, cleanlab
leads PLC most often with the models that memorise every label, the tree
ensembles (dev: extra trees, random forest and gradient boosting ahead of
cleanlab in 3 of 12, 3 of 12 and 3 of 9 cells). A fully grown tree gives every
wrong label a region of its own; PLC's weighed final fit makes a doubtful
relabel neutral there (both labels at ``w`` and ``1 − w``), but a sample whose
label the model still disputes and that was not flipped (below the
threshold's confidence, stopped by ``runner_up_ratio``) keeps its label at full
weight, where cleanlab would remove it. Each corrected run (``converged`` or
``max_iter``, a weighed final fit) is refitted with the library's defaults; then
final models are fitted as the library's is (every relabel on both its labels,
by the same weights), but without:

- ``unflipped-disputed``: the unflipped samples whose top class on the last pass's
  probabilities is not their label;
- ``unflipped-sure``: the unflipped samples surely disputed there (the label's
  probability at most the sure ratio of the top class's);
- ``unflipped-cl``: the unflipped samples that confident learning flags on those
  probabilities against the current labels.

Only the memorising models' corrected runs can change (5-NN already leaves its
doubtful samples out); the other runs are read from a log of the same library
(dev: ``weak_removal_dev.json``; unseen: ``unseen_2026-11-27.json``).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/unflipped_aside.py run OUT.json dev|unseen
    python benchmarks/studies/unflipped_aside.py summary BASE_LOG LOG.json
"""

import sys

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies import weak_removal
from benchmarks.studies.common import (
    RUN_KEY,
    STUDIES_DIR,
    jobs_run,
    recorded_library_run,
    run_or_summarise,
    study_jobs,
)

VARIANTS = ("unflipped-disputed", "unflipped-sure", "unflipped-cl")
CORRECTED = ("converged", "max_iter")
MEMORISING = (
    "extra-trees",
    "random-forest",
    "bagged-trees",
    "gradient-boosting",
    "base",
)
BASE_LOGS = {
    "dev": STUDIES_DIR + "weak_removal_dev.json",
    "unseen": weak_removal.UNSEEN_LOG,
}


def jobs(what, endings=CORRECTED, base_logs=BASE_LOGS):
    """The memorising models' runs that end in `endings` in the base log."""
    chosen = {
        tuple(r[key] for key in RUN_KEY)
        for r in weak_removal.logged_rows(base_logs[what])
        if r["lib"]["termination"] in endings and r["model"] in MEMORISING
    }
    if what == "dev":
        found = weak_removal.jobs("dev")
    else:
        found = study_jobs(what, weak_removal.SEEDS)
    return [job for job in found if job[:4] in chosen]


def unflipped_sets(proba, labels, given):
    from sklearn_plc._judge import sure_ratio_for
    from sklearn_plc.correction import confidence_ratio
    from sklearn_plc.evidence import confident_label_issues

    unflipped = labels == given
    ratio = confidence_ratio(proba, labels)
    return {
        "unflipped-disputed": unflipped & (ratio < 1.0),
        "unflipped-sure": unflipped & (ratio <= sure_ratio_for(proba.shape[1])),
        "unflipped-cl": unflipped & confident_label_issues(proba, labels),
    }


def weighed_scorer(make, X_train, run, corrector, score):
    """``score_without(kept)``: the library's weighed final fit on `kept`, scored.

    Each relabel of the run's `corrector` on both its labels, by the weights
    the library gives them (the last pass's probabilities); `kept` a mask.
    """
    from sklearn_plc._final_fit import weighed_fit_on
    from sklearn_plc.correction import relabel_weights

    labels, given = corrector.labels, corrector.initial_labels
    weight = relabel_weights(corrector.pass_proba(), given, labels)

    def score_without(kept):
        fitted = weighed_fit_on(
            make(),
            X_train,
            labels,
            given,
            weight,
            np.flatnonzero(kept),
            run.classes,
            {},
            run.weight_key,
        )
        return score(fitted)

    return score_without


def run_job(dataset, model, noise, seed, check):
    recorded = recorded_library_run(dataset, model, noise, seed, check)
    if recorded is None:
        return None
    (X_train, y_train, _, make), row, score, seen = recorded
    run = seen.get("run")
    if (
        row["lib"]["termination"] not in CORRECTED
        or run is None
        or run.weight_key is None
    ):
        return row
    corrector = seen["corrector"]
    labels, given = corrector.labels, corrector.initial_labels
    proba = corrector.pass_proba()
    wrong = run.classes[labels] != y_train
    score_without = weighed_scorer(make, X_train, run, corrector, score)
    sets = unflipped_sets(proba, labels, given)
    row.update(
        weak_removal.scored_without(
            sets, labels, wrong, score_without, row["lib"]["acc"]
        )
    )
    return row


def summary(base_path, *paths):
    weak_removal.summary(
        base_path, *paths, candidates=VARIANTS, runs_changed="corrected"
    )


if __name__ == "__main__":
    run_or_summarise(__doc__, jobs_run(run_job, jobs), summary)
