"""Issue 69 study: which review order raises accuracy after review fastest.

Why: on the review benchmark PLC's order loses to a random one mostly under
PMD noise (42 of the 60 pairs it loses to random are I-35), where a random
order finds fewer wrong labels (123 against 200 of 400 at hard-3) and yet
trains better models. A wrong label PLC disputes changes little when
reviewed (the model already predicts its class); one the models agree with,
where feature-dependent noise made the labels' majority wrong, changes the
model, and only an order that does not follow the models finds it. Orders,
each a loop of refits at k = 25, 50, 100, 200, 400 as ``benchmarks.review``:

- ``change``: the library's order (``review_list()``, then the rest least sure first);
- ``uncertainty``: every sample by the last probabilities' top class, least
  sure first (the chance that the answer differs from the model's prediction);
- ``mixed``: ``change`` and a random order taking turns;
- ``mixed-uncertainty``: ``uncertainty`` and a random order taking turns;
- ``listed-uncertainty``: the rows of ``review_list()`` by ``uncertainty``,
  then the rest by ``uncertainty``;
- ``change-all``: every sample by ``change_proba``, highest first (undisputed
  samples' ``change_proba`` is their uncertainty);
- ``random``.

cleanlab's order is read from ``benchmarks/studies/stable_draws`` at 3b42d3a
(``dev_review_before.jsonl.gz``; cleanlab's refits do not use the library).

    OMP_NUM_THREADS=1 python benchmarks/studies/review_order/probe.py OUT.jsonl \
        --models random-forest --seeds 100 101 102 103 104 --jobs 2
    python benchmarks/studies/review_order/probe.py OUT.jsonl --summary BEFORE.jsonl.gz
"""

import argparse
import gzip
import json
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from benchmarks.review import KS, _noisy_labels, load, reviewed_next

DATASETS = ("blobs-2d", "breast_cancer", "digits-flat", "hard-3")
NOISES = ("I-35", "U30")
ORDERS = (
    "change",
    "uncertainty",
    "mixed",
    "mixed-uncertainty",
    "listed-uncertainty",
    "change-all",
    "random",
)


def interleave(first, second):
    """`first` and `second` taking turns, each sample once."""
    out, seen = [], set()
    for pair in zip(first, second, strict=True):
        for sample in pair:
            if sample not in seen:
                seen.add(sample)
                out.append(sample)
    return np.asarray(out, dtype=np.intp)


def ranking(name, fitted, permutation):
    from benchmarks.tables import plc_ranking

    if name == "random":
        return permutation
    top = np.nan_to_num(fitted.label_evidence_["top_proba"], nan=1.0)
    uncertainty = np.argsort(top, kind="stable")
    if name == "listed-uncertainty":  # the disputed rows by uncertainty, then the rest
        listed = np.isin(uncertainty, np.asarray(fitted.review_list()["position"]))
        reviewed = fitted.trusted_ if fitted.trusted_ is not None else np.zeros_like(listed)
        listed &= ~reviewed[uncertainty]
        return np.concatenate([uncertainty[listed], uncertainty[~listed]])
    if name == "change-all":  # every sample by change_proba, highest first
        # an undisputed label is its top class: its change_proba is 1 - top
        top = np.nan_to_num(fitted.label_evidence_["top_proba"], nan=1.0)
        change = 1.0 - top
        rows = fitted.review_list()
        change[rows["position"].to_numpy()] = rows["change_proba"].to_numpy()
        order = np.lexsort((-top, -np.nan_to_num(change, nan=-1.0)))
        reviewed = fitted.trusted_ if fitted.trusted_ is not None else np.zeros(top.shape[0], dtype=bool)
        return np.concatenate([order[~reviewed[order]], order[reviewed[order]]])
    base = plc_ranking(fitted, "change") if "uncertainty" not in name else uncertainty
    if name.startswith("mixed"):
        return interleave(base, permutation)
    return base


