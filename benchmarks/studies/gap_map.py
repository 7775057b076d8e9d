"""Where PLC still trails cleanlab, by how a run ends, and what a run's time is.

Question (issue "Ahead of cleanlab"): the targets still missed are cells ahead
of cleanlab (the unseen check, 57 of 96 with 64 needed; wine-rf on the
tables) and the corrected runs' cost on the tables (2.0 times cleanlab's).
Before another rule, this measurement reads the logged runs of the library as
it is, and asks two things.

``endings``: per run, PLC's clean-test accuracy minus cleanlab's in points,
grouped by ``termination_condition_``, two classes or more, and the model's
family (``trees``: forests, bagged trees, extra trees and boosting, which
memorise; ``smooth``: logistic regression, naive Bayes, k-NN). A group that
trails on dev *and* on the unseen check is where a rule could gain; one that
trails on one set only is the sets' own spread (the unseen check's MLP runs
aside, which end otherwise). Logs read:

- dev: ``weak_removal_dev.json`` with ``noise_mixture_confirm_dev.json``, and
  the random-label rule's refits (``random_corrected_dev.json``,
  ``random_corrected_dev_undone.json``, ``random-all`` where the memorisation
  rate reaches the rule's bar);
- unseen: ``unseen_random_corrected.json`` (the last full run);
- tables: ``tables_random_corrected.json`` (the scikit-learn datasets).

``outcomes``: the user guide's table ("PLC or cleanlab's removal?"): PLC's
and cleanlab's mean gain a run by ``termination_condition_``, on dev, the
unseen check and the second check, with the library of this version.

``knn``: 5-NN's refused runs (too weak to judge, or not memorising), where the
library keeps the labels, against a final fit without confident learning's
flags on the first round's held-out probabilities (``cl``), on dev
(``weak_removal_dev.json``: the weak 20-class set) and both checks
(``prove_removal_{unseen,fresh}.json``). k-NN is the model whose refused runs
cleanlab leads on dev and on the unseen check.

``cost``: five runs of the tables' forests and wine's logistic regression on
the dev split (split 1, seed 100; four end corrected), timed by part: the
estimator's ``fit`` and ``predict_proba`` calls, the final fit, the end of the
run (the contested ending's new folds are fits inside it), clones and the
correction passes, as multiples of one plain fit of the same estimator on the
same labels (the median of five, after one to warm up); the run's total is the
median of five fits after one to warm up, its parts their mean.

With the library of this version (the contested ending's two estimates):

``families``: PLC − cleanlab a run where a tree model corrects (converged or
at ``max_iter``) or is contested, by family, on dev, both checks and the
tables' forests; then the corrected tree runs by dataset.

``contest-bar``: dev's corrected runs by the end verdict's ``gain /
standard_error``: whether contesting runs with a small gain (a bar above 0)
could gain, read as PLC − cleanlab in each bin.

``levers``: two ways to make each fit cheaper, timed on the dev split: a fold's
refit warm-started from its previous solution, and a PLC run with
scikit-learn's parameter validation and finiteness checks skipped.

``spread``: how much the checks' count of cells ahead of cleanlab moves with
the seeds alone (each cell's runs resampled).

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/gap_map.py endings
    python benchmarks/studies/gap_map.py outcomes
    python benchmarks/studies/gap_map.py knn
    python benchmarks/studies/gap_map.py cost
    python benchmarks/studies/gap_map.py families
    python benchmarks/studies/gap_map.py contest-bar
    python benchmarks/studies/gap_map.py levers
    python benchmarks/studies/gap_map.py spread
    python benchmarks/studies/gap_map.py seeds
    python benchmarks/studies/gap_map.py undone-replay [trees]
    python benchmarks/studies/gap_map.py fold-reuse
    python benchmarks/studies/gap_map.py contest-one-sample
    python benchmarks/studies/gap_map.py no-overhead

``seeds``: the unseen check's cells ahead of cleanlab on five more seeds
(103–107: ``python -m benchmarks unseen --jobs 2 --seeds 103 104 105 106 107``,
log ``unseen_seeds_103_107.json``), alone and with the reported run's three
(``unseen_contested_first.json``); the count on every choice of three of the
eight seeds; the cells where cleanlab's lead over the eight seeds is more than
two standard errors of the paired differences.

``undone-replay``: an offline replay, no fit: every run the library ends
``"undone"`` (or, with ``trees``, only the tree families' undone runs) is
given cleanlab's logged accuracy, the best a removal on fresh folds could do
there (the contested ending's action), and the cells are counted again on
dev, the unseen check (seeds 100-102 and 103-107) and the second check.

``no-overhead``: the cost target with PLC's own code taken away. On the dev
split (split 1, seeds 100-104; Type-I and III at 35%, I+U30) each of the
tables' corrected scikit-learn datasets is timed as in ``cost``: a PLC run's
time outside the estimator's ``fit`` and ``predict_proba`` calls (validation,
clones, indexing, the correction passes, the judge), in plain fits, its median
over the corrected runs of each dataset. That is subtracted from every corrected
run of the tables' log (``tables_2026-11-27b.json``), and the median PLC /
Standard ratio is set against cleanlab's, whose own overhead stays in.

``fold-reuse``: the issue's lever "reuse fold models whose labels did not
change", measured: 27 runs of the tables' dev split (wine, wine-rf,
synthetic-5-rf; Type-I and III at 35%, I+U30; seeds 100-102), counting the
fold fits of each run whose training rows, their labels and the predicted
rows repeat an earlier fold fit of the same run (a seeded estimator would
then give the same model).

``contest-one-sample``: would McNemar's continuity correction, which keeps
the undo from firing on one sample, also keep the contest from firing on one
(contest only where the judged loss clears one sample)? A replay at the
version of ``contested_corrections.py``, no fit: its contested runs
(``contested_corrections_{dev,unseen,fresh}.json``, ``cl3``) against the same
runs with the corrections kept (``undo_recheck_*.json``), split by whether
the judged loss was one sample (``-gain * n_judged``, with ``n_judged`` the
ceiling of a fifth of the training samples).
"""

