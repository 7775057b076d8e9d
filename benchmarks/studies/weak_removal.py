"""A model too weak to judge: can it still spot labels that are implausible to it?

Question (issue "Ahead of cleanlab", the refusal): PLC keeps the labels of a
model too weak to judge (its held-out sure disputes outnumber its agreements),
because its disputes are its own errors as often as the labels'. Cleanlab then
often gains a little under uniform noise and loses under feature-dependent
(PMD) noise. The mechanism suggests a finer signal: a weak model's own errors,
and PMD's flips, land on a class the model finds plausible (its runner-up),
while a label drawn at random, as uniform noise draws it, usually lands on a
class the model finds implausible. So among the first round's held-out
disputes, those whose given label is far down the model's ranking are more
likely wrong labels than model errors, whatever the model's accuracy.

Each run fits PLC with the library's defaults; where it ends
``too_weak_to_judge`` (or ``not_memorising``), the first round's held-out
probabilities of every sample are read (out of fold or out of bag; the judged
fifth's from the same fold models), and a final model is fitted on every sample
but those of each candidate set, scored on the clean test labels:

- ``cl``: confident learning's flags (``evidence.confident_label_issues``);
- ``sure``: PLC's sure disputes (the label's probability at most the sure
  ratio of the top class's: ½, a third in two classes);
- ``far``: the sure disputes whose given label is not among the model's top
  two classes (``far-3``: not among its top three);
- ``below-chance``: the disputes whose given label's probability is below
  ``1 / n_classes``, the chance level of a model that knows nothing;
- ``cl-far``: confident learning's flags whose label is not in the top two.

The dev set is the dev protocol's cells plus the weak 20-class set with the
tree ensembles and 5-NN (``weak20-dev``: the refusal's own case, with the
models of the unseen check's refused ``many-20`` runs), seeds 100-102.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/weak_removal.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/weak_removal.py summary [UNSEEN_LOG] LOG.json...

On the unseen check only the runs that its full log (``UNSEEN_LOG``) ends
refused are refitted; give that log first to ``summary`` for the others.
"""

import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    RUN_KEY,
    STUDIES_DIR,
    jobs_run,
    recorded_library_run,
    run_or_summarise,
    study_jobs,
)

SEEDS = (100, 101, 102)
# the unseen check's full run at HEAD: its runs stand in for those not refitted
UNSEEN_LOG = STUDIES_DIR + "unseen_2026-11-27.json"
REFUSED = ("too_weak_to_judge", "not_memorising")
CANDIDATES = ("cl", "sure", "far", "far-3", "below-chance", "cl-far")
# the weak 20-class dev set with the models the unseen check refuses on many-20
EXTRA_DEV_MODELS = ("random-forest", "extra-trees", "bagged-trees", "5-nn")


def jobs(what):
    found = study_jobs(what, SEEDS)
    if what == "unseen":
        # only the runs that the check's log (the library at HEAD) ends refused
        refused = {
            tuple(row[key] for key in RUN_KEY)
            for row in logged_rows(UNSEEN_LOG)
            if row["lib"]["termination"] in REFUSED
        }
        return [job for job in found if job[:4] in refused]
    if what == "dev":
        found += [
            ("weak20-dev", model, noise, seed, False)
            for model in EXTRA_DEV_MODELS
            for noise in ("I-35", "III-35", "U30")
            for seed in SEEDS
        ]
    return found


def given_label_rank(proba, labels):
    """Each label's rank in the model's ordering of the classes: 1 = its top class.

    A class as likely as the label does not rank above it (a tie counts for
    the label).
    """
    given = proba[np.arange(labels.shape[0]), labels]
    return 1 + (proba > given[:, None]).sum(axis=1)


def candidate_sets(proba, labels):
    """Each candidate set (:data:`CANDIDATES`) on first-round probabilities."""
    from sklearn_plc._judge import sure_ratio_for
    from sklearn_plc.correction import confidence_ratio
    from sklearn_plc.evidence import confident_label_issues

    n_classes = proba.shape[1]
    given = proba[np.arange(labels.shape[0]), labels]
    rank = given_label_rank(proba, labels)
    disputed = rank > 1
    sure = confidence_ratio(proba, labels) <= sure_ratio_for(n_classes)
    flagged = confident_label_issues(proba, labels)
    return {
        "cl": flagged,
        "sure": sure,
        "far": sure & (rank > 2),
        "far-3": sure & (rank > 3),
        "below-chance": disputed & (given < 1.0 / n_classes),
        "cl-far": flagged & (rank > 2),
    }


def scored_without(sets, labels, wrong, score_without, nothing_left_out):
    """Each named set's entry: its size, its wrong labels, the accuracy without it.

    Each set keeps every class (``keep_every_class``); ``score_without(kept)``
    fits and scores on the `kept` samples (a mask), and a set that leaves
    nothing out takes `nothing_left_out`.
    """
    from sklearn_plc._final_fit import keep_every_class

    entries = {}
    for name, left_out in sets.items():
        left_out = keep_every_class(left_out, labels)
        entries[name] = {
            "n": int(left_out.sum()),
            "wrong": int((left_out & wrong).sum()),
            "acc": score_without(~left_out) if left_out.any() else nothing_left_out,
        }
    return entries


