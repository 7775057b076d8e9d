"""Relabel what is sure, set aside what is contested: which wins against cleanlab?

Question (issue "Ahead of cleanlab"): where PLC corrects a scikit-learn model,
does leaving the still-contested samples out of the final fit
(``contested="set_aside"``) beat flipping them, and does relabelling only what is
sure (a lower ``theta_end``) with the rest set aside beat both? Each dev cell runs
Standard, cleanlab's ``CleanLearning`` and the PLC variants below on the same
noisy labels, and logs accuracy, label recovery, what was set aside and the fit
times, with the round-0 evidence (held-out agreement, memorisation rate) that a
weak-model refusal could read.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/contested.py run OUT.json SET VARIANT...
    python benchmarks/studies/contested.py summary LOG.json...

SET: ``tables`` (the tables' dev split 1), ``hard`` (hard-dev, five models),
``new`` (binary-gb-dev with gradient boosting at PMD 25% and uniform 30%,
weak20-dev with logistic regression), ``binary`` (binary-gb-dev and binary-dev
with the five memorising models of ``hard``, PMD 25% and uniform 30%); seeds
100-102. VARIANT (see VARIANTS):
``keep`` (relabel up to theta_end 0.9, train on all: the default before this
study), ``aside`` (the same, the disagreements left at the end set aside),
``aside-t0.5`` / ``aside-t0.33`` (relabel only below that ratio, set aside the
rest), ``aside-only`` (relabel nothing, set aside every held-out
disagreement), ``*-fast`` (no refit after a quiet pass's few changes, and a stop
at the first judged refit that agrees worse by two standard errors),
``*-reuse`` / ``*-early`` (one of the two), ``cv5-fast`` (5 folds),
``keep-binary-sure`` (``keep``, but in two classes ``theta_end`` ⅓),
``keep-bar2`` / ``keep-bar3`` (refit after twice / three times the changes a quiet
pass may make; needs ``contested_bar.patch``), ``cleanlab``.
Variants named by ``contested="set_aside"`` measure the library as it is run:
logs taken before the sure-ratio cap (``SURE_RATIO``) ran ``aside`` at 0.9.
"""

import sys
import time
import warnings
from collections import defaultdict

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    dump_rows,
    estimated_label_errors,
    load_rows,
    run_or_summarise,
    with_standard,
)

SEEDS = (100, 101, 102)
VARIANTS = {
    "keep": {"contested": "keep"},
    "aside": {"contested": "set_aside"},
    "aside-t0.5": {"contested": "set_aside", "theta_end": 0.5},
    "aside-t0.33": {"contested": "set_aside", "theta_end": 1 / 3},
    "aside-only": {"contested": "set_aside"},
    "keep-fast": {"contested": "keep"},
    "aside-t0.5-fast": {"contested": "set_aside", "theta_end": 0.5},
    "aside-fast": {"contested": "set_aside"},
    # binary: relabel only at a margin of 1/2 (BINARY_SURE_RATIO), set aside the rest
    "sure-fast": {"contested": "set_aside"},
    "sure": {"contested": "set_aside"},
    "cv5-fast": {"contested": "set_aside", "theta_end": 0.5, "cv": 5},
    "t0.5-reuse": {"contested": "set_aside", "theta_end": 0.5},
    "t0.5-early": {"contested": "set_aside", "theta_end": 0.5},
    # set aside at most the round-0 confident-learning estimate of the wrong
    # labels less those relabelled, least likely labels first (_cap_set_aside)
    "aside-capped": {"contested": "set_aside"},
    # the default loop with at most 1 or 2 refits after round 0 (MAX_REFITS:
    # apply contested_refits.patch to the library first)
    "keep-refits1": {"contested": "keep"},
    "keep-refits2": {"contested": "keep"},
    # the default loop with 2 folds: each round's fold fits cost one full fit
    "keep-cv2": {"contested": "keep", "cv": 2},
    # keep the contested samples, but in two classes relabel only at a margin of
    # 1/2 (theta_end = BINARY_SURE_RATIO), as the one-run paths do
    "keep-binary-sure": {"contested": "keep"},
    # keep; when the judge undoes, set aside the first round's held-out
    # disagreements (_set_aside_when_undone)
    "undo-aside": {"contested": "keep"},
    # the same, only the disputes where the label has at most half the top
    # class's probability (a third in two classes)
    "undo-aside-sure": {"contested": "keep"},
    # the default loop, refitting only after two (three) times as many changes
    # since the last fit as a quiet pass may make (REFIT_BAR_FACTOR: apply
    # contested_bar.patch to the library first)
    "keep-bar2": {"contested": "keep"},
    "keep-bar3": {"contested": "keep"},
    # the library's defaults (the weighed final fit), with at most 1 or 2 refits
    # after round 0 (MAX_REFITS, contested_refits.patch): do fewer refits still
    # lose once doubtful relabels are weighed?
    "weigh": {},
    "weigh-refits1": {},
    "weigh-refits2": {},
}
# the "-fast" variants: no refit after a quiet pass's few changes, and a stop
# at the first judged refit that agrees worse by 2 standard errors
# (names in sklearn_plc._refit_run)
FAST = {"REFIT_AFTER_QUIET_CHANGES": False, "DECIDE_EARLY": 2.0}


