"""Does cleanlab's lead over its own removal come from its class weights?

Question (issue "Ahead of cleanlab"; follows ``detection.py``): removal from
5 folds on every sample gained less than ``CleanLearning`` itself on the dev
cells. ``CleanLearning`` also weighs each kept sample of class ``k`` by
``1 / p(given = k | true = k)`` where the model takes sample weights. Each run
fits it again with unit weights (``cl_noweight``; a Pipeline, which takes no
``sample_weight``, is not refitted and keeps cleanlab's figure, ``err``).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/cleanlab_weights.py run OUT.json
    python benchmarks/studies/cleanlab_weights.py summary LOG.json
"""

import sys
import warnings
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    load_rows,
    memorising_cell,
    run_and_dump,
    run_or_summarise_log,
    study_jobs,
)

SEEDS = (100, 101, 102)


def run_job(dataset, model, noise, seed, check):
    from benchmarks.tables import clean_learning

    drawn = memorising_cell(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X, _, _, _, y, make), row, score = drawn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            unweighted = clean_learning(make(), seed).fit(
                X, y, sample_weight=np.ones(len(y))
            )
            row["cl_noweight"] = score(unweighted)
        except (TypeError, ValueError) as error:  # no sample_weight in fit
            row["cl_noweight"] = row["cleanlab"]
            row["err"] = str(error)[:100]
    return row


def run(out):
    run_and_dump(run_job, study_jobs("dev", SEEDS), out)


def summary(path):
    rows = load_rows(path)
    print(f"{len(rows)} runs, {sum('err' in r for r in rows)} not refitted")
    for method in ("cleanlab", "cl_noweight"):
        print(f"{method}: {100 * np.mean([r[method] - r['std'] for r in rows]):+.2f}")
    by_model = defaultdict(list)
    for r in rows:
        by_model[(r["dataset"], r["model"])].append(r["cleanlab"] - r["cl_noweight"])
    for key, values in by_model.items():
        print(" ".join(key), f"weights {100 * np.mean(values):+.2f}")


if __name__ == "__main__":
    run_or_summarise_log(__doc__, run, summary)
