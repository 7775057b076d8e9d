"""Issue 69 study: a review order that learns from the reviewed labels.

PLC's order ranks every sample by the run's own doubt (``top_proba``, lowest
first). Under feature-dependent noise the run's models agree with wrong labels
where those are the local majority, and no ranking by their doubt reaches them;
a random order does, which is why it leads in the majority-wrong PMD cells. The
reviewed labels are clean witnesses of exactly that: a model fitted on them
alone (the user's estimator on the verified labels) disagrees with the run's
models where the noisy labels misled them. ``PLC-committee`` ranks by the doubt
of the two together: ``1 - max_c (p_run(c) + p_reviewed(c)) / 2``, reviewed
samples last, the run's order before any review. The run's distribution is
read off its review evidence (top class at ``top_proba``, the given label at
``given_ratio * top_proba``, the rest spread evenly).

    python benchmarks/studies/review_committee/study.py OUT.jsonl MODEL SEED...
    python benchmarks/studies/review_committee/study.py summary OUT.jsonl[.gz]...

Logs (review dev split, k = 25 ... 400 in the loop): ``forest_100-102.jsonl.gz``
(random forest, seeds 100-102, 24 cells) and ``mlp_100.jsonl.gz`` (MLP, seed 100,
8 cells). Forest: PLC's order >= random and cleanlab's in 33 of 40 pairs, the
committee 31; gain over the fit before review +3.70 and +3.71 (random +2.83).
MLP: 32 and 32 of 40, +6.76 and +7.06 (random +5.23). No gain: not shipped.
"""

import gzip
import json
import sys
import warnings
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from benchmarks import review

DATASETS = ("blobs-2d", "hard-3", "digits-flat", "breast_cancer")
ORDERS = ("PLC", "PLC-committee", "cleanlab", "random")
DEV_SPLIT = 1


def run_distribution(plc, n_classes):
    """The run's per-sample class distribution, as its review evidence gives it."""
    evidence = plc.label_evidence_
    top = np.nan_to_num(evidence["top_proba"].astype(float), nan=1.0 / n_classes)
    suggested = evidence["suggested"]
    n = top.shape[0]
    proba = np.tile(((1.0 - top) / max(n_classes - 1, 1))[:, None], (1, n_classes))
    rows = np.arange(n)
    valid = suggested >= 0
    proba[rows[valid], suggested[valid]] = top[valid]
    return proba


def reviewed_distribution(base, X, y_verified, reviewed, classes):
    """Probabilities of the estimator fitted on the reviewed samples alone."""
    from sklearn.base import clone

    present = np.unique(y_verified[reviewed])
    if present.shape[0] < 2:
        return None
    model = clone(base).fit(X[reviewed], y_verified[reviewed])
    proba = np.zeros((X.shape[0], classes.shape[0]))
    proba[:, np.searchsorted(classes, model.classes_)] = model.predict_proba(X)
    return proba


def committee_order(plc, base, X, y_verified, reviewed, classes):
    own = np.asarray(plc.review_list()["position"])
    if reviewed.shape[0] == 0:
        return own
    other = reviewed_distribution(base, X, y_verified, reviewed, classes)
    if other is None:
        return own
    mean = (run_distribution(plc, classes.shape[0]) + other) / 2
    doubt = 1.0 - mean.max(axis=1)
    is_reviewed = np.zeros(X.shape[0], dtype=bool)
    is_reviewed[reviewed] = True
    return np.lexsort((-doubt, is_reviewed))


