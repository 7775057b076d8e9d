"""The layout of the paper's Tables 1–2 on offline data: Standard, PLC, cleanlab.

Every (dataset, noise, seed) cell trains, on the same noisy labels and with the
same base model and seed:

- **Standard**: the base model on the noisy labels;
- **PLC**: ``PLCClassifier(base model)`` with its defaults;
- **cleanlab**: ``cleanlab.classification.CleanLearning(base model)`` with its
  defaults (5-fold out-of-fold probabilities, label issues removed);

and, once per (dataset, seed), the base model on the clean labels (the upper
bound). Test labels are always clean and nothing is tuned on them.

As in the paper, each dataset has one fixed train/test split, the clean
posterior η is approximated once per dataset by the base model's out-of-fold
probabilities on the clean training labels, and the seeds vary the noise draw,
the model's initialisation and the folds. A noise level that the posterior
cannot reach (PMD only flips samples labelled with their most likely class) is
reported as such, never silently lowered.
"""

import datetime
import functools
import json
import os
import platform
import re
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.metrics import balanced_accuracy_score
from tqdm.auto import tqdm

from sklearn_plc import PLCClassifier
from sklearn_plc.metrics import label_recovery_report, precision_at_k
from sklearn_plc.noise import (
    AsymmetricNoise,
    HybridNoise,
    PMDNoise,
    UniformNoise,
    estimate_posterior,
)

from .unseen import KEPT, at_least, cost_against_cleanlab, cost_line
from .unseen import _model as unseen_model

METHODS = ("Standard", "PLC", "cleanlab")
SEEDS = (0, 1, 2)
# The development protocol: other seeds and another split (another draw of the
# generated datasets), on which settings are chosen; SEEDS and split 0 report.
DEV_SEEDS = (100, 101, 102)
DEV_SPLIT = 1
STRESS_TABLE = 'Stress table: PMD noise with scaling="flip"'
CLEAN_TABLE = "Clean labels: no noise"
TABLES = ("Table 1: PMD noise", "Table 2: hybrid noise", STRESS_TABLE, CLEAN_TABLE)
# The noise cell whose labels are the clean ones: PLC must do no harm there.
CLEAN = "clean"


@dataclass(frozen=True)
class NoiseCell:
    """One row of Table 1 (PMD) or Table 2 (PMD + i.i.d. noise)."""

    label: str
    pmd_type: str | None  # None: no noise at all (the clean cell)
    pmd_level: float
    iid: str | None = None  # "uniform" or "asymmetric"
    iid_level: float = 0.0
    scaling: str = "keep"  # PMDNoise's scaling: "keep" (the scripts) or "flip"

    @property
    def table(self):
        if self.pmd_type is None:
            return CLEAN_TABLE
        if self.scaling == "flip":
            return STRESS_TABLE
        return "Table 1: PMD noise" if self.iid is None else "Table 2: hybrid noise"

    def corrupt(self, y, posterior, seed):
        """Noisy labels, the realised noise rate and the share of PMD flips > ½.

        The last is the fraction of samples whose PMD flip probability exceeds
        ½: there the noisy data's most likely label is the wrong class.
        Raises ``ValueError`` if the PMD level is unreachable on `posterior`.
        The clean cell returns a copy of `y`.
        """
        if self.pmd_type is None:
            return np.array(y, copy=True), 0.0, 0.0
        pmd = PMDNoise(
            self.pmd_type, self.pmd_level, scaling=self.scaling, random_state=seed
        )
        if self.iid is None:
            noise = pmd
        else:
            iid_class = UniformNoise if self.iid == "uniform" else AsymmetricNoise
            noise = HybridNoise(pmd, iid_class(self.iid_level, random_state=seed + 1))
        y_noisy = noise.corrupt(y, posterior)
        fitted_pmd = noise if self.iid is None else noise.pmd_
        above_half = float(np.mean(fitted_pmd.flip_probability_ > 0.5))
        return y_noisy, float(noise.noise_rate_), above_half


def _noise_cells():
    cells = {CLEAN: NoiseCell("No noise (labels as drawn)", None, 0.0)}
    for pmd_type in ("I", "II", "III"):
        for level in (0.35, 0.70):
            cells[f"{pmd_type}-{round(100 * level)}"] = NoiseCell(
                f"Type-{pmd_type} ({round(100 * level)}%)", pmd_type, level
            )
    for pmd_type in ("I", "II", "III"):
        for iid, iid_level, short in (
            ("uniform", 0.3, "U30"),
            ("uniform", 0.6, "U60"),
            ("asymmetric", 0.3, "A30"),
        ):
            cells[f"{pmd_type}+{short}"] = NoiseCell(
                f"Type-{pmd_type} + {round(100 * iid_level)}% {iid.capitalize()}",
                pmd_type,
                0.35,
                iid,
                iid_level,
            )
    for pmd_type in ("I", "II", "III"):
        cells[f"{pmd_type}-35-flip"] = NoiseCell(
            f"Type-{pmd_type} (35%), flip", pmd_type, 0.35, scaling="flip"
        )
    return cells


NOISE_CELLS = _noise_cells()

# The cells run for the memorising (random forest) and weak-model datasets,
# to keep the full run within its time budget: the clean labels, Table 1's 35%
# rows, one 70% row, two hybrid rows and one stress row.
MEMORISING_NOISES = (
    CLEAN,
    "I-35",
    "II-35",
    "III-35",
    "II-70",
    "I+U30",
    "I+A30",
    "I-35-flip",
)


# --- datasets and base models -------------------------------------------------


def _linear_model():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


def _random_forest():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=50, random_state=0)


def _digits_cnn():
    from .nets import make_digits_net

    return make_digits_net(max_epochs=30)


