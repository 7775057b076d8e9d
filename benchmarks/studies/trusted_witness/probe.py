"""Issue 69 study: a review batch half from PLC's order, half a random audit.

Why: on PMD cells where random review beats PLC's order by 3-10 points (the
forest on hard-3 at 400 reviews: same label purity, 0.52 against 0.71), the
labels left wrong after PLC's order are the ones its models agree with (a
noisy majority that is wrong near the boundary), which no list drawn from the
models' disputes can point to; a random sample thins the noise there too.
Orders, each in the review loop of ``benchmarks.review`` (25, 50, 100, 200,
400 reviewed, a refit after each, reviewed labels ``trusted``):

- ``PLC``: the library's order (``benchmarks.tables.plc_ranking``);
- ``random``: a random order;
- ``audit-H``: each batch takes a share H of its new reviews from the random
  order and the rest from the last refit's PLC order;
- ``band-H``: a share H of each batch's new reviews from the samples PLC does
  not dispute, least sure first (where a wrong noisy majority sits), the rest
  from the review list;
- ``cleanlab``: cleanlab's order and ``CleanLearning`` refits.

    OMP_NUM_THREADS=1 python benchmarks/studies/audit_review/probe.py OUT.jsonl \
        --models random-forest --seeds 100 101 --jobs 2
    python benchmarks/studies/audit_review/probe.py OUT.jsonl --summary
"""

import argparse
import json
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from benchmarks.review import KS, _noisy_labels, load

DATASETS = ("blobs-2d", "breast_cancer", "digits-flat", "hard-3")
NOISES = ("I-35", "U30")
ORDERS = ("PLC", "random", "audit-0.5", "audit-0.25", "band-0.5", "cleanlab")


def next_batch(reviewed, plc_order, random_order, k, audit_share):
    """`reviewed`, then new samples up to `k`: a share from each order."""
    new = max(k - reviewed.shape[0], 0)
    n_random = round(audit_share * new)
    taken = reviewed
    fresh = random_order[~np.isin(random_order, taken)][:n_random]
    taken = np.concatenate([taken, fresh])
    fresh = plc_order[~np.isin(plc_order, taken)][: new - n_random]
    return np.concatenate([taken, fresh])


def plc_parts(plc):
    """``(PLC's order, the undisputed samples least sure first)``."""
    listed = np.asarray(plc.review_list()["position"])
    rest = np.setdiff1d(np.arange(plc.labels_.shape[0]), listed)
    top = np.nan_to_num(plc.label_evidence_["top_proba"][rest], nan=1.0)
    rest = rest[np.argsort(top, kind="stable")]
    return np.concatenate([listed, rest]), rest


def run_cell(dataset, model, noise, seed, orders):
    from sklearn.base import clone

    from benchmarks.tables import clean_learning, plc_ranking
    from benchmarks.unseen import _model
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    X_train, X_test, y_train, y_test = load(dataset, 1)
    y_noisy = _noisy_labels(noise, X_train, y_train, seed)
    n = y_train.shape[0]
    base = _model(model)

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
    random_order = np.random.RandomState(seed).permutation(n)
    row["after"], row["wrong"], row["purity"] = {}, {}, {}
    for name in orders:
        cleanlab = name == "cleanlab"
        if cleanlab:
            fitted = clean_learning(clone(base), seed).fit(X_train, y_noisy)
            order = np.argsort(
                fitted.label_issues_df["label_quality"].to_numpy(), kind="stable"
            )
        else:
            order = plc_ranking(before, "change")
        band = name.startswith("band")
        if band:
            order, second = plc_parts(before)
        share = {"PLC": 0.0, "random": 1.0, "cleanlab": 0.0}.get(name)
        if share is None:
            share = float(name.split("-")[1])
        reviewed = np.zeros(0, dtype=np.intp)
        accs, wrong, purity = [], [], []
        for k in KS:
            reviewed = next_batch(
                reviewed, order, second if band else random_order, k, share
            )
            y_rev = y_noisy.copy()
            y_rev[reviewed] = y_train[reviewed]
            wrong.append(int(np.count_nonzero(y_noisy[reviewed] != y_train[reviewed])))
            if cleanlab:
                fitted = clean_learning(clone(base), seed).fit(X_train, y_rev)
                order = np.argsort(
                    fitted.label_issues_df["label_quality"].to_numpy(), kind="stable"
                )
                purity.append(float(np.mean(y_rev == y_train)))
            else:
                trusted = np.zeros(n, dtype=bool)
                trusted[reviewed] = True
                fitted = fit_plc(y_rev, trusted)
                order = plc_ranking(fitted, "change")
                if band:
                    order, second = plc_parts(fitted)
                purity.append(float(np.mean(fitted.labels_ == y_train)))
            accs.append(accuracy(fitted))
        row["after"][name], row["wrong"][name], row["purity"][name] = (
            accs,
            wrong,
            purity,
        )
    return row


def summary(path):
    rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
    cells = defaultdict(list)
    for row in rows:
        cells[(row["model"], row["dataset"], row["noise"])].append(row)
    orders = [o for o in ORDERS if all(o in r["after"] for r in rows)]
    mean = {
        cell: {o: np.mean([r["after"][o] for r in v], axis=0) for o in orders}
        for cell, v in cells.items()
    }
    befores = {c: np.mean([r["before"] for r in v]) for c, v in cells.items()}
    pairs = len(cells) * len(KS)
    print(f"{len(rows)} runs, {len(cells)} cells, {pairs} (cell, k) pairs")
    for o in orders:
        if o in ("random", "cleanlab"):
            continue
        ge_r = sum(np.sum(m[o] >= m["random"]) for m in mean.values())
        ge_c = sum(np.sum(m[o] >= m["cleanlab"]) for m in mean.values())
        ge_both = sum(
            np.sum((m[o] >= m["random"]) & (m[o] >= m["cleanlab"]))
            for m in mean.values()
        )
        gain = np.mean([np.mean(m[o] - befores[c]) for c, m in mean.items()])
        loss_cells = sum(np.min(m[o] - befores[c]) < -0.005 for c, m in mean.items())
        print(
            f"{o:>11}: >= random {ge_r}, >= cleanlab {ge_c}, >= both {ge_both} "
            f"of {pairs}; gain over before {100 * gain:+.2f}; cells below before "
            f"-0.5: {loss_cells}"
        )
    for o in ("random", "cleanlab"):
        gain = np.mean([np.mean(m[o] - befores[c]) for c, m in mean.items()])
        print(f"{o:>11}: gain over before {100 * gain:+.2f}")
    for cell, m in sorted(mean.items()):
        print(
            " ".join(f"{x}" for x in cell),
            "|",
            " | ".join(
                f"{o} {' '.join(f'{100 * (v - befores[cell]):+.1f}' for v in m[o])}"
                for o in orders
            ),
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--models", nargs="+", default=["random-forest"])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--noises", nargs="+", default=list(NOISES))
    parser.add_argument("--seeds", type=int, nargs="+", default=[100, 101])
    parser.add_argument("--orders", nargs="+", default=list(ORDERS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args()
    if args.summary:
        summary(args.out)
        return
    jobs = [
        (d, m, nz, s)
        for m in args.models
        for d in args.datasets
        for nz in args.noises
        for s in args.seeds
    ]
    with open(args.out, "a") as handle:
        for row in Parallel(n_jobs=args.jobs, return_as="generator_unordered")(
            delayed(run_cell)(*job, args.orders) for job in jobs
        ):
            handle.write(json.dumps(row) + "\n")
            handle.flush()


if __name__ == "__main__":
    main()
