"""Issue 69 study: does a refit that confirms 25 right labels repeat the fit before it?

For each dev cell of the review probe (split 1; seeds 100 and 101): PLC on the
noisy labels; the same with 25 right labels marked ``trusted`` (a review that
changes no label); and the same labels at another seed. Prints one JSON line
per run: test accuracy of each (``a0``, ``at``, ``as_``), their endings, and
the share of ``labels_`` the first two share.

    OMP_NUM_THREADS=1 python benchmarks/studies/stable_draws/confirm.py MODEL
    python benchmarks/studies/stable_draws/confirm.py --summary FILE...
"""

import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from benchmarks.review import _noisy_labels, load
from benchmarks.unseen import _model

DATASETS = ("blobs-2d", "breast_cancer", "digits-flat", "hard-3")


def run(model):
    from sklearn.base import clone

    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    for dataset in DATASETS:
        X_train, X_test, y_train, y_test = load(dataset, 1)
        for noise in ("I-35", "U30"):
            for seed in (100, 101):
                y_noisy = _noisy_labels(noise, X_train, y_train, seed)
                base = _model(model)
                right = np.flatnonzero(y_noisy == y_train)
                trusted = np.zeros(y_noisy.shape[0], dtype=bool)
                rng = np.random.RandomState(seed)
                trusted[rng.choice(right, 25, replace=False)] = True
                fits = [
                    PLCClassifier(clone(base), random_state=seed).fit(X_train, y_noisy),
                    PLCClassifier(clone(base), random_state=seed).fit(
                        X_train, y_noisy, trusted=trusted
                    ),
                    PLCClassifier(clone(base), random_state=seed + 1000).fit(
                        X_train, y_noisy
                    ),
                ]
                accuracy = [float(np.mean(f.predict(X_test) == y_test)) for f in fits]
                row = {
                    "ds": dataset,
                    "noise": noise,
                    "seed": seed,
                    "a0": accuracy[0],
                    "at": accuracy[1],
                    "as_": accuracy[2],
                    "e0": fits[0].termination_condition_,
                    "et": fits[1].termination_condition_,
                    "es": fits[2].termination_condition_,
                    "same_labels": float(np.mean(fits[0].labels_ == fits[1].labels_)),
                }
                print(json.dumps(row), flush=True)


def summary(paths):
    for path in paths:
        lines = Path(path).read_text().splitlines()
        rows = [json.loads(line) for line in lines if line.startswith("{")]
        a0, at, reseed = (np.array([r[k] for r in rows]) for k in ("a0", "at", "as_"))
        same = sum(r["e0"] == r["et"] for r in rows)
        print(
            f"{path}: {len(rows)} runs; confirming 25 labels moves test accuracy "
            f"{100 * np.abs(at - a0).mean():.2f} a run (another seed "
            f"{100 * np.abs(reseed - a0).mean():.2f}); labels_ shared "
            f"{np.mean([r['same_labels'] for r in rows]):.3f}; same ending "
            f"{same} of {len(rows)}"
        )


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        summary(sys.argv[2:])
    else:
        run(sys.argv[1])
