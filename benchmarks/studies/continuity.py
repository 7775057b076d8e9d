"""An undo on one sample: the continuity correction of the paired verdict.

Question (issue "Ahead of cleanlab"): the undo (and the early stop) compares
the held-out agreement of the last refit with the first by its paired gain in
standard errors. With few discordant samples that normal approximation fails:
one judged sample that only the first round agrees with gives ``z ≈ −1.02``
on any number of samples, and the undo fires at one standard error. In the
tables' run of this version 7 of the 13 undone runs were undone on one sample
(``(gain / SE)² = 1``). McNemar's continuity correction asks the loss to clear
the bar by one sample (``sklearn_plc.evidence.agrees_clearly_worse``,
``CONTINUITY_CORRECTION``). It can only keep runs that were undone, so only
those are rerun: ``continuity`` (the correction), and on dev also ``plain``
(without it: it must reproduce the log).

Logs read (the runs of the version before): dev ``resplit_dev.json`` (its
``lib`` rows), unseen ``unseen_oob_auto.json``, second check
``fresh_oob_auto.json``, tables ``tables_oob_auto.json``.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/continuity.py run OUT.json dev|unseen|fresh|tables
    python benchmarks/studies/continuity.py summary dev|unseen|fresh|tables LOG.json
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
    gain_headline,
    load_rows,
    patched,
    run_and_dump,
    run_or_summarise,
    tables_plc_cell,
    with_standard_and_cleanlab,
)

BEFORE = {
    "dev": STUDIES_DIR + "resplit_dev.json",
    "unseen": STUDIES_DIR + "unseen_oob_auto.json",
    "fresh": STUDIES_DIR + "fresh_oob_auto.json",
    "tables": STUDIES_DIR + "tables_oob_auto.json",
}


def before_rows(what):
    """The logged runs as ``{key: (plc gain, cleanlab gain, termination)}``."""
    if what == "dev":
        return {
            tuple(r[k] for k in RUN_KEY): (
                100 * (r["lib"]["acc"] - r["std"]),
                100 * (r["cleanlab"] - r["std"]),
                r["lib"]["termination"],
            )
            for r in load_rows(BEFORE[what])
        }
    with open(BEFORE[what]) as file:
        runs = json.load(file)["runs"]
    if what == "tables":
        return {
            (r["dataset"], "base", r["noise"], r["seed"]): (
                100 * (r["PLC"]["accuracy"] - r["Standard"]["accuracy"]),
                100 * (r["cleanlab"]["accuracy"] - r["Standard"]["accuracy"])
                if "cleanlab" in r
                else None,
                r["PLC"].get("termination"),
            )
            for r in runs
            if r["kind"] == "cell" and "PLC" in r
        }
    return {
        tuple(r[k] for k in RUN_KEY): (
            100 * (r["plc"] - r["standard"]),
            100 * (r["cleanlab"] - r["standard"]),
            r["termination"],
        )
        for r in runs
    }


def run_job(dataset, model, noise, seed, what):
    import sklearn_plc.evidence as evidence

    warnings.simplefilter("ignore")
    row = dict(zip(RUN_KEY, (dataset, model, noise, seed), strict=True))
    variants = {"continuity": True, **({"plain": False} if what == "dev" else {})}
    if what == "tables":
        for variant, corrected in variants.items():
            with patched(evidence, CONTINUITY_CORRECTION=corrected):
                cell = tables_plc_cell(dataset, noise, seed)
            row["std"] = cell["Standard"]["accuracy"]
            row[variant] = {
                "acc": cell["PLC"]["accuracy"],
                "termination": cell["PLC"]["termination"],
            }
        return row
    (X, _, y_clean, _, y, make), drawn_row, score = with_standard_and_cleanlab(
        dataset, model, noise, seed, what != "dev"
    )
    row["std"] = drawn_row["std"]
    for variant, corrected in variants.items():
        with patched(evidence, CONTINUITY_CORRECTION=corrected):
            row[variant] = fit_plc_row(make, X, np.asarray(y), seed, y_clean, score)
    return row


def run(out, what, variants=()):
    jobs = [
        (*key, what)
        for key, (_, _, termination) in before_rows(what).items()
        if termination == "undone"
    ]
    run_and_dump(run_job, jobs, out)


def summary(what, path):
    before = before_rows(what)
    rerun = {tuple(r[k] for k in RUN_KEY): r for r in load_rows(path)}
    if what == "dev":
        same = sum(
            abs(100 * (r["plain"]["acc"] - r["std"]) - before[key][0]) < 1e-6
            for key, r in rerun.items()
        )
        print(f"plain reproduces {same} of {len(rerun)} logged runs")
    cells = defaultdict(lambda: ([], [], []))
    kept = []
    for key, (gain, cleanlab, _) in before.items():
        if what in ("unseen", "fresh") and key[1] == "mlp":
            continue
        cell = cells[key[:3]]
        cell[0].append(gain)
        cell[2].append(cleanlab)
        new = rerun.get(key)
        if new is None:
            cell[1].append(gain)
            continue
        after = 100 * (new["continuity"]["acc"] - new["std"])
        cell[1].append(after)
        if new["continuity"]["termination"] != "undone":
            kept.append((key, gain, after))
    for label, column in (("before", 0), ("continuity", 1)):
        gains = [np.mean(c[column]) for c in cells.values()]
        line = f"{label}: {gain_headline(gains)}"
        if all(None not in c[2] for c in cells.values()):
            ahead = sum(np.mean(c[column]) >= np.mean(c[2]) for c in cells.values())
            line += f", >= cleanlab {ahead}"
        print(line)
    print(f"{len(rerun)} undone runs rerun; {len(kept)} no longer undone:")
    for key, old, new in sorted(kept):
        print(f"  {' '.join(map(str, key))}: {old:+.1f} -> {new:+.1f}")
    if kept:
        deltas = np.array([new - old for _, old, new in kept])
        print(
            f"  kept - undone {deltas.mean():+.2f} a run; right {(deltas > 0).sum()}, "
            f"wrong {(deltas < 0).sum()}, even {(deltas == 0).sum()}"
        )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
