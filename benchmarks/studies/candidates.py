"""Study (issue 60): the judge's choice among the given, corrected and removal labels.

One run per dev cell records, beside Standard and cleanlab:

- ``plc``: the library as it stands (its own ending);
- ``relabel``: the corrected labels whatever the judge says (the ending with
  ``judge_acts=False``; the labels as given where the model does not memorise);
- ``removal``: the labels as given without confident learning's disputes on
  the first round's held-out probabilities (every sample, the judged ones too);
- the judged agreement of each candidate's fold models on the validation
  samples (per sample, so that any choice rule can be replayed offline).

Dev protocol only: dev seeds (100+), the hard dev sets split by the seed, and
the new rare-class dev sets (a rare positive class, one-sided noise). Run from
the repository root::

    OMP_NUM_THREADS=1 python -m benchmarks.studies.candidates run OUT.json [SET...]
    python -m benchmarks.studies.candidates summary LOG.json...
    OMP_NUM_THREADS=1 python -m benchmarks.studies.candidates unseen OUT.json cap [rare]

The library is never changed: the worker wraps ``RefitPath._end`` to record.
"""

import json
import os
import sys
import time
import warnings

import numpy as np

SEEDS = (100, 101, 102)
RARE_SEEDS = (100, 101, 102, 103, 104)

HARD_SETS = {
    "hard-dev": dict(
        n_samples=2000, n_features=20, n_informative=8, n_classes=3, random_state=11
    ),
    "binary-gb-dev": dict(
        n_samples=3000,
        n_features=10,
        n_informative=6,
        n_redundant=2,
        n_classes=2,
        n_clusters_per_class=3,
        random_state=21,
    ),
    # a rare positive class (15%, 6%): fraud, defect or diagnosis labels
    "rare15-dev": dict(
        n_samples=3000,
        n_features=20,
        n_informative=6,
        n_classes=2,
        weights=[0.85],
        flip_y=0,
        random_state=61,
    ),
    "rare6-dev": dict(
        n_samples=4000,
        n_features=15,
        n_informative=5,
        n_classes=2,
        weights=[0.94],
        flip_y=0,
        class_sep=1.2,
        random_state=67,
    ),
}
MODELS = (
    "logistic",
    "random-forest",
    "gradient-boosting",
    "extra-trees",
    "5-nn",
    "naive-bayes",
)
RARE_MODELS = ("logistic", "random-forest", "gradient-boosting")


def cells(name):
    if name == "rare":
        return [
            (d, m, n, s)
            for d in ("rare15-dev", "rare6-dev")
            for m in RARE_MODELS
            for n in ("P30", "U20")
            for s in RARE_SEEDS
        ]
    return [
        (d, m, n, s)
        for d in ("hard-dev", "binary-gb-dev")
        for m in MODELS
        for n in ("I-35", "III-35", "U30")
        for s in SEEDS
    ]


def _noise(name, seed):
    from benchmarks.unseen import _noise as unseen_noise
    from sklearn_plc.noise import TransitionMatrixNoise, UniformNoise

    if name == "P30":  # 30% of the positives labelled negative
        return TransitionMatrixNoise([[1.0, 0.0], [0.3, 0.7]], random_state=seed)
    if name == "U20":
        return UniformNoise(0.2, random_state=seed)
    return unseen_noise(name, seed)


RECORD = {}