def run_cell(dataset, model, noise, seed, orders=ORDERS, ks=review.KS):
    from sklearn.base import clone

    from benchmarks.tables import clean_learning, plc_ranking
    from benchmarks.unseen import _model
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    X_train, X_test, y_train, y_test = review.load(dataset, DEV_SPLIT)
    y_noisy = review._noisy_labels(noise, X_train, y_train, seed)
    n_samples = y_train.shape[0]
    classes = np.unique(y_train)
    base = _model(model)

    def accuracy(fitted):
        return float(np.mean(fitted.predict(X_test) == y_test))

    def fit_plc(labels, trusted=None):
        plc = PLCClassifier(clone(base), random_state=seed)
        return plc.fit(X_train, labels, trusted=trusted)

    row = {"dataset": dataset, "model": model, "noise": noise, "seed": seed}
    row["clean"] = accuracy(clone(base).fit(X_train, y_train))
    before = fit_plc(y_noisy)
    row["before"] = accuracy(before)
    cleaner = clean_learning(clone(base), seed).fit(X_train, y_noisy)
    row["after"], row["wrong_reviewed"] = {}, {}
    for name in orders:
        reviewed = np.zeros(0, dtype=np.intp)
        if name == "random":
            order = np.random.RandomState(seed).permutation(n_samples)
        elif name == "cleanlab":
            quality = cleaner.label_issues_df["label_quality"].to_numpy()
            order = np.argsort(quality, kind="stable")
        else:
            order = plc_ranking(before, "uncertainty")
        accuracies, wrong = [], []
        for k in ks:
            if name == "random":
                reviewed = order[:k]
            else:
                reviewed = review.reviewed_next(reviewed, order, k)
            y_reviewed = y_noisy.copy()
            y_reviewed[reviewed] = y_train[reviewed]
            wrong.append(int(np.count_nonzero(y_noisy[reviewed] != y_train[reviewed])))
            if name == "cleanlab":
                fitted = clean_learning(clone(base), seed).fit(X_train, y_reviewed)
                quality = fitted.label_issues_df["label_quality"].to_numpy()
                order = np.argsort(quality, kind="stable")
            else:
                trusted = np.zeros(n_samples, dtype=bool)
                trusted[reviewed] = True
                fitted = fit_plc(y_reviewed, trusted)
                if name == "PLC":
                    order = plc_ranking(fitted, "uncertainty")
                elif name == "PLC-committee":
                    order = committee_order(
                        fitted, base, X_train, y_train, reviewed, classes
                    )
            accuracies.append(accuracy(fitted))
        row["after"][name] = accuracies
        row["wrong_reviewed"][name] = wrong
    return row


def run(out, model, seeds):
    grid = [(d, model, n, s) for s in seeds for d in DATASETS for n in review.NOISES]
    with open(out, "a") as handle:
        for row in Parallel(n_jobs=2, return_as="generator_unordered")(
            delayed(run_cell)(*g) for g in grid
        ):
            handle.write(json.dumps(row) + "\n")
            handle.flush()


def summary(paths):
    rows = []
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as handle:
            rows.extend(json.loads(line) for line in handle)
    cells = {}
    for r in rows:
        cells.setdefault((r["model"], r["dataset"], r["noise"]), []).append(r)
    for name in ("PLC", "PLC-committee"):
        pairs = both = loss = 0
        gain = []
        for rs in cells.values():
            mean = {
                o: np.mean([r["after"][o] for r in rs], axis=0) for o in rs[0]["after"]
            }
            before = np.mean([r["before"] for r in rs])
            for i in range(mean[name].shape[0]):
                pairs += 1
                both += (mean[name][i] >= mean["random"][i]) and (
                    mean[name][i] >= mean["cleanlab"][i]
                )
            loss += bool(np.any(mean[name] < before - review.NO_LOSS_TOLERANCE))
            gain.append(100 * np.mean(mean[name] - before))
        print(
            f"{name:14s} >= both {both}/{pairs}, cells with a loss {loss}/{len(cells)},"
            f" gain {np.mean(gain):+.2f}"
        )
    rnd = [
        100 * np.mean(np.mean([r["after"]["random"] for r in rs], axis=0))
        - 100 * np.mean([r["before"] for r in rs])
        for rs in cells.values()
    ]
    print(f"random gain {np.mean(rnd):+.2f}")
    for key, rs in sorted(cells.items()):
        a = np.mean([r["after"]["PLC"] for r in rs], axis=0)
        b = np.mean([r["after"]["PLC-committee"] for r in rs], axis=0)
        c = np.mean([r["after"]["random"] for r in rs], axis=0)
        print(key, np.round(100 * (b - a), 1), "vs random", np.round(100 * (b - c), 1))


if __name__ == "__main__":
    if sys.argv[1] == "summary":
        summary(sys.argv[2:])
    else:
        run(sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]])
