"""Dev protocol log: how much a judge on clean labels would recover (oracle bound).

The shipped judge (``revert_if_worse`` on ``validation_fraction=0.2`` set-aside
samples) scores the corrected labels by held-out agreement with the *given*
labels, which is blind where the noise is majority-wrong (``judge_limits.py``).
This log swaps only the judge's reference labels for the clean ones on the same
set-aside samples (an oracle standing in for verified labels), at several
set-aside fractions, to bound what judging on trusted labels could recover:

    PYTHONPATH=. python benchmarks/studies/trusted_judge.py run tables OUT.json
    PYTHONPATH=. python benchmarks/studies/trusted_judge.py run hard OUT.json
    PYTHONPATH=. python benchmarks/studies/trusted_judge.py run feature OUT.json
    python benchmarks/studies/trusted_judge.py summary OUT.json [OUT2.json ...]
    python benchmarks/studies/trusted_judge.py summary \
        benchmarks/studies/trusted_judge.json

The ``feature`` run measures the library's ``trusted`` fit parameter itself: a
random 20% (then 10%) of the training samples get their clean labels back, for
Standard and PLC alike, and PLC runs without and with ``trusted``. It adds the
``hard4-dev`` cells of ``judge_limits.py``.

Dev cells of ``validation_fraction.cells`` (split 1, seeds 100-102) only.
"""

import json
import sys
import warnings
from collections import defaultdict

import numpy as np
from joblib import Parallel, delayed

from benchmarks.studies.common import cells, noisy_cell, with_standard

# name: (validation_fraction, undo bar in standard errors, judge on clean labels)
VARIANTS = {
    "shipped": (0.2, 1.0, False),
    "oracle20": (0.2, 1.0, True),
    "oracle20_any": (0.2, 0.0, True),
    "oracle10": (0.1, 1.0, True),
    "oracle05": (0.05, 1.0, True),
}


def _judging_on(reference):
    """A ``HeldOutJudge.judge`` reading `reference`, not the given labels."""
    from sklearn_plc._judge import HeldOutJudge

    original = HeldOutJudge.judge

    def judge(self, proba, round_index):
        given = self.given_labels
        self.given_labels = reference
        try:
            return original(self, proba, round_index)
        finally:
            self.given_labels = given

    return original, judge


def run(dataset, model, noise, seed):
    warnings.simplefilter("ignore")
    import sklearn_plc._ending as C
    from sklearn_plc import PLCClassifier
    from sklearn_plc._judge import HeldOutJudge

    measured = with_standard(dataset, model, noise, seed)
    if measured is None:
        return None
    (X_train, X_test, y_train, y_test, y_noisy, make), out = measured
    original, oracle = _judging_on(np.asarray(y_train))
    for name, (fraction, bar, clean) in VARIANTS.items():
        C.WORSE_STANDARD_ERRORS = bar
        HeldOutJudge.judge = oracle if clean else original
        try:
            plc = PLCClassifier(
                make(), validation_fraction=fraction, random_state=seed
            ).fit(X_train, y_noisy)
        finally:
            HeldOutJudge.judge = original
        selection = plc.selection_ or {}
        out[name] = dict(
            acc=float(np.mean(plc.predict(X_test) == y_test)),
            undone=bool(selection.get("undone", False)),
            kept=plc.termination_condition_ in ("not_memorising", "undone"),
            pur=float(np.mean(plc.labels_ == y_train)),
        )
    return out


FEATURE_SHARES = (0.2, 0.1)