def _install_recorder():
    """Wrap RefitPath._end: record the candidates' evidence and models."""
    from sklearn.base import clone

    import sklearn_plc._paths.refit as refit
    from sklearn_plc._ending import (
        EndingSettings,
        FitRequest,
        end_of_run,
        keep_every_class,
    )
    from sklearn_plc._held_out import (
        out_of_bag_proba,
        out_of_fold_proba,
        splits_without,
    )
    from sklearn_plc.evidence import confident_label_issues

    if getattr(refit.RefitPath, "_study_recorder", False):
        return
    refit.RefitPath._study_recorder = True
    captured = {}
    original_end_of_run = refit.end_of_run

    def recording_end_of_run(evidence, settings):
        captured["evidence"] = evidence
        captured["settings"] = settings
        return original_end_of_run(evidence, settings)

    refit.end_of_run = recording_end_of_run
    original_end = refit.RefitPath._end

    def _end(
        self, loop, corrector, judge, trusted, estimator, X, splits, fit_params, rng
    ):
        ending = original_end(
            self, loop, corrector, judge, trusted, estimator, X, splits, fit_params, rng
        )
        evidence, settings = captured["evidence"], captured["settings"]
        given = corrector.initial_labels
        record = {"termination": ending.termination, "n": int(given.shape[0])}
        models = {}
        # relabel alone: the ending with no judge acting
        alone = end_of_run(
            evidence,
            EndingSettings(**{**settings.__dict__, "judge_acts": False}),
        )
        while isinstance(alone, FitRequest):
            alone = end_of_run(
                evidence.with_fitted(alone.name, None),
                EndingSettings(**{**settings.__dict__, "judge_acts": False}),
            )
        models["relabel"] = self._final_model(
            estimator, loop, alone, given, X, fit_params
        )[0]
        record["relabel_termination"] = alone.termination
        record["relabel_n_changed"] = int(np.count_nonzero(alone.labels != given))
        if evidence.first_proba is not None and judge is not None:
            removal = confident_label_issues(evidence.first_proba, given)
            if trusted is not None:
                removal &= ~trusted
            removal = keep_every_class(removal, given)
            record["n_removed"] = int(removal.sum())
            record["removed_wrong"] = None  # filled by the caller
            RECORD["removal_mask"] = removal
            final = clone(estimator)
            kept = np.flatnonzero(~removal)
            from sklearn.utils import _safe_indexing

            final.fit(_safe_indexing(X, kept), self.classes[given[kept]])
            models["removal"] = final
            # judged agreement of fold models trained without the removal
            validation = loop.validation
            try:
                if splits is not None:
                    proba, _ = out_of_fold_proba(
                        estimator,
                        X,
                        given,
                        splits_without(splits, removal),
                        self.classes,
                        fit_params=fit_params,
                        validation=validation,
                    )
                else:
                    extra = np.union1d(
                        np.flatnonzero(removal),
                        [] if validation is None else validation,
                    ).astype(int)
                    proba, _ = out_of_bag_proba(
                        estimator,
                        X,
                        given,
                        self.classes,
                        fit_params=fit_params,
                        in_sample=False,
                        validation=extra,
                    )
                removal_agrees = judge.agrees(proba)
            except ValueError:
                removal_agrees = None
            record["agrees"] = {
                "given": judge.reference.agrees.tolist(),
                "removal": None if removal_agrees is None else removal_agrees.tolist(),
            }
            # removal with cleanlab's class weights, 1 / P(given = k | true = k)
            from sklearn_plc.evidence import kept_label_rates

            rates = kept_label_rates(evidence.first_proba, given)
            record["kept_rates"] = rates.tolist()
            key = self.weight_key
            if key is not None:
                weights = 1.0 / rates[given]
                final = clone(estimator)
                final.fit(
                    _safe_indexing(X, kept),
                    self.classes[given[kept]],
                    **{key: weights[kept]},
                )
                models["removal_w"] = final
                try:
                    params = {**fit_params, key: weights}
                    if splits is not None:
                        proba, _ = out_of_fold_proba(
                            estimator,
                            X,
                            given,
                            splits_without(splits, removal),
                            self.classes,
                            fit_params=params,
                            validation=validation,
                        )
                    else:
                        proba, _ = out_of_bag_proba(
                            estimator,
                            X,
                            given,
                            self.classes,
                            fit_params=params,
                            in_sample=False,
                            validation=extra,
                        )
                    record["agrees"]["removal_w"] = judge.agrees(proba).tolist()
                except ValueError:
                    pass
            corrected = evidence.fitted.get("weighed_folds") or evidence.last
            if corrected is not None and corrected is not evidence.reference:
                record["agrees"]["corrected"] = corrected.agrees.tolist()
            judged_labels = given[judge.judged]
            record["judged_labels"] = judged_labels.tolist()
        RECORD["record"] = record
        RECORD["models"] = models
        return ending

    refit.RefitPath._end = _end


