"""Contested corrections: confident learning on the first round's folds too?

Question (issue "Ahead of cleanlab"; ``gap_map.py endings``): where the held-out
judge contests a run's corrections (``"corrections_contested"``), the labels go
back to those given and the final fit leaves out what confident learning
disputes on out-of-fold probabilities from ``cv`` new folds of every sample.
Those runs trail cleanlab on dev, the unseen check and the tables alike, and
their new folds are three fits that a converged run does not make (the tables'
contested wine runs cost 19× a plain fit against 14× converged). The first
round already fitted folds on the labels as given, so its held-out
probabilities are a second, independent estimate at no cost. Earlier, removal
on the first round's probabilities alone did no better than cleanlab on these
runs (``residual.py``: the runs were chosen by those probabilities); it was not
compared with the new folds, nor averaged with them.

Each run that the library ends contested (in the base logs) is rerun with the
library, recording the new folds' probabilities, the first round's, and the
seeded estimator that the final fit clones. The final model is then fitted
again, as the library fits it (the labels as given, every class kept), without:

- ``cl-new``: confident learning's flags on the new folds (the library
  before ``CONTEST_WITH_FIRST_ROUND``; ``cl-avg`` is the library since, and
  ``summary`` says which of the two a log's library runs reproduce);
- ``cl-first``: its flags on the first round's probabilities (the new folds
  would not be needed: three fits fewer);
- ``cl-avg``: its flags on the mean of the two (no fit saved; two partitions).

Logs read for the jobs: ``weak_removal_dev.json`` (dev),
``unseen_random_corrected.json`` (the unseen check's last full run) and
``contested_corrections_fresh.json`` (the second check's contested runs).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/contested_first.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/contested_first.py summary LOG.json...
    python benchmarks/studies/contested_first.py cells dev|unseen LOG.json
    python benchmarks/studies/contested_first.py tables TABLES_LOG.json [BASE]
"""

import json
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies import weak_removal
from benchmarks.studies.common import (
    RUN_KEY,
    STUDIES_DIR,
    jobs_run,
    patched,
    recorded_library_run,
    run_or_summarise,
    study_jobs,
)

VARIANTS = ("cl-new", "cl-first", "cl-avg")
CONTESTED = "corrections_contested"
BASE_LOGS = {
    "dev": STUDIES_DIR + "weak_removal_dev.json",
    "unseen": STUDIES_DIR + "unseen_random_corrected.json",
    "fresh": STUDIES_DIR + "contested_corrections_fresh.json",
}


def _contested_keys(what):
    """The runs (``RUN_KEY`` tuples) that the base log ends contested."""
    with open(BASE_LOGS[what]) as file:
        logged = json.load(file)
    if isinstance(logged, dict):  # a full run of ``benchmarks unseen``
        return {
            tuple(run[key] for key in RUN_KEY)
            for run in logged["runs"]
            if run["termination"] == CONTESTED
        }
    keys = set()
    for row in filter(None, logged):
        library = row.get("lib") or row.get("cl3")
        if library and library["termination"] == CONTESTED:
            keys.add(tuple(row[key] for key in RUN_KEY))
    return keys


def jobs(what):
    """The study set's jobs whose run the base log ends contested."""
    chosen = _contested_keys(what)
    if what == "dev":
        found = weak_removal.jobs("dev")
    else:
        found = study_jobs(what, weak_removal.SEEDS)
    return [job for job in found if job[:4] in chosen]


def contested_run(dataset, model, noise, seed, check):
    """The library's run of a job, with what its contested ending read.

    None where the noise cannot be drawn. Otherwise ``(drawn, row, score,
    contested)``: ``drawn`` is ``(X_train, y_train, run, given)``, ``row`` the
    job's log entry with the library's run (``row["lib"]``) and the contested
    ending's seconds (``contest_s``), ``score`` scores a fitted model, and
    ``contested`` is None where the run did not end contested, else
    ``(estimator, new, first)``: the seeded estimator the final fit clones, the
    new folds' held-out probabilities (or the new out-of-bag ensemble's, as
    the ending's ``out_of_fold_proba`` or ``out_of_bag_proba`` returned them,
    before any average) and the first round's.
    """
    import time

    import sklearn_plc._ending as ending

    caught = {}

    def catching(method):
        def caught_proba(*args, **kwargs):
            proba, more = method(*args, **kwargs)
            caught["new"] = np.array(proba, dtype=float)  # the contested ending's last
            return proba, more

        return caught_proba

    def catching_set_aside(run, estimator, *args, **kwargs):
        caught["estimator"] = estimator
        start = time.perf_counter()
        try:
            return contested_set_aside(run, estimator, *args, **kwargs)
        finally:
            caught["seconds"] = time.perf_counter() - start

    contested_set_aside = ending.contested_set_aside
    with (
        patched(
            ending,
            out_of_fold_proba=catching(ending.out_of_fold_proba),
            out_of_bag_proba=catching(ending.out_of_bag_proba),
        ),
        patched(ending, contested_set_aside=catching_set_aside),
    ):
        recorded = recorded_library_run(dataset, model, noise, seed, check)
    if recorded is None:
        return None
    (X_train, y_train, _, _), row, score, seen = recorded
    drawn = (X_train, y_train, seen["run"], seen["corrector"].initial_labels)
    if row["lib"]["termination"] != CONTESTED or "new" not in caught:
        return drawn, row, score, None
    row["contest_s"] = caught["seconds"]
    first = np.asarray(seen["first_proba"], dtype=float)
    return drawn, row, score, (caught["estimator"], caught["new"], first)


