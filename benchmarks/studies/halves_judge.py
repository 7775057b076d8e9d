"""Issue 68 study: a judge that hears every sample, without the leak.

Each run (dataset, noise, seed of the tables' dev protocol) splits the noisy
training set into two stratified halves. On each half the study fits the
estimator on the labels as given ("keep") and PLC (two variants), and every
model predicts the *other* half: each training sample is then judged by models
that never saw its label, and no candidate's labels were computed from it.
The paired agreement of each candidate with the given labels over all n
samples, against keep, is the judge's evidence. The same candidates are fitted
on the whole training set and scored on the test split, so the rules can be
replayed offline (``summary``).

    python benchmarks/studies/halves_judge.py run OUT.jsonl [--seeds ...]
    python benchmarks/studies/halves_judge.py summary OUT.jsonl
"""

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks import tables
from sklearn_plc import PLCClassifier
from sklearn_plc._final_fit import fit_final_model
from sklearn_plc._validation import sample_weight_key
from sklearn_plc.evidence import agreement_gain

DATASETS = [
    "blobs-2d",
    "wine",
    "synthetic-5",
    "wine-rf",
    "synthetic-5-rf",
    "weak-lr",
    "hard-3-rf",
    "hard-3-gb",
    "hard-3-knn",
]
VARIANTS = {"plc": {}, "plc_all": {"validation_fraction": None}}


def _fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, y)


def run_one(name, noise_id, seed, posterior):
    dataset = tables.DATASETS[name]
    X_train, X_test, y_train, y_test = tables._data(name, tables.DEV_SPLIT)
    try:
        y_noisy, rate, _ = tables.NOISE_CELLS[noise_id].corrupt(
            y_train, posterior, seed
        )
    except ValueError:  # the level is not reachable on this posterior
        return {"dataset": name, "noise": noise_id, "seed": seed, "unreachable": True}
    tables._seed_everything(dataset, seed, 1)
    row = {"dataset": name, "noise": noise_id, "seed": seed, "rate": rate}
    halves = list(
        StratifiedKFold(2, shuffle=True, random_state=seed).split(X_train, y_noisy)
    )
    n = y_noisy.shape[0]
    candidates = {"keep": None, **VARIANTS}
    for key, params in candidates.items():
        # full fit, scored on the test split
        if key == "keep":
            model = dataset.base_model()
        else:
            model = PLCClassifier(dataset.base_model(), random_state=seed, **params)
        _fit(model, X_train, y_noisy)
        entry = {"test": float(np.mean(model.predict(X_test) == y_test))}
        if key != "keep":
            entry["termination"] = model.termination_condition_
            entry["changed_right"] = int(
                np.sum((model.labels_ != y_noisy) & (y_noisy == y_train))
            )
        # the halves: trained on one, predicting the other
        predicted = np.empty(n, dtype=y_noisy.dtype)
        inner = []
        union_labels = y_noisy.copy()
        union_aside = np.zeros(n, dtype=bool)
        union_weight = np.ones(n)
        for fit_part, other in halves:
            if key == "keep":
                half_model = dataset.base_model()
            else:
                half_model = PLCClassifier(
                    dataset.base_model(), random_state=seed, **params
                )
            _fit(half_model, X_train[fit_part], y_noisy[fit_part])
            predicted[other] = half_model.predict(X_train[other])
            if key != "keep":
                inner.append(half_model.termination_condition_)
                union_labels[fit_part] = half_model.labels_
                if half_model.set_aside_ is not None:
                    union_aside[fit_part] = half_model.set_aside_
                if half_model.relabel_weight_ is not None:
                    union_weight[fit_part] = half_model.relabel_weight_
        if key != "keep":
            # the halves' own labels, fitted as PLC's final fit would fit them
            estimator = dataset.base_model()
            classes = np.arange(int(y_train.max()) + 1)
            weighed = (union_weight < 1).any()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                union_model, _ = fit_final_model(
                    clone(estimator),
                    estimator,
                    X_train,
                    union_labels,
                    classes,
                    {},
                    set_aside=union_aside if union_aside.any() else None,
                    relabel_weight=union_weight if weighed else None,
                    given_labels=y_noisy,
                    key=sample_weight_key(estimator) if weighed else None,
                    doubtful="auto",
                )
            entry["union_test"] = float(np.mean(union_model.predict(X_test) == y_test))
        entry["agrees"] = (predicted == y_noisy).astype(int).tolist()
        entry["clean_agrees"] = float(np.mean(predicted == y_train))
        entry["inner"] = inner
        row[key] = entry
    return row


