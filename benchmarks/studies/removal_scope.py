"""Should the non-memorising set-aside also leave out the judged samples' sure disputes?

Question (issue "Ahead of cleanlab"): where a model does not memorise and the
refitted folds show a clear gain from leaving out its sure disputes (the
first round's held-out label probability at most the sure ratio of the top
class's), the final fit first left out only the fold-trained ones: the
judged fifth kept every label as given, its wrong labels included. Its sure
disputes come from the same fold models, held out as well; the comparison
tests the rule, not the particular samples. Leaving them out too (``all``)
against the fold-trained ones only (``trained``), on the same runs.

On the dev cells the removal never clears the shipped bar of 3 standard
errors (``prove_removal.py``), so the bar is lifted here: every
non-memorising run with candidates records both removals, each a final fit of
the same estimator on every sample but them, with its judged z. The summary
compares them per z bucket and as ``SCOPE-k`` (remove where z > k, otherwise
the labels as given). Runs that memorise, or are too weak to judge, are not
asked and not logged.

Usage (from the repository root; needs the library at or after the commit that
leaves out every sure dispute)::

    python benchmarks/studies/removal_scope.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/removal_scope.py summary LOG.json...
"""

import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    drawn_with_purity,
    load_rows,
    patched,
    run_and_dump,
    run_or_summarise,
    study_jobs,
)

# more seeds than the studies' three: only the non-memorising runs count
SEEDS = (100, 101, 102, 103, 104, 105)
BARS = (-np.inf, 1, 2, 3)
# the models that may not memorise, in the dev cells ("base": logistic
# regression but on the "-rf" datasets) and in the checks
MAY_NOT_MEMORISE = ("naive-bayes", "logistic", "base", "5-nn")


def run_job(dataset, model, noise, seed, check):
    import sklearn_plc._ending as ending
    from sklearn_plc import PLCClassifier

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X, y_true, y_noisy, make), row, score = drawn
    with patched(ending, SET_ASIDE_STANDARD_ERRORS=-np.inf):
        plc = PLCClassifier(make(), random_state=seed).fit(X, y_noisy)
    if plc.termination_condition_ != "not_memorising" or not plc.set_aside_.any():
        return None
    judged = np.zeros(len(y_noisy), dtype=bool)
    judged[plc.validation_indices_] = True
    selection = plc.selection_
    row["z"] = selection["gain"] / max(selection["standard_error"], 1e-12)
    wrong = y_noisy != y_true
    for name, left_out in (
        ("keep", np.zeros_like(judged)),
        ("trained", plc.set_aside_ & ~judged),
        ("all", plc.set_aside_),
    ):
        kept = ~left_out
        row[name] = {
            "acc": score(make().fit(X[kept], y_noisy[kept])),
            "n": int(left_out.sum()),
            "precision": float(wrong[left_out].mean()) if left_out.any() else None,
        }
    return row


def run(out, what, *_):
    jobs = [
        job
        for job in study_jobs(what, SEEDS)
        if job[1] in MAY_NOT_MEMORISE and not job[0].endswith("-rf")
    ]
    run_and_dump(run_job, jobs, out)


def summary(*paths):
    rows = [r for path in paths for r in load_rows(path) if r is not None]
    print(f"{len(rows)} non-memorising runs with sure disputes")

    def points(row, name):
        return 100 * (row[name]["acc"] - row["keep"]["acc"])

    buckets = defaultdict(list)
    for row in rows:
        edge = next((b for b in (1, 2, 3) if row["z"] <= b), np.inf)
        buckets[edge].append(row)
    print("| z up to | runs | trained − keep | all − keep | all − trained | ahead |")
    print("|---:|---:|---:|---:|---:|---:|")
    for edge in sorted(buckets):
        group = buckets[edge]
        trained = np.mean([points(r, "trained") for r in group])
        every = np.mean([points(r, "all") for r in group])
        ahead = sum(points(r, "all") > points(r, "trained") for r in group)
        behind = sum(points(r, "all") < points(r, "trained") for r in group)
        print(
            f"| {edge} | {len(group)} | {trained:+.2f} | {every:+.2f} | "
            f"{every - trained:+.2f} | {ahead} (behind {behind}) |"
        )
    print()
    for bar in BARS:
        for name in ("trained", "all"):
            gains = [points(r, name) if r["z"] > bar else 0.0 for r in rows]
            print(
                f"{name}-{bar}: {sum(g != 0 for g in gains)} runs removed, "
                f"mean over all runs {np.mean(gains):+.3f}, "
                f"lost > 0.5 in {sum(g < -0.5 for g in gains)}"
            )
    precision = defaultdict(list)
    for row in rows:
        for name in ("trained", "all"):
            if row[name]["precision"] is not None:
                precision[name].append(row[name]["precision"])
    print(
        "precision (share of wrong labels among those left out): "
        + ", ".join(f"{k} {np.mean(v):.3f}" for k, v in precision.items())
    )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