def _mnist1d_cnn():
    from .nets import make_mnist1d_net

    return make_mnist1d_net(max_epochs=30)


def _split(X, y, split):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=split)


def _load_blobs(split):
    from sklearn.datasets import make_blobs

    X, y = make_blobs(
        n_samples=1500,
        centers=[[-2, 0], [2, 0], [0, 3]],
        cluster_std=1.6,
        random_state=0,
    )
    return _split(X, y, split)


def _load_wine(split):
    from sklearn.datasets import load_wine

    return _split(*load_wine(return_X_y=True), split)


def _classification(split, random_state=0, **params):
    """A ``make_classification`` draw (`params`), split as every dataset is."""
    from sklearn.datasets import make_classification

    X, y = make_classification(random_state=random_state, **params)
    return _split(X, y, split)


def _load_synthetic(split):
    return _classification(
        split,
        n_samples=3000,
        n_features=20,
        n_informative=10,
        n_redundant=4,
        n_classes=5,
        n_clusters_per_class=1,
        class_sep=1.5,
    )


def _load_weak(split):
    return _classification(
        split,
        n_samples=4000,
        n_features=50,
        n_informative=20,
        n_redundant=0,
        n_classes=5,
        n_clusters_per_class=2,
        class_sep=0.6,
    )


def _load_hard(split):
    """A 3-class problem a plain model gets 60–85% right on, drawn anew per split."""
    return _classification(
        split,
        random_state=11 + split,
        n_samples=1500,
        n_features=20,
        n_informative=6,
        n_classes=3,
        class_sep=0.8,
        flip_y=0,
    )


def _load_digits_images(split):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    images = (X / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    return _split(images, y.astype(np.int64), split)


def _load_mnist1d(split):
    from .nets import make_mnist1d

    # mnist1d comes split: another split is another draw of the data.
    return make_mnist1d(n_samples=5000, seed=split)


@dataclass(frozen=True)
class Dataset:
    """A fixed train/test split and the base model every method wraps."""

    name: str
    description: str
    load: object  # (split) -> X_train, X_test, y_train, y_test
    base_model: object  # () -> unfitted estimator
    uses_torch: bool = False
    noises: tuple | None = None  # the noise cells it runs; None: every cell
    dev_only: bool = False  # run by default only on the development protocol


DATASETS = {
    dataset.name: dataset
    for dataset in (
        Dataset(
            "blobs-2d",
            "3 overlapping 2-D Gaussian blobs, n=1500; logistic regression",
            _load_blobs,
            _linear_model,
        ),
        Dataset(
            "wine",
            "sklearn wine, 13 features, 3 classes, n=178; logistic regression",
            _load_wine,
            _linear_model,
        ),
        Dataset(
            "synthetic-5",
            "make_classification, 20 features, 5 classes, n=3000; logistic regression",
            _load_synthetic,
            _linear_model,
        ),
        Dataset(
            "wine-rf",
            "sklearn wine as above; random forest (50 trees), which memorises",
            _load_wine,
            _random_forest,
            noises=MEMORISING_NOISES,
        ),
        Dataset(
            "synthetic-5-rf",
            "synthetic-5 as above; random forest (50 trees), which memorises",
            _load_synthetic,
            _random_forest,
            noises=MEMORISING_NOISES,
        ),
        Dataset(
            "weak-lr",
            "make_classification, 50 features (20 informative), 5 classes, "
            "class_sep 0.6, n=4000; logistic regression, a weak model (about 50% "
            "clean accuracy)",
            _load_weak,
            _linear_model,
            noises=MEMORISING_NOISES,
        ),
        *(
            Dataset(
                f"hard-3-{short}",
                "make_classification, 20 features (6 informative), 3 classes, "
                f"class_sep 0.8, n=1500, drawn anew per split; {model_name}, "
                "about 75-85% right on clean labels (development protocol only)",
                _load_hard,
                make_model,
                noises=MEMORISING_NOISES,
                dev_only=True,
            )
            # the unseen check's models of these families
            for short, model_name, make_model in (
                (
                    "rf",
                    "random forest (100 trees, read out of bag)",
                    functools.partial(unseen_model, "random-forest"),
                ),
                (
                    "gb",
                    "gradient boosting (60 iterations)",
                    functools.partial(unseen_model, "gradient-boosting"),
                ),
                (
                    "knn",
                    "scaled 5-nearest neighbours",
                    functools.partial(unseen_model, "5-nn"),
                ),
            )
        ),
        Dataset(
            "digits",
            "sklearn 8×8 digit images, 10 classes, n=1797; skorch 2-D CNN, 30 epochs",
            _load_digits_images,
            _digits_cnn,
            uses_torch=True,
        ),
        Dataset(
            "mnist1d",
            "mnist1d generated locally, 40-long signals, 10 classes, n=5000; "
            "skorch 1-D CNN, 30 epochs",
            _load_mnist1d,
            _mnist1d_cnn,
            uses_torch=True,
        ),
    )
}

QUICK = {
    # a model PLC leaves alone (it does not memorise), and two it corrects
    "datasets": ("blobs-2d", "wine-rf", "digits"),
    "noises": (CLEAN, "I-35", "I+U30"),  # rows every quick dataset runs
}


def default_datasets(split):
    """The datasets a run on `split` takes by default: the dev sets only off split 0."""
    return tuple(
        name for name, dataset in DATASETS.items() if split != 0 or not dataset.dev_only
    )


@functools.cache
def _data(name, split=0):
    """The dataset's split, cached per process (workers load it once).

    Split 0 is the reported one; :data:`DEV_SPLIT` is for choosing settings.
    """
    return DATASETS[name].load(split)


def _seed_everything(dataset, seed, threads):
    if dataset.uses_torch:
        import torch

        torch.set_num_threads(threads)
        torch.manual_seed(seed)


def _posterior(name, threads, split=0):
    """Out-of-fold η on the clean training labels (seed 0, 5 folds)."""
    dataset = DATASETS[name]
    X_train, _, y_train, _ = _data(name, split)
    _seed_everything(dataset, 0, threads)
    start = time.perf_counter()
    posterior = estimate_posterior(
        X_train, y_train, estimator=dataset.base_model(), cv=5, random_state=0
    )
    return name, posterior, time.perf_counter() - start


def noisy_confusion(y_true, y_noisy, n_classes):
    """Counts of (true class, given label): row ``k``, how class ``k`` was labelled."""
    from sklearn.metrics import confusion_matrix

    return confusion_matrix(y_true, y_noisy, labels=np.arange(n_classes))


def majority_wrong_classes(confusion):
    """The classes whose samples are given one other label more often than their own.

    There the noisy majority is wrong, PLC's premise (the given label is right
    more often than any other) fails, and so does any method that follows the
    majority of the labels; the targets leave such rows out.
    """
    confusion = np.asarray(confusion)
    own = np.diag(confusion)
    other = np.where(np.eye(confusion.shape[0], dtype=bool), -1, confusion).max(axis=1)
    return [int(k) for k in np.flatnonzero(other > own)]


# --- one cell -----------------------------------------------------------------


def _make_method(method, dataset, seed, plc_params=None):
    if method == "Standard":
        return dataset.base_model()
    if method == "PLC":
        return PLCClassifier(
            dataset.base_model(), random_state=seed, **(plc_params or {})
        )
    return clean_learning(dataset.base_model(), seed)


def clean_learning(model, seed):
    """cleanlab's ``CleanLearning`` around `model`, with its defaults."""
    from cleanlab.classification import CleanLearning

    # n_jobs=1: cleanlab's own process pool cannot start inside joblib workers.
    return CleanLearning(model, seed=seed, find_label_issues_kwargs={"n_jobs": 1})


def _fit_and_score(model, dataset, seed, threads, X_train, labels, X_test, y_test):
    _seed_everything(dataset, seed, threads)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X_train, labels)
    fit_s = time.perf_counter() - start
    predicted = model.predict(X_test)
    balanced = float(balanced_accuracy_score(y_test, predicted))
    return float(np.mean(predicted == y_test)), balanced, fit_s