def refit_without(drawn, estimator, score, left_out):
    """The final model refitted without `left_out`, as the library fits it; its entry.

    Accuracy, samples left out and how many of them were wrong labels.
    """
    from sklearn.base import clone

    from sklearn_plc._final_fit import keep_every_class

    X_train, y_train, run, given = drawn
    left_out = keep_every_class(left_out, given)
    kept = ~left_out
    fitted = clone(estimator).fit(X_train[kept], run.classes[given[kept]])
    wrong = run.classes[given] != y_train
    return {
        "acc": score(fitted),
        "n": int(left_out.sum()),
        "wrong": int((left_out & wrong).sum()),
    }


def refitted_variants(job, probabilities):
    """A contested-run job's row with each variant's final fit refitted.

    ``probabilities(drawn, row, estimator, new, first)`` gives each variant's
    held-out probabilities of the labels as given (it may log more in
    ``row``); the final model is refitted without confident learning's flags
    on each (:func:`refit_without`). Runs that the library does not end
    contested keep the library's row only; None where the noise cannot be
    drawn.
    """
    from sklearn_plc.evidence import confident_label_issues

    found = contested_run(*job)
    if found is None:
        return None
    drawn, row, score, contested = found
    if contested is None:
        return row
    given, estimator = drawn[3], contested[0]
    for variant, proba in probabilities(drawn, row, *contested).items():
        left_out = confident_label_issues(proba, given)
        row[variant] = refit_without(drawn, estimator, score, left_out)
    return row


def _variants(drawn, row, estimator, new, first):
    from sklearn_plc.evidence import confident_label_issues

    given = drawn[3]
    row["n_first_and_new"] = int(
        (
            confident_label_issues(new, given) & confident_label_issues(first, given)
        ).sum()
    )
    return {"cl-new": new, "cl-first": first, "cl-avg": (first + new) / 2}


def run_job(dataset, model, noise, seed, check):
    return refitted_variants((dataset, model, noise, seed, check), _variants)


def _load(path):
    with open(path) as file:
        return json.load(file)


def _accuracy(row, variant):
    return row[variant]["acc"] if variant in VARIANTS else row[variant]


def summary(*paths):
    """Per set, each variant's mean gain a run and cells ahead of cleanlab."""
    rows = [row for path in paths for row in _load(path) if row and "cl-new" in row]
    print(f"{len(rows)} contested runs")
    # the library of the log's time: cl-new before CONTEST_WITH_FIRST_ROUND, then cl-avg
    for variant in ("cl-new", "cl-avg"):
        same = sum(abs(r[variant]["acc"] - r["lib"]["acc"]) < 1e-9 for r in rows)
        print(f"{variant} equals the library's accuracy in {same} of {len(rows)}")
    for variant in (*VARIANTS, "cleanlab"):
        gains = [100 * (_accuracy(r, variant) - r["std"]) for r in rows]
        line = f"  {variant:9s} {np.mean(gains):+.2f} a run over Standard"
        if variant in VARIANTS:
            n = sum(r[variant]["n"] for r in rows)
            wrong = sum(r[variant]["wrong"] for r in rows)
            versus = [100 * (r[variant]["acc"] - r["cl-new"]["acc"]) for r in rows]
            better = sum(v > 0 for v in versus)
            worse = sum(v < 0 for v in versus)
            line += (
                f"; vs cl-new {np.mean(versus):+.2f} ({better} better, {worse} "
                f"worse); left out {n / len(rows):.0f} a run at precision "
                f"{wrong / max(n, 1):.2f}"
            )
        print(line)
    by_family = defaultdict(list)
    for r in rows:
        by_family[r["model"] if r["model"] != "base" else r["dataset"]].append(r)
    print("\nby model (a run, over cl-new):")
    for name, runs in sorted(by_family.items()):
        over = {
            v: 100 * np.mean([_accuracy(r, v) - r["cl-new"]["acc"] for r in runs])
            for v in (*VARIANTS[1:], "cleanlab")
        }
        print(
            f"  {name}: {len(runs)} runs, "
            + ", ".join(f"{v} {gain:+.2f}" for v, gain in over.items())
        )


