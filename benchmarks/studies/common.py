"""What the studies share: the dev cells, their noisy data, and the JSON logs.

Every cell is on the development protocol: the tables' dev split (1) or the hard
dev sets split by the seed, and dev seeds (100 and up); nothing here reads the
reported split 0.
"""

import json
import sys
import time
from contextlib import contextmanager

import numpy as np

HARD_MODELS = (
    "random-forest",
    "bagged-trees",
    "gradient-boosting",
    "5-nn",
    "extra-trees",
)


# make_classification settings of the hard dev sets, split by the seed
HARD_SETS = {
    "hard-dev": dict(
        n_samples=2000, n_features=20, n_informative=8, n_classes=3, random_state=11
    ),
    "hard4-dev": dict(
        n_samples=2500, n_features=30, n_informative=12, n_classes=4, random_state=13
    ),
    # two classes, a non-linear boundary (three clusters a class), a few thousand
    # samples: gradient boosting about 88% clean, a linear model about 63%
    "binary-gb-dev": dict(
        n_samples=3000,
        n_features=10,
        n_informative=6,
        n_redundant=2,
        n_classes=2,
        n_clusters_per_class=3,
        random_state=21,
    ),
    # two classes, two clusters a class, 2,000 samples: a second binary dev set
    # for the rules that apply in two classes only
    "binary-dev": dict(
        n_samples=2000, n_features=20, n_informative=8, n_classes=2, random_state=31
    ),
    # 20 classes, 2,100 training samples: logistic regression about 62% clean
    "weak20-dev": dict(
        n_samples=3000,
        n_features=40,
        n_informative=20,
        n_redundant=5,
        n_classes=20,
        n_clusters_per_class=1,
        class_sep=1.4,
        random_state=23,
    ),
}