def run_clean(name, seed, threads=1, split=0):
    """The clean-label upper bound of one (dataset, seed)."""
    dataset = DATASETS[name]
    X_train, X_test, y_train, y_test = _data(name, split)
    accuracy, _, fit_s = _fit_and_score(
        dataset.base_model(), dataset, seed, threads, X_train, y_train, X_test, y_test
    )
    return {
        "kind": "clean",
        "dataset": name,
        "seed": seed,
        "accuracy": accuracy,
        "fit_s": fit_s,
    }


def run_cell(
    name,
    noise_id,
    seed,
    posterior,
    methods=METHODS,
    threads=1,
    split=0,
    plc_params=None,
):
    """Every method on one (dataset, noise, seed): accuracy, recovery, fit time.

    `plc_params` overrides PLC's defaults (to compare variants on the dev
    protocol); `split` selects the train/test split (0: the reported one).
    """
    dataset = DATASETS[name]
    cell = NOISE_CELLS[noise_id]
    X_train, X_test, y_train, y_test = _data(name, split)
    row = {"kind": "cell", "dataset": name, "noise": noise_id, "seed": seed}
    try:
        y_noisy, row["noise_rate"], row["pmd_above_half"] = cell.corrupt(
            y_train, posterior, seed
        )
    except ValueError as error:  # the level is not reachable on this posterior
        reachable = re.search(r"largest reachable level is [0-9.]+", str(error))
        row["unreachable"] = reachable.group(0) if reachable else str(error)
        return row
    n_classes = int(np.max(y_train)) + 1  # the loaders' labels are 0..K-1
    row["noisy_confusion"] = noisy_confusion(y_train, y_noisy, n_classes).tolist()
    precision = functools.partial(_review_precision, y_noisy=y_noisy, y_clean=y_train)
    for method in methods:
        model = _make_method(method, dataset, seed, plc_params)
        accuracy, balanced, fit_s = _fit_and_score(
            model, dataset, seed, threads, X_train, y_noisy, X_test, y_test
        )
        row[method] = {
            "accuracy": accuracy,
            "balanced_accuracy": balanced,
            "fit_s": fit_s,
        }
        if method == "PLC":
            row[method].update(
                label_recovery_report(y_train, y_noisy, model),
                n_iter=int(model.n_iter_),
                termination=model.termination_condition_,
                final_threshold=float(model.theta_),
                # the first round's held-out evidence behind the gates
                memorisation=model.memorisation_,
                # the list's precision: its ranking by how likely a label is wrong
                **precision(plc_ranking(model, "likelihood")),
            )
            check = getattr(model, "halves_check_", None)
            if check is not None:  # the run's result checked on halves
                row[method].update(
                    halves_gain=check["gain"],
                    halves_standard_error=check["standard_error"],
                    halves_undone=check["undone"],
                )
            if model.selection_ is not None:  # the held-out evidence for the labels
                row[method].update(
                    holdout_compared=model.selection_["compared"],
                    holdout_gain=model.selection_["gain"],
                    holdout_standard_error=model.selection_["standard_error"],
                    holdout_round=model.selection_["round"],
                )
        elif method == "cleanlab":
            flagged = np.asarray(model.label_issues_df["is_label_issue"])
            wrong = y_noisy != y_train
            quality = np.asarray(model.label_issues_df["label_quality"])
            row[method].update(
                n_flagged=int(flagged.sum()),
                flagged_precision=float(wrong[flagged].mean()) if flagged.any() else 0,
                flagged_recall=float(flagged[wrong].mean()) if wrong.any() else 0,
                **precision(np.argsort(quality, kind="stable")),
            )
    return row