def run(args):
    out = Path(args.out)
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done.add((row["dataset"], row["noise"], row["seed"]))
    posteriors = {
        name: tables._posterior(name, 1, tables.DEV_SPLIT)[1] for name in args.datasets
    }
    tasks = [
        (name, noise, seed)
        for seed in args.seeds
        for name in args.datasets
        for noise in tables.NOISE_CELLS
        if tables.DATASETS[name].noises is None or noise in tables.DATASETS[name].noises
        if (name, noise, seed) not in done
    ]
    with out.open("a") as handle:
        for row in Parallel(n_jobs=args.jobs, return_as="generator_unordered")(
            delayed(run_one)(name, noise, seed, posteriors[name])
            for name, noise, seed in tasks
        ):
            handle.write(json.dumps(row) + "\n")
            handle.flush()


def _z(row, key):
    agrees = np.asarray(row[key]["agrees"])
    keep = np.asarray(row["keep"]["agrees"])
    gain, se = agreement_gain(agrees, keep)
    n = agrees.shape[0]
    return gain, se, n


def summary(args):
    rows = [json.loads(line) for line in Path(args.out).read_text().splitlines()]
    rows = [row for row in rows if "unreachable" not in row]
    print(f"{len(rows)} runs")
    for key, source in [(k, s) for k in VARIANTS for s in ("test", "union_test")]:
        print(f"\n== candidate {key}, final fit {source} ==")
        for bar_name, rule in (
            ("no judge", lambda g, s, n: True),
            ("undo at -2 SE", lambda g, s, n: g + 1 / n >= -2 * s),
            ("undo at -1 SE", lambda g, s, n: g + 1 / n >= -s),
            ("undo at -0.5 SE", lambda g, s, n: g + 1 / n >= -0.5 * s),
            ("undo any loss", lambda g, s, n: g >= 0),
            ("act at +0.5 SE", lambda g, s, n: g - 1 / n > 0.5 * s),
            ("act at +1 SE", lambda g, s, n: g - 1 / n > s),
        ):
            cells = {}
            for row in rows:
                gain, se, n = _z(row, key)
                keep = row["keep"]["test"]
                chosen = row[key][source] if rule(gain, se, n) else keep
                cells.setdefault((row["dataset"], row["noise"]), []).append(
                    100 * (chosen - keep)
                )
            clean = [np.mean(v) for (d, nz), v in cells.items() if nz == "clean"]
            noisy = [np.mean(v) for (d, nz), v in cells.items() if nz != "clean"]
            print(
                f"{bar_name:>16}: clean {np.mean(clean):+.2f} "
                f"({sum(c >= -0.5 for c in clean)} of {len(clean)} within, worst "
                f"{min(clean):+.2f}); noisy {np.mean(noisy):+.2f} "
                f"({sum(c >= -0.5 for c in noisy)} of {len(noisy)} within, worst "
                f"{min(noisy):+.2f})"
            )
    if args.detail:
        for row in sorted(rows, key=lambda r: (r["dataset"], r["noise"], r["seed"])):
            parts = []
            for key in VARIANTS:
                gain, se, _ = _z(row, key)
                parts.append(
                    f"{key} {100 * (row[key]['test'] - row['keep']['test']):+5.1f} "
                    f"z {gain / se if se else 0:+5.1f} {row[key]['termination'][:12]}"
                )
            print(
                f"{row['dataset']:>15} {row['noise']:>7} {row['seed']} | "
                + " | ".join(parts)
            )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=("run", "summary"))
    parser.add_argument("out")
    parser.add_argument(
        "--seeds", type=int, nargs="+", default=[100, 101, 102, 103, 104]
    )
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--detail", action="store_true")
    args = parser.parse_args()
    (run if args.command == "run" else summary)(args)


if __name__ == "__main__":
    main()
