"""Does the one-run warm-up end mid-climb, and would a relative plateau wait?

Question (second check): an ``MLPClassifier`` on quantiles-3 learns slowly, its
agreement with its labels rising about half a point an epoch for 60 epochs. The
automatic warm-up (``plateau_epoch``: the rise over the last two epochs below
0.005 an epoch, after a climb) reads one slow epoch as the plateau, corrections
start at epochs 3-18 with the model near chance, and the run loses 18-31
points. A plateau relative to the curve's own climb asks instead that the rise
per epoch over the last five epochs be below half the mean rise per epoch since
the first (``relative``). A learning curve a·t^p keeps a ratio of p between the
two, so this waits on a climb slower than a square root, and a curve that
saturates passes it soon after it bends.

Each run fits Standard and PLC with its defaults (``"auto"``: the ``eval_pass``
path) under the library's rule (``absolute``) and under ``relative``, on the
dev sets of ``partial_fit_auto.py``, the unseen check's datasets and the second
check's.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/plateau_rule.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/plateau_rule.py summary LOG.json...
"""

import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    gain_headline,
    rows_by_cell,
    run_and_dump,
    run_or_summarise,
)
from benchmarks.studies.warm_up_start import (
    jobs_for,
    one_run_rules_row,
    timed_mlp_plc,
)

RULES = ("absolute", "relative")
RECENT_EPOCHS = 5


def relative_plateau(agreement, *, min_epochs=3, tolerance=0.005):
    """The rise over the last epochs below half the mean rise since the first."""
    n = len(agreement)
    if n < max(min_epochs, 3):
        return False
    recent_epochs = min(RECENT_EPOCHS, n - 1)
    recent = (agreement[-1] - agreement[-1 - recent_epochs]) / recent_epochs
    climbed = (agreement[-1] - agreement[0]) / (n - 1)
    return climbed >= tolerance and recent < climbed / 2


def _plc(X, y, seed, rule):
    if rule == "relative":
        return timed_mlp_plc(X, y, seed, plateau_epoch=relative_plateau)
    return timed_mlp_plc(X, y, seed)


def run_job(where, dataset, noise, seed):
    return one_run_rules_row(where, dataset, noise, seed, RULES, _plc)


def run(out, where):
    run_and_dump(run_job, jobs_for(where), out)


def summary(*paths):
    cells = rows_by_cell(paths)
    print("| cell | warm-up (absolute → relative) | absolute | relative |")
    print("|---|---|---:|---:|")
    totals = defaultdict(list)
    for key, runs in sorted(cells.items()):
        gains = {
            rule: 100 * np.mean([r[rule]["acc"] - r["standard"] for r in runs])
            for rule in RULES
        }
        for rule, gain in gains.items():
            totals[rule].append(gain)
        warm = ", ".join(
            f"{r['absolute']['warm_up']}→{r['relative']['warm_up']}" for r in runs
        )
        print(
            f"| {' '.join(key)} | {warm} | {gains['absolute']:+.1f} | "
            f"{gains['relative']:+.1f} |"
        )
    for rule, gains in totals.items():
        print(f"{rule}: {gain_headline(gains)}")


if __name__ == "__main__":
    run_or_summarise(__doc__, lambda out, where, _: run(out, where), summary)
