"""Can a run see that the noisy majority of some class is close to wrong?

Question (issue "Ahead of cleanlab", the tables' misses): the cells where PLC
falls more than half a point below Standard although every class's noisy
majority is right are hybrid noise at about 50% (wine I+A30, I+U30, III+A30,
III+U30). PLC's correction rests on the noisy majority being right, so a run
might hold back where its own estimate of the noise puts some class near the
edge. The estimate: confident learning's calibrated confident joint
(``cleanlab.count.compute_confident_joint``) on the first round's held-out
probabilities, and its largest ratio of a wrong given label's count to the
right one's, per true class (``margin``: near or above 1 at the edge). A probe:
it prints nothing shipped, only whether that figure separates the cells where
PLC loses from those where it gains, over the tables' scikit-learn datasets on
the dev split (1) and dev seeds.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/noise_margin_probe.py run OUT.json
    python benchmarks/studies/noise_margin_probe.py summary LOG.json
"""

import json
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import noisy_cell, recording_run_end, run_and_dump

DATASETS = ("wine", "wine-rf", "synthetic-5", "synthetic-5-rf", "blobs-2d", "weak-lr")
SEEDS = (100, 101, 102)
REFUSED = ("not_memorising", "too_weak_to_judge")


def run_job(dataset, noise, seed):
    import warnings

    from cleanlab.count import compute_confident_joint

    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    cell = noisy_cell(dataset, "base", noise, seed)
    if cell is None:
        return None
    X_train, X_test, y_train, y_test, y_noisy, make = cell
    with recording_run_end() as seen:
        plc = PLCClassifier(make(), random_state=seed).fit(X_train, y_noisy)
    standard = make().fit(X_train, y_noisy)
    corrector = seen["corrector"]
    joint = compute_confident_joint(
        corrector.initial_labels, seen["first_proba"], calibrate=True
    )
    joint = np.asarray(joint, dtype=np.float64)
    right = np.diag(joint)
    wrong = joint - np.diag(right)
    return {
        "dataset": dataset,
        "noise": noise,
        "seed": seed,
        "termination": plc.termination_condition_,
        "std": float(np.mean(standard.predict(X_test) == y_test)),
        "plc": float(np.mean(plc.predict(X_test) == y_test)),
        "purity": float(np.mean(np.asarray(y_noisy) == y_train)),
        "margin": float((wrong / np.maximum(right[None, :], 1e-12)).max()),
    }


def summary(path):
    with open(path) as file:
        rows = [row for row in json.load(file) if row is not None]
    cells = defaultdict(list)
    for row in rows:
        cells[(row["dataset"], row["noise"])].append(row)
    corrected = []
    for key, runs in sorted(cells.items()):
        if all(
            r["termination"] in ("not_memorising", "too_weak_to_judge") for r in runs
        ):
            continue
        gain = 100 * np.mean([r["plc"] - r["std"] for r in runs])
        margin = np.mean([r["margin"] for r in runs])
        corrected.append((margin, gain, key))
    print("cells where PLC corrects in some run, by the estimated margin:")
    for margin, gain, key in sorted(corrected):
        print(f"  {key[0]} {key[1]}: margin {margin:.2f}, PLC − Standard {gain:+.1f}")
    margins = np.array([m for m, _, _ in corrected])
    gains = np.array([g for _, g, _ in corrected])
    print(f"correlation {np.corrcoef(margins, gains)[0, 1]:+.2f} over {len(gains)}")


if __name__ == "__main__":
    from benchmarks.tables import NOISE_CELLS

    command, path = sys.argv[1:3]
    if command == "run":
        jobs = [(d, n, s) for d in DATASETS for n in NOISE_CELLS for s in SEEDS]
        run_and_dump(run_job, jobs, path)
    elif command == "summary":
        summary(path)
    else:
        raise SystemExit(__doc__)
