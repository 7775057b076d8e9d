"""Corrections contested as a whole: set aside what confident learning disputes.

Question (issue "Ahead of cleanlab"): on the corrected runs whose held-out
judge measured a loss that is not clear enough to undo (``gain < 0``), cleanlab
leads PLC on all three study sets (``undo_recheck_*.json``: dev +1.90 against
+3.08 a run, unseen +4.69 against +5.20, second check −2.48 against −2.13),
while on the runs with ``gain >= 0`` PLC leads. Confident learning's removal on
PLC's own first-round probabilities does not close the gap there
(``residual.py``): the runs were selected by those probabilities. The variant
keeps the labels as given in those runs and leaves out of the final fit the
samples that confident learning (``sklearn_plc.evidence.confident_label_issues``)
disputes on fresh out-of-fold probabilities of every sample
(``_ending.CONTESTED_FOLDS`` folds): ``cl5`` (5 folds, as cleanlab), ``cl3``
(3, the default ``cv``). Only the runs that the rule changes are
rerun; the others keep their logged result.

Logs read (the library before the change, at 31e4435, no behaviour change
since): ``undo_recheck_{dev,unseen,fresh}.json`` (their ``default`` rows); for
``tables`` (the reported split, a check of the shipped rule only),
``tables_alone_3c0b29a.json`` with blobs-2d from ``tables_blobs_scope.json``.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/contested_corrections.py run OUT.json SET [VARIANT...]
    python benchmarks/studies/contested_corrections.py summary SET LOG.json

SET: ``dev``, ``unseen``, ``fresh`` or ``tables``; VARIANT: ``cl5``, ``cl3``
(by default ``cl5``, with ``cl3`` on dev).
"""

import json
import sys
import warnings
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    RUN_KEY,
    STUDIES_DIR,
    fit_plc_row,
    load_rows,
    patched,
    print_headlines,
    run_and_dump,
    run_or_summarise,
    tables_plc_cell,
    with_standard_and_cleanlab,
)

BEFORE = STUDIES_DIR + "undo_recheck_{}.json"
CORRECTED = ("converged", "max_iter")


TABLES_BEFORE = (
    STUDIES_DIR + "tables_alone_3c0b29a.json",
    STUDIES_DIR + "tables_blobs_scope.json",
)


def tables_runs():
    """The tables' runs at HEAD before the change: blobs-2d from its own rerun."""
    with open(TABLES_BEFORE[0]) as file:
        runs = [r for r in json.load(file)["runs"] if r["dataset"] != "blobs-2d"]
    with open(TABLES_BEFORE[1]) as file:
        return runs + json.load(file)["runs"]


def before_rows(what):
    """The logged runs: ``{key: row}``, as the study sets log them."""
    if what == "tables":
        return {
            (r["dataset"], "base", r["noise"], r["seed"]): {
                "std": r["Standard"]["accuracy"],
                "cleanlab": r["cleanlab"]["accuracy"],
                "default": {
                    "acc": r["PLC"]["accuracy"],
                    "s": r["PLC"]["fit_s"],
                    "termination": r["PLC"]["termination"],
                    "gain": r["PLC"].get("holdout_gain"),
                },
            }
            for r in tables_runs()
            if r["kind"] == "cell" and "PLC" in r and "cleanlab" in r
        }
    return {tuple(r[k] for k in RUN_KEY): r for r in load_rows(BEFORE.format(what))}


def contested(row):
    """Whether the rule would change a logged run: corrected, judged at a loss."""
    default = row["default"]
    return default["termination"] in CORRECTED and (default.get("gain") or 0) < 0


FOLDS = {"cl5": 5, "cl3": 3}


def run_job(dataset, model, noise, seed, what, chosen=()):
    import sklearn_plc._ending as ending

    warnings.simplefilter("ignore")
    row = dict(zip(RUN_KEY, (dataset, model, noise, seed), strict=True))
    if what == "tables":
        for variant in chosen or ("cl5",):
            with patched(ending, CONTESTED_FOLDS=FOLDS[variant]):
                cell = tables_plc_cell(dataset, noise, seed)
            row["std"] = cell["Standard"]["accuracy"]
            row[variant] = {
                "acc": cell["PLC"]["accuracy"],
                "s": cell["PLC"]["fit_s"],
                "termination": cell["PLC"]["termination"],
                "std_s": cell["Standard"]["fit_s"],
            }
        return row
    (X, _, y_clean, _, y, make), drawn_row, score = with_standard_and_cleanlab(
        dataset, model, noise, seed, what != "dev"
    )
    row["std"] = drawn_row["std"]
    variants = chosen or (("cl5", "cl3") if what == "dev" else ("cl5",))
    for variant in variants:
        folds = FOLDS[variant]
        with patched(ending, CONTESTED_FOLDS=folds):
            row[variant] = fit_plc_row(make, X, np.asarray(y), seed, y_clean, score)
    return row