def _install_variant(name):
    """Study variants of the library, patched in this worker only."""
    if name == "clprior":  # align to confident learning's clean prior
        from sklearn_plc import _label_state
        from sklearn_plc.evidence import _calibrated_confident_joint

        def _given_class_prior(self, n_classes):
            if self._given_prior is None:
                proba = self.to_numpy(self.averaged_proba())
                joint = _calibrated_confident_joint(
                    np.asarray(proba, dtype=float), self.initial_labels
                )
                totals = joint.sum(axis=0)
                self._given_prior = totals / totals.sum()
            return self._given_prior

        _label_state.LabelCorrector._given_class_prior = _given_class_prior
    if name in ("cap", "onesided"):
        # never move more labels out of a class than CL counts wrong ("onesided":
        # only in a class that CL finds drained by the noise: clearly fewer of its
        # given labels wrong than of its true members labelled otherwise)
        from sklearn_plc import _label_state
        from sklearn_plc.evidence import _calibrated_confident_joint

        original = _label_state.LabelCorrector._keep_every_class

        def _keep_every_class(self, new_labels, changed):
            original(self, new_labels, changed)
            given = self.initial_labels
            proba = np.asarray(self.to_numpy(self.pass_proba()), dtype=float)
            if getattr(self, "_cap", None) is None:
                joint = _calibrated_confident_joint(proba, given)
                self._cap = np.round(joint.sum(axis=1) - np.diag(joint))
                if name == "onesided":
                    outflow = self._cap
                    inflow = np.round(joint.sum(axis=0) - np.diag(joint))
                    drained = outflow + 2 * np.sqrt(outflow) < inflow - 2 * np.sqrt(
                        inflow
                    )
                    self._cap = np.where(drained, outflow, np.inf)
            moved = new_labels != given
            for k in np.flatnonzero(
                np.bincount(given[moved], minlength=len(self._cap))
            ):
                members = np.flatnonzero(moved & (given == k))
                if not np.isfinite(self._cap[k]):
                    continue
                excess = members.shape[0] - int(self._cap[k])
                if excess <= 0:
                    continue
                fresh = members[changed[members]]  # only this pass's moves go back
                rows = fresh
                ratio = proba[rows, given[rows]] / np.maximum(
                    proba[rows, new_labels[rows]], 1e-12
                )
                back = fresh[np.argsort(-ratio, kind="stable")[:excess]]
                new_labels[back] = self.labels[back]
                changed[back] = False

        _label_state.LabelCorrector._keep_every_class = _keep_every_class


def load(dataset, seed):
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    X, y = make_classification(**{"n_clusters_per_class": 2, **HARD_SETS[dataset]})
    return train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)


def run_one(dataset, model, noise, seed):
    from sklearn.metrics import balanced_accuracy_score

    from benchmarks.tables import clean_learning
    from benchmarks.unseen import _model
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    _install_recorder()
    _install_variant(os.environ.get("PLC_VARIANT", ""))
    RECORD.clear()
    X_train, X_test, y_train, y_test = load(dataset, seed)
    _, y_noisy = _noise(noise, seed).fit_resample(X_train, y_train)
    y_noisy = np.asarray(y_noisy)
    row = dict(dataset=dataset, model=model, noise=noise, seed=seed)
    row["purity"] = float(np.mean(y_noisy == y_train))

    def score(name, fitted):
        predicted = fitted.predict(X_test)
        row[name] = float(np.mean(predicted == y_test))
        row[name + "_bal"] = float(balanced_accuracy_score(y_test, predicted))

    start = time.perf_counter()
    standard = _model(model).fit(X_train, y_noisy)
    row["standard_s"] = time.perf_counter() - start
    score("standard", standard)
    start = time.perf_counter()
    cleaner = clean_learning(_model(model), seed).fit(X_train, y_noisy)
    row["cleanlab_s"] = time.perf_counter() - start
    score("cleanlab", cleaner)
    start = time.perf_counter()
    plc = PLCClassifier(_model(model), random_state=seed).fit(X_train, y_noisy)
    row["plc_s"] = time.perf_counter() - start
    score("plc", plc)
    row["termination"] = plc.termination_condition_
    row.update(RECORD.get("record", {}))
    for name, fitted in RECORD.get("models", {}).items():
        score(name, fitted)
    if "removal_mask" in RECORD:
        mask = RECORD["removal_mask"]
        row["removed_wrong"] = int(np.sum(mask & (y_noisy != y_train)))
    return row


def run(out, sets):
    from joblib import Parallel, delayed

    jobs = [cell for name in sets for cell in cells(name)]
    start = time.time()
    # by reference, so that each worker's recorder writes the RECORD it reads
    from benchmarks.studies import candidates

    rows = Parallel(n_jobs=2, verbose=5)(
        delayed(candidates.run_one)(*cell) for cell in jobs
    )
    with open(out, "w") as handle:
        json.dump({"sets": sets, "seconds": time.time() - start, "rows": rows}, handle)


# -- summary: replay choice rules offline from the recorded judged agreements --------
# rules: "lib" (the library as it stood), "always" (the candidate), "switch" (the
# candidate where it beats the run's own labels by z standard errors of the
# statistic: plain "acc", class-balanced "bal", or "noisew" weighted by
# 1 / kept rate), "kept" (switch only where the labels were kept), "nocontest"
# (switch, never over a contested run); one sample more (continuity) as shipped

CORRECTED = ("converged", "max_iter")


def weights_for(r, stat):
    labels = np.asarray(r["judged_labels"])
    if stat == "acc":
        return None
    if stat == "bal":
        counts = np.bincount(labels)
        return 1.0 / counts[labels]
    if stat == "noisew":
        rates = np.asarray(r["kept_rates"])
        return 1.0 / rates[labels]