import contextlib
import functools
import itertools
import json
import sys
import time
import warnings
from collections import defaultdict

import numpy as np

from benchmarks.studies import weak_removal
from benchmarks.studies.common import RUN_KEY, STUDIES_DIR

TREE_MODELS = ("random-forest", "bagged-trees", "extra-trees", "gradient-boosting")
# the tables' datasets whose one model (``"base"``) is a random forest
TREE_DATASETS = ("wine-rf", "synthetic-5-rf")
BINARY_DATASETS = ("binary-dev", "binary-gb-dev", "breast_cancer")
# timed PLC fits a run in ``cost``, after one to warm up
REPEATS = 5
DEV_LOGS = (
    "weak_removal_dev.json",
    "noise_mixture_confirm_dev.json",
    "random_corrected_dev.json",
    "random_corrected_dev_undone.json",
)


def family(dataset, model):
    """``"trees"`` for a model that memorises, ``"smooth"`` otherwise."""
    tree = model in TREE_MODELS or (model == "base" and dataset in TREE_DATASETS)
    return "trees" if tree else "smooth"


def _group(dataset, model, termination):
    classes = "2 classes" if dataset in BINARY_DATASETS else "3+ classes"
    return termination, classes, family(dataset, model)


def dev_library_runs():
    """The dev runs as the library ends them: ``{run key: (row, accuracy)}``.

    The dev logs, a later log's row replacing an earlier one's, with the
    random-label rule's refit (``random-all``) where the memorisation rate
    reaches its bar.
    """
    from sklearn_plc._ending import RANDOM_LABELS_MIN_MEMORISATION

    by_key = {}
    for name in DEV_LOGS:
        for row in weak_removal.logged_rows(STUDIES_DIR + name):
            by_key[tuple(row[key] for key in RUN_KEY)] = row
    found = {}
    for key, row in by_key.items():
        accuracy = row["lib"]["acc"]
        rate = row.get("rate") or 0.0
        if "random-all" in row and rate >= RANDOM_LABELS_MIN_MEMORISATION:
            accuracy = row["random-all"]["acc"]
        found[key] = row, accuracy
    return found


def dev_runs_now():
    """Dev as the library of this version ends it: ``(row, accuracy, ending)``.

    :func:`dev_library_runs`, with the contested runs as ``contested_first.py``
    refitted them (``cl-avg``, shipped).
    """
    with open(STUDIES_DIR + "contested_first_dev.json") as file:
        contested = {tuple(r[k] for k in RUN_KEY): r for r in json.load(file) if r}
    for key, (row, accuracy) in dev_library_runs().items():
        ending = row["lib"]["termination"]
        if "cl-avg" in contested.get(key, {}):
            accuracy, ending = contested[key]["cl-avg"]["acc"], "corrections_contested"
        yield row, accuracy, ending


def dev_runs():
    """The dev runs as the library ends them: ``(group, PLC − cleanlab)``."""
    for row, accuracy in dev_library_runs().values():
        group = _group(row["dataset"], row["model"], row["lib"]["termination"])
        yield group, 100 * (accuracy - row["cleanlab"])


def _check_rows(log):
    """The runs of a full check run's log (``benchmarks unseen``), MLP included."""
    with open(STUDIES_DIR + log) as file:
        return json.load(file)["runs"]


def _check_runs(log):
    """A full check run's scikit-learn runs: ``(dataset, model, ending, Δ)``."""
    for run in _check_rows(log):
        if run["model"] != "mlp":
            difference = 100 * (run["plc"] - run["cleanlab"])
            yield run["dataset"], run["model"], run["termination"], difference