# How many samples a reviewer checks, for the review lists' precision
REVIEW_KS = (50, 100, 200)


def plc_ranking(plc, rank):
    """Every sample in the order of PLC's list (``review_list(rank=rank)``)."""
    return np.asarray(plc.review_list(rank=rank)["position"])


def _review_precision(ranking, *, y_noisy, y_clean):
    """``precision_at_K`` of a review ranking (most suspect first), per K."""
    return {
        f"precision_at_{k}": precision_at_k(ranking, y_noisy, y_clean, k)
        for k in REVIEW_KS
    }


# --- the run ------------------------------------------------------------------


def _threads_per_job(jobs):
    return max(1, (os.cpu_count() or 1) // jobs)


def run_tables(
    output_dir,
    *,
    datasets=None,
    noises=tuple(NOISE_CELLS),
    seeds=SEEDS,
    methods=METHODS,
    jobs=1,
    command=None,
    plot=True,
    split=0,
    plc_params=None,
):
    """Run the grid; write ``tables.md``, ``tables.json`` and ``gains.png``.

    `split` 0 is the reported split; the dev protocol (``--dev``) uses
    :data:`DEV_SPLIT` with :data:`DEV_SEEDS`. `plc_params` overrides PLC's
    defaults for every cell.

    Returns
    -------
    markdown : str
        The tables, as written to ``tables.md``.
    """
    datasets = tuple(datasets or default_datasets(split))
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    threads = _threads_per_job(jobs)
    start = time.perf_counter()
    parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
    posteriors, posterior_s = {}, {}
    for name, posterior, seconds in tqdm(
        parallel(delayed(_posterior)(name, threads, split) for name in datasets),
        total=len(datasets),
        desc="posteriors η",
    ):
        posteriors[name], posterior_s[name] = posterior, seconds
    tasks = [
        delayed(run_clean)(name, seed, threads, split)
        for name in datasets
        for seed in seeds
    ]
    tasks += [
        delayed(run_cell)(
            name,
            noise,
            seed,
            posteriors[name],
            methods,
            threads,
            split,
            plc_params,
        )
        for name in datasets
        for noise in noises
        if DATASETS[name].noises is None or noise in DATASETS[name].noises
        for seed in seeds
    ]
    rows = list(tqdm(parallel(tasks), total=len(tasks), desc="runs"))
    meta = {
        "command": command or "python -m benchmarks tables",
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, "
        f"{platform.system()} {platform.release()}",
        "python": sys.version.split()[0],
        "jobs": jobs,
        "wall_s": time.perf_counter() - start,
        "posterior_s": posterior_s,
        "datasets": {name: DATASETS[name].description for name in datasets},
        "noises": list(noises),
        "seeds": list(seeds),
        "methods": list(methods),
        "split": split,
        "plc_params": plc_params or {},
    }
    rows = sorted(rows, key=_row_order)
    (output / "tables.json").write_text(
        json.dumps({"meta": meta, "runs": rows}, indent=1) + "\n"
    )
    markdown = format_tables(rows, meta)
    (output / "tables.md").write_text(markdown + "\n")
    if plot:
        plot_gains(rows, meta, output / "gains.png")
    return markdown


def _row_order(row):
    return (
        list(DATASETS).index(row["dataset"]),
        row["kind"] != "clean",
        list(NOISE_CELLS).index(row["noise"]) if "noise" in row else -1,
        row["seed"],
    )


# --- reporting ----------------------------------------------------------------


def _mean_std(values):
    return f"{100 * np.mean(values):.1f} ± {100 * np.std(values):.1f}"


def summarise(rows):
    """Per (dataset, noise): means over seeds of everything the tables show."""
    cells = {}
    for row in rows:
        if row["kind"] != "cell":
            continue
        cells.setdefault((row["dataset"], row["noise"]), []).append(row)
    summary = {}
    for key, runs in cells.items():
        reached = [run for run in runs if "unreachable" not in run]
        if not reached:
            summary[key] = {"unreachable": runs[0]["unreachable"]}
            continue
        methods = [m for m in METHODS if m in reached[0]]
        entry = {
            "n_seeds": len(reached),
            "noise_rate": np.mean([r["noise_rate"] for r in reached]),
            "pmd_above_half": np.mean([r["pmd_above_half"] for r in reached]),
        }
        for method in methods:
            entry[method] = [r[method]["accuracy"] for r in reached]
            if all("balanced_accuracy" in r[method] for r in reached):
                entry[f"{method}_balanced"] = float(
                    np.mean([r[method]["balanced_accuracy"] for r in reached])
                )
            entry[f"{method}_fit_s"] = float(
                np.mean([r[method]["fit_s"] for r in reached])
            )
        if "PLC" in methods:
            for key_name in (
                "purity_before",
                "purity_after",
                "precision",
                "recall",
                "damage",
                "n_set_aside",
                "set_aside_precision",
                "n_weighed",
                "weighted_purity",
            ):
                # rows logged before set-aside existed lack its keys
                values = np.array(
                    [r["PLC"].get(key_name, np.nan) for r in reached], dtype=float
                )
                # precision of no change is undefined (NaN): average where defined
                entry[key_name] = (
                    float(np.nanmean(values)) if np.isfinite(values).any() else np.nan
                )
        if all("noisy_confusion" in r for r in reached):  # not in older logs
            entry["majority_wrong_classes"] = majority_wrong_classes(
                np.sum([r["noisy_confusion"] for r in reached], axis=0)
            )
        if "cleanlab" in methods:
            for key_name in ("n_flagged", "flagged_precision", "flagged_recall"):
                entry[key_name] = float(
                    np.mean([r["cleanlab"][key_name] for r in reached])
                )
        for method in {"PLC", "cleanlab"} & set(methods):
            for k in REVIEW_KS:  # the review lists' precision (not in older logs)
                values = [r[method].get(f"precision_at_{k}") for r in reached]
                if None not in values:
                    entry[f"{method}_precision_at_{k}"] = float(np.mean(values))
        summary[key] = entry
    return summary


def _gain(entry, method="PLC"):
    return float(np.mean(entry[method]) - np.mean(entry["Standard"]))


def _ahead_of_cleanlab(entry):
    return at_least(np.mean(entry["PLC"]), np.mean(entry["cleanlab"]))


def _ran_plc(rows):
    """The cell runs of a log that ran Standard and PLC."""
    return [
        r
        for r in rows
        if r["kind"] == "cell" and all(m in r for m in ("Standard", "PLC"))
    ]


def corrected_runs(rows):
    """The scikit-learn cell runs (not the nets) whose labels PLC did not keep.

    Kept: :data:`benchmarks.unseen.KEPT`; a contested run counts as corrected
    (it ran a whole correction run). Only runs that cleanlab ran too.
    """
    return [
        r
        for r in _ran_plc(rows)
        if "cleanlab" in r
        and not (r["dataset"] in DATASETS and DATASETS[r["dataset"]].uses_torch)
        and "termination" in r["PLC"]  # older logs cannot tell a kept run
        and r["PLC"]["termination"] not in KEPT
    ]


def corrected_cost(rows):
    """PLC's fit time over Standard's where it corrects, against cleanlab's.

    Returns :func:`~benchmarks.unseen.cost_against_cleanlab` over the
    :func:`corrected_runs`, with ``every_run``, the median of PLC / Standard
    over every run (nets included), or None without a corrected run.
    """
    cost = cost_against_cleanlab(
        [
            (r["PLC"]["fit_s"], r["cleanlab"]["fit_s"], r["Standard"]["fit_s"])
            for r in corrected_runs(rows)
        ]
    )
    if cost is not None:
        cost["every_run"] = float(
            np.median(
                [r["PLC"]["fit_s"] / r["Standard"]["fit_s"] for r in _ran_plc(rows)]
            )
        )
    return cost


def _majority_wrong(noise, entry):
    """Whether some class's noisy majority is wrong in this row, pooled over seeds.

    Logs made before the counts were kept: the 70% PMD rows.
    """
    if "majority_wrong_classes" in entry:
        return bool(entry["majority_wrong_classes"])
    return NOISE_CELLS[noise].pmd_level >= 0.7


def target_figures(summary):
    """The issues' targets: PLC vs Standard and cleanlab, purity, per table.

    Table 1 cells are the PMD cells (``scaling="keep"``, no i.i.d. part); the
    stress cells (``scaling="flip"``) are counted on their own.
    """
    by_table = {table: [] for table in TABLES}
    for (dataset, noise), entry in summary.items():
        if "PLC" in entry and "Standard" in entry:
            by_table[NOISE_CELLS[noise].table].append((dataset, noise, entry))
    paper_cells = by_table["Table 1: PMD noise"] + by_table["Table 2: hybrid noise"]
    pmd = [entry for _, _, entry in by_table["Table 1: PMD noise"]]
    paper = [entry for _, _, entry in paper_cells]
    stress = [entry for _, _, entry in by_table[STRESS_TABLE]]
    both = [(dataset, e) for dataset, _, e in paper_cells if "cleanlab" in e]
    purity_cells = [
        (noise, e)
        for _, noise, e in paper_cells + by_table[STRESS_TABLE]
        if NOISE_CELLS[noise].pmd_level < 0.7 and "purity_after" in e
    ]
    majority_right = [e for _, noise, e in paper_cells if not _majority_wrong(noise, e)]
    ahead_by_dataset = {}
    for dataset, entry in both:
        ahead, cells = ahead_by_dataset.get(dataset, (0, 0))
        ahead_by_dataset[dataset] = (ahead + _ahead_of_cleanlab(entry), cells + 1)
    clean = [entry for _, _, entry in by_table[CLEAN_TABLE]]
    return {
        **_clean_figures(clean),
        "all_cleanlab_mean_gain": _mean_gain([e for _, e in both], "cleanlab"),
        "all_plc_mean_gain_where_cleanlab": _mean_gain([e for _, e in both]),
        "cleanlab_ahead_by_a_point": sum(
            np.mean(e["cleanlab"]) - np.mean(e["PLC"]) > 0.01 for _, e in both
        ),
        "majority_right_cells": len(majority_right),
        "majority_right_within_half_point": sum(
            _gain(e) >= -0.005 for e in majority_right
        ),
        "pmd_cells": len(pmd),
        "pmd_plc_ge_standard": sum(_gain(e) >= 0 for e in pmd),
        "pmd_mean_gain": float(np.mean([_gain(e) for e in pmd]))
        if pmd
        else float("nan"),
        "all_cells": len(paper),
        "all_mean_gain": float(np.mean([_gain(e) for e in paper]))
        if paper
        else float("nan"),
        "all_within_half_point": sum(_gain(e) >= -0.005 for e in paper),
        "worst_gain": min((_gain(e) for e in paper), default=float("nan")),
        "stress_cells": len(stress),
        "stress_within_one_point": sum(_gain(e) >= -0.01 for e in stress),
        "cleanlab_cells": len(both),
        "plc_ge_cleanlab": sum(cells[0] for cells in ahead_by_dataset.values()),
        "ahead_by_dataset": ahead_by_dataset,
        "pmd_cleanlab_mean_gain": float(
            np.mean([_gain(e, "cleanlab") for e in pmd if "cleanlab" in e])
        )
        if any("cleanlab" in e for e in pmd)
        else float("nan"),
        "purity_cells": len(purity_cells),
        "purity_not_lowered": sum(
            e["purity_after"] >= e["purity_before"] for _, e in purity_cells
        ),
    }


def _halves_lines(rows):
    """How often the check on halves ran and undid a result, over PLC's runs."""
    runs = [row["PLC"] for row in rows if row["kind"] == "cell" and "PLC" in row]
    checked = [run for run in runs if "halves_undone" in run]
    if not checked:
        return []
    undone = sum(run["halves_undone"] for run in checked)
    return [
        f"- Check on halves: run in {len(checked)} of {len(runs)} PLC runs (those "
        f"whose result differs from a plain fit), undid {undone}."
    ]


def _mean_gain(entries, method="PLC"):
    """The mean of `method`'s gain over Standard across `entries`; NaN if none."""
    gains = [_gain(e, method) for e in entries if method in e]
    return float(np.mean(gains)) if gains else float("nan")


def _clean_figures(clean):
    """The no-harm targets on the clean cells (labels exactly right).

    Every cell within 0.5 of Standard, the mean within 0.1, and PLC's mean at
    or above cleanlab's; also the labels PLC changed there (every one wrong).
    """
    return {
        "clean_cells": len(clean),
        "clean_within_half_point": sum(_gain(e) >= -0.005 for e in clean),
        "clean_mean_gain": _mean_gain(clean),
        "clean_worst_gain": min((_gain(e) for e in clean), default=float("nan")),
        "clean_cleanlab_mean_gain": _mean_gain(clean, "cleanlab"),
        "clean_labels_changed": float(
            np.mean([1 - e["purity_after"] for e in clean if "purity_after" in e])
        )
        if any("purity_after" in e for e in clean)
        else float("nan"),
    }


def _clean_target_lines(figures):
    """The target lines of the clean cells; none without a clean cell."""
    if not figures["clean_cells"]:
        return []
    line = (
        f"- Clean labels (no noise): PLC ≥ Standard − 0.5 in "
        f"{figures['clean_within_half_point']} of {figures['clean_cells']} cells "
        f"(worst {100 * figures['clean_worst_gain']:+.1f}); mean gain "
        f"{100 * figures['clean_mean_gain']:+.2f} points (target ≥ −0.10)"
    )
    if np.isfinite(figures["clean_cleanlab_mean_gain"]):
        line += f", cleanlab {100 * figures['clean_cleanlab_mean_gain']:+.2f}"
    if np.isfinite(figures["clean_labels_changed"]):
        line += (
            f"; PLC changed {100 * figures['clean_labels_changed']:.1f}% of the "
            "right labels"
        )
    return [line + "."]


def format_tables(rows, meta):
    """Markdown: accuracy tables in the paper's layout, recovery and timings."""
    summary = summarise(rows)
    clean = {}
    for row in rows:
        if row["kind"] == "clean":
            clean.setdefault(row["dataset"], []).append(row["accuracy"])
    methods = meta["methods"]
    lines = [
        f"Command: `{meta['command']}`  ",
        f"Machine: {meta['machine']}; Python {meta['python']}; {meta['jobs']} job(s); "
        f"date {meta['date']}; wall time {meta['wall_s'] / 60:.1f} min"
        + (
            f"; split {meta['split']} (development protocol)"
            if meta.get("split")
            else ""
        )
        + (f"; PLC settings {meta['plc_params']}" if meta.get("plc_params") else "")
        + ".",
        "",
        "Clean-test accuracy (%), mean ± std over seeds "
        f"{meta['seeds']}; the best mean of each row in bold. Δ = PLC − Standard "
        "(points). Every method uses the same noisy labels, base model and seed. "
        "*realised*: the share of training labels that are wrong; *p > ½*: the "
        "share of training samples whose PMD flip probability exceeds ½, where "
        "the noisy data's most likely label is the wrong class.",
    ]
    for name in meta["datasets"]:
        lines += [
            "",
            f"### {name}",
            "",
            f"{meta['datasets'][name]}. "
            f"Clean labels (upper bound): {_mean_std(clean.get(name, [np.nan]))}.",
        ]
        for table in TABLES:
            # a dataset runs only some cells (the forests: MEMORISING_NOISES)
            noises = [
                n
                for n in meta["noises"]
                if NOISE_CELLS[n].table == table and (name, n) in summary
            ]
            if not noises:
                continue
            lines += [
                "",
                f"**{table}**",
                "",
                "| noise | realised | p > ½ | " + " | ".join(methods) + " | Δ |",
                "|---|---:|---:|" + "---:|" * len(methods) + "---:|",
            ]
            for noise in noises:
                entry = summary.get((name, noise))
                label = NOISE_CELLS[noise].label
                if entry is None:
                    continue
                if "unreachable" in entry:
                    lines.append(
                        f"| {label} | not reachable ({entry['unreachable']}) |"
                        + " – |" * (len(methods) + 2)
                    )
                    continue
                best = max(np.mean(entry[m]) for m in methods)
                cells = []
                for method in methods:
                    text = _mean_std(entry[method])
                    cells.append(
                        f"**{text}**" if np.mean(entry[method]) == best else text
                    )
                delta = (
                    f"{100 * (np.mean(entry['PLC']) - np.mean(entry['Standard'])):+.1f}"
                    if "PLC" in entry and "Standard" in entry
                    else "–"
                )
                lines.append(
                    f"| {label} | {100 * entry['noise_rate']:.1f}% "
                    f"| {100 * entry['pmd_above_half']:.0f}% | "
                    + " | ".join(cells)
                    + f" | {delta} |"
                )
    lines += _recovery_lines(summary, meta) + _timing_lines(summary, meta)
    figures = target_figures(summary)
    if figures["all_cells"] or figures["clean_cells"]:
        lines += ["", "### Against the targets", ""]
        lines += _clean_target_lines(figures)
    if figures["all_cells"]:
        lines += [
            f"- Tables 1–2: PLC ≥ Standard in {figures['pmd_plc_ge_standard']} of "
            f"{figures['pmd_cells']} PMD cells; mean gain on PMD cells "
            f"{100 * figures['pmd_mean_gain']:+.2f} points, on all "
            f"{figures['all_cells']} cells "
            f"{100 * figures['all_mean_gain']:+.2f} points; PLC ≥ Standard − 0.5 "
            f"in {figures['all_within_half_point']} of {figures['all_cells']} "
            f"cells (worst {100 * figures['worst_gain']:+.1f}), in "
            f"{figures['majority_right_within_half_point']} of the "
            f"{figures['majority_right_cells']} cells where every class's noisy "
            "majority is right (pooled over seeds).",
            f"- PLC ≥ cleanlab in {figures['plc_ge_cleanlab']} of "
            f"{figures['cleanlab_cells']} cells of Tables 1–2; by dataset: "
            + ", ".join(
                f"{name} {ahead}/{cells}"
                for name, (ahead, cells) in figures["ahead_by_dataset"].items()
            )
            + ".",
        ]
        if figures["cleanlab_cells"]:
            lines.append(
                f"- Tables 1–2, mean gain where both ran: PLC "
                f"{100 * figures['all_plc_mean_gain_where_cleanlab']:+.2f} points, "
                f"cleanlab {100 * figures['all_cleanlab_mean_gain']:+.2f}; cleanlab "
                f"ahead by more than 1 point in {figures['cleanlab_ahead_by_a_point']} "
                f"of {figures['cleanlab_cells']} cells (target ≤ 1 in 10)."
            )
        if np.isfinite(figures["pmd_cleanlab_mean_gain"]):
            lines.append(
                f"- Mean gain on PMD cells: PLC "
                f"{100 * figures['pmd_mean_gain']:+.2f} points, cleanlab "
                f"{100 * figures['pmd_cleanlab_mean_gain']:+.2f}."
            )
        cost = corrected_cost(rows)
        if cost is not None:
            lines.append(
                f"- {cost_line(cost)}; every run's median PLC / Standard "
                f"{cost['every_run']:.1f}×."
            )
        lines += _halves_lines(rows)
        if figures["stress_cells"]:
            lines.append(
                f"- Stress table: PLC ≥ Standard − 1.0 in "
                f"{figures['stress_within_one_point']} of {figures['stress_cells']} "
                "cells."
            )
        if figures["purity_cells"]:
            lines.append(
                f"- Label purity after ≥ before in {figures['purity_not_lowered']} of "
                f"{figures['purity_cells']} cells outside the 70% PMD rows."
            )
        balanced = [e for e in summary.values() if "PLC_balanced" in e]
        balanced = [e for e in balanced if "Standard_balanced" in e]
        if balanced:
            gains = {
                m: np.mean([e[f"{m}_balanced"] - e["Standard_balanced"] for e in cells])
                for m in ("PLC", "cleanlab")
                if (cells := [e for e in balanced if f"{m}_balanced" in e])
            }
            lines.append(
                f"- Balanced accuracy, mean gain over Standard on {len(balanced)} "
                "cells: "
                + ", ".join(f"{m} {100 * g:+.2f} points" for m, g in gains.items())
                + "."
            )
        review = review_figures(summary)
        if review["cells"]:
            lines.append(
                "- Review lists: PLC's at least as precise as cleanlab's ranking in "
                + ", ".join(
                    f"{review[k]} of {review['cells']} cells for the first {k}"
                    for k in REVIEW_KS
                )
                + "."
            )
    return "\n".join(lines)


def review_figures(summary):
    """Cells where PLC's review list is at least as precise as cleanlab's, per k."""
    cells = [
        e for e in summary.values() if f"cleanlab_precision_at_{REVIEW_KS[0]}" in e
    ]
    cells = [e for e in cells if f"PLC_precision_at_{REVIEW_KS[0]}" in e]
    figures = {"cells": len(cells)}
    for k in REVIEW_KS:
        figures[k] = sum(
            at_least(e[f"PLC_precision_at_{k}"], e[f"cleanlab_precision_at_{k}"])
            for e in cells
        )
    return figures


def _recovery_lines(summary, meta):
    if "PLC" not in meta["methods"]:
        return []
    lines = [
        "",
        "### Label recovery",
        "",
        "PLC: label purity before → after, correction precision (changed labels now "
        "right; – where no label changed), recall (wrong labels fixed) and damage "
        "(right labels made wrong); relabels the final fit trained on both "
        'labels, by weight (`doubtful="weigh"`), and the share of that fit\'s '
        "weight on right labels; samples set aside (left out of the final fit) "
        "and the share of them whose label was wrong. "
        "cleanlab removes rather than corrects: labels flagged, and the share of "
        "flagged labels that were wrong (precision) and of wrong labels flagged "
        "(recall). Means over seeds, in %.",
        "",
        "| dataset | noise | purity before → after | precision | recall | damage "
        "| weighed (weighted purity) | set aside (wrong) | cleanlab flagged "
        "| flagged precision | flagged recall |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows = []
    for (name, noise), entry in summary.items():
        if "PLC" not in entry:
            continue
        clean_cols = (
            f"{entry['n_flagged']:.0f} | {100 * entry['flagged_precision']:.1f} "
            f"| {100 * entry['flagged_recall']:.1f}"
            if "n_flagged" in entry
            else "– | – | –"
        )
        lines.append(
            f"| {name} | {NOISE_CELLS[noise].label} | "
            f"{100 * entry['purity_before']:.1f} → {100 * entry['purity_after']:.1f} "
            f"| {_percent_or_dash(entry['precision'])} | {100 * entry['recall']:.1f} "
            f"| {100 * entry['damage']:.1f} | {_weighed_cell(entry)} "
            f"| {_set_aside_cell(entry)} | {clean_cols} |"
        )
        if f"cleanlab_precision_at_{REVIEW_KS[0]}" in entry:
            rows.append(
                f"| {name} | {NOISE_CELLS[noise].label} | "
                + " | ".join(
                    f"{100 * entry[f'PLC_precision_at_{k}']:.0f} / "
                    f"{100 * entry[f'cleanlab_precision_at_{k}']:.0f}"
                    for k in REVIEW_KS
                )
                + " |"
            )
    if rows:
        lines += [
            "",
            "### Review lists",
            "",
            "The share of truly wrong labels among the first k samples of PLC's "
            'review list in its audit ranking (`review_list(rank="likelihood")`: '
            "the disputed labels by the given label's probability over the "
            "top class's, lowest first, then the labels it does not dispute, the "
            "least sure first) / of cleanlab's ranking (its "
            "`label_quality`, lowest first), on the same noisy labels. Means over "
            "seeds, in %.",
            "",
            "| dataset | noise | "
            + " | ".join(f"first {k}: PLC / cleanlab" for k in REVIEW_KS)
            + " |",
            "|---|---|" + "---:|" * len(REVIEW_KS),
            *rows,
        ]
    return lines


def _weighed_cell(entry):
    """Relabels weighed and the final fit's weighted purity; a dash where none were."""
    count = entry.get("n_weighed", np.nan)
    if not np.isfinite(count) or count == 0:
        return "–"
    return f"{count:.0f} ({_percent_or_dash(entry['weighted_purity'])})"


def _set_aside_cell(entry):
    """Samples set aside and the share of them wrong; a dash where none were."""
    count = entry.get("n_set_aside", np.nan)
    if not np.isfinite(count) or count == 0:
        return "–"
    return f"{count:.0f} ({_percent_or_dash(entry['set_aside_precision'])})"


def _percent_or_dash(share):
    """A share as a percentage; a dash where undefined (NaN: no label changed)."""
    return "–" if np.isnan(share) else f"{100 * share:.1f}"


def _timing_lines(summary, meta):
    methods = meta["methods"]
    if "Standard" not in methods:
        return []
    lines = [
        "",
        "### Fit times",
        "",
        "Mean fit time per run (s) over all cells of the dataset, and the ratio to "
        "Standard's (same run, same machine, "
        f"{_threads_per_job(meta['jobs'])} thread(s) per job).",
        "",
        "| dataset | "
        + " | ".join(methods)
        + " | "
        + " | ".join(f"{m} / Standard" for m in methods if m != "Standard")
        + " |",
        "|---|" + "---:|" * (2 * len(methods) - 1),
    ]
    for name in meta["datasets"]:
        entries = [e for (d, _), e in summary.items() if d == name and "Standard" in e]
        if not entries:
            continue
        means = {m: np.mean([e[f"{m}_fit_s"] for e in entries]) for m in methods}
        lines.append(
            f"| {name} | "
            + " | ".join(f"{means[m]:.2f}" for m in methods)
            + " | "
            + " | ".join(
                f"{means[m] / means['Standard']:.1f}×"
                for m in methods
                if m != "Standard"
            )
            + " |"
        )
    return lines


def plot_gains(rows, meta, path):
    """Bars of each method's accuracy gain over Standard, per dataset and noise."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = summarise(rows)
    names = list(meta["datasets"])
    others = [m for m in meta["methods"] if m != "Standard"]
    fig, axes = plt.subplots(
        len(names),
        1,
        figsize=(max(6, 0.7 * len(meta["noises"]) + 3), 2.6 * len(names)),
        squeeze=False,
    )
    for ax, name in zip(axes[:, 0], names, strict=True):
        noises = [n for n in meta["noises"] if "Standard" in summary.get((name, n), {})]
        positions = np.arange(len(noises))
        width = 0.8 / max(1, len(others))
        for offset, method in enumerate(others):
            gains = [
                100
                * (
                    np.mean(summary[(name, n)][method])
                    - np.mean(summary[(name, n)]["Standard"])
                )
                for n in noises
            ]
            bars = ax.bar(
                positions + (offset - (len(others) - 1) / 2) * width,
                gains,
                width,
                label=method,
            )
            # the value on each bar: a gain of 0 (labels kept) shows as +0.0
            ax.bar_label(bars, fmt="%+.1f", fontsize=7)
        ax.axhline(0, color="black", linewidth=0.8)
        # one slot per noise cell, so that a lone cell's bars keep their width
        ax.set_xlim(-0.6, len(noises) - 0.4)
        ax.margins(y=0.2)  # room for the values above and below the bars
        ax.set_xticks(
            positions,
            [NOISE_CELLS[n].label for n in noises],
            rotation=30,
            ha="right",
            fontsize=8,
        )
        ax.set_ylabel("points vs Standard")
        ax.set_title(f"{name}: clean-test accuracy gain over Standard", fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
