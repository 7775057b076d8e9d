"""Dev protocol log: do corrections drift the class distribution; does aligning help?

On small noisy data the reported wine cells lost accuracy while their label
purity rose (wine, logistic regression, Type-I + 30% uniform, seed 0: purity
49% -> 62%, accuracy -18.5 points): the first pass moved most labels towards the
class the noisy labels already over-represent (given counts 54/38/32, clean
41/50/33, corrected 76/20/28), and each refit on the skewed labels widened that
class's region. This log measures, on dev splits only, the drift and two
class-distribution alignments of the probabilities each pass reads
(ReMixMatch's distribution alignment):

- ``default``: the shipped pass;
- ``given``: each class's probability scaled by the given labels' class
  frequency over its mean predicted probability, rows renormalised;
- ``current``: the same towards the frequency of the labels the model was
  trained on (removes the model's own bias, not the drift of earlier passes).

``given`` became the library's ``distribution_alignment=True`` (the default);
``default`` here is ``distribution_alignment=False``, the pass before it, and
``current`` a subclass of the library's ``LabelCorrector`` patched into the
scikit-learn path (not the nets).

    PYTHONPATH=. python benchmarks/studies/class_balance.py run OUT.json SET VARIANT...
    PYTHONPATH=. python benchmarks/studies/class_balance.py summary LOG.json...

SET: ``small`` (wine and wine-rf, dev splits 1 and 2, seeds 100-104 each),
``memorising`` (synthetic-5-rf, split 1, seeds 100-102), ``lr`` (blobs-2d,
synthetic-5, weak-lr: split 1, seeds 100-102), ``hard`` (the 3-class hard-dev set
of ``validation_fraction.py``, five memorising models) or ``hard4`` (the 4-class
hard4-dev set of ``judge_limits.py``: gradient boosting, bagged trees, 5-NN) or
``nets`` (the tables' digits and mnist1d CNNs, split 1, seeds 100 and 101; the
skorch path's corrector is patched instead).
"""

import warnings

import numpy as np
from joblib import Parallel, delayed

from benchmarks.studies.common import (
    HARD_MODELS,
    dump_rows,
    load_rows,
    noisy_cell,
    run_or_summarise,
    with_standard,
)

VARIANTS = ("default", "given", "current")


def _current_aligned_corrector():
    """A LabelCorrector aligning each pass to the labels it last trained on."""
    from sklearn_plc._corrector import LabelCorrector
    from sklearn_plc.correction import align_class_distribution

    class AlignedToCurrent(LabelCorrector):
        def averaged_proba(self):
            proba = np.asarray(self.to_numpy(super().averaged_proba()))
            current = np.bincount(self.labels, minlength=proba.shape[1])
            return align_class_distribution(proba, current / current.sum())

    return AlignedToCurrent


def cells(which):
    """The (dataset, model, noise, split, seed) of a set (see the module docstring)."""
    from benchmarks.tables import MEMORISING_NOISES, NOISE_CELLS

    dev = [(1, s) for s in (100, 101, 102)]
    if which == "small":
        runs = [(split, s) for split in (1, 2) for s in range(100, 105)]
        return [("wine", "base", n, *r) for n in NOISE_CELLS for r in runs] + [
            ("wine-rf", "base", n, *r) for n in MEMORISING_NOISES for r in runs
        ]
    if which == "memorising":
        return [
            ("synthetic-5-rf", "base", n, *r) for n in MEMORISING_NOISES for r in dev
        ]
    if which == "lr":
        return [
            (d, "base", n, *r)
            for d in ("blobs-2d", "synthetic-5")
            for n in NOISE_CELLS
            for r in dev
        ] + [("weak-lr", "base", n, *r) for n in MEMORISING_NOISES for r in dev]
    if which == "hard":
        return [
            ("hard-dev", m, n, *r)
            for m in HARD_MODELS
            for n in ("I-35", "III-35", "U30")
            for r in dev
        ]
    if which == "nets":
        return [
            (d, "base", n, 1, s)
            for d in ("digits", "mnist1d")
            for n in NOISE_CELLS
            for s in (100, 101)
        ]
    if which == "hard4":
        return [
            ("hard4-dev", m, n, 1, s)
            for m in ("gradient-boosting", "bagged-trees", "5-nn")
            for n in ("I-35", "III-35")
            for s in range(100, 104)
        ]
    raise ValueError(f"unknown set {which!r}")


