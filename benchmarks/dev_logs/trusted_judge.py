"""Dev protocol log: how much a judge on clean labels would recover (oracle bound).

The shipped judge (``revert_if_worse`` on ``validation_fraction=0.2`` set-aside
samples) scores the corrected labels by held-out agreement with the *given*
labels, which is blind where the noise is majority-wrong (``judge_limits.py``).
This log swaps only the judge's reference labels for the clean ones on the same
set-aside samples (an oracle standing in for verified labels), at several
set-aside fractions, to bound what judging on trusted labels could recover:

    PYTHONPATH=. python benchmarks/dev_logs/trusted_judge.py run tables OUT.json
    PYTHONPATH=. python benchmarks/dev_logs/trusted_judge.py run hard OUT.json
    python benchmarks/dev_logs/trusted_judge.py summary OUT.json [OUT2.json ...]

Dev cells of ``validation_fraction.cells`` (split 1, seeds 100-102) only.
"""

import json
import sys
import warnings
from collections import defaultdict

import numpy as np
from joblib import Parallel, delayed

# name: (validation_fraction, undo bar in standard errors, judge on clean labels)
VARIANTS = {
    "shipped": (0.2, 1.0, False),
    "oracle20": (0.2, 1.0, True),
    "oracle20_any": (0.2, 0.0, True),
    "oracle10": (0.1, 1.0, True),
    "oracle05": (0.05, 1.0, True),
}


def _judging_on(reference):
    """A ``LabelCorrector._judge`` that reads `reference` instead of the given labels."""
    from sklearn_plc._corrector import LabelCorrector

    original = LabelCorrector._judge

    def judge(self, proba):
        given = self.initial_labels
        self.initial_labels = reference
        try:
            return original(self, proba)
        finally:
            self.initial_labels = given

    return original, judge


def run(dataset, model, noise, seed):
    warnings.simplefilter("ignore")
    import sklearn_plc.classifier as C
    from sklearn_plc import PLCClassifier
    from sklearn_plc._corrector import LabelCorrector

    from benchmarks.dev_logs.validation_fraction import noisy_cell

    cell = noisy_cell(dataset, model, noise, seed)
    if cell is None:
        return None
    X_train, X_test, y_train, y_test, y_noisy, make = cell
    standard = make().fit(X_train, y_noisy)
    out = dict(
        dataset=dataset,
        model=model,
        noise=noise,
        seed=seed,
        std=float(np.mean(standard.predict(X_test) == y_test)),
    )
    original, oracle = _judging_on(np.asarray(y_train))
    for name, (fraction, bar, clean) in VARIANTS.items():
        C.WORSE_STANDARD_ERRORS = bar
        LabelCorrector._judge = oracle if clean else original
        try:
            plc = PLCClassifier(
                make(), validation_fraction=fraction, random_state=seed
            ).fit(X_train, y_noisy)
        finally:
            LabelCorrector._judge = original
        selection = plc.selection_ or {}
        out[name] = dict(
            acc=float(np.mean(plc.predict(X_test) == y_test)),
            undone=bool(selection.get("undone", False)),
            kept=plc.termination_condition_ == "labels_kept",
            pur=float(np.mean(plc.labels_ == y_train)),
        )
    return out


def summary(paths):
    rows = []
    for path in paths:
        with open(path) as file:
            rows += json.load(file)
    cells = defaultdict(lambda: defaultdict(list))
    for row in rows:
        name = row["dataset"] + ("/" + row["model"] if row["model"] != "base" else "")
        for variant in VARIANTS:
            if variant in row:
                gain = 100 * (row[variant]["acc"] - row["std"])
                cells[variant][(name, row["noise"])].append(gain)
    for variant, by_cell in cells.items():
        gains = {cell: np.mean(g) for cell, g in by_cell.items()}
        worst = min(gains, key=gains.get)
        undone = sum(r[variant]["undone"] for r in rows if variant in r)
        print(
            f"{variant:13s} {len(gains)} cells: mean {np.mean(list(gains.values())):+.2f}, "
            f"{sum(g >= -0.5 for g in gains.values())} >= Standard - 0.5, worst "
            f"{gains[worst]:+.1f} ({'/'.join(worst)}), undone {undone} of "
            f"{sum(variant in r for r in rows)} runs"
        )


if __name__ == "__main__":
    if sys.argv[1] == "summary":
        summary(sys.argv[2:])
        sys.exit()
    from benchmarks.dev_logs.validation_fraction import cells

    what, out = sys.argv[2], sys.argv[3]
    rows = Parallel(n_jobs=2)(delayed(run)(*cell) for cell in cells(what))
    rows = [row for row in rows if row is not None]
    with open(out, "w") as file:
        json.dump(rows, file)
    print("done", len(rows))