def run_job(dataset, model, noise, seed, check):
    recorded = recorded_library_run(dataset, model, noise, seed, check)
    if recorded is None:
        return None
    (X_train, y_train, y_noisy, make), row, score, seen = recorded
    corrector = seen.get("corrector")
    if row["lib"]["termination"] not in REFUSED or "first_proba" not in seen:
        return row
    labels, classes = corrector.initial_labels, seen["run"].classes
    wrong = classes[labels] != y_train
    row["n_wrong"] = int(wrong.sum())

    def score_without(kept):
        try:
            return score(make().fit(X_train[kept], y_noisy[kept]))
        except ValueError:
            return row["lib"]["acc"]

    sets = candidate_sets(seen["first_proba"], labels)
    row.update(scored_without(sets, labels, wrong, score_without, row["lib"]["acc"]))
    return row


def logged_rows(path):
    """A log's runs as this study's rows.

    A study log as it is; a ``benchmarks unseen`` log (a dict with ``runs``)
    as rows of the library only, the MLP aside.
    """
    import json

    with open(path) as file:
        logged = json.load(file)
    if not isinstance(logged, dict):
        return [row for row in logged if row is not None]
    runs = logged["runs"]
    return [
        {
            **{key: run[key] for key in RUN_KEY},
            "std": run["standard"],
            "cleanlab": run["cleanlab"],
            "lib": {"acc": run["plc"], "termination": run["termination"]},
        }
        for run in runs
        if run["model"] != "mlp"
    ]


def summary(*paths, candidates=CANDIDATES, runs_changed="refused"):
    """The study's figures; a ``benchmarks unseen`` log fills the runs not refitted.

    A later log's row replaces an earlier one's. `candidates` are the variants
    logged, and `runs_changed` names the runs they change, in the report.
    """
    by_key = {}
    for path in paths:
        for row in logged_rows(path):
            by_key[tuple(row[key] for key in RUN_KEY)] = row
    summarise(list(by_key.values()), candidates, runs_changed)


def summarise(rows, candidates=CANDIDATES, runs_changed="refused"):
    """:func:`summary`'s report on the rows of every run (a variant's or not)."""
    refused = [row for row in rows if any(c in row for c in candidates)]
    print(f"{len(rows)} runs, {len(refused)} {runs_changed}")
    for group_key in ("noise", "model", "dataset"):
        groups = defaultdict(list)
        for row in refused:
            groups[row[group_key]].append(row)
        print(f"\nby {group_key} (after − library a run, points; precision):")
        for name, runs in sorted(groups.items()):
            cleanlab = _mean_gain(runs, "cleanlab")
            parts = [f"{len(runs)} runs", f"cleanlab {cleanlab:+.2f}"]
            for candidate in candidates:
                gain = _mean_gain(runs, candidate)
                n = sum(r[candidate]["n"] for r in runs)
                wrong = sum(r[candidate]["wrong"] for r in runs)
                precision = wrong / n if n else float("nan")
                parts.append(f"{candidate} {gain:+.2f} ({precision:.2f})")
            print(f"  {name}: " + ", ".join(parts))
    print(
        f"\nper cell, variant applied to its {runs_changed} runs (library elsewhere):"
    )
    for candidate in ("lib", *candidates):
        gains, ahead = cell_gains(rows, candidate)
        values = list(gains.values())
        within = sum(g >= -0.5 for g in values)
        print(
            f"  {candidate}: {len(values)} cells, mean {np.mean(values):+.2f}, "
            f"within 0.5 {within}, >= cleanlab {ahead}, worst {min(values):+.1f}"
        )


def cell_gains(rows, variant="lib"):
    """Per cell, `variant`'s mean gain over Standard in points; cells ≥ cleanlab."""
    cells = defaultdict(list)
    for row in rows:
        cells[(row["dataset"], row["model"], row["noise"])].append(row)
    gains, ahead = {}, 0
    for cell, runs in cells.items():
        acc = np.mean([_acc(r, variant) for r in runs])
        gains[cell] = 100 * (acc - np.mean([r["std"] for r in runs]))
        ahead += acc >= np.mean([r["cleanlab"] for r in runs])
    return gains, ahead


def _acc(row, variant):
    if variant in row:
        return row[variant]["acc"] if isinstance(row[variant], dict) else row[variant]
    return row["lib"]["acc"]


def _mean_gain(runs, variant):
    return 100 * np.mean([_acc(r, variant) - r["lib"]["acc"] for r in runs])


if __name__ == "__main__":
    run_or_summarise(__doc__, jobs_run(run_job, jobs), summary)