def run_one(dataset, model, noise, split, seed, variants):
    warnings.simplefilter("ignore")
    import sklearn_plc._refit_run as C
    from sklearn_plc import PLCClassifier
    from sklearn_plc._corrector import LabelCorrector

    net = dataset in ("digits", "mnist1d")
    if net:
        import torch

        import sklearn_plc.skorch as C  # the net path's corrector

        torch.set_num_threads(1)
        torch.manual_seed(seed)
    found = with_standard(
        dataset, model, noise, seed, make_cell=lambda *c: noisy_cell(*c, split)
    )
    if found is None:
        return None
    (X_train, X_test, y_train, y_test, y_noisy, make), row = found
    row.update(
        split=split,
        purity=float(np.mean(y_noisy == y_train)),
        # how far the given class counts are from the clean ones (L1, share)
        given_shift=float(_shift(y_noisy, y_train)),
    )
    for variant in variants:
        # set for every task: a worker process keeps the class of its last task
        C.LabelCorrector = (
            _current_aligned_corrector() if variant == "current" else LabelCorrector
        )
        if net:
            torch.manual_seed(seed)
        plc = PLCClassifier(
            make(), random_state=seed, distribution_alignment=variant == "given"
        ).fit(X_train, y_noisy)
        row[variant] = dict(
            acc=float(np.mean(plc.predict(X_test) == y_test)),
            purity=float(np.mean(plc.labels_ == y_train)),
            shift=float(_shift(plc.labels_, y_train)),
            changed=int(np.sum(plc.labels_ != y_noisy)),
            term=plc.termination_condition_,
            undone=bool((plc.selection_ or {}).get("undone", False)),
        )
    C.LabelCorrector = LabelCorrector
    return row


def _shift(labels, clean):
    """Half the L1 distance between two label vectors' class frequencies."""
    n_classes = max(labels.max(), clean.max()) + 1
    a = np.bincount(labels, minlength=n_classes) / labels.shape[0]
    b = np.bincount(clean, minlength=n_classes) / clean.shape[0]
    return 0.5 * np.abs(a - b).sum()


def run(path, which, variants):
    rows = Parallel(n_jobs=2)(delayed(run_one)(*c, variants) for c in cells(which))
    dump_rows([r for r in rows if r is not None], path)


def variant_figures(rows, variants):
    """Per set of cells and variant: ``(set, variant, runs, deltas, purity gain)``.

    `deltas` holds one mean PLC - Standard (points) per noise cell; a variant
    not run on a set is left out.
    """
    groups = {}
    for r in rows:
        key = r["dataset"] if r["model"] == "base" else f"{r['dataset']} {r['model']}"
        groups.setdefault(key, []).append(r)
    for key, runs in groups.items():
        for v in variants:
            mine = [r for r in runs if v in r]
            if not mine:  # a variant not run on this set (the nets ran two)
                continue
            by_cell = {}
            for r in mine:
                by_cell.setdefault(r["noise"], []).append(
                    100 * (r[v]["acc"] - r["std"])
                )
            deltas = np.array([np.mean(d) for d in by_cell.values()])
            purity = 100 * np.mean([r[v]["purity"] - r["purity"] for r in mine])
            yield key, v, mine, deltas, purity


def summary(*paths):
    rows = [r for p in paths for r in load_rows(p)]
    for key, v, mine, deltas, purity in variant_figures(rows, VARIANTS):
        print(
            f"{key:28s} {v:8s} mean {deltas.mean():+6.2f} "
            f"ok {np.sum(deltas >= -0.5):2d}/{len(deltas)} "
            f"worst {deltas.min():+6.1f}  purity {purity:+5.1f}  "
            f"class shift {100 * np.mean([r[v]['shift'] for r in mine]):4.1f} "
            f"(given {100 * np.mean([r['given_shift'] for r in mine]):4.1f})  "
            f"undone {sum(r[v]['undone'] for r in mine)}/{len(mine)}"
        )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
