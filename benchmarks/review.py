"""What reviewing labels buys: test accuracy after k reviewed labels, by review order.

Every (dataset, model, noise, seed) cell fits PLC and cleanlab's
``CleanLearning`` on the noisy training labels, then simulates a reviewer (the
clean labels) who reviews in a loop: k = 25 labels of an order, a refit with
them, then the next labels up to the next k (50, 100, 200, 400) from the
refit's own order, each reviewed label getting its true label:

- **PLC**: ``review_list()`` (its default ranking, every sample, the least
  sure first; a refit lists its reviewed labels last and ranks the rest); PLC
  is fitted again with every reviewed label marked ``trusted``;
- **cleanlab**: cleanlab's label-quality order (``label_issues_df`` of the
  ``CleanLearning`` fit, lowest quality first), and ``CleanLearning`` fitted
  again on the reviewed labels (cleanlab's own workflow);
- **random**: a random order, PLC fitted again as for PLC's order.

``--orders`` adds, for the development protocol, ``PLC-static`` and
``cleanlab-static`` (the first k of the order of the fit before review, no
loop) and ``PLC-likelihood`` (``review_list(rank="likelihood")``, the audit
ranking, static). Test labels are always clean; the plain model on the clean
labels gives the accuracy a review aims at.
"""

import json
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from .unseen import at_least, grid

SEEDS = (0, 1, 2)
DEV_SEEDS = (100, 101, 102)
DEV_SPLIT = 1
KS = (25, 50, 100, 200, 400)
NOISES = ("I-35", "U30")
MODELS = ("random-forest", "gradient-boosting", "mlp")
ORDERS = ("PLC", "cleanlab", "random")
EXTRA_ORDERS = ("PLC-static", "cleanlab-static", "PLC-likelihood")
# The orders a reviewer takes in a loop, from each refit's own order
LOOPS = ("PLC", "cleanlab")
# A review "reaches" clean-label accuracy within this many points
WITHIN = 0.01
# Accuracy after review may fall below the fit before review by at most this
NO_LOSS_TOLERANCE = 0.005

DATASETS = {
    "blobs-2d": "3 overlapping 2-D Gaussian blobs, n=1500 (the tables')",
    "synthetic-5": "make_classification, 20 features, 5 classes, n=3000 (the tables')",
    "weak-5": "make_classification, 50 features, 5 classes of 2 clusters, "
    "class_sep=0.6, n=4000 (the tables' weak-lr data)",
    "hard-3": "make_classification, 20 features (6 informative), 3 classes, "
    "class_sep=0.8, n=1500 (the tables' hard-3 data)",
    "breast_cancer": "sklearn breast_cancer, 30 features, 2 classes, n=569 (unseen's)",
    "digits-flat": "sklearn digits as 64 features, 10 classes, n=1797 (unseen's)",
    "hard-4": "make_classification, 30 features, 4 classes of 2 clusters, n=2500 "
    "(unseen's)",
    "many-20": "make_classification, 60 features, 20 classes, n=3000 (unseen's)",
}


def load(name, split):
    """``(X_train, X_test, y_train, y_test)`` of a dataset on `split`."""
    from . import tables, unseen

    loaders = {
        "blobs-2d": tables._load_blobs,
        "synthetic-5": tables._load_synthetic,
        "weak-5": tables._load_weak,
        "hard-3": tables._load_hard,
    }
    if name in loaders:
        return loaders[name](split)
    return tables._split(*unseen._load(name), split)


def _noisy_labels(noise, X_train, y_train, seed):
    from sklearn_plc.noise import PMDNoise, UniformNoise

    if noise == "U30":
        injector = UniformNoise(0.3, random_state=seed)
    else:
        pmd_type, level = noise.split("-")
        injector = PMDNoise(pmd_type, int(level) / 100, random_state=seed)
    return injector.fit_resample(X_train, y_train)[1]