def _tables_runs(log):
    """A tables log's scikit-learn runs: ``(dataset, "base", ending, Δ)``."""
    with open(STUDIES_DIR + log) as file:
        runs = json.load(file)["runs"]
    for run in runs:
        if run["kind"] != "cell" or "PLC" not in run or "termination" not in run["PLC"]:
            continue
        if run["PLC"]["termination"] == "max_epochs":  # the nets
            continue
        plc, cleanlab = run["PLC"]["accuracy"], run["cleanlab"]["accuracy"]
        yield run["dataset"], "base", run["PLC"]["termination"], 100 * (plc - cleanlab)


def unseen_runs():
    """The unseen check's full run, its MLP aside: ``(group, PLC − cleanlab)``."""
    for dataset, model, ending, difference in _check_runs(
        "unseen_random_corrected.json"
    ):
        yield _group(dataset, model, ending), difference


def tables_runs():
    """The tables' scikit-learn runs: ``(group, PLC − cleanlab)``."""
    for dataset, model, ending, difference in _tables_runs(
        "tables_random_corrected.json"
    ):
        yield _group(dataset, model, ending), difference


def endings():
    """Print PLC − cleanlab a run by ending, classes and family, on each set."""
    sets = {"dev": dev_runs(), "unseen": unseen_runs(), "tables": tables_runs()}
    table = defaultdict(dict)
    for name, runs in sets.items():
        groups = defaultdict(list)
        for group, difference in runs:
            groups[group].append(difference)
        for group, differences in groups.items():
            table[group][name] = differences
    print("PLC − cleanlab a run, points (runs; mean; PLC behind in how many)")
    print(f"{'ending, classes, family':52s}" + "".join(f"{s:>26s}" for s in sets))
    for group in sorted(table):
        cells = []
        for name in sets:
            values = table[group].get(name)
            if values is None:
                cells.append(f"{'–':>26s}")
                continue
            behind = sum(v < 0 for v in values)
            mean = np.mean(values)
            cells.append(f"{len(values):>5d} {mean:+7.2f} {behind:>4d} behind")
        print(f"{', '.join(group):52s}" + "".join(f"{c:>26s}" for c in cells))


OUTCOMES = (
    "converged",
    "corrections_contested",
    "undone",
    "not_memorising",
    "too_weak_to_judge",
)


def outcomes():
    """The user guide's table: PLC / cleanlab mean gain a run, by ending.

    The library of this version on each set: dev as :func:`dev_runs_now`
    composes it; the checks' full runs
    ``unseen_contested_first.json`` and ``fresh_contested_first.json`` (their
    MLP runs apart, most of which end ``"max_epochs"``: the row ``MLP``).
    """
    gains = defaultdict(lambda: defaultdict(list))
    for row, accuracy, ending in dev_runs_now():
        gains[ending]["dev"].append(
            (accuracy - row["std"], row["cleanlab"] - row["std"])
        )
    for name, log in (
        ("unseen", "unseen_contested_first.json"),
        ("second check", "fresh_contested_first.json"),
    ):
        for run in _check_rows(log):
            ending = "MLP" if run["model"] == "mlp" else run["termination"]
            gains[ending][name].append(
                (run["plc"] - run["standard"], run["cleanlab"] - run["standard"])
            )
    sets = ("dev", "unseen", "second check")
    print("runs: PLC / cleanlab, mean gain over Standard in points")
    for ending in (*OUTCOMES, "MLP"):
        cells = []
        for name in sets:
            pairs = np.array(gains[ending][name]) * 100
            cells.append(
                f"{len(pairs)}: {pairs[:, 0].mean():+.2f} / {pairs[:, 1].mean():+.2f}"
                if len(pairs)
                else "–"
            )
        print(f"{ending:22s} " + " | ".join(cells))


def knn():
    """5-NN's refused runs: the labels kept (the library) against ``cl``."""
    sources = {
        "dev": ("weak_removal_dev.json", "lib"),
        "unseen": ("prove_removal_unseen.json", "default"),
        "second check": ("prove_removal_fresh.json", "default"),
    }
    for name, (log, library) in sources.items():
        with open(STUDIES_DIR + log) as file:
            rows = [row for row in json.load(file) if row and row["model"] == "5-nn"]
        rows = [row for row in rows if "cl" in row and "acc" in row["cl"]]
        kept = np.array([row[library]["acc"] for row in rows])
        removed = np.array([row["cl"]["acc"] for row in rows])
        cleanlab = np.array([row["cleanlab"] for row in rows])
        better, worse = (removed > kept).sum(), (removed < kept).sum()
        print(
            f"{name}: {len(rows)} refused 5-NN runs; cl − kept "
            f"{100 * np.mean(removed - kept):+.2f} a run (better in {better}, "
            f"worse in {worse}); cleanlab − kept {100 * np.mean(cleanlab - kept):+.2f}"
        )