def run_feature(dataset, model, noise, seed):
    """The ``trusted`` fit parameter: a random share of samples given clean labels.

    Standard and PLC both train on the noisy labels with the trusted samples'
    labels restored (what a user with a verified subset has); PLC once without
    and once with ``trusted``.
    """
    warnings.simplefilter("ignore")
    from sklearn_plc import PLCClassifier

    cell = noisy_cell(dataset, model, noise, seed)
    if cell is None:
        return None
    X_train, X_test, y_train, y_test, y_noisy, make = cell
    out = dict(dataset=dataset, model=model, noise=noise, seed=seed)
    rng = np.random.RandomState(seed)
    for share in FEATURE_SHARES:
        trusted = rng.uniform(size=y_train.shape[0]) < share
        y_given = np.where(trusted, y_train, y_noisy)
        standard = make().fit(X_train, y_given)
        key = f"{round(100 * share)}"
        out["std" + key] = float(np.mean(standard.predict(X_test) == y_test))
        for name, mask in (("given", None), ("trusted", trusted)):
            plc = PLCClassifier(make(), random_state=seed).fit(
                X_train, y_given, trusted=mask
            )
            selection = plc.selection_ or {}
            out[f"{name}{key}"] = dict(
                acc=float(np.mean(plc.predict(X_test) == y_test)),
                undone=bool(selection.get("undone", False)),
                kept=plc.termination_condition_ in ("not_memorising", "undone"),
                pur=float(np.mean(plc.labels_ == y_train)),
            )
    return out


def feature_cells():

    hard4 = [
        ("hard4-dev", m, n, s)
        for m in ("bagged-trees", "gradient-boosting", "5-nn")
        for n in ("I-35", "III-35")
        for s in (100, 101, 102, 103)
    ]
    return cells("hard") + hard4 + cells("tables")


def summary_feature(rows):
    for share in FEATURE_SHARES:
        key = f"{round(100 * share)}"
        for group in ("hard-dev", "hard4-dev", "tables"):
            picked = [
                r
                for r in rows
                if (r["dataset"] == group)
                or (group == "tables" and r["dataset"] not in ("hard-dev", "hard4-dev"))
            ]
            for name in ("given", "trusted"):
                by_cell = defaultdict(list)
                for r in picked:
                    cell = (r["dataset"], r["model"], r["noise"])
                    by_cell[cell].append(100 * (r[name + key]["acc"] - r["std" + key]))
                gains = [np.mean(g) for g in by_cell.values()]
                undone = sum(r[name + key]["undone"] for r in picked)
                print(
                    f"{key}% trusted, {group:9s} PLC {name:7s}: {len(gains)} cells, "
                    f"mean {np.mean(gains):+.2f}, "
                    f"{sum(g >= -0.5 for g in gains)} >= Standard - 0.5, worst "
                    f"{min(gains):+.1f}, undone {undone} of {len(picked)} runs"
                )


def summary(paths):
    """Print the figures of run outputs, or of the logged ``trusted_judge.json``."""
    rows = []
    for path in paths:
        with open(path) as file:
            logged = json.load(file)
        if isinstance(logged, dict):  # the log: one list of rows per run
            for name, part in logged.items():
                print(name)
                summary_rows(part)
            return
        rows += logged
    summary_rows(rows)


def summary_rows(rows):
    if "std20" in rows[0]:
        summary_feature(rows)
        return
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
        mean = np.mean(list(gains.values()))
        print(
            f"{variant:13s} {len(gains)} cells: mean {mean:+.2f}, "
            f"{sum(g >= -0.5 for g in gains.values())} >= Standard - 0.5, worst "
            f"{gains[worst]:+.1f} ({'/'.join(worst)}), undone {undone} of "
            f"{sum(variant in r for r in rows)} runs"
        )


if __name__ == "__main__":
    if sys.argv[1] == "summary":
        summary(sys.argv[2:])
        sys.exit()

    what, out = sys.argv[2], sys.argv[3]
    if what == "feature":
        jobs = [delayed(run_feature)(*cell) for cell in feature_cells()]
    else:
        jobs = [delayed(run)(*cell) for cell in cells(what)]
    rows = Parallel(n_jobs=2)(jobs)
    rows = [row for row in rows if row is not None]
    with open(out, "w") as file:
        json.dump(rows, file)
    print("done", len(rows))