def run_cell(dataset, model, noise, seed, split, orders, ks):
    """One cell: accuracy and purity before review and after each k, per order."""
    from sklearn.base import clone

    from sklearn_plc import PLCClassifier

    from .tables import clean_learning, plc_ranking
    from .unseen import _model

    warnings.simplefilter("ignore")
    X_train, X_test, y_train, y_test = load(dataset, split)
    y_noisy = _noisy_labels(noise, X_train, y_train, seed)
    n_samples = y_train.shape[0]
    base = _model(model)

    def accuracy(fitted):
        return float(np.mean(fitted.predict(X_test) == y_test))

    def fit_plc(labels, trusted=None):
        plc = PLCClassifier(clone(base), random_state=seed)
        return plc.fit(X_train, labels, trusted=trusted)

    row = {"dataset": dataset, "model": model, "noise": noise, "seed": seed}
    row["clean"] = accuracy(clone(base).fit(X_train, y_train))
    row["standard"] = accuracy(clone(base).fit(X_train, y_noisy))
    row["purity_given"] = float(np.mean(y_noisy == y_train))
    start = time.perf_counter()
    before = fit_plc(y_noisy)
    row["plc_s"] = time.perf_counter() - start
    row["before"] = accuracy(before)
    row["purity_before"] = float(np.mean(before.labels_ == y_train))
    cleaner = clean_learning(clone(base), seed).fit(X_train, y_noisy)
    row["cleanlab_before"] = accuracy(cleaner)

    def refit(order_name, reviewed, y_reviewed):
        if order_name.startswith("cleanlab"):
            return clean_learning(clone(base), seed).fit(X_train, y_reviewed)
        trusted = np.zeros(n_samples, dtype=bool)
        trusted[reviewed] = True
        return fit_plc(y_reviewed, trusted)

    def ranked(order_name, fitted):
        """A fitted model's order (PLC's or cleanlab's), most worth a review first."""
        if order_name.startswith("cleanlab"):
            quality = fitted.label_issues_df["label_quality"].to_numpy()
            return np.argsort(quality, kind="stable")
        rank = "likelihood" if order_name == "PLC-likelihood" else "uncertainty"
        return plc_ranking(fitted, rank)

    row["after"] = {}
    row["purity_after"] = {}
    row["wrong_reviewed"] = {}
    for order_name in orders:
        if order_name == "random":
            order = np.random.RandomState(seed).permutation(n_samples)
        else:
            order = ranked(
                order_name, cleaner if order_name.startswith("cleanlab") else before
            )
        accuracies, purities, wrong = [], [], []
        reviewed = np.zeros(0, dtype=np.intp)
        for k in ks:
            if order_name in LOOPS:
                reviewed = reviewed_next(reviewed, order, k)
            else:
                reviewed = order[: min(k, n_samples)]
            y_reviewed = y_noisy.copy()
            y_reviewed[reviewed] = y_train[reviewed]
            wrong.append(int(np.count_nonzero(y_noisy[reviewed] != y_train[reviewed])))
            fitted = refit(order_name, reviewed, y_reviewed)
            if order_name.startswith("cleanlab"):
                purities.append(float(np.mean(y_reviewed == y_train)))
            else:
                purities.append(float(np.mean(fitted.labels_ == y_train)))
            accuracies.append(accuracy(fitted))
            if order_name in LOOPS:
                order = ranked(order_name, fitted)
        row["after"][order_name] = accuracies
        row["purity_after"][order_name] = purities
        row["wrong_reviewed"][order_name] = wrong
    return row


def reviewed_next(reviewed, order, k):
    """The review loop's first `k` samples: `reviewed`, then `order`'s first new ones.

    `order` is the last refit's order of every sample (the reviewed ones
    among them); the samples already reviewed stay reviewed.
    """
    new = order[~np.isin(order, reviewed)]
    return np.concatenate([reviewed, new[: max(k - reviewed.shape[0], 0)]])


def _reviews_to_reach(accuracies, ks, target):
    """The first k whose accuracy is within :data:`WITHIN` of `target`; inf if none."""
    for k, value in zip(ks, accuracies, strict=True):
        if value >= target - WITHIN:
            return k
    return np.inf


def summarise(rows, ks, orders):
    """Per cell (dataset, model, noise): means over seeds, and the reviews to reach."""
    cells = defaultdict(list)
    for row in rows:
        cells[(row["dataset"], row["model"], row["noise"])].append(row)
    summary = {}
    for key, runs in sorted(cells.items()):
        entry = {
            name: float(np.mean([r[name] for r in runs]))
            for name in (
                "clean",
                "standard",
                "before",
                "cleanlab_before",
                "purity_before",
            )
        }
        for name in ("after", "purity_after"):
            entry[name] = {
                order: np.mean([r[name][order] for r in runs], axis=0).tolist()
                for order in orders
            }
        entry["to_reach"] = {
            order: _reviews_to_reach(entry["after"][order], ks, entry["clean"])
            for order in orders
        }
        summary[key] = entry
    return summary


def target_figures(summary, ks):
    """The issue's three targets, over cells (means over seeds)."""
    pairs = [(entry["after"], i) for entry in summary.values() for i in range(len(ks))]

    def plc_at_least(*others):
        return sum(
            all(at_least(after["PLC"][i], after[other][i]) for other in others)
            for after, i in pairs
        )

    losses = [
        min(entry["after"]["PLC"]) - entry["before"] for entry in summary.values()
    ]
    figures = {
        "pairs": len(pairs),
        "at_least_random": plc_at_least("random"),
        "at_least_cleanlab": plc_at_least("cleanlab"),
        "at_least_both": plc_at_least("random", "cleanlab"),
        "cells": len(summary),
        "cells_without_loss": sum(loss >= -NO_LOSS_TOLERANCE for loss in losses),
        "worst_loss": min(losses),
    }
    for order in ("PLC", "cleanlab", "random"):
        reach = [entry["to_reach"][order] for entry in summary.values()]
        figures[f"median_to_reach_{order}"] = float(np.median(reach))
    return figures


