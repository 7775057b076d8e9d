"""Same labels before and after a refactoring: a fingerprint of dev cells.

Fits ``PLCClassifier`` on dev cells of the tables (dev split 1, dev seeds) across
every run path: scikit-learn refits out of fold (corrected, kept for want of
memorisation, refused as too weak, undone, contested), out of bag, in sample,
``trusted`` samples, every sample judging, the paper's rule, an estimator
without sample weights, a ``partial_fit`` learner in one run and a skorch net
(training-pass and eval-pass outputs). For each it records digests of
``labels_``, of the test predictions, of ``history_``, of the held-out evidence,
of ``set_aside_`` and of ``relabel_weight_``, with the run's outcome.

    python -m benchmarks.same_labels record OUT.json
    python -m benchmarks.same_labels compare BEFORE.json AFTER.json

Run ``record`` at the commit before the change (e.g. in a ``git worktree``) and
after it, then ``compare``: it prints each cell and exits 1 if any differs. It
imports only the public API of ``sklearn_plc``; a cell whose parameters a
version does not accept is recorded as skipped (a removed parameter's
non-default value), and a cell may list the same setting under each version's
names.
"""

import hashlib
import json
import sys
import warnings

import numpy as np

# The undo off: revert_if_worse=False at 503e40a, validation_fraction=None since
NO_UNDO = [{"revert_if_worse": False}, {"validation_fraction": None}]
PAPER_RULE = {
    "min_memorisation": 0.0,
    "distribution_alignment": False,
    "runner_up_ratio": 1.0,
    "min_correction_rate": 0.0,
}
# (name, dataset, noise, seed, model ("base" or a name below), PLC parameters or
# alternatives for versions that name them differently (the first one a version
# accepts is used), fit)
CELLS = (
    ("cv-lr-wine", "wine", "I-35", 100, "base", {}, None),
    ("cv-lr-wine-hybrid", "wine", "III+U30", 101, "base", {}, None),
    ("cv-rf-wine", "wine-rf", "I-35", 100, "base", {}, None),
    ("cv-rf-wine-asym", "wine-rf", "I+A30", 101, "base", {}, None),
    ("cv-rf-synthetic", "synthetic-5-rf", "II-35", 100, "base", {}, None),
    ("cv-lr-blobs-kept", "blobs-2d", "I-35", 100, "base", {}, None),
    ("cv-lr-weak", "weak-lr", "I-35", 100, "base", {}, None),
    ("cv-rf-no-undo", "wine-rf", "III-35", 102, "base", NO_UNDO, None),
    ("cv-rf-trusted", "wine-rf", "I-35", 101, "base", {}, "trusted"),
    ("oob-rf-wine", "wine-rf", "I-35", 100, "base", {"confidence": "oob"}, None),
    (
        "oob-rf-synthetic",
        "synthetic-5-rf",
        "III-35",
        101,
        "base",
        {"confidence": "oob"},
        None,
    ),
    (
        "in-sample-lr-wine",
        "wine",
        "I-35",
        100,
        "base",
        {"confidence": "in_sample"},
        None,
    ),
    ("cv-lr-wine-asym", "wine", "I+A30", 102, "base", {}, None),
    ("cv-lr-wine-70", "wine", "II-70", 100, "base", {}, None),
    ("cv-rf-wine-hybrid", "wine-rf", "III+U30", 100, "base", {}, None),
    ("cv-rf-wine-flip", "wine-rf", "I-35-flip", 101, "base", {}, None),
    ("cv-rf-synthetic-hybrid", "synthetic-5-rf", "II+U60", 102, "base", {}, None),
    (
        "oob-rf-wine-flip",
        "wine-rf",
        "I-35-flip",
        101,
        "base",
        {"confidence": "oob"},
        None,
    ),
    (
        "cv-rf-keep",
        "wine-rf",
        "I-35",
        100,
        "base",
        [{"contested": "keep"}, {"doubtful": "keep"}],
        None,
    ),
    (
        "cv-rf-set-aside",
        "wine-rf",
        "III-35",
        101,
        "base",
        [{"contested": "set_aside"}, {"doubtful": "set_aside"}],
        None,
    ),
    (
        "cv-rf-paper-rule",
        "synthetic-5-rf",
        "I-35",
        101,
        "base",
        [
            {**PAPER_RULE, "revert_if_worse": False, "contested": "keep"},
            {**PAPER_RULE, "validation_fraction": None, "doubtful": "keep"},
        ],
        None,
    ),
    (
        "cv-rf-multiplicative",
        "wine-rf",
        "II-35",
        102,
        "base",
        {"schedule": "multiplicative", "min_correction_rate": 0.05},
        None,
    ),
    ("cv-rf-no-final-fit", "wine-rf", "I-35", 102, "base", {"final_fit": False}, None),
    ("cv-knn-wine", "wine", "I-35", 100, "knn", {}, None),
    ("cv-knn-synthetic", "synthetic-5", "III+U30", 101, "knn", {}, None),
    ("one-run-mlp-wine", "wine", "I-35", 100, "mlp", {}, None),
    ("one-run-mlp-synthetic", "synthetic-5", "II-35", 101, "mlp", {}, None),
    ("cv-mlp-wine", "wine", "III-35", 100, "mlp", {"confidence": "cv"}, None),
    ("net-digits", "digits", "I-35", 100, "base", {}, None),
    (
        "net-digits-eval",
        "digits",
        "III+U30",
        101,
        "base",
        {"confidence": "eval_pass"},
        None,
    ),
)


