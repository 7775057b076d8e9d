"""Same labels before and after a refactoring: a fingerprint of logged cells.

Fits ``PLCClassifier`` on dev cells of ``benchmarks/tables.py`` (dev split 1,
dev seeds) across its run paths: scikit-learn refits with out-of-fold
confidence (corrected, kept for want of memorisation, undone), out-of-bag,
in-sample, trusted samples, the undo off, every sample judging, and a skorch net
(training-pass and eval-pass outputs). For each it records a digest of
``labels_``, of the test predictions, of ``history_`` and of ``set_aside_``,
with the run's outcome.

    PYTHONPATH=. python benchmarks/studies/same_labels.py record OUT.json
    PYTHONPATH=. python benchmarks/studies/same_labels.py compare A.json B.json

Run ``record`` at the commit before the change (e.g. in a ``git worktree``,
with this folder copied in if that commit predates it) and after it, then
``compare``: it prints each cell and exits 1 if any differs.
"""

import hashlib
import json
import sys
import warnings

import numpy as np

# (name, dataset, noise, seed, PLC parameters, fit keywords)
CELLS = (
    ("cv-lr-wine", "wine", "I-35", 100, {}, None),
    ("cv-lr-wine-hybrid", "wine", "III+U30", 101, {}, None),
    ("cv-rf-wine", "wine-rf", "I-35", 100, {}, None),
    ("cv-rf-wine-asym", "wine-rf", "I+A30", 101, {}, None),
    ("cv-rf-synthetic", "synthetic-5-rf", "II-35", 100, {}, None),
    ("cv-lr-blobs-kept", "blobs-2d", "I-35", 100, {}, None),
    ("cv-lr-weak", "weak-lr", "I-35", 100, {}, None),
    ("cv-rf-no-undo", "wine-rf", "III-35", 102, {"revert_if_worse": False}, None),
    ("cv-rf-judge-all", "wine-rf", "II-35", 100, {"validation_fraction": None}, None),
    ("cv-rf-trusted", "wine-rf", "I-35", 101, {}, "trusted"),
    ("oob-rf-wine", "wine-rf", "I-35", 100, {"confidence": "oob"}, None),
    ("oob-rf-synthetic", "synthetic-5-rf", "III-35", 101, {"confidence": "oob"}, None),
    ("in-sample-lr-wine", "wine", "I-35", 100, {"confidence": "in_sample"}, None),
    ("cv-lr-wine-asym", "wine", "I+A30", 102, {}, None),
    ("cv-lr-wine-70", "wine", "II-70", 100, {}, None),
    ("cv-rf-wine-hybrid", "wine-rf", "III+U30", 100, {}, None),
    ("cv-rf-wine-flip", "wine-rf", "I-35-flip", 101, {}, None),
    ("cv-rf-synthetic-hybrid", "synthetic-5-rf", "II+U60", 102, {}, None),
    ("oob-rf-wine-flip", "wine-rf", "I-35-flip", 101, {"confidence": "oob"}, None),
    ("net-digits", "digits", "I-35", 100, {}, None),
    ("net-digits-eval", "digits", "III+U30", 101, {"confidence": "eval_pass"}, None),
)


def _digest(values):
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()[:16]


def _history_digest(history):
    rows = [
        (r["round"], r["threshold"], r["n_corrected"], r["n_changed"], r["refit"])
        for r in history
    ]
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


def _evidence_digest(model):
    """The held-out evidence (``selection_``, ``memorisation_``), rounded."""

    def rounded(evidence):
        if evidence is None:
            return None
        return {
            key: (
                round(float(value), 10)
                if isinstance(value, (int, float, np.number))
                and not isinstance(value, bool)
                else value
            )
            for key, value in sorted(evidence.items())
        }

    evidence = (rounded(model.selection_), rounded(model.memorisation_))
    return hashlib.sha256(repr(evidence).encode()).hexdigest()[:16]


def fingerprint(name, dataset, noise, seed, params, fit_keywords):
    """Run one cell; return its digests and outcome."""
    from benchmarks import tables as T
    from benchmarks.studies.common import noisy_cell
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    X_train, X_test, _, y_test, y_noisy, make = noisy_cell(dataset, "base", noise, seed)
    fit = {}
    if fit_keywords == "trusted":
        fit["trusted"] = np.arange(y_noisy.shape[0]) % 5 == 0
    T._seed_everything(T.DATASETS[dataset], seed, 1)
    model = PLCClassifier(make(), random_state=seed, **params)
    model.fit(X_train, y_noisy, **fit)
    predicted = model.predict(X_test)
    return {
        "cell": name,
        "labels": _digest(model.labels_),
        "predictions": _digest(predicted),
        "history": _history_digest(model.history_),
        "evidence": _evidence_digest(model),
        "set_aside": None if model.set_aside_ is None else _digest(model.set_aside_),
        "termination": model.termination_condition_,
        "n_changed": int(np.count_nonzero(model.labels_ != y_noisy)),
        "accuracy": float(np.mean(predicted == y_test)),
    }


def record(path):
    from joblib import Parallel, delayed

    rows = Parallel(n_jobs=2)(delayed(fingerprint)(*cell) for cell in CELLS)
    with open(path, "w") as file:
        json.dump(rows, file, indent=1)
    for row in rows:
        print(row)


def compare(before_path, after_path):
    with open(before_path) as file:
        before = {row["cell"]: row for row in json.load(file)}
    with open(after_path) as file:
        after = {row["cell"]: row for row in json.load(file)}
    differ = 0
    for cell, old in before.items():
        new = after.get(cell)
        same = new is not None and all(
            old[key] == new[key]
            for key in ("labels", "predictions", "history", "evidence", "set_aside")
            if key in old
        )
        differ += not same
        print(
            f"{cell:22s} {old['termination']:14s} changed {old['n_changed']:4d}  "
            f"{'same' if same else 'DIFFERENT'}"
        )
    print(f"{len(before) - differ} of {len(before)} cells identical")
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1] == "record":
        record(sys.argv[2])
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