def _timed(counts, seconds, key, method):
    @functools.wraps(method)
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            seconds[key] += time.perf_counter() - start
            counts[key] += 1

    return timed


@contextlib.contextmanager
def _timed_parts(parts, counts, seconds):
    """Within the block, each ``(owner, name): key`` of `parts` is timed under `key`.

    Every call adds one to ``counts[key]`` and its seconds to ``seconds[key]``.
    """
    from benchmarks.studies.common import patched

    with contextlib.ExitStack() as timers:
        for (owner, name), key in parts.items():
            timed = _timed(counts, seconds, key, getattr(owner, name))
            timers.enter_context(patched(owner, **{name: timed}))
        yield


def cost():
    """Time one PLC run per scikit-learn dataset of the tables by part."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline

    import sklearn_plc._corrector as corrector_module
    import sklearn_plc._out_of_fold as out_of_fold
    import sklearn_plc._refit_run as refit_run
    from benchmarks import tables
    from benchmarks.studies.common import noisy_cell
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    counts, seconds = defaultdict(int), defaultdict(float)
    parts = {
        (Pipeline, "fit"): "estimator fit",
        (RandomForestClassifier, "fit"): "estimator fit",
        (Pipeline, "predict_proba"): "estimator predict_proba",
        (RandomForestClassifier, "predict_proba"): "estimator predict_proba",
        (out_of_fold, "clone"): "clone",
        (refit_run, "fit_final_model"): "final fit (within estimator fit)",
        (refit_run, "end_run"): "end of run (contested: new folds)",
        (corrector_module.LabelCorrector, "run_round"): "correction passes",
    }
    cases = (
        ("wine", "II-35"),
        ("wine", "I+U30"),
        ("wine-rf", "I-35"),
        ("wine-rf", "II-35"),
        ("synthetic-5-rf", "I+U30"),
    )
    for dataset, noise in cases:
        X_train, _, _, _, y_noisy, make_model = noisy_cell(dataset, "base", noise, 100)
        make_model().fit(X_train, y_noisy)  # warm up (imports, caches)
        plain = []
        for _ in range(5):
            tables._seed_everything(tables.DATASETS[dataset], 100, 1)
            start = time.perf_counter()
            make_model().fit(X_train, y_noisy)
            plain.append(time.perf_counter() - start)
        PLCClassifier(make_model(), random_state=100).fit(X_train, y_noisy)  # warm
        counts.clear()
        seconds.clear()
        totals = []
        with _timed_parts(parts, counts, seconds):
            for _ in range(REPEATS):
                start = time.perf_counter()
                plc = PLCClassifier(make_model(), random_state=100)
                plc.fit(X_train, y_noisy)
                totals.append(time.perf_counter() - start)
        unit = float(np.median(plain))
        total = float(np.sum(totals))
        print(
            f"\n{dataset} {noise} seed 100: {plc.termination_condition_}, "
            f"{np.median(totals) / unit:.1f}x a plain fit ({1000 * unit:.0f} ms)"
        )
        for key in dict.fromkeys(parts.values()):
            if counts[key]:
                calls, share = counts[key] // REPEATS, seconds[key] / REPEATS / unit
                print(f"  {key:36s} {calls:3d} calls {share:6.2f}x")
        accounted = seconds["estimator fit"] + seconds["estimator predict_proba"]
        rest = (total - accounted) / REPEATS / unit
        print(f"  {'the rest':36s}           {rest:6.2f}x")


CORRECTED = ("converged", "max_iter")


def families():
    """PLC − cleanlab a run where a tree model corrects, by family and by dataset.

    The corrected runs (``converged``, ``max_iter``) and the contested ones of
    each tree family, on dev, the unseen check, the second check and the
    tables' forests, all with the library of this version; then the
    corrected runs by dataset.
    """
    sets = {
        "dev": [  # the tables' dev forests as random forests
            (
                row["dataset"],
                "random-forest" if row["dataset"] in TREE_DATASETS else row["model"],
                ending,
                100 * (accuracy - row["cleanlab"]),
            )
            for row, accuracy, ending in dev_runs_now()
        ],
        "unseen": list(_check_runs("unseen_contested_first.json")),
        "second check": list(_check_runs("fresh_contested_first.json")),
        "tables": [  # its forests, the last run of the scikit-learn datasets
            (dataset, "random-forest", ending, d)
            for dataset, _, ending, d in _tables_runs(
                "tables_sklearn_contested_first.json"
            )
            if dataset in TREE_DATASETS
        ],
    }

    def cell(values):
        if not values:
            return f"{'–':>22s}"
        behind = sum(v < 0 for v in values)
        return f"{len(values):>4d} {np.mean(values):+6.2f} ({behind:>2d} behind)"

    print("PLC − cleanlab a run, points: runs, mean (runs behind)")
    print(f"{'family, ending':36s}" + "".join(f"{name:>23s}" for name in sets))
    for model in TREE_MODELS:
        for label, endings in (("corrected", CORRECTED), ("contested", CONTESTED)):
            cells = [
                cell([d for _, m, e, d in runs if m == model and e in endings])
                for runs in sets.values()
            ]
            print(f"{model + ', ' + label:36s}" + "".join(f"{c:>23s}" for c in cells))
    print("\ncorrected tree runs by dataset")
    for name, runs in sets.items():
        by_dataset = defaultdict(list)
        for dataset, model, ending, difference in runs:
            if family(dataset, model) == "trees" and ending in CORRECTED:
                by_dataset[dataset].append(difference)
        print(
            f"  {name}: "
            + "; ".join(f"{d} {cell(v).strip()}" for d, v in sorted(by_dataset.items()))
        )


CONTESTED = ("corrections_contested",)
# the judge's paired z (gain over its standard error) bins of ``contest_bar``
Z_BINS = ((0.0, 0.5), (0.5, 1.0), (1.0, 2.0), (2.0, np.inf))


def contest_bar():
    """Dev's corrected runs by the end verdict's z: would a higher bar contest?

    A run whose judged corrections gain less than zero is contested (removal
    on new folds, averaged with the first round's). Where the gain is not
    negative but small, the corrections are kept; if PLC trailed cleanlab in
    those runs, contesting them too (a higher bar) could gain. Prints, per bin
    of ``gain / standard_error``, PLC − cleanlab and PLC − Standard a run.
    """
    bins = defaultdict(list)
    for row, accuracy in dev_library_runs().values():
        verdict = row["lib"]
        gain, error = verdict.get("gain"), verdict.get("gain_se")
        if verdict["termination"] not in CORRECTED or gain is None:
            continue
        z = 0.0 if gain == 0 else gain / error if error else np.inf
        name = (
            "gain 0"
            if gain == 0
            else next(
                f"z {low:g} to {high:g}" for low, high in Z_BINS if low <= z < high
            )
        )
        bins[name].append((accuracy - row["cleanlab"], accuracy - row["std"]))
    print("dev corrected runs by the end verdict's z: runs, PLC − cleanlab, − Standard")
    names = ["gain 0", *(f"z {low:g} to {high:g}" for low, high in Z_BINS)]
    for name in names:
        pairs = 100 * np.array(bins[name])
        print(
            f"  {name:12s} {len(pairs):>4d} {pairs[:, 0].mean():+6.2f} "
            f"{pairs[:, 1].mean():+6.2f}"
        )


def spread(draws=2000):
    """How much the checks' count of cells ahead of cleanlab moves with the seeds.

    Each cell's three runs are resampled with replacement (``draws`` times,
    fixed seed) and the cells with PLC's mean at or above cleanlab's counted:
    the count's spread from the seeds alone, with the data, noise and models
    fixed.
    """
    rng = np.random.RandomState(0)
    for name, log in (
        ("unseen", "unseen_contested_first.json"),
        ("second check", "fresh_contested_first.json"),
    ):
        differences = [
            100 * np.array([r["plc"] - r["cleanlab"] for r in cell])
            for cell in _cells_of(_check_rows(log)).values()
        ]
        counts = np.array(
            [
                sum(
                    d[rng.randint(0, d.shape[0], d.shape[0])].mean() >= 0
                    for d in differences
                )
                for _ in range(draws)
            ]
        )
        logged = sum(d.mean() >= 0 for d in differences)
        close = sum(abs(d.mean()) < 0.5 for d in differences)
        print(
            f"{name}: {logged} of {len(differences)} cells ahead; resampled "
            f"{counts.mean():.1f} ± {counts.std():.1f} (5–95%: "
            f"{np.percentile(counts, 5):.0f} to {np.percentile(counts, 95):.0f}); "
            f"at least 64 in {np.mean(counts >= 64):.0%}; {close} cells within half "
            f"a point of cleanlab"
        )


def _cells_of(runs):
    """``{(dataset, model, noise): [run, ...]}``."""
    cells = defaultdict(list)
    for run in runs:
        cells[(run["dataset"], run["model"], run["noise"])].append(run)
    return cells


def _ahead_count(runs):
    """The cells whose PLC mean is at or above cleanlab's."""
    return sum(
        np.mean([r["plc"] - r["cleanlab"] for r in cell]) >= 0
        for cell in _cells_of(runs).values()
    )


