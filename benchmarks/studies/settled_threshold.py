"""A one run's threshold: raise it after any quiet pass, or once the learner settles?

Question (second check): with an ``MLPClassifier`` (``"auto"``: the
``partial_fit`` one run) on quantiles-3 the passes are quiet in the first
epochs after the warm-up because the net is not yet confident, not because its
labels have settled. The threshold then climbs to 0.6 within a few epochs, and
for the next 280 epochs every pass relabels at that ratio while the net, at a
constant learning rate, keeps moving: 811 of 1,750 labels change and the run
loses 22 points. The paper raises the threshold after a quiet pass of a net
that has already fitted its labels. ``RAISE_WHEN_SETTLED`` (in
``sklearn_plc._partial_fit_run``) raises it only when the pass is quiet and the
learner's loss on the current labels has also stopped improving by its own
stopping rule (``tol``, ``n_iter_no_change``).

Each run fits Standard and PLC with its defaults under the earlier rule
(``quiet``), the new one (``settled``) and a third (``stable``: raise after a
quiet pass once the net's predicted classes changed, since the last epoch, on
no more samples than a quiet pass may relabel; ``git apply
benchmarks/studies/settled_threshold_stable.patch`` first; without it the
runs skip it), on the dev sets of
``partial_fit_auto.py``, the unseen check's datasets and the second check's.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/settled_threshold.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/settled_threshold.py summary LOG.json...
"""

import sys
from collections import defaultdict
from pathlib import Path

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

RULES = ("quiet", "settled", "stable")


def _rules():
    """The rules this library can run: ``stable`` only with its patch applied."""
    import sklearn_plc._partial_fit_run as partial_fit_run

    patched = '"predictions"' in Path(partial_fit_run.__file__).read_text()
    return RULES if patched else RULES[:2]


def _plc(X, y, seed, rule):
    settled = {"quiet": False, "settled": True, "stable": "predictions"}[rule]
    return timed_mlp_plc(X, y, seed, RAISE_WHEN_SETTLED=settled)


def run_job(where, dataset, noise, seed):
    return one_run_rules_row(where, dataset, noise, seed, _rules(), _plc)


def run(out, where):
    run_and_dump(run_job, jobs_for(where), out)


def summary(*paths):
    cells = rows_by_cell(paths)
    first = next(iter(cells.values()))[0]
    rules = [rule for rule in RULES if rule in first]
    print(
        "| cell | purity before | "
        + " | ".join(f"{rule}: Δ, changed, purity after" for rule in rules)
        + " |"
    )
    print("|---|---:|" + "---|" * len(rules))
    totals = defaultdict(list)
    costs = defaultdict(list)
    for key, runs in sorted(cells.items()):
        line = f"| {' '.join(key)} | {np.mean([r['purity_before'] for r in runs]):.3f}"
        for rule in rules:
            gain = 100 * np.mean([r[rule]["acc"] - r["standard"] for r in runs])
            totals[rule].append(gain)
            costs[rule] += [r[rule]["s"] / r["standard_s"] for r in runs]
            changed = np.mean([r[rule]["n_changed"] for r in runs])
            purity = np.mean([r[rule]["purity_after"] for r in runs])
            line += f" | {gain:+.1f}, {changed:.0f}, {purity:.3f}"
        print(line + " |")
    for rule, gains in totals.items():
        print(
            f"{rule}: {gain_headline(gains)}, median cost {np.median(costs[rule]):.1f}×"
        )


if __name__ == "__main__":
    run_or_summarise(__doc__, lambda out, where, _: run(out, where), summary)