def _base_accuracies(what):
    """Every run of the set as the library ends it: ``{key: (std, plc, cleanlab)}``.

    dev: the dev logs as ``gap_map.py`` composes them; unseen: the last full
    run, its MLP included (the check's 96 cells).
    """
    from benchmarks.studies import gap_map

    if what == "unseen":
        with open(BASE_LOGS["unseen"]) as file:
            return {
                tuple(run[k] for k in RUN_KEY): (
                    run["standard"],
                    run["plc"],
                    run["cleanlab"],
                )
                for run in json.load(file)["runs"]
            }
    return {
        key: (row["std"], accuracy, row["cleanlab"])
        for key, (row, accuracy) in gap_map.dev_library_runs().items()
    }


def cells(what, path, variants=VARIANTS):
    """Cell figures of the set with each variant in its contested runs.

    Mean gain over Standard a cell, cells within 0.5 of Standard, cells ahead
    of cleanlab (``dev`` or ``unseen``); `variants`: the log's (another
    study's log of the same runs may be read with its own).
    """
    base = _base_accuracies(what)
    rows = {tuple(r[k] for k in RUN_KEY): r for r in _load(path) if r}
    for variant in variants:
        by_cell = defaultdict(list)
        for key, (std, plc, cleanlab) in base.items():
            row = rows.get(key)
            if row is not None and variant in row:
                plc = row[variant]["acc"]
            by_cell[key[:3]].append((std, plc, cleanlab))
        gains, ahead = [], 0
        for runs in by_cell.values():
            std, plc, cleanlab = np.mean(runs, axis=0)
            gains.append(100 * (plc - std))
            ahead += plc >= cleanlab
        gains = np.array(gains)
        print(
            f"  {variant}: {len(gains)} cells, mean {gains.mean():+.2f}, within 0.5 "
            f"{(gains >= -0.5).sum()}, >= cleanlab {ahead}"
        )


def tables(path, base=STUDIES_DIR + "tables_random_corrected.json"):
    """A tables run of the scikit-learn datasets, with the nets of `base`.

    Prints the issue's targets on the merged runs, cells ahead of cleanlab by
    dataset, the corrected scikit-learn runs' median cost against cleanlab's
    and every run's median (nets included), and the runs whose accuracy or
    ending differ from `base`.
    """
    from benchmarks import tables as tables_module

    new = [r for r in _load(path)["runs"] if r["kind"] == "cell"]
    datasets = {r["dataset"] for r in new}
    old = [r for r in _load(base)["runs"] if r["kind"] == "cell"]
    merged = new + [r for r in old if r["dataset"] not in datasets]
    figures = tables_module.target_figures(tables_module.summarise(merged))
    cost = tables_module.corrected_cost(merged)
    print(
        f"PMD mean {100 * figures['pmd_mean_gain']:+.2f}; >= cleanlab "
        f"{figures['plc_ge_cleanlab']} of {figures['cleanlab_cells']}; "
        f"majority-right within 0.5 {figures['majority_right_within_half_point']} "
        f"of {figures['majority_right_cells']}; corrected cost {cost['plc']:.1f}x "
        f"against cleanlab's {cost['cleanlab']:.1f}x "
        f"({cost['plc'] / cost['cleanlab']:.2f}, {cost['runs']} runs); "
        f"every run's median {cost['every_run']:.1f}x"
    )
    print(
        "ahead by dataset:",
        {d: f"{a}/{n}" for d, (a, n) in figures["ahead_by_dataset"].items()},
    )
    before = {(r["dataset"], r["noise"], r["seed"]): r for r in old if "PLC" in r}
    for run in new:
        earlier = before.get((run["dataset"], run["noise"], run["seed"]))
        if earlier is None or "PLC" not in run:
            continue
        now, then = run["PLC"], earlier["PLC"]
        if (now["accuracy"], now["termination"]) != (
            then["accuracy"],
            then["termination"],
        ):
            print(
                f"  {run['dataset']} {run['noise']} seed {run['seed']}: "
                f"{then['termination']} {100 * then['accuracy']:.1f} -> "
                f"{now['termination']} {100 * now['accuracy']:.1f} "
                f"(cleanlab {100 * run['cleanlab']['accuracy']:.1f})"
            )


if __name__ == "__main__":
    run_or_summarise(
        __doc__, jobs_run(run_job, jobs), summary, cells=cells, tables=tables
    )
