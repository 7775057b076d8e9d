"""Dev protocol log: validation_fraction and the undo bar (docs/benchmarks.md).

Run from the repository root at the commit that introduced validation_fraction
(its default was then None, the undo bar 2 standard errors):

    python benchmarks/dev_logs/validation_fraction.py hard  OUT.json default,vf20e
    python benchmarks/dev_logs/validation_fraction.py tables OUT.json default,vf20e
    python benchmarks/dev_logs/validation_fraction.py lr    OUT.json default,vf20e

Variants: "_undo" sets the undo bar (sklearn_plc.classifier.WORSE_STANDARD_ERRORS)
in the worker. Dev split 1 and seeds 100-102 only; nothing here uses split 0.
"""

import json
import sys
import warnings

import numpy as np
from joblib import Parallel, delayed

HARD_MODELS = (
    "random-forest",
    "bagged-trees",
    "gradient-boosting",
    "5-nn",
    "extra-trees",
)
VARIANTS = {
    "default": {},
    "vf10": {"validation_fraction": 0.1},
    "vf20": {"validation_fraction": 0.2},
    "vf20e": {"validation_fraction": 0.2, "_undo": 1.0},
    "vf10e": {"validation_fraction": 0.1, "_undo": 1.0},
    "vf20z": {"validation_fraction": 0.2, "_undo": 0.0},
    "vf30e": {"validation_fraction": 0.3, "_undo": 1.0},
}


def load(name, seed):
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    X, y = make_classification(
        2000, 20, n_informative=8, n_classes=3, n_clusters_per_class=2, random_state=11
    )
    return train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)


def noisy_cell(dataset, model, noise, seed, split=1):
    """One dev cell: ``(X_train, X_test, y_train, y_test, y_noisy, make_model)``.

    `split` selects the tables' train/test split (a dev split: 1 or more; the
    hard-dev set splits by `seed`). None where the tables' noise cannot be
    drawn for this dataset.
    """
    if dataset == "hard-dev":
        from benchmarks.unseen import _model, _noise

        Xtr, Xte, ytr, yte = load(dataset, seed)
        _, yn = _noise(noise, seed).fit_resample(Xtr, ytr)
        return Xtr, Xte, ytr, yte, yn, lambda: _model(model)
    from benchmarks import tables as T

    _, post, _ = T._posterior(dataset, 1, split)
    Xtr, Xte, ytr, yte = T._data(dataset, split)
    try:
        yn, _, _ = T.NOISE_CELLS[noise].corrupt(ytr, post, seed)
    except ValueError:
        return None
    return Xtr, Xte, ytr, yte, yn, T.DATASETS[dataset].base_model


def cells(what):
    """The dev cells (dataset, model, noise, seed) of ``hard``, ``lr`` or ``tables``."""
    from benchmarks.tables import MEMORISING_NOISES, NOISE_CELLS

    seeds = (100, 101, 102)
    if what == "hard":
        return [
            ("hard-dev", m, n, s)
            for m in HARD_MODELS
            for n in ("I-35", "III-35", "U30")
            for s in seeds
        ]
    if what == "lr":
        jobs = [
            (d, "base", n, s)
            for d in ("blobs-2d", "synthetic-5")
            for n in NOISE_CELLS
            for s in seeds
        ]
        return jobs + [
            ("weak-lr", "base", n, s) for n in MEMORISING_NOISES for s in seeds
        ]
    jobs = [
        (d, "base", n, s)
        for d in ("wine-rf", "synthetic-5-rf")
        for n in MEMORISING_NOISES
        for s in seeds
    ]
    return jobs + [("wine", "base", n, s) for n in NOISE_CELLS for s in seeds]


def with_standard(dataset, model, noise, seed, make_cell=noisy_cell):
    """A dev cell and its log row with Standard's clean-test accuracy (``std``).

    ``(cell, row)``, with `cell` as `make_cell` returns it; None where the
    noise cannot be drawn.
    """
    cell = make_cell(dataset, model, noise, seed)
    if cell is None:
        return None
    X_train, X_test, _, y_test, y_noisy, make = cell
    standard = make().fit(X_train, y_noisy)
    row = dict(
        dataset=dataset,
        model=model,
        noise=noise,
        seed=seed,
        std=float(np.mean(standard.predict(X_test) == y_test)),
    )
    return cell, row


def run(dataset, model, noise, seed, variants):
    warnings.simplefilter("ignore")
    import sklearn_plc.classifier as C
    from sklearn_plc import PLCClassifier

    measured = with_standard(dataset, model, noise, seed)
    if measured is None:
        return None
    (Xtr, Xte, ytr, yte, yn, make), out = measured
    for v in variants:
        params = dict(VARIANTS[v])
        undo = params.pop("_undo", 2.0)
        C.WORSE_STANDARD_ERRORS = undo
        p = PLCClassifier(make(), random_state=seed, **params).fit(Xtr, yn)
        sel = p.selection_ or {}
        out[v] = dict(
            acc=float(np.mean(p.predict(Xte) == yte)),
            z=float(sel.get("gain", np.nan) / sel["standard_error"])
            if sel and sel["standard_error"] > 0
            else None,
            undone=bool(sel.get("undone", False)),
            kept=p.termination_condition_ == "labels_kept",
            pur=float(np.mean(p.labels_ == ytr)),
        )
    return out


if __name__ == "__main__":
    what, out, variants = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    rows = Parallel(n_jobs=2)(delayed(run)(*j, variants) for j in cells(what))
    rows = [r for r in rows if r is not None]
    with open(out, "w") as file:
        json.dump(rows, file)
    print("done", len(rows))