def cells(what):
    if what == "tables":
        noises = {
            "wine-rf": ("I-35", "II-35", "III-35", "I+U30"),
            "synthetic-5-rf": ("I-35", "III-35", "I+U30"),
            "wine": ("I-35", "III-35"),
            "synthetic-5": ("I-35", "III-35"),
        }
        return [(d, "base", n) for d, ns in noises.items() for n in ns]
    if what == "hard":
        from benchmarks.studies.common import HARD_MODELS

        return [
            ("hard-dev", m, n) for m in HARD_MODELS for n in ("I-35", "III-35", "U30")
        ]
    if what == "binary":  # the binary dev sets with the memorising models
        from benchmarks.studies.common import HARD_MODELS

        return [
            (d, m, n)
            for d in ("binary-gb-dev", "binary-dev")
            for m in HARD_MODELS
            for n in ("I-25", "III-25", "U30")
        ]
    # in two classes, PMD at 35% makes the noisy majority wrong on half the
    # samples (flip probability above 1/2), so the binary case runs it at 25%
    return [
        ("binary-gb-dev", "gradient-boosting", n) for n in ("I-25", "III-25", "U30")
    ] + [("weak20-dev", "logistic", n) for n in ("I-35", "III-35", "U30")]


def _relabel_nothing():
    """Patch the refit loop's corrector so that no pass relabels (aside-only)."""
    import sklearn_plc._refit_run as refit_run
    from sklearn_plc._corrector import LabelCorrector

    class NoRelabel(LabelCorrector):
        def run_round(self, *, refit=True, correct=True, holdout_agreement=None):
            return super().run_round(
                refit=refit, correct=False, holdout_agreement=holdout_agreement
            )

    refit_run.LabelCorrector = NoRelabel
    return lambda: setattr(refit_run, "LabelCorrector", LabelCorrector)


def _set_aside_when_undone(sure=False):
    """Patch the refit run: an undone run sets aside its first round's disputes.

    When the judge undoes the corrections, the labels stay as given, but the
    samples whose held-out prediction (first round, models on the labels as
    given) disagreed with their label are left out of the final fit, as
    cleanlab removes them (every class keeps a sample). Costs one more final
    fit in this probe; in the library the final fit would be made once.
    """
    import sklearn_plc._refit_run as refit_run
    from sklearn_plc._corrector import LabelCorrector

    add_proba, run = LabelCorrector.add_proba, refit_run.RefitRun.run

    def first_add_proba(self, proba):
        if not hasattr(self, "first_proba"):
            self.first_proba = np.array(proba, copy=True)
        return add_proba(self, proba)

    def run_then_set_aside(self, X, encoded, classes, fit_params, trusted):
        result = run(self, X, encoded, classes, fit_params, trusted)
        if result.termination == "undone":
            corrector = result.corrector
            proba = corrector.first_proba
            if sure:  # the label at most half (a third in two classes) the top
                ratio = (
                    refit_run.BINARY_SURE_RATIO
                    if proba.shape[1] == 2
                    else refit_run.SURE_RATIO
                )
                label_proba = proba[np.arange(proba.shape[0]), corrector.labels]
                disputed = label_proba < ratio * proba.max(axis=1)
            else:
                disputed = proba.argmax(axis=1) != corrector.labels
            aside = refit_run.keep_every_class(disputed, corrector.labels)
            result.set_aside = aside
            result.estimator = self._final_model(
                self.estimator, corrector.labels, X, fit_params, aside
            )
        return result

    LabelCorrector.add_proba = first_add_proba
    refit_run.RefitRun.run = run_then_set_aside

    def restore():
        LabelCorrector.add_proba = add_proba
        refit_run.RefitRun.run = run

    return restore


