"""Let the held-out judge choose between the corrections and removal.

Question (issue "Ahead of cleanlab"): where PLC's corrections are judged at no
loss (``selection_["gain"] >= 0``) it keeps them, and cleanlab's removal still
leads in some of those runs (hard-4 with ensembles, uniform noise). The judge
compares the corrections with the labels as given only. This study also
judges the removal on the same held-out samples: confident learning
(``evidence.confident_label_issues``) on new out-of-fold probabilities of
every sample (3 folds, the contested path's), then 3 fold models on the
judge's training part without the flagged samples, predicting the judged
samples (the mean over the folds, as the run's own judge). Their paired gain
in agreement with the judged samples' given labels over the run's last judged
refit (``gain_rc``, with its standard error) says whether removal trained
better models than the corrections did. ``SET-k`` ends the run as a contested
one (labels as given, the flagged samples left out of the final fit) where
``gain_rc`` exceeds ``k`` standard errors, and keeps the library's run
otherwise; ``removal`` always does, ``library`` never.

Only the runs the rule can change are refitted: those the library ends
``converged`` or ``max_iter`` with ``gain >= 0`` in ``undo_recheck_SET.json``
(at 31e4435; no change since for those runs). The others keep their logged
result. The cost of the rule (the new folds, the removal's folds and, where
chosen, the final fit) is logged as ``extra_s``.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/removal_judged.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/removal_judged.py summary SET LOG.json
"""

import sys
import time
import warnings
from collections import defaultdict
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    RUN_KEY,
    fit_plc_row,
    load_rows,
    patched,
    print_headlines,
    run_and_dump,
    run_or_summarise,
    with_standard_and_cleanlab,
)
from benchmarks.studies.contested_corrections import CORRECTED, before_rows

BARS = {"removal": -np.inf, "SET-0": 0.0, "SET-1": 1.0, "SET-2": 2.0, "library": np.inf}


def judged_by_removal(row):
    """Whether the rule can change a logged run: corrected, judged at no loss."""
    default = row["default"]
    gain = default.get("gain")
    return default["termination"] in CORRECTED and gain is not None and gain >= 0


def run_job(dataset, model, noise, seed, what):
    from sklearn.base import clone

    from sklearn_plc import _judge
    from sklearn_plc._ending import contested_set_aside
    from sklearn_plc._out_of_fold import make_splits, out_of_fold_proba, splits_without
    from sklearn_plc.evidence import agreement_gain

    warnings.simplefilter("ignore")
    (X, _, y_clean, _, y, make), row, score = with_standard_and_cleanlab(
        dataset, model, noise, seed, what != "dev"
    )
    y = np.asarray(y)
    row = {**dict(zip(RUN_KEY, (dataset, model, noise, seed), strict=True)), **row}
    judges = []
    verdict = _judge.HeldOutJudge.verdict

    def recording(self, *args, **kwargs):
        judges.append(self)
        return verdict(self, *args, **kwargs)

    with patched(_judge.HeldOutJudge, verdict=recording):
        row["default"] = fit_plc_row(make, X, y, seed, y_clean, score)
    if row["default"]["termination"] not in CORRECTED or not judges:
        return row
    judge = judges[-1]
    judged = np.asarray(judge.judged)
    corrected_agrees = judge._last["agrees"]
    given_agrees = judge._reference["agrees"]
    classes, encoded = np.unique(y, return_inverse=True)
    rng = np.random.RandomState(seed + 7919)
    estimator = make()
    start = time.perf_counter()
    # the contested path's flags, with cv=3 (its default)
    contest = SimpleNamespace(
        plc=SimpleNamespace(cv=3, n_jobs=1),
        confidence="cv",
        classes=classes,
        groups=None,
    )
    flagged = contested_set_aside(contest, estimator, X, encoded, {}, rng)
    if flagged is None:  # a fold too small for the estimator
        return row
    training = np.setdiff1d(np.arange(encoded.shape[0]), judged)
    splits = make_splits(3, X, encoded, rng, None, train=training)
    removal_proba, _ = out_of_fold_proba(
        estimator,
        X,
        encoded,
        splits_without(splits, flagged),
        classes,
        fit_params={},
        n_jobs=1,
        validation=judged,
    )
    judge_s = time.perf_counter() - start
    removal_agrees = removal_proba[judged].argmax(axis=1) == encoded[judged]
    gain_rc, se_rc = agreement_gain(removal_agrees, corrected_agrees)
    gain_rg, se_rg = agreement_gain(removal_agrees, given_agrees)
    start = time.perf_counter()
    final = clone(estimator).fit(X[~flagged], y[~flagged])
    final_s = time.perf_counter() - start
    row["removal"] = {
        "acc": score(final),
        "n_flagged": int(flagged.sum()),
        "flag_precision": float(np.mean(y[flagged] != y_clean[flagged])),
        "gain_rc": gain_rc,
        "se_rc": se_rc,
        "gain_rg": gain_rg,
        "se_rg": se_rg,
        "judge_s": judge_s,
        "final_s": final_s,
    }
    return row