def _k_label(k):
    return "never" if not np.isfinite(k) else f"{int(k)}"


def format_review(summary, meta):
    """The Markdown report: one row per cell and order, then the target lines."""
    ks, orders = meta["ks"], meta["orders"]
    lines = [
        "# What reviewing labels buys",
        "",
        f"`{meta['command']}`, seeds {', '.join(map(str, meta['seeds']))}, split "
        f"{meta['split']}; {meta['wall_s'] / 60:.1f} min. Test accuracy (%, mean over "
        "seeds) after k reviewed labels; before: the fit on the noisy labels "
        "(PLC's; cleanlab's for its order); clean: the plain model on clean labels; "
        f"reach: the first k within {100 * WITHIN:.0f} point of clean.",
        "",
        "| dataset | model | noise | order | clean | before | "
        + " | ".join(f"k={k}" for k in ks)
        + " | reach |",
        "|" + "---|" * (7 + len(ks)),
    ]
    for (dataset, model, noise), entry in summary.items():
        for order in orders:
            before = entry[
                "cleanlab_before" if order.startswith("cleanlab") else "before"
            ]
            lines.append(
                f"| {dataset} | {model} | {noise} | {order} | "
                f"{100 * entry['clean']:.1f} | {100 * before:.1f} | "
                + " | ".join(f"{100 * v:.1f}" for v in entry["after"][order])
                + f" | {_k_label(entry['to_reach'][order])} |"
            )
    figures = target_figures(summary, ks)
    pairs = figures["pairs"]
    ratio = figures["median_to_reach_PLC"] / figures["median_to_reach_cleanlab"]
    lines += [
        "",
        "## Targets",
        "",
        f"- PLC's order ≥ random in {figures['at_least_random']} of {pairs} (cell, k) "
        f"pairs, ≥ cleanlab's order in {figures['at_least_cleanlab']}, ≥ both in "
        f"{figures['at_least_both']} ({100 * figures['at_least_both'] / pairs:.0f}%; "
        "target ≥ 80%).",
        f"- After any k, PLC's order ≥ the fit before review − "
        f"{100 * NO_LOSS_TOLERANCE:.1f} in {figures['cells_without_loss']} of "
        f"{figures['cells']} cells (worst {100 * figures['worst_loss']:+.1f}; "
        "target: every cell).",
        f"- Median reviews to reach clean-label accuracy: PLC's order "
        f"{_k_label(figures['median_to_reach_PLC'])}, cleanlab's "
        f"{_k_label(figures['median_to_reach_cleanlab'])}, random "
        f"{_k_label(figures['median_to_reach_random'])} (ratio to cleanlab's "
        f"{ratio:.2f}; target ≤ 0.7; 'never': not within {ks[-1]}).",
    ]
    return "\n".join(lines)


def plot_review(summary, meta, path):
    """Mean accuracy gain over the fit before review against k, one line per order."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks, orders = meta["ks"], meta["orders"]
    models = sorted({model for _, model, _ in summary})
    fig, axes = plt.subplots(
        1, len(models), figsize=(4 * len(models), 3.5), sharey=True, squeeze=False
    )
    for ax, model in zip(axes[0], models, strict=True):
        entries = [e for (_, m, _), e in summary.items() if m == model]
        for order in orders:
            gains = [
                100 * (np.asarray(e["after"][order]) - e["before"]) for e in entries
            ]
            ax.plot(ks, np.mean(gains, axis=0), marker="o", label=order)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.minorticks_off()
        ax.set_title(model)
        ax.set_xlabel("labels reviewed")
    axes[0][0].set_ylabel("accuracy − PLC before review (points)")
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run_review(
    folder, *, datasets, models, noises, seeds, split, orders, jobs, command
):
    """Run the benchmark; write ``review.md``, ``review.json``, ``review.png``.

    ``review_cells.jsonl`` gets each cell's row as it finishes.
    """
    start = time.perf_counter()
    ks = KS
    jobs_list = grid(models, datasets, noises, seeds)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
    rows = []
    # each cell's row as it finishes: a run of hours can be read before its end
    with (folder / "review_cells.jsonl").open("w") as cells:
        for row in tqdm(
            parallel(delayed(run_cell)(*job, split, orders, ks) for job in jobs_list),
            total=len(jobs_list),
            desc="cells",
        ):
            rows.append(row)
            cells.write(json.dumps(row) + "\n")
            cells.flush()
    meta = {
        "command": command,
        "seeds": list(seeds),
        "split": split,
        "ks": list(ks),
        "orders": list(orders),
        "wall_s": time.perf_counter() - start,
    }
    summary = summarise(rows, ks, orders)
    markdown = format_review(summary, meta)
    (folder / "review.md").write_text(markdown + "\n")
    (folder / "review.json").write_text(json.dumps({"meta": meta, "runs": rows}))
    plot_review(summary, meta, folder / "review.png")
    return markdown