def _cap_set_aside():
    """Patch the corrector so that relabelled + set aside <= the estimated errors.

    The estimate (confident learning, :func:`estimated_label_errors`) reads the
    first recorded probabilities: held-out, from models on the labels as given.
    """
    from sklearn_plc._corrector import LabelCorrector
    from sklearn_plc.correction import confidence_ratio

    add_proba, contested = LabelCorrector.add_proba, LabelCorrector.contested

    def first_add_proba(self, proba):
        if not hasattr(self, "estimated_errors"):
            self.estimated_errors = estimated_label_errors(proba, self.labels)
        return add_proba(self, proba)

    def capped(self, proba=None):
        disputed = contested(self, proba)
        changed = np.count_nonzero(self.labels != self.initial_labels)
        limit = max(0, self.estimated_errors - changed)
        candidates = np.flatnonzero(disputed)
        if candidates.shape[0] > limit:
            ratio = confidence_ratio(self.pass_proba(), self.labels)
            order = np.argsort(ratio[candidates], kind="stable")
            disputed = np.zeros_like(disputed)
            disputed[candidates[order[:limit]]] = True
        return disputed

    LabelCorrector.add_proba, LabelCorrector.contested = first_add_proba, capped

    def restore():
        LabelCorrector.add_proba, LabelCorrector.contested = add_proba, contested

    return restore


def _patch_refit_run(values):
    """Set module names of the refit loop; return what restores them."""
    import sklearn_plc._refit_run as refit_run

    before = {name: getattr(refit_run, name) for name in values}
    for name, value in values.items():
        setattr(refit_run, name, value)
    return lambda: [setattr(refit_run, k, v) for k, v in before.items()]


# variants whose number sets a study hook that a patch adds to
# sklearn_plc._refit_run: prefix -> (hook name, patch file, type of the number)
PATCHED_HOOKS = {
    "keep-refits": ("MAX_REFITS", "contested_refits.patch", int),
    "weigh-refits": ("MAX_REFITS", "contested_refits.patch", int),
    "keep-bar": ("REFIT_BAR_FACTOR", "contested_bar.patch", float),
}


def _patch_hook(variant, prefix, name, patch, convert):
    """Set the hook `name` to the number ending `variant`; its patch must be applied."""
    import sklearn_plc._refit_run as refit_run

    if not hasattr(refit_run, name):
        raise SystemExit(
            f"{prefix}* needs the study hook: git apply benchmarks/studies/{patch}"
        )
    return _patch_refit_run({name: convert(variant.removeprefix(prefix))})


