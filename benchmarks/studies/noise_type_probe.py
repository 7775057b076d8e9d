"""Can a refused run tell uniform noise from feature-dependent noise?

Question (issue "Ahead of cleanlab", the refusal; follows ``weak_removal.py``):
where PLC refuses a model too weak to judge, leaving out the labels it finds
implausible gains under uniform noise and loses under PMD noise, and nothing in
the run was known to tell the two apart. Two statistics of the first round's
held-out probabilities, both from the mechanism (uniform noise spreads a wrong
label over every other class; PMD puts it on a class near the sample):

- ``flat``: the normalised entropy of the off-diagonal counts of confident
  learning's calibrated confident joint (1: every kind of disagreement equally
  common);
- ``rank``: among the disputed samples, the mean rank of the given label in the
  model's ordering, scaled to [0, 1] over the ranks 2 to ``n_classes`` (ties
  count for the label);
- ``follows``: how closely the disagreements follow the model's own ambiguity,
  whatever the number of classes: the correlation, over the pairs of classes
  ``(i, j)``, ``i != j``, between the confident joint's count of samples labelled
  ``i`` and confidently ``j`` and the probability the model puts on ``i`` over the
  samples it predicts as ``j``. PMD flips a label to a class the sample is near,
  which the model also finds likely there (high); uniform noise does not (low).

Each run fits PLC with the library's defaults and records both, on the hard and
weak dev sets (3, 4 and 20 classes), seeds 100-102; as a check, on the unseen
check's runs that its log ends refused (``weak_removal.jobs("unseen")``).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/noise_type_probe.py run OUT.json [dev|unseen]
    python benchmarks/studies/noise_type_probe.py summary LOG.json
"""

import json
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    recorded_library_run,
    run_and_dump,
)
from benchmarks.studies.weak_removal import REFUSED, given_label_rank, jobs

DATASETS = ("hard-dev", "hard4-dev", "weak20-dev")


def noise_type_statistics(proba, labels):
    """``(flat, rank, follows)`` of first-round held-out `proba` (module docstring)."""
    from cleanlab.count import compute_confident_joint

    n_classes = proba.shape[1]
    joint = np.asarray(compute_confident_joint(labels, proba, calibrate=True), float)
    off_diagonal = joint - np.diag(np.diag(joint))
    share = off_diagonal[off_diagonal > 0] / off_diagonal.sum()
    flat = float(-(share * np.log(share)).sum() / np.log(n_classes * (n_classes - 1)))
    rank = given_label_rank(proba, labels)
    disputed = rank > 1
    scaled = (rank[disputed] - 2) / max(n_classes - 2, 1)
    predicted = proba.argmax(axis=1)
    ambiguity = np.zeros((n_classes, n_classes))
    np.add.at(ambiguity, predicted, proba)  # row j: predicted j, mass on each class
    pairs = ~np.eye(n_classes, dtype=bool)
    follows = np.corrcoef(off_diagonal[pairs], ambiguity.T[pairs])[0, 1]
    return (
        flat,
        float(scaled.mean()) if disputed.any() else 0.0,
        float(follows),
    )


def run_job(dataset, model, noise, seed, check):
    recorded = recorded_library_run(dataset, model, noise, seed, check)
    if recorded is None:
        return None
    _, row, _, seen = recorded
    if "first_proba" in seen:
        labels = seen["corrector"].initial_labels
        row["flat"], row["rank"], row["follows"] = noise_type_statistics(
            seen["first_proba"], labels
        )
    return row


def summary(path):
    with open(path) as file:
        rows = [row for row in json.load(file) if row and "flat" in row]
    groups = defaultdict(list)
    for row in rows:
        uniform = "uniform" if row["noise"] == "U30" else "PMD"
        groups[(row["dataset"], uniform)].append(row)
    print("range over the runs (min to max), per set and noise kind:")
    for (dataset, kind), runs in sorted(groups.items()):
        refused = sum(r["lib"]["termination"] in REFUSED for r in runs)
        flat = [r["flat"] for r in runs]
        rank = [r["rank"] for r in runs]
        follows = [r.get("follows", np.nan) for r in runs]
        print(
            f"  {dataset} {kind} ({len(runs)} runs, {refused} refused): "
            f"flat {min(flat):.3f} to {max(flat):.3f}, "
            f"rank {min(rank):.2f} to {max(rank):.2f}, "
            f"follows {min(follows):.2f} to {max(follows):.2f}"
        )


if __name__ == "__main__":
    command, path, *what = sys.argv[1:]
    if command == "run":
        if what == ["unseen"]:
            found = jobs("unseen")
        else:
            found = [job for job in jobs("dev") if job[0] in DATASETS]
        run_and_dump(run_job, found, path)
    elif command == "summary":
        summary(path)
    else:
        raise SystemExit(__doc__)
