"""A probe: which setting closes cleanlab's lead on the tables' corrected datasets?

On the dev cells, cleanlab's largest lead among the runs PLC corrects is the
124-sample wine data with a 50-tree forest (wine-rf), at the same label purity;
the tables' corrected scikit-learn runs are all on wine, wine-rf and
synthetic-5-rf. Three settings a user can change bear on small data: more folds
(``cv=5``: each fold model trains on 64% of the samples instead of 53%), a
smaller set-aside for the judge (``validation_fraction=0.1``), and more refits
(``min_correction_rate=0.05``, the refit default before 0.1). Each is fitted
beside the library in the same job, on the tables' dev cells of the three
datasets (split 1, seed 100–102; ``common.cells("tables")``). A probe for the
next study, not a choice: nothing here is judged on the other dev cells or the
checks.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/small_data_probe.py run OUT.json
    python benchmarks/studies/small_data_probe.py summary LOG.json
"""

import sys

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    cells,
    drawn_with_purity,
    fit_plc_row,
    load_rows,
    run_and_dump,
    run_or_summarise_log,
)

SEEDS = (100, 101, 102)
DATASETS = ("wine-rf", "wine", "synthetic-5-rf")
VARIANTS = {
    "library": {},
    "cv-5": {"cv": 5},
    "mcr-0.05": {"min_correction_rate": 0.05},
    "vf-0.1": {"validation_fraction": 0.1},
}


def run_job(dataset, model, noise, seed):
    drawn = drawn_with_purity(dataset, model, noise, seed, False)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    for name, params in VARIANTS.items():
        row[name] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score, **params)
    return row


def run(out):
    jobs = sorted({cell[:3] for cell in cells("tables") if cell[0] in DATASETS})
    run_and_dump(run_job, [(*cell, seed) for cell in jobs for seed in SEEDS], out)


def summary(path):
    rows = load_rows(path)
    print("| dataset (runs) | cleanlab | " + " | ".join(VARIANTS) + " |")
    print("|---|---:|" + "---:|" * len(VARIANTS))
    for dataset in DATASETS:
        runs = [row for row in rows if row["dataset"] == dataset]

        def gain(method, runs=runs):
            return 100 * np.mean([row[method]["acc"] - row["std"] for row in runs])

        def cost(method, runs=runs):
            return np.median([row[method]["s"] / row["standard_s"] for row in runs])

        cleanlab = 100 * np.mean([row["cleanlab"] - row["std"] for row in runs])
        cleanlab_cost = np.median([r["cleanlab_s"] / r["standard_s"] for r in runs])
        print(
            f"| {dataset} ({len(runs)}) | {cleanlab:+.2f} ({cleanlab_cost:.1f}×) | "
            + " | ".join(f"{gain(m):+.2f} ({cost(m):.1f}×)" for m in VARIANTS)
            + " |"
        )


if __name__ == "__main__":
    run_or_summarise_log(__doc__, run, summary)