def _cell_figures(runs):
    """Mean gain over Standard a cell, cells within 0.5, cells ahead of cleanlab."""
    cells = _cells_of(runs).values()
    gains = [np.mean([r["plc"] - r["standard"] for r in c]) for c in cells]
    return 100 * np.mean(gains), sum(g >= -0.005 for g in gains), _ahead_count(runs)


def seeds():
    """Print the unseen check's cells ahead of cleanlab on more seeds."""
    reported = _check_rows("unseen_contested_first.json")
    more = _check_rows("unseen_seeds_103_107.json")
    for name, runs in (
        ("seeds 100-102 (the reported run)", reported),
        ("seeds 103-107", more),
        ("seeds 100-107", reported + more),
    ):
        cells = _cells_of(runs).values()
        mean, within, ahead = _cell_figures(runs)
        clean = [np.mean([r["cleanlab"] - r["standard"] for r in c]) for c in cells]
        print(
            f"{name}: ahead of cleanlab in {ahead} of {len(cells)} "
            f"cells; within 0.5 of Standard {within}; "
            f"mean gain {mean:+.2f} "
            f"(cleanlab {100 * np.mean(clean):+.2f})"
        )
    runs = reported + more
    seeds_run = sorted({r["seed"] for r in runs})
    counts = np.array(
        [
            _ahead_count([r for r in runs if r["seed"] in trio])
            for trio in itertools.combinations(seeds_run, 3)
        ]
    )
    print(
        f"three of the {len(seeds_run)} seeds ({counts.shape[0]} choices): ahead "
        f"{counts.mean():.1f} ± {counts.std():.1f} (from {counts.min()} to "
        f"{counts.max()}); at least 64 in {np.mean(counts >= 64):.0%}"
    )
    behind = []
    for key, cell in _cells_of(runs).items():
        d = 100 * np.array([r["plc"] - r["cleanlab"] for r in cell])
        error = d.std(ddof=1) / np.sqrt(d.shape[0])
        if d.mean() + 2 * error < 0:
            behind.append((d.mean(), error, key))
    print(f"cleanlab clearly ahead over the eight seeds in {len(behind)} cells:")
    for mean, error, (dataset, model, noise) in sorted(behind):
        print(f"  {dataset} {model} {noise}: {mean:+.2f} ± {error:.2f}")


