"""Dev protocol log: what limits the set-aside judge; four variants not shipped.

Variants (none is in the library; docs/development.md, "What the noisy-label judge
cannot see"):

- a calibrated confidence floor: a label moves only where, among samples of
  similar top-class probability, the model's top class is the given label at
  least ``PLC_FLOOR`` of the time (isotonic fit of out-of-fold agreement on the
  top-class probability, recomputed at every pass);
- a stricter end threshold (``theta_end`` 0.5 and 0.7);
- the undo decision pooled over ``K`` independent set-aside draws;
- class distribution alignment before each pass (``PLC_ALIGN=1``): each class's
  probability scaled by its given-label frequency over its mean predicted
  probability (a lead, measured last).

The floor, the alignment and the pooled judge need ``judge_limits.patch``
(environment switches and a handle on the run's ``LabelCorrector``) applied to
commit 4ed9eef in a separate worktree; run from that worktree's root:

    PLC_FLOOR=0.5 python benchmarks/studies/judge_limits.py probe OUT.json
    python benchmarks/studies/judge_limits.py probe OUT.json "{'theta_end': 0.5}"
    K=4 python benchmarks/studies/judge_limits.py pooled tables OUT.json
    K=4 python benchmarks/studies/judge_limits.py pooled hard OUT.json
    PLC_ALIGN=1 python benchmarks/studies/judge_limits.py probe OUT.json
    python benchmarks/studies/judge_limits.py summary \
        benchmarks/studies/judge_limits.json

The floor on the tables' and hard-dev cells ran through ``validation_fraction.py``
(variant ``vf20e``, the shipped defaults) with ``PLC_FLOOR=0.5`` or ``PLC_ALIGN=1``
set. Dev data only:
split 1 of the tables' datasets, the 3-class ``hard-dev`` set of
``validation_fraction.py`` and a 4-class ``hard4-dev`` set (``make_classification``,
``random_state=13``; the unseen check's hard-4 uses 7), seeds 100-103.
"""

import json
import os
import sys
import warnings
from collections import defaultdict

import numpy as np
from joblib import Parallel, delayed

from benchmarks.studies.common import cells, noisy_cell, with_standard


def probe(model, noise, seed, params):
    """Standard and PLC (with `params`) on hard4-dev: accuracy, purity, what moved."""
    warnings.simplefilter("ignore")
    from sklearn_plc import PLCClassifier

    X_train, X_test, y_train, y_test, y_noisy, make = noisy_cell(
        "hard4-dev", model, noise, seed
    )
    standard = make().fit(X_train, y_noisy)
    plc = PLCClassifier(make(), random_state=seed, **params).fit(X_train, y_noisy)
    selection = plc.selection_ or {}
    changed = plc.labels_ != y_noisy
    return dict(
        model=model,
        noise=noise,
        seed=seed,
        std=float(np.mean(standard.predict(X_test) == y_test)),
        plc=float(np.mean(plc.predict(X_test) == y_test)),
        pur0=float(np.mean(y_noisy == y_train)),
        pur=float(np.mean(plc.labels_ == y_train)),
        z=selection["gain"] / selection["standard_error"]
        if selection.get("standard_error")
        else None,
        term=plc.termination_condition_,
        changed=float(changed.mean()),
        prec=float(np.mean(plc.labels_[changed] == y_train[changed]))
        if changed.any()
        else None,
    )


