"""Issue 69 study: random splits that stay put under a review (``sklearn_plc._draws``).

Why: a refit after a review drew its validation samples from the unreviewed
ones, and every fold, half and forest bootstrap after them anew, so that a
refit confirming 25 right labels ended differently from the fit before it in
6 of 16 dev runs of a forest (``confirm.py``): the review loop's small-k
losses below the fit before review are of the size of a reseed. The library
at this commit draws the splits from per-sample keys and no longer takes the
reviewed samples out of the validation draw. The review loop of
``benchmarks.review`` (25, 50, 100, 200, 400 reviewed, a refit after each),
for PLC's order and a random one; cleanlab's order and its refits do not use
the library, so they are read from the log before the change
(``dev_review_before.jsonl.gz``, from ``benchmarks/studies/audit_review`` at
03a683a, the same cells and seeds).

    OMP_NUM_THREADS=1 python benchmarks/studies/stable_draws/probe.py OUT.jsonl \
        --models random-forest --seeds 100 101 --jobs 2
    python benchmarks/studies/stable_draws/probe.py OUT.jsonl --summary
    OMP_NUM_THREADS=1 python benchmarks/studies/stable_draws/confirm.py MODEL
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
ORDERS = ("PLC", "random")
BEFORE = Path(__file__).with_name("dev_review_before.jsonl.gz")  # from stable_draws at 3b42d3a


def run_cell(dataset, model, noise, seed, orders):
    from sklearn.base import clone

    from benchmarks.review import reviewed_next
    from benchmarks.tables import plc_ranking
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
    row["after"], row["wrong"], row["purity"] = {}, {}, {}
    for name in orders:
        if name == "random":
            order = np.random.RandomState(seed).permutation(n)
        else:
            order = plc_ranking(before, "change")
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
            if name == "PLC":
                order = plc_ranking(fitted, "change")
            purity.append(float(np.mean(fitted.labels_ == y_train)))
            accs.append(accuracy(fitted))
        row["after"][name], row["wrong"][name], row["purity"][name] = (
            accs,
            wrong,
            purity,
        )
    return row


def _before_rows():
    import gzip

    with gzip.open(BEFORE, "rt") as handle:
        return {
            (r["dataset"], r["model"], r["noise"], r["seed"]): r
            for r in map(json.loads, handle)
        }


def summary(path):
    rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
    before = _before_rows()
    for row in rows:
        old = before[(row["dataset"], row["model"], row["noise"], row["seed"])]
        row["after"]["cleanlab"] = old["after"]["cleanlab"]
        row["after"]["PLC-before"] = old["after"]["PLC"]
        row["after"]["random-before"] = old["after"]["random"]
        row["before-before"] = old["before"]
    cells = defaultdict(list)
    for row in rows:
        cells[(row["model"], row["dataset"], row["noise"])].append(row)
    orders = ["PLC", "random", "cleanlab", "PLC-before", "random-before"]
    mean = {
        cell: {o: np.mean([r["after"][o] for r in v], axis=0) for o in orders}
        for cell, v in cells.items()
    }
    befores = {c: np.mean([r["before"] for r in v]) for c, v in cells.items()}
    old_befores = {
        c: np.mean([r["before-before"] for r in v]) for c, v in cells.items()
    }
    pairs = len(cells) * len(KS)
    print(f"{len(rows)} runs, {len(cells)} cells, {pairs} (cell, k) pairs")
    for o, rand, base in (
        ("PLC", "random", befores),
        ("PLC-before", "random-before", old_befores),
    ):
        ge_r = sum(np.sum(m[o] >= m[rand]) for m in mean.values())
        ge_c = sum(np.sum(m[o] >= m["cleanlab"]) for m in mean.values())
        ge_both = sum(
            np.sum((m[o] >= m[rand]) & (m[o] >= m["cleanlab"])) for m in mean.values()
        )
        gain = np.mean([np.mean(m[o] - base[c]) for c, m in mean.items()])
        loss_cells = sum(np.min(m[o] - base[c]) < -0.005 for c, m in mean.items())
        print(
            f"{o:>11}: >= random {ge_r}, >= cleanlab {ge_c}, >= both {ge_both} "
            f"of {pairs}; gain over before {100 * gain:+.2f}; cells below before "
            f"-0.5: {loss_cells}"
        )
    for o, base in (
        ("random", befores),
        ("random-before", old_befores),
        ("cleanlab", old_befores),
    ):
        gain = np.mean([np.mean(m[o] - base[c]) for c, m in mean.items()])
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
