"""Refit sooner where the last refit moved the predictions more than the labels.

Question (issue "Ahead of cleanlab", the cost target): ``min_correction_rate=0.1``
for a refit cost the tables' corrected datasets accuracy (wine-rf, wine,
synthetic-5-rf: ``small_data_probe.py``) and was level or better elsewhere at a
quarter less cost. Can the run tell from its own evidence when another refit
pays? A refit pays when the labels changed since the last fit move the fold
models' predictions. Each refit measures how far: ``rho``, the samples whose
held-out top class changed between the last two fits, per label changed between
the labels they were trained on (the fold models are seeded, so only the labels
move them). ``respond`` counts the pending changes ``rho`` times (at least once,
at most twice) against the library's bar of a tenth of the labels: where the
models follow their labels closely the run refits after as few as a twentieth,
where they hardly move it keeps a tenth; until two fits exist, a tenth.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/refit_response.py run OUT.json dev|unseen|fresh [V...]
    python benchmarks/studies/refit_response.py summary LOG.json...

Variants: ``library``, ``mcr-0.05`` (``min_correction_rate=0.05``), ``respond``.
"""

import sys

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    cell_gains,
    drawn_with_purity,
    fit_plc_row,
    patched,
    print_cell_table,
    print_corrected_cost,
    print_gains_by_model,
    run_or_summarise,
    study_run,
)

SEEDS = (100, 101, 102)
VARIANTS = ("library", "mcr-0.05", "respond")
MOST = 2.0  # the pending changes count at most twice: a twentieth of the labels


def _responsive_moved_since_fit(self, corrector, fitted_labels):
    """The changes since the last fit, counted ``rho`` times (1 to ``MOST``)."""
    fits = self.__dict__.setdefault("_fitted_label_sets", [])
    if not fits or fits[-1] is not fitted_labels:
        fits.append(fitted_labels)
    count = np.count_nonzero(fitted_labels != corrector.labels)
    recorded = corrector.recorded
    if len(fits) < 2 or len(recorded) < 2:
        return count
    relabelled = np.count_nonzero(fits[-1] != fits[-2])
    moved = np.count_nonzero(recorded[-1].argmax(axis=1) != recorded[-2].argmax(axis=1))
    rho = moved / relabelled if relabelled else 1.0
    return count * float(np.clip(rho, 1.0, MOST))


def run_job(dataset, model, noise, seed, check, variants=VARIANTS):
    from sklearn_plc._refit_run import RefitRun

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    fit = (make, X_train, y_noisy, seed, y_train, score)
    for variant in variants:
        if variant == "library":
            row[variant] = fit_plc_row(*fit)
        elif variant == "mcr-0.05":
            row[variant] = fit_plc_row(*fit, min_correction_rate=0.05)
        else:
            with patched(RefitRun, _moved_since_fit=_responsive_moved_since_fit):
                row[variant] = fit_plc_row(*fit)
    return row


def summary(*paths):
    from sklearn_plc._refit_run import LABELS_KEPT

    cells, methods, gains = cell_gains(paths, VARIANTS)
    print_cell_table(cells, gains, methods, [], lambda runs: None)
    print("\nper model family:")
    print_gains_by_model(cells, VARIANTS)
    by_dataset = {}
    for (dataset, _, _), runs in cells.items():
        by_dataset.setdefault(dataset, []).extend(runs)
    print("\nper dataset (mean gain a run):")
    for dataset, runs in sorted(by_dataset.items()):
        cleanlab = 100 * np.mean([r["cleanlab"] - r["std"] for r in runs])
        print(
            f"  {dataset}: "
            + ", ".join(
                f"{v} {100 * np.mean([r[v]['acc'] - r['std'] for r in runs]):+.2f}"
                for v in VARIANTS
            )
            + f", cleanlab {cleanlab:+.2f}"
        )
    print_corrected_cost(
        cells, VARIANTS, lambda row: row["library"]["termination"] not in LABELS_KEPT
    )


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS, VARIANTS), summary)
