"""How often is the undo right? A probe for the next rule (nothing to ship).

Question (issue "Ahead of cleanlab"): ``revert_if_worse`` undoes the corrections
when the last refit agrees with the given labels of the set-aside samples worse
than the first by one standard error. Where it fires, the run returns the labels
as given, and cleanlab gains there (+1.9 points a run on dev). This runs every dev
job with the library's defaults and, where the corrections were undone, the same
run again with the undo switched off (the set-aside and its judge kept; the undo's
bar and the early stop's patched away, not ``revert_if_worse=False``, which would
also drop the set-aside): on clean test labels, was the undo right (the kept
corrections score lower), wrong, or even? The log keeps the evidence the judge saw
(gain, standard error, samples judged). ``bar2`` reruns the undone runs with the
end verdict's bar at two standard errors (the early stop's), to measure what the
probe suggests. (The library has since confirmed an undo on weighed folds,
``REJUDGE_WEIGHED``; a rerun's rows include it, the logged ones do not.)

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/undo_check.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/undo_check.py summary LOG.json...
"""

import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    drawn_with_purity,
    fit_plc_row,
    load_rows,
    patched,
    run_and_dump,
    run_or_summarise,
    study_jobs,
)

SEEDS = (100, 101, 102)


def run_job(dataset, model, noise, seed, check):
    import sklearn_plc._ending as ending
    import sklearn_plc._refit_run as refit_run
    from sklearn_plc import PLCClassifier

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    row["default"] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    if row["default"]["termination"] != "undone":
        return row
    with patched(ending, WORSE_STANDARD_ERRORS=2.0):
        row["bar2"] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    with (
        patched(ending, WORSE_STANDARD_ERRORS=np.inf),
        patched(refit_run, DECIDE_EARLY=None),
    ):
        plc = PLCClassifier(make(), random_state=seed).fit(X_train, y_noisy)
    row["kept"] = {
        "acc": score(plc),
        "purity_after": float(np.mean(plc.labels_ == y_train)),
        "purity_before": float(np.mean(y_noisy == y_train)),
        "selection": plc.selection_,
    }
    return row


def run(out, what, variants=()):
    run_and_dump(run_job, study_jobs(what, SEEDS), out)


def summary(*paths):
    every = [row for path in paths for row in load_rows(path)]
    if any("bar2" in row for row in every):
        cells = defaultdict(list)
        for row in every:
            cells[(row["dataset"], row["model"], row["noise"])].append(row)
        for variant in ("default", "bar2"):
            gains = np.array(
                [
                    100
                    * np.mean(
                        [r.get(variant, r["default"])["acc"] - r["std"] for r in rs]
                    )
                    for rs in cells.values()
                ]
            )
            cleanlab = np.array(
                [
                    100 * np.mean([r["cleanlab"] - r["std"] for r in rs])
                    for rs in cells.values()
                ]
            )
            print(
                f"{variant}: mean {gains.mean():+.2f}, {(gains >= -0.5).sum()} of "
                f"{len(gains)} within 0.5, worst {gains.min():+.1f}, "
                f"≥ cleanlab {(gains >= cleanlab).sum()}"
            )
    rows = [row for row in every if "kept" in row]
    print(f"{len(rows)} undone runs")
    by_model = defaultdict(list)
    for row in rows:
        by_model[row["model"] if row["model"] != "base" else row["dataset"]].append(row)
    print(
        "| model | undone | right | wrong | even | kept − undone | cleanlab − undone |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for model, runs in sorted(by_model.items()):
        diff = np.array([r["kept"]["acc"] - r["default"]["acc"] for r in runs])
        clean = np.array([r["cleanlab"] - r["default"]["acc"] for r in runs])
        print(
            f"| {model} | {len(runs)} | {(diff < 0).sum()} | {(diff > 0).sum()} | "
            f"{(diff == 0).sum()} | {100 * diff.mean():+.2f} "
            f"| {100 * clean.mean():+.2f} |"
        )
    rows = [r for r in rows if r["kept"]["selection"] is not None]
    print(f"\n{len(rows)} of them judged with the undo off:")
    diff = np.array([r["kept"]["acc"] - r["default"]["acc"] for r in rows])
    z = np.array(
        [
            r["kept"]["selection"]["gain"] / r["kept"]["selection"]["standard_error"]
            for r in rows
        ]
    )
    judged = np.array([r["kept"]["selection"]["n_judged"] for r in rows])
    for name, mask in (
        ("z below -2", z < -2),
        ("z in [-2, -1)", z >= -2),
        ("judged < 100", judged < 100),
        ("judged >= 100", judged >= 100),
    ):
        if mask.any():
            print(
                f"{name}: {mask.sum()} runs, "
                f"kept − undone {100 * diff[mask].mean():+.2f}, "
                f"right {(diff[mask] < 0).sum()}, wrong {(diff[mask] > 0).sum()}"
            )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
