"""When PLC keeps the labels, set aside its sure disputes if the judge agrees?

Question (issue "Ahead of cleanlab"): where a run returns the labels as given
(the undo fired, or the model does not memorise), cleanlab's ``CleanLearning``
still gains by removing the samples it flags. Setting the first round's sure
disputes aside every time lost before (``undo-aside-sure`` in ``contested.py``,
``aside`` in ``weak_judge.py``). Does it win when the held-out judge decides:
the same folds are refitted without those samples, and they are left out of the
final fit only when those models agree clearly better (one standard error,
paired) with the given labels of the set-aside validation samples
(``sklearn_plc._refit_run.SET_ASIDE_WHEN_KEPT``)?

Each run fits Standard, cleanlab and PLC (``keep``: the library's default). A
run that ends ``undone`` or ``not_memorising`` is fitted again with the judged
set-aside (``judged``) and with the set-aside taken whatever the judge says
(``always``); other runs are the same in all three.

Usage (from the repository root, ``PYTHONPATH=.``, with
``git apply benchmarks/studies/judged_aside.patch`` first)::

    python benchmarks/studies/judged_aside.py run OUT.json SET
    python benchmarks/studies/judged_aside.py summary LOG.json...

SET: ``dev`` (the cells of ``contested.py``'s tables, hard, new and binary sets
and of ``non_memorising.py``; dev splits, seeds 100-102), ``unseen`` (the
unseen check) or ``fresh`` (the second check).
"""

import sys
import time
import warnings

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    cell_gains,
    print_cell_table,
    run_or_summarise,
    study_run,
    with_standard_and_cleanlab,
)

VARIANTS = ("keep", "judged", "always")
SEEDS = (100, 101, 102)


def _fit_plc(make, X, y, seed, variant):
    """PLC with the set-aside flag for `variant`; ``(model, seconds, evidence)``."""
    import sklearn_plc._refit_run as refit_run
    from sklearn_plc import PLCClassifier

    if not hasattr(refit_run, "SET_ASIDE_WHEN_KEPT"):
        raise SystemExit(
            "judged_aside.py needs the study hook: git apply "
            "benchmarks/studies/judged_aside.patch"
        )
    before = refit_run.SET_ASIDE_WHEN_KEPT, refit_run.EVIDENCE_STANDARD_ERRORS
    refit_run.SET_ASIDE_WHEN_KEPT = variant != "keep"
    if variant == "always":
        refit_run.EVIDENCE_STANDARD_ERRORS = -np.inf
    captured = {}
    run = refit_run.RefitRun.run

    def run_and_keep(self, *args, **kwargs):
        result = run(self, *args, **kwargs)
        captured["evidence"] = getattr(self, "set_aside_evidence", None)
        return result

    refit_run.RefitRun.run = run_and_keep
    try:
        start = time.perf_counter()
        plc = PLCClassifier(make(), random_state=seed).fit(X, y)
        seconds = time.perf_counter() - start
    finally:
        refit_run.RefitRun.run = run
        refit_run.SET_ASIDE_WHEN_KEPT, refit_run.EVIDENCE_STANDARD_ERRORS = before
    return plc, seconds, captured.get("evidence")


def run_job(dataset, model, noise, seed, check):
    warnings.simplefilter("ignore")
    drawn = with_standard_and_cleanlab(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, _, y_train, _, y_noisy, make), row, score = drawn
    wrong = y_noisy != y_train
    for variant in VARIANTS:
        if variant != "keep" and row["keep"]["termination"] not in (
            "undone",
            "not_memorising",
        ):
            row[variant] = row["keep"]
            continue
        fitted, seconds, evidence = _fit_plc(make, X_train, y_noisy, seed, variant)
        aside = fitted.set_aside_
        row[variant] = {
            "acc": score(fitted),
            "s": seconds,
            "termination": fitted.termination_condition_,
            "n_set_aside": int(aside.sum()),
            "aside_wrong": float(wrong[aside].mean()) if aside.any() else None,
            "evidence": evidence,
        }
    row["purity_before"] = float(np.mean(~wrong))
    return row


def dev_cells():
    from benchmarks.studies.contested import cells as contested_cells
    from benchmarks.studies.non_memorising import cells as non_memorising_cells

    found = [c for s in ("tables", "hard", "new", "binary") for c in contested_cells(s)]
    return found + [c for c in non_memorising_cells() if c not in found]


def summary(*paths):
    cells, methods, gains = cell_gains(paths, VARIANTS)

    def describe(runs):
        kept = sum(
            r["keep"]["termination"] in ("undone", "not_memorising") for r in runs
        )
        chosen = sum(r["judged"]["n_set_aside"] > 0 for r in runs)
        return [kept, chosen] if kept else None

    columns = [("kept", "---:"), ("judged set aside", "---:")]
    print_cell_table(cells, gains, methods, columns, describe)


if __name__ == "__main__":
    run_or_summarise(__doc__, study_run(run_job, SEEDS), summary)