def load_hard(dataset, seed):
    """A hard dev set (:data:`HARD_SETS`), split by `seed`."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    X, y = make_classification(**{"n_clusters_per_class": 2, **HARD_SETS[dataset]})
    return train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)


def noisy_cell(dataset, model, noise, seed, split=1):
    """One dev cell: ``(X_train, X_test, y_train, y_test, y_noisy, make_model)``.

    `split` selects the tables' train/test split (a dev split: 1 or more; the
    hard sets split by `seed`). None where the tables' noise cannot be drawn
    for this dataset.
    """
    if dataset in HARD_SETS:
        from benchmarks.unseen import _model, _noise

        Xtr, Xte, ytr, yte = load_hard(dataset, seed)
        _, yn = _noise(noise, seed).fit_resample(Xtr, ytr)
        return Xtr, Xte, ytr, yte, yn, lambda: _model(model)
    from benchmarks import tables as T

    _, post, _ = T._posterior(dataset, 1, split)
    Xtr, Xte, ytr, yte = T._data(dataset, split)
    try:
        yn, _, _ = T.NOISE_CELLS[noise].corrupt(ytr, post, seed)
    except ValueError:
        return None
    return Xtr, Xte, ytr, yte, yn, T.DATASETS[dataset].base_model


def unseen_cell(dataset, model, noise, seed):
    """A cell of the unseen checks (``benchmarks.unseen``), split by `seed`.

    ``(X_train, X_test, y_train, y_test, y_noisy, make_model)`` as
    :func:`noisy_cell`; None where the dataset's posterior cannot reach the
    PMD level.
    """
    from sklearn.model_selection import train_test_split

    from benchmarks.unseen import _load, _model, _noise

    X, y = _load(dataset)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    try:
        _, y_noisy = _noise(noise, seed).fit_resample(X_train, y_train)
    except ValueError:  # a PMD level the dataset's posterior cannot reach
        return None
    return X_train, X_test, y_train, y_test, y_noisy, lambda: _model(model)


def cells(what):
    """The dev cells (dataset, model, noise, seed) of ``hard``, ``lr`` or ``tables``."""
    from benchmarks.tables import MEMORISING_NOISES, NOISE_CELLS

    seeds = (100, 101, 102)
    if what == "hard":
        return [
            ("hard-dev", m, n, s)
            for m in HARD_MODELS
            for n in ("I-35", "III-35", "U30")
            for s in seeds
        ]
    if what == "lr":
        jobs = [
            (d, "base", n, s)
            for d in ("blobs-2d", "synthetic-5")
            for n in NOISE_CELLS
            for s in seeds
        ]
        return jobs + [
            ("weak-lr", "base", n, s) for n in MEMORISING_NOISES for s in seeds
        ]
    jobs = [
        (d, "base", n, s)
        for d in ("wine-rf", "synthetic-5-rf")
        for n in MEMORISING_NOISES
        for s in seeds
    ]
    return jobs + [("wine", "base", n, s) for n in NOISE_CELLS for s in seeds]


def with_standard(dataset, model, noise, seed, make_cell=noisy_cell):
    """A dev cell and its log row with Standard's accuracy (``std``) and fit time.

    ``(cell, row)``, with `cell` as `make_cell` returns it; None where the
    noise cannot be drawn.
    """
    cell = make_cell(dataset, model, noise, seed)
    if cell is None:
        return None
    X_train, X_test, _, y_test, y_noisy, make = cell
    start = time.perf_counter()
    standard = make().fit(X_train, y_noisy)
    row = dict(
        dataset=dataset,
        model=model,
        noise=noise,
        seed=seed,
        standard_s=time.perf_counter() - start,
        std=float(np.mean(standard.predict(X_test) == y_test)),
    )
    return cell, row


def with_standard_and_cleanlab(dataset, model, noise, seed, check):
    """A dev cell (or, with `check`, an unseen-check cell), Standard and cleanlab.

    ``(cell, row, score)``: the cell as :func:`noisy_cell` gives it, its log row
    with Standard's and cleanlab's accuracy and fit time (``cleanlab``,
    ``cleanlab_s``), and ``score(model)``, a fitted model's clean-test accuracy;
    None where the noise cannot be drawn.
    """
    from benchmarks.tables import clean_learning

    drawn = with_standard(
        dataset, model, noise, seed, make_cell=unseen_cell if check else noisy_cell
    )
    if drawn is None:
        return None
    cell, row = drawn
    X_train, X_test, _, y_test, y_noisy, make = cell

    def score(fitted):
        return float(np.mean(fitted.predict(X_test) == y_test))

    start = time.perf_counter()
    cleaner = clean_learning(make(), seed).fit(X_train, y_noisy)
    row["cleanlab_s"] = time.perf_counter() - start
    row["cleanlab"] = score(cleaner)
    return cell, row, score


def drawn_with_purity(dataset, model, noise, seed, check):
    """A study job's start: :func:`with_standard_and_cleanlab`, warnings off.

    ``((X_train, y_train, y_noisy, make), row, score)``, with `y_noisy` as an
    array and the row's ``purity_before`` (the share of given labels that are
    right); None where the noise cannot be drawn.
    """
    import warnings

    warnings.simplefilter("ignore")
    drawn = with_standard_and_cleanlab(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, _, y_train, _, y_noisy, make), row, score = drawn
    y_noisy = np.asarray(y_noisy)
    row["purity_before"] = float(np.mean(y_noisy == y_train))
    return (X_train, y_train, y_noisy, make), row, score


# Where the study logs are, from the repository root, and the fields that name
# one run in them
STUDIES_DIR = "benchmarks/studies/"
RUN_KEY = ("dataset", "model", "noise", "seed")

# The models that memorise their labels, in the dev cells ("base": the
# tables' own models, a forest on wine-rf and synthetic-5-rf)
MEMORISING_MODELS = (*HARD_MODELS, "base")


def memorising_cell(dataset, model, noise, seed, check):
    """:func:`with_standard_and_cleanlab` for a dev cell of a memorising model.

    On the checks every model is drawn; on dev, None for the others (and
    where the noise cannot be drawn).
    """
    if not check and model not in MEMORISING_MODELS:
        return None
    return with_standard_and_cleanlab(dataset, model, noise, seed, check)


def tables_plc_cell(dataset, noise, seed):
    """One run of the tables (the reported split), Standard and PLC: its row."""
    from benchmarks import tables

    _, posterior, _ = tables._posterior(dataset, 1)
    return tables.run_cell(dataset, noise, seed, posterior, methods=("Standard", "PLC"))


def fit_and_score(model, X_train, y_fit, X_test, y_test):
    """Fit `model`; return ``(fit seconds, clean-test accuracy)``."""
    start = time.perf_counter()
    model.fit(X_train, y_fit)
    seconds = time.perf_counter() - start
    return seconds, float(np.mean(model.predict(X_test) == y_test))


def estimated_label_errors(proba, labels):
    """How many of `labels` look wrong to held-out `proba` (confident learning).

    Class ``j``'s threshold is the mean probability of ``j`` over the samples
    labelled ``j``; a sample is confidently of the most likely class whose
    probability reaches its threshold. The (label, confident class) counts are
    scaled so that each label's row sums to that label's count; the estimate is
    the off-diagonal total (Northcutt, Jiang and Chuang, 2021).
    """
    proba = np.asarray(proba, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.intp)
    n_classes = proba.shape[1]
    given = np.bincount(labels, minlength=n_classes)
    own = np.bincount(
        labels, weights=proba[np.arange(labels.shape[0]), labels], minlength=n_classes
    )
    thresholds = np.divide(own, given, out=np.full(n_classes, np.inf), where=given > 0)
    above = proba >= thresholds
    confident = above.any(axis=1)
    assigned = np.where(above, proba, -np.inf).argmax(axis=1)
    joint = np.zeros((n_classes, n_classes))
    np.add.at(joint, (labels[confident], assigned[confident]), 1.0)
    counted = joint.sum(axis=1, keepdims=True)
    scale = np.divide(
        given[:, None], counted, out=np.zeros_like(counted), where=counted > 0
    )
    calibrated = joint * scale
    return round(float(calibrated.sum() - np.trace(calibrated)))


@contextmanager
def patched(target, **attributes):
    """Set `attributes` on `target` (a module or class) for the block; then restore.

    For the studies that replace a name of the library inside their own worker
    processes; the library's files are never changed.
    """
    before = {name: getattr(target, name) for name in attributes}
    for name, value in attributes.items():
        setattr(target, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(target, name, value)


@contextmanager
def recording_run_end():
    """Record a refit run for the block: its run, corrector, probabilities, verdict.

    Wraps ``sklearn_plc._refit_run.end_run`` (the run's verdict), so that a
    study can read the run's settings, its corrector (labels, the
    probabilities of its window) and the verdict (``ended``: ``end_run``'s
    ``(stopped, selection, set_aside)``) after the fit, and the corrector's
    ``add_proba``, to keep the first round's probabilities (``first_proba``,
    which a window of ``window`` rounds drops after that many refits). The run
    itself is unchanged. One fit per block.
    """
    import sklearn_plc._refit_run as refit_run
    from sklearn_plc._corrector import LabelCorrector

    seen = {}
    end_run = refit_run.end_run
    add_proba = LabelCorrector.add_proba

    def recording_end_run(run, stopped, *, corrector, **kwargs):
        seen.update(run=run, corrector=corrector)
        seen["ended"] = end_run(run, stopped, corrector=corrector, **kwargs)
        return seen["ended"]

    def recording_add_proba(corrector, proba, *args, **kwargs):
        added = add_proba(corrector, proba, *args, **kwargs)
        # as the corrector keeps them (float32), never changed in place
        seen.setdefault("first_proba", corrector.recorded[-1])
        return added

    with (
        patched(refit_run, end_run=recording_end_run),
        patched(LabelCorrector, add_proba=recording_add_proba),
    ):
        yield seen


def recorded_library_run(dataset, model, noise, seed, check):
    """A study job's start with the library's run on it, recorded.

    ``((X_train, y_train, y_noisy, make), row, score, seen)``: as
    :func:`drawn_with_purity` gives them, the row with the library's run
    (``row["lib"]``, :func:`fit_plc_row`), and what :func:`recording_run_end`
    recorded of that run; None where the noise cannot be drawn.
    """
    drawn = drawn_with_purity(dataset, model, noise, seed, check)
    if drawn is None:
        return None
    (X_train, y_train, y_noisy, make), row, score = drawn
    with recording_run_end() as seen:
        row["lib"] = fit_plc_row(make, X_train, y_noisy, seed, y_train, score)
    return (X_train, y_train, y_noisy, make), row, score, seen


def load_rows(path):
    """The rows of a study log, without the cells that could not be drawn."""
    with open(path) as file:
        return [row for row in json.load(file) if row is not None]


def dump_rows(rows, path):
    """The rows as JSON, floats to 4 decimals (the curves are long)."""

    def rounded(value):
        if isinstance(value, float):
            return round(value, 4)
        if isinstance(value, dict):
            return {key: rounded(item) for key, item in value.items()}
        if isinstance(value, list):
            return [rounded(item) for item in value]
        return value

    with open(path, "w") as file:
        json.dump(rounded(rows), file)


def run_and_dump(run_job, jobs, out, n_jobs=2):
    """Run ``run_job(*job)`` for every job in parallel; log the rows (None dropped)."""
    from joblib import Parallel, delayed

    rows = Parallel(n_jobs=n_jobs, verbose=5)(delayed(run_job)(*job) for job in jobs)
    dump_rows([row for row in rows if row is not None], out)
    return rows


def rows_by_cell(paths, keys=("dataset", "noise")):
    """The logged rows of `paths`, grouped by the values of `keys`."""
    from collections import defaultdict

    cells = defaultdict(list)
    for path in paths:
        for row in load_rows(path):
            cells[tuple(row[key] for key in keys)].append(row)
    return cells


def gains_by_method(cells, methods, standard="std", plain=("cleanlab",)):
    """Per cell and method, the mean accuracy gain over Standard, in points.

    A method's row entry is ``{"acc": ...}``, or the accuracy itself for the
    methods in `plain`; `standard` names the row's Standard accuracy.
    """
    return {
        key: {
            method: 100
            * np.mean(
                [
                    (r[method] if method in plain else r[method]["acc"]) - r[standard]
                    for r in runs
                ]
            )
            for method in methods
        }
        for key, runs in cells.items()
    }


def cell_gains(paths, variants):
    """The logged runs per (dataset, model, noise), the methods and their gains.

    ``(cells, methods, gains)``: `methods` is `variants` then ``"cleanlab"``,
    and `gains` is :func:`gains_by_method` of them.
    """
    cells = rows_by_cell(paths, ("dataset", "model", "noise"))
    methods = (*variants, "cleanlab")
    return cells, methods, gains_by_method(cells, methods)


def gain_headline(gains):
    """Mean gain, cells within half a point of Standard, and the worst, in words."""
    return (
        f"mean {np.mean(gains):+.2f}, {sum(g >= -0.5 for g in gains)} of "
        f"{len(gains)} within 0.5, worst {min(gains):+.1f}"
    )


def check_jobs(what, seeds, *extra):
    """Jobs ``(dataset, model, noise, seed, True, *extra)`` of a check, MLP aside.

    `what`: ``"unseen"`` (the unseen check) or ``"fresh"`` (the second check).
    The MLP runs in one training run, with no refit and no final fit to vary.
    """
    from benchmarks.unseen import (
        DATASETS,
        FRESH_DATASETS,
        FRESH_NOISES,
        MODELS,
        NOISES,
    )

    datasets, noises = (
        (FRESH_DATASETS, FRESH_NOISES) if what == "fresh" else (DATASETS, NOISES)
    )
    return [
        (d, m, n, s, True, *extra)
        for m in MODELS
        if m != "mlp"
        for d in datasets
        for n in noises
        for s in seeds
    ]


def study_jobs(what, seeds, *extra):
    """Jobs ``(dataset, model, noise, seed, check, *extra)`` of a study's set.

    `what`: ``"dev"`` (the dev cells of ``judged_aside.py``: dev splits, dev
    seeds), or a check (:func:`check_jobs`: ``"unseen"`` or ``"fresh"``).
    """
    if what != "dev":
        return check_jobs(what, seeds, *extra)
    from benchmarks.studies.judged_aside import dev_cells

    return [(*cell, seed, False, *extra) for cell in dev_cells() for seed in seeds]


def print_cell_table(cells, gains, methods, columns, describe):
    """A Markdown table of the cells that `describe` keeps, then the headlines.

    `columns` are the ``(header, alignment)`` of the study's own columns after
    the cell's name; ``describe(runs)`` gives their values for a cell, or None to
    leave the cell out of the table (the headlines count every cell).
    """
    print(
        "| cell | "
        + "".join(f"{header} | " for header, _ in columns)
        + " | ".join(methods)
        + " |"
    )
    print(
        "|---|" + "".join(f"{align}|" for _, align in columns) + "---:|" * len(methods)
    )
    for key, runs in sorted(cells.items()):
        values = describe(runs)
        if values is None:
            continue
        print(
            f"| {' '.join(key)} | "
            + "".join(f"{value} | " for value in values)
            + " | ".join(f"{gains[key][m]:+.1f}" for m in methods)
            + " |"
        )
    print_headlines(cells, gains, methods)


def print_headlines(cells, gains, methods):
    """The number of cells, then per method its gain headline and cells ≥ cleanlab."""
    print(f"\n{len(cells)} cells")
    for method in methods:
        cell_gains = [gains[key][method] for key in cells]
        ahead = sum(gains[key][method] >= gains[key]["cleanlab"] for key in cells)
        print(f"{method}: {gain_headline(cell_gains)}, ≥ cleanlab {ahead}")


def study_run(run_job, seeds, variants=None):
    """A study's ``run(out, what, variants)``: `run_job` on every job of the set.

    The jobs are :func:`study_jobs` of `what` and `seeds`. With `variants`
    (the study's names), each job also takes the tuple of those named on the
    command line, or all of them; without, `run_job` fits its own.
    """

    def run(out, what, chosen=()):
        extra = () if variants is None else (tuple(chosen or variants),)
        run_and_dump(run_job, study_jobs(what, seeds, *extra), out)

    return run


def run_or_summarise(usage, run, summary, **more):
    """The command line of a study: ``run OUT SET VARIANT...`` or ``summary LOG...``.

    `more`: the study's other commands, each called with the words after it.
    """
    if len(sys.argv) < 2:
        raise SystemExit(usage)
    command, *args = sys.argv[1:]
    if command == "run":
        run(args[0], args[1], args[2:])
    elif command == "summary":
        summary(*args)
    elif command in more:
        more[command](*args)
    else:
        raise SystemExit(usage)


def jobs_run(run_job, jobs):
    """A :func:`run_or_summarise` ``run``: `run_job` on ``jobs(SET)``, dumped to OUT."""

    def run(out, what, _variants=()):
        run_and_dump(run_job, jobs(what), out)

    return run


def run_or_summarise_log(usage, run, summary):
    """The command line of a one-set study: ``run OUT.json`` or ``summary LOG.json``."""
    command, path = [*sys.argv[1:3], None, None][:2]
    if command not in ("run", "summary") or path is None:
        raise SystemExit(usage)
    run(path) if command == "run" else summary(path)


def fit_plc_row(make, X, y, seed, y_clean, score, **params):
    """Fit PLC with the library's defaults (but `params`); its log entry.

    Accuracy (``score``), seconds, outcome, purity after, labels changed,
    samples set aside, and the rounds that fitted (``n_refits``, the first
    included) of all rounds (``n_rounds``; the undo is not a round); where the
    judge compared a refit with the labels as given, its paired ``gain`` and
    ``gain_se``.
    """
    from sklearn_plc import PLCClassifier

    start = time.perf_counter()
    plc = PLCClassifier(make(), random_state=seed, **params).fit(X, y)
    seconds = time.perf_counter() - start
    history = [record for record in plc.history_ if not record.get("undo")]
    judged = {}
    if plc.selection_ is not None:
        judged = dict(
            gain=plc.selection_["gain"], gain_se=plc.selection_["standard_error"]
        )
    return {
        "acc": score(plc),
        "s": seconds,
        "termination": plc.termination_condition_,
        "purity_after": float(np.mean(plc.labels_ == y_clean)),
        "n_changed": int(np.sum(plc.labels_ != y)),
        "n_set_aside": int(plc.set_aside_.sum()),
        "n_refits": int(sum(bool(record.get("refit")) for record in history)),
        "n_rounds": len(history),
        **judged,
    }


def print_gains_by_model(cells, variants):
    """Per model family, each variant's mean gain over its cells, in points."""
    from collections import defaultdict

    by_model = defaultdict(lambda: defaultdict(list))
    for (_, model, _), runs in cells.items():
        for variant in variants:
            by_model[model][variant].append(
                100 * np.mean([r[variant]["acc"] - r["std"] for r in runs])
            )
    for model, gains in sorted(by_model.items()):
        print(
            f"  {model}: "
            + ", ".join(f"{v} {np.mean(g):+.2f}" for v, g in gains.items())
        )


def print_corrected_cost(cells, variants, corrected):
    """Median PLC / Standard fit time of each variant, and cleanlab's, on the
    runs that ``corrected(row)`` keeps, with the mean number of fitting rounds."""
    rows = [row for runs in cells.values() for row in runs if corrected(row)]
    print(f"\ncost over the {len(rows)} runs the default corrects:")
    for variant in variants:
        ratio = [row[variant]["s"] / row["standard_s"] for row in rows]
        fits = np.mean([row[variant]["n_refits"] for row in rows])
        print(
            f"{variant}: median {np.median(ratio):.1f}x Standard, {fits:.2f} fit rounds"
        )
    ratio = [row["cleanlab_s"] / row["standard_s"] for row in rows]
    print(f"cleanlab: median {np.median(ratio):.1f}x Standard")