def run(out, what, chosen=()):
    before = before_rows(what)
    jobs = [(*key, what) for key, row in before.items() if judged_by_removal(row)]
    print(f"{len(jobs)} of {len(before)} runs refitted")
    run_and_dump(run_job, jobs, out)


def summary(what, path):
    before = before_rows(what)
    rerun = {tuple(r[k] for k in RUN_KEY): r for r in load_rows(path)}
    cells = defaultdict(lambda: defaultdict(list))
    chosen = defaultdict(list)
    extra = defaultdict(list)
    for key, row in before.items():
        cell = cells[key[:3]]
        logged = 100 * (row["default"]["acc"] - row["std"])
        cell["cleanlab"].append(100 * (row["cleanlab"] - row["std"]))
        new = rerun.get(key)
        removal = None if new is None else new.get("removal")
        if removal is not None:
            library = 100 * (new["default"]["acc"] - new["std"])
            removed = 100 * (removal["acc"] - new["std"])
            oracle = max(library, removed)
        else:
            library = removed = oracle = logged
        cell["oracle"].append(oracle)
        for variant, bar in BARS.items():
            take = removal is not None and removal["gain_rc"] > bar * removal["se_rc"]
            cell[variant].append(removed if take else library)
            if removal is not None:
                chosen[variant].append((take, removed - library))
                seconds = removal["judge_s"] + (removal["final_s"] if take else 0.0)
                extra[variant].append(seconds / new["default"]["s"])
    means = {
        key: {label: np.mean(gains) for label, gains in cell.items()}
        for key, cell in cells.items()
    }
    print_headlines(list(means), means, (*BARS, "oracle", "cleanlab"))
    for variant in BARS:
        picks = np.array(chosen[variant])
        taken = picks[:, 0].astype(bool)
        there = picks[taken, 1].mean() if taken.any() else 0.0
        print(
            f"{variant}: removal in {taken.sum()} of {len(picks)} runs, "
            f"removal - library there {there:+.2f} a run; "
            f"fit time x{1 + np.median(extra[variant]):.2f} (median)"
        )
    rows = [r for r in rerun.values() if r.get("removal")]
    if rows:
        z = np.array(
            [r["removal"]["gain_rc"] / max(r["removal"]["se_rc"], 1e-9) for r in rows]
        )
        delta = np.array(
            [100 * (r["removal"]["acc"] - r["default"]["acc"]) for r in rows]
        )
        for low, high in ((-np.inf, -1), (-1, 0), (0, 1), (1, 2), (2, np.inf)):
            band = (z > low) & (z <= high)
            if band.any():
                print(
                    f"z in ({low}, {high}]: {band.sum()} runs, removal - library "
                    f"{delta[band].mean():+.2f} a run, removal better in "
                    f"{(delta[band] > 0).sum()}, worse in {(delta[band] < 0).sum()}"
                )
        print(
            "flag precision (share of flagged labels that are wrong): "
            f"{np.mean([r['removal']['flag_precision'] for r in rows]):.3f}"
        )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