def run_job(dataset, model, noise, seed, variants):
    from sklearn_plc import PLCClassifier
    from sklearn_plc.metrics import label_recovery_report

    warnings.simplefilter("ignore")
    drawn = with_standard(dataset, model, noise, seed)
    if drawn is None:
        return None
    (X_train, X_test, y_train, y_test, y_noisy, make), row = drawn
    wrong = y_noisy != y_train
    for variant in variants:
        start = time.perf_counter()
        if variant == "cleanlab":
            from benchmarks.tables import clean_learning

            fitted = clean_learning(make(), seed).fit(X_train, y_noisy)
            flagged = np.asarray(fitted.label_issues_df["is_label_issue"])
            entry = {
                "n_flagged": int(flagged.sum()),
                "flagged_precision": float(wrong[flagged].mean())
                if flagged.any()
                else None,
            }
        else:
            restore = _relabel_nothing() if variant == "aside-only" else None
            if variant == "aside-capped":
                restore = _cap_set_aside()
            if variant in ("undo-aside", "undo-aside-sure"):
                restore = _set_aside_when_undone(sure=variant.endswith("-sure"))
            for prefix, (name, patch, convert) in PATCHED_HOOKS.items():
                if variant.startswith(prefix):
                    restore = _patch_hook(variant, prefix, name, patch, convert)
            if variant.endswith("-fast"):
                restore = _patch_refit_run(FAST)
            elif variant.endswith("-reuse"):
                restore = _patch_refit_run({"REFIT_AFTER_QUIET_CHANGES": False})
            elif variant.endswith("-early"):
                restore = _patch_refit_run({"DECIDE_EARLY": FAST["DECIDE_EARLY"]})
            params = dict(VARIANTS[variant])
            if variant == "keep-binary-sure" and np.unique(y_noisy).shape[0] == 2:
                params["theta_end"] = 1 / 3
            try:
                fitted = PLCClassifier(make(), random_state=seed, **params).fit(
                    X_train, y_noisy
                )
            finally:
                if restore:
                    restore()
            aside = fitted.set_aside_
            report = label_recovery_report(y_train, y_noisy, fitted.labels_)
            entry = {
                "termination": fitted.termination_condition_,
                "n_changed": report["n_changed"],
                "precision": report["precision"],
                "purity_after": report["purity_after"],
                "n_set_aside": int(aside.sum()),
                "aside_wrong": float(np.mean(fitted.labels_[aside] != y_train[aside]))
                if aside.any()
                else None,
                "n_rounds": int(fitted.n_iter_),
                "memorisation": fitted.memorisation_,
                "selection": fitted.selection_,
            }
        entry["fit_s"] = time.perf_counter() - start
        entry["acc"] = float(np.mean(fitted.predict(X_test) == y_test))
        row[variant] = entry
    row["purity_before"] = float(np.mean(~wrong))
    row["n_classes"] = int(np.unique(y_train).shape[0])
    return row


def run(out, what, variants, jobs=2):
    jobs_list = [(*c, s) for c in cells(what) for s in SEEDS]
    rows = Parallel(n_jobs=jobs, verbose=5)(
        delayed(run_job)(*job, variants) for job in jobs_list
    )
    dump_rows(rows, out)


def summary(*paths):
    rows = [row for path in paths for row in load_rows(path)]
    variants = [k for k in rows[0] if isinstance(rows[0][k], dict)]
    by_cell = defaultdict(list)
    for row in rows:
        by_cell[(row["dataset"], row["model"], row["noise"])].append(row)
    print("| cell | Std | " + " | ".join(variants) + " |")
    print("|---|---:|" + "---:|" * len(variants))
    gains = defaultdict(list)
    for key, runs in by_cell.items():
        std = 100 * np.mean([r["std"] for r in runs])
        cells_ = []
        for v in variants:
            present = [r for r in runs if v in r]
            if not present:
                cells_.append("")
                continue
            gain = 100 * np.mean([r[v]["acc"] - r["std"] for r in present])
            gains[v].append(gain)
            extra = ""
            if "n_set_aside" in present[0][v]:
                extra = f" ({np.mean([r[v]['n_set_aside'] for r in present]):.0f})"
            cells_.append(f"{gain:+.1f}{extra}")
        print(f"| {' '.join(key)} | {std:.1f} | " + " | ".join(cells_) + " |")
    print()
    ref = gains.get("cleanlab")
    for v, g in gains.items():
        g = np.array(g)
        line = (
            f"{v}: mean {g.mean():+.2f}, worst {g.min():+.1f}, "
            f"≥ Std−0.5 {np.sum(g >= -0.5)}/{len(g)}"
        )
        if ref is not None and len(ref) == len(g):
            line += f", ≥ cleanlab {np.sum(g >= np.array(ref) - 1e-9)}/{len(g)}"
        cost = [r[v]["fit_s"] / r["standard_s"] for r in rows if v in r]
        line += f", median cost {np.median(cost):.1f}×"
        print(line)


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