def _median_seconds(fit, repeats):
    """The median seconds of `repeats` calls of `fit` after one, and its result."""
    fit()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fitted = fit()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), fitted


def _fold_refit(model, X, y, warm):
    """Refit `model` (fitted) on `y`, from its solution or cold; the fitted copy."""
    import copy

    from sklearn.base import clone

    if not warm:
        return clone(model).fit(X, y)
    model = copy.deepcopy(model)
    model.set_params(logisticregression__warm_start=True)
    return model.fit(X, y)


def _plc_run(make_model, X, y, checks):
    """One PLC fit with scikit-learn's configuration `checks`."""
    import sklearn

    from sklearn_plc import PLCClassifier

    with sklearn.config_context(**checks):
        return PLCClassifier(make_model(), random_state=101).fit(X, y)


def levers():
    """Two ways to make a fit cheaper, measured where the tables' cost is (wine).

    Warm starts: one fold model (two thirds of the training split) fitted on
    the noisy labels, then refitted after an eighth of the labels change
    (set to the clean ones), cold or from the previous solution (a deep copy
    with ``warm_start=True``); lbfgs iterations and time. Validation: a whole
    PLC run with scikit-learn's parameter validation and finiteness checks
    skipped (``skip_parameter_validation``, ``assume_finite``), against the
    default. Dev split, seed 101, Type-I 35%, one BLAS thread, the median of
    repeated fits.
    """
    from threadpoolctl import threadpool_limits

    from benchmarks.studies.common import noisy_cell

    warnings.simplefilter("ignore")
    skipped = {"skip_parameter_validation": True, "assume_finite": True}
    for dataset in ("wine", "synthetic-5", "wine-rf"):
        X, _, y_clean, _, y_noisy, make_model = noisy_cell(dataset, "base", "I-35", 101)
        with threadpool_limits(1):
            if dataset != "wine-rf":  # a forest's warm start adds trees
                rng = np.random.RandomState(0)
                fold = rng.permutation(y_noisy.shape[0])[: 2 * y_noisy.shape[0] // 3]
                changed = rng.choice(fold, y_noisy.shape[0] // 8, replace=False)
                y_moved = y_noisy.copy()
                y_moved[changed] = y_clean[changed]
                first = make_model().fit(X[fold], y_noisy[fold])
                for warm in (False, True):
                    spent, model = _median_seconds(
                        functools.partial(
                            _fold_refit, first, X[fold], y_moved[fold], warm
                        ),
                        30,
                    )
                    print(
                        f"{dataset} fold refit, {'warm' if warm else 'cold'}: "
                        f"{1000 * spent:.2f} ms, lbfgs iterations "
                        f"{int(model[-1].n_iter_[0])}"
                    )
            for checks in ({}, skipped):
                spent, _ = _median_seconds(
                    functools.partial(_plc_run, make_model, X, y_noisy, checks), 5
                )
                print(
                    f"{dataset} PLC run, {'checks skipped' if checks else 'default'}: "
                    f"{1000 * spent:.1f} ms"
                )


def _replayed(runs, trees_only):
    """`runs` with each undone run's PLC accuracy replaced by cleanlab's."""
    replayed, changed = [], []
    for run in runs:
        tree = family(run["dataset"], run["model"]) == "trees"
        if run["termination"] == "undone" and (tree or not trees_only):
            changed.append(run["cleanlab"] - run["plc"])
            run = {**run, "plc": run["cleanlab"]}
        replayed.append(run)
    return replayed, changed


def undone_replay(trees_only=False):
    """Print each set's cells with the undone runs given cleanlab's accuracy."""
    dev = [
        {
            "dataset": row["dataset"],
            "model": row["model"],
            "noise": row["noise"],
            "plc": accuracy,
            "cleanlab": row["cleanlab"],
            "standard": row["std"],
            "termination": ending,
        }
        for row, accuracy, ending in dev_runs_now()
    ]
    sets = {
        "dev": dev,
        "unseen 100-102": _check_rows("unseen_contested_first.json"),
        "unseen 103-107": _check_rows("unseen_seeds_103_107.json"),
        "second check": _check_rows("fresh_contested_first.json"),
    }
    scope = "tree runs" if trees_only else "runs"
    print(f"undone {scope} given cleanlab's accuracy (the MLP's runs aside)")
    print("set: cells, mean gain, within 0.5, ahead of cleanlab: now -> replayed")
    for name, runs in sets.items():
        runs = [r for r in runs if r["model"] != "mlp"]
        replayed, changed = _replayed(runs, trees_only)
        (mean, within, ahead), (mean_r, within_r, ahead_r) = (
            _cell_figures(runs),
            _cell_figures(replayed),
        )
        print(
            f"  {name:15s} {len(_cells_of(runs))} cells: {mean:+.2f} -> {mean_r:+.2f}, "
            f"{within} -> {within_r}, {ahead} -> {ahead_r}; {len(changed)} runs "
            f"replaced, cleanlab - PLC {100 * np.mean(changed):+.2f} a run"
        )


def fold_reuse():
    """Count the fold fits a run repeats on the same rows and labels."""
    import hashlib

    import sklearn_plc._out_of_fold as out_of_fold
    from benchmarks.studies.common import noisy_cell, patched
    from sklearn_plc import PLCClassifier

    warnings.simplefilter("ignore")
    fold_proba = out_of_fold._fold_proba
    seen, repeats = set(), [0]

    def recorded(estimator, X, labels, train, predicted, classes, params, fit=None):
        key = (
            *(
                hashlib.sha1(np.ascontiguousarray(part).tobytes()).hexdigest()
                for part in (train, labels[train], predicted)
            ),
            fit is None,
        )
        repeats[0] += key in seen
        seen.add(key)
        return fold_proba(estimator, X, labels, train, predicted, classes, params, fit)

    fits = runs = 0
    with patched(out_of_fold, _fold_proba=recorded):
        for dataset in ("wine", "wine-rf", "synthetic-5-rf"):
            for noise in ("I-35", "III-35", "I+U30"):
                for seed in (100, 101, 102):
                    X, _, _, _, y_noisy, make_model = noisy_cell(
                        dataset, "base", noise, seed
                    )
                    seen.clear()
                    PLCClassifier(make_model(), random_state=seed).fit(X, y_noisy)
                    fits += len(seen)
                    runs += 1
    print(
        f"{runs} runs, {fits} distinct fold fits, {repeats[0]} fold fits that "
        f"repeat an earlier one's rows and labels"
    )


def contest_one_sample():
    """Contested runs against the corrections kept, by the size of the judged loss."""
    import math

    from benchmarks.studies.common import load_rows, noisy_cell, unseen_cell

    warnings.simplefilter("ignore")
    n_train = {}
    for name in ("dev", "unseen", "fresh"):
        kept = {
            tuple(r[k] for k in RUN_KEY): r
            for r in load_rows(f"{STUDIES_DIR}undo_recheck_{name}.json")
        }
        by_loss = defaultdict(list)
        for row in load_rows(f"{STUDIES_DIR}contested_corrections_{name}.json"):
            key = tuple(row[k] for k in RUN_KEY)
            if key[0] not in n_train:
                make_cell = noisy_cell if name == "dev" else unseen_cell
                n_train[key[0]] = make_cell(*key)[4].shape[0]
            before = kept[key]
            judged = math.ceil(0.2 * n_train[key[0]])
            loss = -before["default"]["gain"] * judged
            by_loss["one sample" if loss < 1.5 else "more"].append(
                (
                    100 * (row["cl3"]["acc"] - before["default"]["acc"]),
                    100 * (before["cleanlab"] - before["default"]["acc"]),
                )
            )
        for label in ("one sample", "more"):
            runs = np.array(by_loss[label])
            print(
                f"{name:7s} judged loss of {label:10s}: {len(runs):3d} runs, contested "
                f"- kept {runs[:, 0].mean():+.2f} a run ({(runs[:, 0] > 0).sum()} "
                f"better, {(runs[:, 0] < 0).sum()} worse); cleanlab - kept "
                f"{runs[:, 1].mean():+.2f}"
            )


# the tables' log that ``no-overhead`` reads, and the datasets whose runs correct
TABLES_LOG = "tables_2026-11-27b.json"
CORRECTING_DATASETS = ("wine", "wine-rf", "synthetic-5-rf")


def _fresh_fit(make_model, X, y):
    return make_model().fit(X, y)


def _overhead_runs(dataset, seeds=range(100, 105), noises=("I-35", "III-35", "I+U30")):
    """PLC's time outside the estimator, in plain fits, over a dataset's dev runs.

    Yields ``(termination, total, outside)`` per run: the run's time and the part
    of it spent outside the estimator's ``fit`` and ``predict_proba`` (the
    median of three runs, after one to warm up), both over the median of three
    plain fits of the same estimator on the same labels.
    """
    from benchmarks.studies.common import noisy_cell
    from sklearn_plc import PLCClassifier

    for noise, seed in itertools.product(noises, seeds):
        X_train, _, _, _, y_noisy, make_model = noisy_cell(dataset, "base", noise, seed)
        owner = type(make_model())
        plain_fit = functools.partial(_fresh_fit, make_model, X_train, y_noisy)
        plain, _ = _median_seconds(plain_fit, 3)
        counts, seconds = defaultdict(int), defaultdict(float)
        totals, outside = [], []
        parts = {(owner, "fit"): "estimator", (owner, "predict_proba"): "estimator"}
        with _timed_parts(parts, counts, seconds):
            for repeat in range(4):
                seconds.clear()
                plc = PLCClassifier(make_model(), random_state=seed)
                start = time.perf_counter()
                plc.fit(X_train, y_noisy)
                total = time.perf_counter() - start
                if repeat:  # the first warms up
                    totals.append(total)
                    outside.append(total - seconds["estimator"])
        yield (
            plc.termination_condition_,
            float(np.median(totals)) / plain,
            float(np.median(outside)) / plain,
        )


def no_overhead():
    """The tables' corrected-run cost if PLC's own code took no time."""
    from benchmarks.tables import corrected_cost, corrected_runs
    from benchmarks.unseen import KEPT

    warnings.simplefilter("ignore")
    outside = {}
    for dataset in CORRECTING_DATASETS:
        runs = [run for run in _overhead_runs(dataset) if run[0] not in KEPT]
        outside[dataset] = float(np.median([run[2] for run in runs]))
        print(
            f"{dataset}: {len(runs)} corrected dev runs, median "
            f"{np.median([run[1] for run in runs]):.1f} plain fits, of which "
            f"{outside[dataset]:.2f} outside the estimator"
        )
    with open(STUDIES_DIR + TABLES_LOG) as handle:
        rows = json.load(handle)["runs"]
    as_logged = corrected_cost(rows)
    corrected = corrected_runs(rows)
    unknown = {row["dataset"] for row in corrected} - set(outside)
    if unknown:
        raise SystemExit(f"no dev timing for the corrected runs of {sorted(unknown)}")
    plc = np.median(
        [
            row["PLC"]["fit_s"] / row["Standard"]["fit_s"] - outside[row["dataset"]]
            for row in corrected
        ]
    )
    print(
        f"tables ({TABLES_LOG}), {as_logged['runs']} corrected runs: PLC "
        f"{as_logged['plc']:.1f}x against cleanlab's {as_logged['cleanlab']:.1f}x "
        f"({as_logged['plc'] / as_logged['cleanlab']:.2f} times) as logged; "
        f"{plc:.1f}x ({plc / as_logged['cleanlab']:.2f} times) with PLC's own "
        f"time taken out"
    )


if __name__ == "__main__":
    commands = {
        "endings": endings,
        "outcomes": outcomes,
        "knn": knn,
        "cost": cost,
        "families": families,
        "contest-bar": contest_bar,
        "levers": levers,
        "spread": spread,
        "seeds": seeds,
        "undone-replay": undone_replay,
        "fold-reuse": fold_reuse,
        "contest-one-sample": contest_one_sample,
        "no-overhead": no_overhead,
    }
    if sys.argv[1:] == ["undone-replay", "trees"]:
        undone_replay(trees_only=True)
    elif len(sys.argv) != 2 or sys.argv[1] not in commands:
        raise SystemExit(__doc__)
    else:
        commands[sys.argv[1]]()