def gain_se(a, b, w):
    d = np.asarray(a, float) - np.asarray(b, float)
    if w is None:
        return d.mean(), d.std() / np.sqrt(d.size)
    w = w / w.sum()
    g = w @ d
    return g, np.sqrt(np.sum(w**2 * (d - g) ** 2))


def incumbent(r):
    ag = r.get("agrees") or {}
    if r["termination"] in CORRECTED and "corrected" in ag:
        return ag["corrected"]
    return ag.get("given")


def choose(r, rule, z, stat, cand, continuity=1):
    ag = r.get("agrees") or {}
    if rule == "lib":
        return "plc"
    if rule == "always":
        return cand if cand in r else "plc"
    inc = incumbent(r)
    if inc is None or ag.get(cand) is None or cand not in r:
        return "plc"
    if rule == "kept" and r["termination"] in (*CORRECTED, "corrections_contested"):
        return "plc"
    if rule == "nocontest" and r["termination"] == "corrections_contested":
        return "plc"
    g, se = gain_se(ag[cand], inc, weights_for(r, stat))
    n = len(inc)
    return cand if g - continuity / n > z * se else "plc"


def report(rows, metric, cand):
    suffix = "_bal" if metric == "bal" else ""
    cl = np.array([r["cleanlab" + suffix] - r["standard" + suffix] for r in rows])
    from collections import defaultdict

    cells = defaultdict(list)
    for i, r in enumerate(rows):
        cells[(r["dataset"], r["model"], r["noise"])].append(i)
    rules = [("lib", 0, "acc"), ("always", 0, "acc")]
    for rule in ("switch", "kept", "nocontest"):
        for z in (0, 1, 2):
            for stat in ("acc", "bal", "noisew"):
                rules.append((rule, z, stat))
    print(
        f"  [{metric}] cleanlab {100 * cl.mean():+.2f}  cells {len(cells)}  "
        f"runs {len(rows)}"
    )
    for rule, z, stat in rules:
        pick = [choose(r, rule, z, stat, cand) for r in rows]
        acc = np.array(
            [
                r[p + suffix] - r["standard" + suffix]
                for r, p in zip(rows, pick, strict=True)
            ]
        )
        ahead = harm = 0
        worst = 0
        for idx in cells.values():
            m = acc[idx].mean()
            c = cl[idx].mean()
            ahead += m >= c - 1e-9
            harm += m < -0.005
            worst = min(worst, m)
        n = sum(p == cand for p in pick)
        print(
            f"    {rule:9s} z={z} {stat:6s}: {100 * acc.mean():+.2f} "
            f">=CL {ahead:2d} harm {harm:2d} worst {100 * worst:+.1f} chosen {n}"
        )


def summary(paths, cand="removal_w"):
    from collections import defaultdict

    rows = []
    for path in paths:
        with open(path) as handle:
            rows += json.load(handle)["rows"]
    groups = defaultdict(list)
    for r in rows:
        groups[r["dataset"][:4]].append(r)
    for name, group in groups.items():
        print("=====", name, cand)
        for metric in ("acc", "bal"):
            report(group, metric, cand)


def unseen_variant(out, variant, rare=False):
    """The unseen check with a study variant patched in (forked workers inherit it).

    `rare`: the rare-class check instead (digits-rare, P30 and U30, seeds 100-104).
    """
    from joblib import Parallel, delayed

    from benchmarks.unseen import (
        DATASETS,
        MODELS,
        NOISES,
        RARE_DATASETS,
        RARE_NOISES,
        SEEDS,
        format_unseen,
        run_cell,
        summarise,
    )

    _install_variant(variant)
    if rare:
        DATASETS, NOISES, SEEDS = RARE_DATASETS, RARE_NOISES, RARE_SEEDS
    jobs = [
        (d, m, n, s) for m in MODELS for d in DATASETS for n in NOISES for s in SEEDS
    ]
    start = time.perf_counter()
    rows = Parallel(n_jobs=2, backend="multiprocessing")(
        delayed(run_cell)(*job, {}) for job in jobs
    )
    meta = {
        "command": f"candidates.py unseen {out} {variant}",
        "seeds": list(SEEDS),
        "wall_s": time.perf_counter() - start,
    }
    with open(out, "w") as handle:
        json.dump({"meta": meta, "runs": rows}, handle)
    print(format_unseen(summarise(rows), meta))


def main(argv):
    command, out, *rest = argv
    if command == "run":
        run(out, rest or ["rare", "dev"])
    elif command == "summary":
        summary([out, *rest])
    elif command == "unseen":  # unseen OUT.json VARIANT [rare]
        unseen_variant(out, rest[0], rare=rest[1:] == ["rare"])
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
