"""Judge the undo on fold models fitted as the final fit is (weighed): a dev study.

Question (issue "Ahead of cleanlab"): the undo compares the held-out agreement of
the last refit with the first, but the judged refits train on the hard corrected
labels while the final fit weighs each relabel (``contested="auto"`` with sample
weights). ``undo_check.py`` found the undo wrong about as often as right, and a
blanket higher bar (``bar2``) won on dev and the unseen check but lost on the
second. Here, where the end verdict would undo and the final fit weighs, the
library's ``REJUDGE_WEIGHED`` fits the same folds once more on the current labels
weighed as the final fit is (:func:`weighed_out_of_fold_proba`, ``cv`` fits) and
undoes only if those models also agree clearly worse than the labels as given
(the same bar). Only runs that the library undoes can change (an early stop is
left as it is), so only they are rerun: the dev runs undone in
``undo_check_dev.json``, the check runs undone in
``unseen_unweighed_loop_merged.json`` / ``fresh_unweighed_loop_merged.json``
(5-NN aside: no sample weights). The summary puts them back into those logs.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/weighed_verdict.py run OUT.json dev|unseen|fresh [early]
    python benchmarks/studies/weighed_verdict.py summary dev|unseen|fresh LOG.json...

``early`` also confirms the early stop (a refit two standard errors worse) on
weighed folds, and where they do not confirm it, lets the run go on to the end
verdict (``CONFIRM_EARLY_WEIGHED``, not shipped: ``git apply
benchmarks/studies/weighed_verdict_early.patch`` first; logs
``weighed_verdict_early_{dev,unseen,fresh}.json``).
"""

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
    run_and_dump,
    run_or_summarise,
    with_standard_and_cleanlab,
)

BEFORE = {
    "dev": STUDIES_DIR + "undo_check_dev.json",
    "unseen": STUDIES_DIR + "unseen_unweighed_loop_merged.json",
    "fresh": STUDIES_DIR + "fresh_unweighed_loop_merged.json",
}


def before_rows(what):
    """``(rows, plc_gain, cleanlab_gain)`` of the log before, gains in points."""
    if what == "dev":
        rows = load_rows(BEFORE[what])
        return (
            rows,
            lambda r: 100 * (r["default"]["acc"] - r["std"]),
            lambda r: 100 * (r["cleanlab"] - r["std"]),
        )
    import json

    with open(BEFORE[what]) as file:
        rows = json.load(file)["runs"]
    return (
        rows,
        lambda r: 100 * (r["plc"] - r["standard"]),
        lambda r: 100 * (r["cleanlab"] - r["standard"]),
    )


def undone_jobs(what):
    rows, _, _ = before_rows(what)
    if what == "dev":
        undone = [r for r in rows if r["default"]["termination"] == "undone"]
    else:
        undone = [r for r in rows if r["termination"] == "undone"]
    return [
        (*(r[k] for k in RUN_KEY), what != "dev")
        for r in undone
        if r["model"] not in ("5-nn", "mlp")
    ]


VARIANTS = {
    # the end verdict's undo confirmed on weighed folds (shipped)
    "rejudged": {"REJUDGE_WEIGHED": True},
    # the early stop's too (weighed_verdict_early.patch)
    "early": {"REJUDGE_WEIGHED": True, "CONFIRM_EARLY_WEIGHED": True},
}


def run_job(dataset, model, noise, seed, check, variant):
    import sklearn_plc._refit_run as refit_run

    warnings.simplefilter("ignore")
    drawn = with_standard_and_cleanlab(dataset, model, noise, seed, check)
    (X_train, _, y_train, _, y_noisy, make), row, score = drawn
    y_noisy = np.asarray(y_noisy)
    with patched(refit_run, **VARIANTS[variant]):
        row[variant] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    return row


def run(out, what, variants=()):
    (variant,) = variants or ("rejudged",)
    jobs = [(*job, variant) for job in undone_jobs(what)]
    run_and_dump(run_job, jobs, out)


def figures(cells):
    gains = np.array([[np.mean(v[0]), np.mean(v[1])] for v in cells.values()])
    return (
        f"{len(gains)} cells: mean {gains[:, 0].mean():+.2f}, within 0.5 "
        f"{(gains[:, 0] >= -0.5).sum()}, >= cleanlab "
        f"{(gains[:, 0] >= gains[:, 1]).sum()}, worst {gains[:, 0].min():+.1f}"
    )


def summary(what, *paths):
    for path in paths:
        for variant in VARIANTS:
            if any(variant in row for row in load_rows(path)):
                summarise_variant(what, path, variant)


def summarise_variant(what, path, variant):
    rows, plc_gain, cleanlab_gain = before_rows(what)
    rerun = {tuple(r[k] for k in RUN_KEY): r for r in load_rows(path)}
    before, after = defaultdict(lambda: ([], [])), defaultdict(lambda: ([], []))
    kept = []
    for row in rows:
        if what != "dev" and row["model"] == "mlp":
            continue
        cell = (row["dataset"], row["model"], row["noise"])
        for cells in (before, after):
            cells[cell][1].append(cleanlab_gain(row))
        before[cell][0].append(plc_gain(row))
        new = rerun.get(tuple(row[k] for k in RUN_KEY))
        if new is None:
            after[cell][0].append(plc_gain(row))
            continue
        gain = 100 * (new[variant]["acc"] - new["std"])
        after[cell][0].append(gain)
        if new[variant]["termination"] != "undone":
            kept.append((cell, row["seed"], plc_gain(row), gain))
    print(f"{what}, MLP aside; the log before: {figures(before)}")
    print(f"{variant} ({VARIANTS[variant]}): {figures(after)}")
    print(f"{len(rerun)} undone runs rerun; {len(kept)} no longer undone:")
    for cell, seed, old, new in sorted(kept):
        print(f"  {' '.join(cell)} seed {seed}: {old:+.1f} -> {new:+.1f}")
    if kept:
        deltas = np.array([new - old for *_, old, new in kept])
        print(
            f"  kept - undone {deltas.mean():+.2f} a run; right {(deltas > 0).sum()}, "
            f"wrong {(deltas < 0).sum()}"
        )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