def run_cell(dataset, model, noise, seed, orders):
    from sklearn.base import clone

    from benchmarks.unseen import _model
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    X_train, X_test, y_train, y_test = load(dataset, 1)
    y_noisy = _noisy_labels(noise, X_train, y_train, seed)
    n = y_train.shape[0]
    base = _model(model)
    permutation = np.random.RandomState(seed).permutation(n)

    def accuracy(fitted):
        return float(np.mean(fitted.predict(X_test) == y_test))

    def fit_plc(labels, trusted=None):
        return PLCClassifier(clone(base), random_state=seed).fit(
            X_train, labels, trusted=trusted
        )

    row = {"dataset": dataset, "model": model, "noise": noise, "seed": seed}
    row["clean"] = accuracy(clone(base).fit(X_train, y_train))
    before = fit_plc(y_noisy)
    row["before"] = accuracy(before)
    row["after"], row["wrong"], row["purity"] = {}, {}, {}
    for name in orders:
        order = ranking(name, before, permutation)
        reviewed = np.zeros(0, dtype=np.intp)
        accs, wrong, purity = [], [], []
        for k in KS:
            reviewed = reviewed_next(reviewed, order, k)
            y_rev = y_noisy.copy()
            y_rev[reviewed] = y_train[reviewed]
            wrong.append(int(np.count_nonzero(y_noisy[reviewed] != y_train[reviewed])))
            trusted = np.zeros(n, dtype=bool)
            trusted[reviewed] = True
            fitted = fit_plc(y_rev, trusted)
            order = ranking(name, fitted, permutation)
            purity.append(float(np.mean(fitted.labels_ == y_train)))
            accs.append(accuracy(fitted))
        row["after"][name] = accs
        row["wrong"][name] = wrong
        row["purity"][name] = purity
    return row


def summary(paths, before_path):
    rows = {}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            r = json.loads(line)
            key = (r["dataset"], r["model"], r["noise"], r["seed"])
            if key in rows:
                rows[key]["after"].update(r["after"])
                rows[key]["wrong"].update(r["wrong"])
            else:
                rows[key] = r
    if before_path:
        with gzip.open(before_path, "rt") as handle:
            for r in map(json.loads, handle):
                key = (r["dataset"], r["model"], r["noise"], r["seed"])
                if key in rows:
                    rows[key]["after"]["cleanlab"] = r["after"]["cleanlab"]
    orders = [o for o in (*ORDERS, "cleanlab") if any(o in r["after"] for r in rows.values())]
    rows = {k: r for k, r in rows.items() if all(o in r["after"] for o in orders)}
    cells = defaultdict(list)
    for r in rows.values():
        cells[(r["model"], r["dataset"], r["noise"])].append(r)
    mean = {c: {o: np.mean([r["after"][o] for r in v], axis=0) for o in orders} for c, v in cells.items()}
    before = {c: np.mean([r["before"] for r in v]) for c, v in cells.items()}
    pairs = len(cells) * len(KS)
    print(f"{len(rows)} runs, {len(cells)} cells, {pairs} pairs; orders {orders}")
    for o in orders:
        line = f"{o:>18}: gain {100 * np.mean([np.mean(m[o] - before[c]) for c, m in mean.items()]):+.2f}"
        for other in ("random", "cleanlab"):
            if other in orders and other != o:
                line += f", >= {other} {sum(int(np.sum(m[o] >= m[other] - 1e-9)) for m in mean.values())}"
        if "random" in orders and "cleanlab" in orders and o not in ("random", "cleanlab"):
            both = sum(int(np.sum((m[o] >= m["random"] - 1e-9) & (m[o] >= m["cleanlab"] - 1e-9))) for m in mean.values())
            line += f", >= both {both}/{pairs}"
        loss = sum(np.min(m[o] - before[c]) < -0.005 for c, m in mean.items())
        wrong = np.mean([np.mean([r["wrong"][o] for r in rows.values()], axis=0)], axis=0) if o in next(iter(rows.values()))["wrong"] else None
        line += f", cells below before-0.5: {loss}"
        if wrong is not None:
            line += f", wrong found {' '.join(f'{w:.0f}' for w in wrong)}"
        print(line)
    for c, m in sorted(mean.items()):
        print(" ".join(c), f"before {100 * before[c]:.1f}")
        for o in orders:
            print(f"   {o:>18}", " ".join(f"{100 * (v - before[c]):+5.1f}" for v in m[o]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out", nargs="+")
    parser.add_argument("--models", nargs="+", default=["random-forest"])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--noises", nargs="+", default=list(NOISES))
    parser.add_argument("--seeds", type=int, nargs="+", default=[100, 101, 102, 103, 104])
    parser.add_argument("--orders", nargs="+", default=list(ORDERS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--summary", default=None, nargs="?", const="")
    args = parser.parse_args()
    if args.summary is not None:
        summary(args.out, args.summary)
        return
    jobs = [(d, m, nz, s) for m in args.models for d in args.datasets for nz in args.noises for s in args.seeds]
    with open(args.out[0], "a") as handle:
        for row in Parallel(n_jobs=args.jobs, return_as="generator_unordered")(
            delayed(run_cell)(*job, args.orders) for job in jobs
        ):
            handle.write(json.dumps(row) + "\n")
            handle.flush()


if __name__ == "__main__":
    main()
