"""Dev protocol log: which of a net's correction passes help; gates on the later ones.

In a 30-epoch net run the threshold never relaxes (every epoch corrects more
than 0.1% of the labels), so after the warm-up each epoch runs a pass at θ. This
log records, per run, when each label was first changed and whether the change
was right, and tries gates on the passes after the first:

- ``default``: the shipped net path;
- ``passes=N``: only the first N correction passes, then the labels freeze;
- ``unanimous``: a label moves only to a class that is the top class in every
  epoch of the window (not only in their average);
- ``anchor``: after the first pass, a label moves only to the class the net
  predicted at the end of its warm-up (its early-learning view).

Each gate is a subclass of the library's ``LabelCorrector`` patched into the
skorch path; nothing here changes the library.

    PYTHONPATH=. python benchmarks/studies/net_passes.py run OUT DATASET VARIANT...
    PYTHONPATH=. python benchmarks/studies/net_passes.py summary LOG.json
    PYTHONPATH=. python benchmarks/studies/net_passes.py lead

``lead`` prints PLC's lead over Standard per epoch from ``net_judge.json``'s
curves (mnist1d dev, seeds 100-102, the shipped defaults). The logged figures
(``net_passes.json``): ``run OUT digits default passes=3 anchor`` (6 min on 2
cores), ``run OUT digits passes=5 unanimous`` (4 min) and ``run OUT mnist1d
default passes=3 passes=5 unanimous anchor`` (37 min), merged; see
docs/development.md, "Which of a net's correction passes help". The runs did not
repeat exactly: an earlier scratch run of the same mnist1d cells (which also
scored the net every epoch) gave the default +0.24 against +1.06 here.

DATASET is ``mnist1d`` or ``digits`` (the tables' small CNNs, dev split 1,
``validation_fraction.noisy_cell``), seeds 100 and 101, the 15 noise cells
whose noisy majority is right (the 70% rows left out). The mnist1d figures are
compared with the Standard runs of ``net_judge.json`` (the same cells and
seeds); digits has no Standard run here, so its variants are compared with its
``default``.
"""

import sys
import warnings

import numpy as np
from joblib import Parallel, delayed

from benchmarks.studies.common import dump_rows, load_rows, noisy_cell

SEEDS = (100, 101)


def _gated_corrector(variant):
    """A LabelCorrector whose passes after the first obey `variant`'s gate."""
    from sklearn_plc._corrector import LabelCorrector

    class Gated(LabelCorrector):
        n_passes = 0
        anchor = None

        def _keep_every_class(self, new_labels, changed):
            self.n_passes += 1
            moving = np.flatnonzero(changed)
            if variant.startswith("passes=") and self.n_passes > int(variant[7:]):
                moving = moving[:0]
            elif variant == "unanimous":
                for proba in self.recorded:
                    top = np.asarray(self.to_numpy(proba)).argmax(axis=1)
                    moving = moving[top[moving] == new_labels[moving]]
            elif variant == "anchor":
                if self.anchor is None:  # the first pass: the warm-up's view
                    average = np.asarray(self.to_numpy(self.averaged_proba()))
                    self.anchor = average.argmax(axis=1)
                moving = moving[self.anchor[moving] == new_labels[moving]]
            stay = np.setdiff1d(np.flatnonzero(changed), moving)
            new_labels[stay] = self.labels[stay]
            changed[stay] = False
            super()._keep_every_class(new_labels, changed)

    return Gated


def run_one(dataset, noise, seed, variant):
    warnings.simplefilter("ignore")
    import torch

    import sklearn_plc.skorch as plc_skorch
    from sklearn_plc import PLCClassifier
    from sklearn_plc._corrector import LabelCorrector

    cell = noisy_cell(dataset, "base", noise, seed)
    if cell is None:
        return None
    X_train, X_test, y_train, y_test, y_noisy, make = cell
    # set for every task: a worker process keeps the class of its previous task
    plc_skorch.LabelCorrector = (
        LabelCorrector if variant == "default" else _gated_corrector(variant)
    )
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = PLCClassifier(make(), random_state=seed).fit(X_train, y_noisy)
    corrections = model.corrections_
    changed = model.labels_ != y_noisy
    right = model.labels_ == y_train
    first = np.full(len(y_noisy), -1)
    # the changes are in round order: a sample's first entry is its first change
    samples, first_entry = np.unique(corrections["sample"], return_index=True)
    first[samples] = corrections["round"][first_entry]
    per_epoch = {}
    for epoch in np.unique(first[changed]):
        chosen = changed & (first == epoch)
        per_epoch[int(epoch) + 1] = [int(chosen.sum()), float(right[chosen].mean())]
    return dict(
        dataset=dataset,
        noise=noise,
        seed=seed,
        variant=variant,
        accuracy=float(np.mean(model.predict(X_test) == y_test)),
        n_changed=int(changed.sum()),
        precision=float(right[changed].mean()) if changed.any() else None,
        warm_up=model.warm_up_,
        first_changed_per_epoch=per_epoch,
        n_epochs=len(model.history_),
    )