def pooled(dataset, model, noise, seed, draws):
    """Run 0 (the default run) and the judged evidence of `draws` set-aside draws."""
    warnings.simplefilter("ignore")
    import sklearn_plc._ending as C
    from sklearn_plc import PLCClassifier

    measured = with_standard(dataset, model, noise, seed, make_cell=noisy_cell)
    if measured is None:
        return None
    (X_train, X_test, y_train, y_test, y_noisy, make), out = measured
    out["draws"] = []
    C.WORSE_STANDARD_ERRORS = float("inf")  # record the evidence, never undo
    for draw in range(draws):
        plc = PLCClassifier(make(), random_state=seed + 1000 * draw).fit(
            X_train, y_noisy
        )
        corrector = plc._corrector_debug  # from judge_limits.patch
        if draw == 0:
            out["acc0"] = float(np.mean(plc.predict(X_test) == y_test))
            out["kept0"] = plc.termination_condition_ in ("not_memorising", "undone")
            out["pur0"] = float(np.mean(plc.labels_ == y_train))
        if corrector._last is None or corrector._last is corrector._reference:
            out["draws"].append(None)
            continue
        difference = corrector._last["agrees"].astype(float) - corrector._reference[
            "agrees"
        ].astype(float)
        out["draws"].append(
            dict(
                n=int(difference.size),
                sum=float(difference.sum()),
                sumsq=float(difference @ difference),
            )
        )
    return out


def pooled_decisions(rows, draws, bar):
    """Per cell (mean over seeds), PLC − Standard when the undo reads `draws` draws."""
    cells = defaultdict(list)
    for row in rows:
        judged = [d for d in row["draws"][:draws] if d is not None]
        accuracy = row["acc0"]
        if not row["kept0"] and row["draws"][0] is not None:
            n = sum(d["n"] for d in judged)
            mean = sum(d["sum"] for d in judged) / n
            variance = sum(d["sumsq"] for d in judged) / n - mean**2
            if mean < -bar * np.sqrt(max(variance, 0.0) / n):
                accuracy = row["std"]
        name = row["dataset"] + ("/" + row["model"] if row["model"] != "base" else "")
        cells[(name, row["noise"])].append(100 * (accuracy - row["std"]))
    return [np.mean(v) for v in cells.values()]


def summary(path):
    with open(path) as file:
        logged = json.load(file)
    for name in ("pooled_tables", "pooled_hard"):
        print(name)
        for draws in (1, 2, 3, 4):
            for bar in (1.0, 0.0):
                gains = pooled_decisions(logged[name], draws, bar)
                print(
                    f"  K={draws} undo below -{bar:g} SE: mean {np.mean(gains):+.2f}, "
                    f"{sum(g >= -0.5 for g in gains)} of {len(gains)} cells >= "
                    f"Standard - 0.5, worst {min(gains):+.1f}"
                )
    for name in (
        "hard4_p4",
        "hard4_p4_f5",
        "hard4_p4_te5",
        "hard4_p4_te7",
        "hard4_align",
    ):
        for model in ("bagged-trees", "gradient-boosting", "5-nn"):
            runs = [r for r in logged[name] if r["model"] == model]
            if not runs:
                continue
            gains = [100 * (r["plc"] - r["std"]) for r in runs]
            changed = np.mean([r["changed"] for r in runs])
            purity = np.mean([r["pur"] for r in runs])
            print(
                f"{name} {model}: {len(runs)} runs, mean {np.mean(gains):+.2f}, worst "
                f"{min(gains):+.1f}, changed {changed:.2f}, purity after {purity:.3f}"
            )


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "summary":
        summary(sys.argv[2])
        sys.exit()
    if mode == "probe":
        out, params = sys.argv[2], eval(sys.argv[3]) if len(sys.argv) > 3 else {}
        jobs = [
            delayed(probe)(m, n, s, params)
            for m in ("bagged-trees", "gradient-boosting", "5-nn")
            for n in ("I-35", "III-35")
            for s in (100, 101, 102, 103)
        ]
    else:
        what, out, draws = sys.argv[2], sys.argv[3], int(os.environ.get("K", 4))
        jobs = [delayed(pooled)(*cell, draws) for cell in cells(what)]
    rows = [row for row in Parallel(n_jobs=2)(jobs) if row is not None]
    with open(out, "w") as file:
        json.dump(rows, file)
    print("done", len(rows))
