"""Where the undo returns the labels as given, weigh the first round's disputes?

Question (issue "Ahead of cleanlab"): on the dev set cleanlab gains about two
points a run where PLC's undo returns the labels as given. Setting the first
round's sure disputes aside there won on dev and lost on the checks (the study
``contested.py undo-aside-sure``), as removal lost wherever the removed samples
were the model's own errors; weighing a relabel against its given label won where
removal lost (``soft_final.py``). So on an undone run, the final fit here sees
each of the first round's disputed samples twice: its given label at
``w = p_given / (p_given + p_top)`` and the first round's top class at ``1 - w``
(the probabilities the first pass read: fold models trained on the labels as
given). ``soft-sure`` weighs only the sure disputes (label at most half the top
class's probability, a third in two classes: the library's sure ratio);
``soft-all`` every sample whose top class is another. Every other run, and every
estimator whose ``fit`` takes no ``sample_weight`` (5-NN), is the library's own.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/undone_soft.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/undone_soft.py summary LOG.json...

``dev``: the cells of ``judged_aside.py``'s dev set (dev splits, seeds 100-102);
``unseen`` / ``fresh``: the two checks, without the MLP (its one-run path has no
undo).
"""

import sys
import time

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    drawn_with_purity,
    gains_by_method,
    patched,
    print_cell_table,
    rows_by_cell,
    run_and_dump,
    run_or_summarise,
    study_jobs,
)

SEEDS = (100, 101, 102)
VARIANTS = ("default", "soft-sure", "soft-all", "soft-sure-memorised")


def _fit_and_first_proba(make, X, y, seed):
    """The library's PLC: ``(model, seconds, probabilities the first pass read,
    refits)``; `refits` holds ``[round, gain, standard error]`` of each judged
    refit's held-out agreement over the first round's (paired)."""
    import sklearn_plc._corrector as corrector_module
    import sklearn_plc._judge as judge_module
    from sklearn_plc import PLCClassifier
    from sklearn_plc.evidence import agreement_gain

    first, refits = {}, []
    pass_proba = corrector_module.LabelCorrector.pass_proba
    judge = judge_module.HeldOutJudge.judge

    def recorded_pass_proba(self):
        proba = pass_proba(self)
        if "proba" not in first:  # copy the first pass's only
            first["proba"] = np.array(proba)
        return proba

    def recorded_judge(self, proba, round_index):
        agreement = judge(self, proba, round_index)
        if self._last is not self._reference:
            last, reference = self._last["agrees"], self._reference["agrees"]
            refits.append([round_index, *agreement_gain(last, reference)])
        return agreement

    with (
        patched(corrector_module.LabelCorrector, pass_proba=recorded_pass_proba),
        patched(judge_module.HeldOutJudge, judge=recorded_judge),
    ):
        start = time.perf_counter()
        plc = PLCClassifier(make(), random_state=seed).fit(X, y)
        seconds = time.perf_counter() - start
    return plc, seconds, first.get("proba"), refits


def run_job(dataset, model, noise, seed, check):
    from sklearn_plc._final_fit import weighed_fit
    from sklearn_plc._refit_run import sure_ratio_for
    from sklearn_plc._validation import sample_weight_key
    from sklearn_plc.correction import confidence_ratio, relabel_weights

    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    plc, seconds, proba, refits = _fit_and_first_proba(make, X_train, y_noisy, seed)
    row["default"] = {
        "acc": score(plc),
        "s": seconds,
        "termination": plc.termination_condition_,
        "refits": refits,
    }
    key = sample_weight_key(make())
    if plc.termination_condition_ != "undone" or key is None or proba is None:
        for variant in VARIANTS[1:]:
            row[variant] = row["default"]
        return row
    classes = plc.classes_
    given = np.searchsorted(classes, y_noisy)
    top = proba.argmax(axis=1)
    sure = confidence_ratio(proba, given) <= sure_ratio_for(classes.shape[0])
    rate = float(np.clip(plc.memorisation_["rate"], 0.0, 1.0))
    for variant, disputed, scale in (
        ("soft-sure", sure, 1.0),
        ("soft-all", top != given, 1.0),
        ("soft-sure-memorised", sure, rate),
    ):
        # the given label is the "relabel" weighed against the top class; the
        # top class's share is scaled by the memorisation rate where asked
        target = np.where(disputed, top, given)
        weight = 1.0 - scale * (1.0 - relabel_weights(proba, target, given))
        start = time.perf_counter()
        fitted = weighed_fit(make(), X_train, given, target, weight, classes, {}, key)
        row[variant] = {
            "acc": score(fitted),
            "s": seconds + time.perf_counter() - start,
            "termination": "undone",
            "n_weighed": int(disputed.sum()),
            "mean_given_weight": float(weight[disputed].mean())
            if disputed.any()
            else None,
            "disputes_wrong": float(np.mean(y_noisy[disputed] != y_train[disputed]))
            if disputed.any()
            else None,
        }
    return row


def run(out, what, variants=()):
    run_and_dump(run_job, study_jobs(what, SEEDS), out)


def summary(*paths):
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    # the first unseen log predates soft-sure-memorised
    logged = [v for v in VARIANTS if all(v in r for rs in cells.values() for r in rs)]
    methods = (*logged, "cleanlab")
    gains = gains_by_method(cells, methods)

    def describe(runs):
        undone = [r for r in runs if "n_weighed" in r["soft-sure"]]
        if not undone:
            return None
        sure = np.mean([r["soft-sure"]["n_weighed"] for r in undone])
        every = np.mean([r["soft-all"]["n_weighed"] for r in undone])
        return [len(undone), f"{sure:.0f} / {every:.0f}"]

    columns = [("undone", "---:"), ("weighed (sure / all)", "---")]
    print_cell_table(cells, gains, methods, columns, describe)


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