def run(path, dataset, variants):
    from benchmarks.tables import NOISE_CELLS

    noises = [n for n in NOISE_CELLS if not n.endswith("70")]
    rows = Parallel(n_jobs=2)(
        delayed(run_one)(dataset, n, s, v)
        for v in variants
        for n in noises
        for s in SEEDS
    )
    dump_rows([r for r in rows if r is not None], path)


def summary(path):
    rows = load_rows(path)
    std = {
        (r["noise"], r["seed"]): r["std"][-1]["test"]
        for r in load_rows("benchmarks/studies/net_judge.json")
    }
    for dataset in sorted({r["dataset"] for r in rows}):
        mine = [r for r in rows if r["dataset"] == dataset]
        default = {
            (r["noise"], r["seed"]): r["accuracy"]
            for r in mine
            if r["variant"] == "default"
        }
        reference = std if dataset == "mnist1d" else default
        label = "Standard" if dataset == "mnist1d" else "default"
        for variant in sorted({r["variant"] for r in mine}):
            runs = [r for r in mine if r["variant"] == variant]
            by_noise = {}
            for r in runs:
                delta = 100 * (r["accuracy"] - reference[r["noise"], r["seed"]])
                by_noise.setdefault(r["noise"], []).append(delta)
            deltas = np.array([np.mean(d) for d in by_noise.values()])
            precision = np.mean([r["precision"] for r in runs if r["precision"]])
            print(
                f"{dataset} {variant:10s} vs {label}: mean {deltas.mean():+.2f} "
                f"ok {np.sum(deltas >= -0.5)}/{len(deltas)} worst {deltas.min():+.1f}; "
                f"changed {np.mean([r['n_changed'] for r in runs]):.0f}, "
                f"precision {precision:.3f}"
            )
        _precision_by_pass([r for r in mine if r["variant"] == "default"], dataset)


def lead_by_epoch(path="benchmarks/studies/net_judge.json"):
    """PLC − Standard clean-test accuracy per epoch, mean over seeds, per noise."""
    by_noise = {}
    for r in load_rows(path):
        standard = np.array([epoch["test"] for epoch in r["std"]])
        plc = np.array([epoch["test"] for epoch in r["plc"]])
        by_noise.setdefault(r["noise"], []).append(100 * (plc - standard))
    epochs = range(9, len(standard), 2)  # epochs 10, 12, ..., 30
    print("epoch        " + " ".join(f"{e + 1:5d}" for e in epochs))
    for noise, deltas in by_noise.items():
        mean = np.mean(deltas, axis=0)
        print(f"{noise:12s} " + " ".join(f"{mean[e]:+5.1f}" for e in epochs))


def _precision_by_pass(runs, dataset):
    """Changes first made in the k-th pass after the warm-up: count and precision."""
    by_pass = {}
    for r in runs:
        start = min(int(e) for e in r["first_changed_per_epoch"])
        for epoch, (count, precision) in r["first_changed_per_epoch"].items():
            slot = by_pass.setdefault(int(epoch) - start + 1, [0, 0.0])
            slot[0] += count
            slot[1] += count * precision
    print(
        f"  {dataset} default, per pass (changes per run / precision): "
        + ", ".join(
            f"{k}: {n / len(runs):.0f}/{100 * right / n:.0f}%"
            for k, (n, right) in sorted(by_pass.items())
            if n
        )
    )


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    if command == "run":
        run(arguments[0], arguments[1], arguments[2:])
    elif command == "summary":
        summary(arguments[0])
    elif command == "lead":
        lead_by_epoch()
    else:
        raise SystemExit(__doc__)