def _model(name, base_model, seed):
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if name == "base":
        return base_model()
    if name == "knn":
        return make_pipeline(StandardScaler(), KNeighborsClassifier(5))
    return make_pipeline(
        StandardScaler(), MLPClassifier((64,), max_iter=60, random_state=seed)
    )


def _digest(values):
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()[:16]


def _history_digest(history):
    rows = [
        (r["round"], r["threshold"], r["n_corrected"], r["n_changed"], r["refit"])
        for r in history
    ]
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


def _rounded(evidence):
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


def _evidence_digest(model):
    """The held-out evidence (``selection_``, ``memorisation_``), rounded."""
    evidence = (
        _rounded(getattr(model, "selection_", None)),
        _rounded(getattr(model, "memorisation_", None)),
    )
    return hashlib.sha256(repr(evidence).encode()).hexdigest()[:16]


def fingerprint(name, dataset, noise, seed, model_name, params, fit_keywords):
    """Run one cell; return its digests and outcome."""
    from benchmarks import tables as T
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    _, posterior, _ = T._posterior(dataset, 1, 1)
    X_train, X_test, y_train, y_test = T._data(dataset, 1)
    y_noisy, _, _ = T.NOISE_CELLS[noise].corrupt(y_train, posterior, seed)
    fit = {}
    if fit_keywords == "trusted":
        fit["trusted"] = np.arange(y_noisy.shape[0]) % 5 == 0
    T._seed_everything(T.DATASETS[dataset], seed, 1)
    estimator = _model(model_name, T.DATASETS[dataset].base_model, seed)
    for alternative in params if isinstance(params, list) else [params]:
        try:
            model = PLCClassifier(estimator, random_state=seed, **alternative)
            break
        except TypeError:  # a parameter this version does not have
            continue
    else:
        return {"cell": name, "skipped": True}
    model.fit(X_train, y_noisy, **fit)
    predicted = model.predict(X_test) if hasattr(model, "estimator_") else None
    set_aside = getattr(model, "set_aside_", None)
    weights = getattr(model, "relabel_weight_", None)
    return {
        "cell": name,
        "labels": _digest(model.labels_),
        "predictions": None if predicted is None else _digest(predicted),
        "history": _history_digest(model.history_),
        "evidence": _evidence_digest(model),
        "set_aside": None if set_aside is None else _digest(set_aside),
        "weights": None if weights is None else _digest(weights),
        "termination": model.termination_condition_,
        "n_changed": int(np.count_nonzero(model.labels_ != y_noisy)),
        "accuracy": None if predicted is None else float(np.mean(predicted == y_test)),
    }


def record(path, n_jobs=2):
    """Fingerprint every cell of :data:`CELLS` into the JSON file at `path`."""
    from joblib import Parallel, delayed

    rows = Parallel(n_jobs=n_jobs)(delayed(fingerprint)(*cell) for cell in CELLS)
    with open(path, "w") as file:
        json.dump(rows, file, indent=1)
    for row in rows:
        print(row)


DIGESTS = ("labels", "predictions", "history", "evidence", "set_aside", "weights")


def compare(before_path, after_path):
    """Print each cell as same or different; 1 if any differs, else 0."""
    with open(before_path) as file:
        before = {row["cell"]: row for row in json.load(file)}
    with open(after_path) as file:
        after = {row["cell"]: row for row in json.load(file)}
    differ = compared = 0
    for cell, old in before.items():
        new = after.get(cell)
        if old.get("skipped") or (new is not None and new.get("skipped")):
            print(f"{cell:24s} skipped (a parameter one version lacks)")
            continue
        compared += 1
        same = new is not None and all(
            old.get(key) == new.get(key) for key in DIGESTS if key in old
        )
        differ += not same
        print(
            f"{cell:24s} {old['termination']:22s} changed {old['n_changed']:4d}  "
            f"{'same' if same else 'DIFFERENT'}"
        )
    print(f"{compared - differ} of {compared} cells identical")
    return 1 if differ else 0


def main(argv=None):
    """``record OUT.json`` or ``compare BEFORE.json AFTER.json``; the exit status."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.same_labels",
        description="Fingerprint dev cells before and after a change that should "
        "not move any result (record at each commit, then compare).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    record_parser = commands.add_parser("record", help="fingerprint every cell")
    record_parser.add_argument("out", help="the JSON file to write")
    compare_parser = commands.add_parser(
        "compare", help="print each cell as same or different; exit 1 if any differs"
    )
    compare_parser.add_argument("before", help="a JSON file from record")
    compare_parser.add_argument("after", help="a JSON file from record")
    args = parser.parse_args(argv)
    if args.command == "record":
        record(args.out)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