def run(out, what, variants=()):
    jobs = [
        (*key, what, tuple(variants))
        for key, row in before_rows(what).items()
        if contested(row)
    ]
    run_and_dump(run_job, jobs, out)


def tables_summary(path):
    """The tables' targets before and after, and the corrected runs' cost."""
    import copy

    from benchmarks import tables

    rerun = {tuple(r[k] for k in RUN_KEY): r for r in load_rows(path)}
    variants = [v for v in FOLDS if all(v in r for r in rerun.values())]
    before = tables_runs()
    compared = [("before", before)]
    for variant in variants:
        after = copy.deepcopy(before)
        for run in after:
            new = rerun.get((run["dataset"], "base", run.get("noise"), run["seed"]))
            if new is not None:
                result = new[variant]
                run["PLC"].update(
                    accuracy=result["acc"],
                    fit_s=result["s"] * run["Standard"]["fit_s"] / result["std_s"],
                    termination=result["termination"],
                )
        compared.append((variant, after))
    for label, runs in compared:
        figures = tables.target_figures(tables.summarise(runs))
        ahead, cells = defaultdict(int), defaultdict(int)
        for (dataset, noise), entry in tables.summarise(runs).items():
            if (
                "cleanlab" in entry
                and "PLC" in entry
                and tables.NOISE_CELLS[noise].table != tables.STRESS_TABLE
            ):
                cells[dataset] += 1
                ahead[dataset] += np.mean(entry["PLC"]) >= np.mean(entry["cleanlab"])
        corrected = [
            r
            for r in runs
            if r["kind"] == "cell"
            and "cleanlab" in r
            and r["dataset"] not in ("digits", "mnist1d")
            and r["PLC"]["termination"] not in tables_kept()
        ]
        plc = np.median([r["PLC"]["fit_s"] / r["Standard"]["fit_s"] for r in corrected])
        clean = np.median(
            [r["cleanlab"]["fit_s"] / r["Standard"]["fit_s"] for r in corrected]
        )
        print(
            f"{label}: PMD mean {100 * figures['pmd_mean_gain']:+.2f}, >= cleanlab "
            f"{figures['plc_ge_cleanlab']} of {figures['cleanlab_cells']}, "
            f"majority-right within 0.5 {figures['majority_right_within_half_point']} "
            f"of {figures['majority_right_cells']}, all within 0.5 "
            f"{figures['all_within_half_point']} of {figures['all_cells']}; "
            f"corrected cost {plc:.1f}x vs cleanlab {clean:.1f}x "
            f"({plc / clean:.2f}, {len(corrected)} runs)"
        )
        print("   ahead by dataset:", {d: f"{ahead[d]}/{cells[d]}" for d in cells})


def tables_kept():
    from benchmarks.unseen import KEPT

    return KEPT


def summary(what, path):
    if what == "tables":
        return tables_summary(path)
    before = before_rows(what)
    rerun = {tuple(r[k] for k in RUN_KEY): r for r in load_rows(path)}
    variants = [v for v in FOLDS if all(v in r for r in rerun.values())]
    cells = defaultdict(lambda: defaultdict(list))
    changed = defaultdict(list)
    cost = defaultdict(list)
    for key, row in before.items():
        cell = cells[key[:3]]
        logged = 100 * (row["default"]["acc"] - row["std"])
        cell["before"].append(logged)
        cell["cleanlab"].append(100 * (row["cleanlab"] - row["std"]))
        new = rerun.get(key)
        for variant in variants:
            if new is None:
                cell[variant].append(logged)
                continue
            after = 100 * (new[variant]["acc"] - new["std"])
            cell[variant].append(after)
            changed[variant].append((after - logged, cell["cleanlab"][-1] - logged))
            cost[variant].append(new[variant]["s"] / row["default"]["s"])
    means = {
        key: {label: np.mean(gains) for label, gains in cell.items()}
        for key, cell in cells.items()
    }
    print_headlines(list(means), means, ("before", *variants, "cleanlab"))
    for variant in variants:
        deltas = np.array(changed[variant])
        print(
            f"{variant}: {len(deltas)} runs rerun, after - before "
            f"{deltas[:, 0].mean():+.2f} "
            f"a run (cleanlab - before {deltas[:, 1].mean():+.2f}); better "
            f"{(deltas[:, 0] > 0).sum()}, worse {(deltas[:, 0] < 0).sum()}; "
            f"fit time x{np.median(cost[variant]):.2f} (median over the rerun runs)"
        )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
