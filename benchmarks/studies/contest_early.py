"""Decide early: the first judged refit at a loss contests the corrections.

Question (issue "Ahead of cleanlab", "decide early"): since corrections that the
judge measures at a loss give way to confident learning's removal
(``"corrections_contested"``, ``contested_corrections.py``), a run whose
refits already agree worse than the labels as given pays for refits whose
labels it may not keep. The variant (``contest_early.patch``) ends the loop at
the first judged refit with a paired gain below 0 (a loss of two standard
errors still undoes, as before), and the end verdict then contests or undoes
as usual. Fewer refits; the question is what it costs in accuracy.

Only the runs that correct can change (ended converged, at max_iter,
contested or undone); they are refitted with the patched library, the others
keep their logged result. "Before" is the library at ffc514b: the
``undo_recheck_*.json`` runs with the contested ones replaced by
``contested_corrections_*.json``.

Usage (the variant from a worktree with the patch, run from there)::

    git worktree add /tmp/w/ce HEAD && cd /tmp/w/ce
    git apply benchmarks/studies/contest_early.patch
    PYTHONPATH=. python benchmarks/studies/contest_early.py run OUT.json SET
    PYTHONPATH=. python benchmarks/studies/contest_early.py summary SET LOG.json

SET: ``dev``, ``unseen`` or ``fresh``.
"""

import sys
import warnings
from collections import defaultdict

import numpy as np

sys.path.insert(1, ".")
from benchmarks.studies.common import (
    RUN_KEY,
    STUDIES_DIR,
    fit_plc_row,
    load_rows,
    print_headlines,
    run_and_dump,
    run_or_summarise,
    with_standard_and_cleanlab,
)

CHANGEABLE = ("converged", "max_iter", "corrections_contested", "undone")


def before_rows(what):
    """``{key: (row, library result)}`` of the library before the variant."""
    logged = {
        tuple(r[k] for k in RUN_KEY): r
        for r in load_rows(STUDIES_DIR + f"undo_recheck_{what}.json")
    }
    contested = {
        tuple(r[k] for k in RUN_KEY): r["cl5"]
        for r in load_rows(STUDIES_DIR + f"contested_corrections_{what}.json")
    }
    return {
        key: (row, contested.get(key, row["default"])) for key, row in logged.items()
    }


def run_job(dataset, model, noise, seed, what):
    warnings.simplefilter("ignore")
    row = dict(zip(RUN_KEY, (dataset, model, noise, seed), strict=True))
    (X, _, y_clean, _, y, make), drawn_row, score = with_standard_and_cleanlab(
        dataset, model, noise, seed, what != "dev"
    )
    row["std"] = drawn_row["std"]
    row["early"] = fit_plc_row(make, X, np.asarray(y), seed, y_clean, score)
    return row


def run(out, what, variants=()):
    jobs = [
        (*key, what)
        for key, (_, result) in before_rows(what).items()
        if result["termination"] in CHANGEABLE
    ]
    run_and_dump(run_job, jobs, out)


def summary(what, path):
    before = before_rows(what)
    rerun = {tuple(r[k] for k in RUN_KEY): r for r in load_rows(path)}
    cells = defaultdict(lambda: defaultdict(list))
    changed, refits, seconds = [], [], []
    for key, (row, result) in before.items():
        cell = cells[key[:3]]
        gain = 100 * (result["acc"] - row["std"])
        cell["before"].append(gain)
        cell["cleanlab"].append(100 * (row["cleanlab"] - row["std"]))
        new = rerun.get(key)
        if new is None:
            cell["early"].append(gain)
            continue
        after = 100 * (new["early"]["acc"] - new["std"])
        cell["early"].append(after)
        refits.append((result["n_refits"], new["early"]["n_refits"]))
        seconds.append(new["early"]["s"] / result["s"])
        if (
            abs(after - gain) > 1e-9
            or result["termination"] != new["early"]["termination"]
        ):
            changed.append((after - gain, result["termination"], new["early"]))
    means = {
        key: {label: np.mean(gains) for label, gains in cell.items()}
        for key, cell in cells.items()
    }
    print_headlines(list(means), means, ("before", "early", "cleanlab"))
    refits = np.array(refits)
    print(
        f"{len(rerun)} runs rerun: refits {refits[:, 0].mean():.2f} -> "
        f"{refits[:, 1].mean():.2f} a run, fit time x{np.median(seconds):.2f} "
        f"(median); {len(changed)} changed"
    )
    if changed:
        deltas = np.array([c[0] for c in changed])
        print(
            f"  changed runs: {deltas.mean():+.2f} a run; better {(deltas > 0).sum()}, "
            f"worse {(deltas < 0).sum()}"
        )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
