"""`probe.py`'s two-class grid, each run's fifth and halves evidence logged too.

Run from a worktree with `record.patch` applied and `PLC_VARIANT=record`:

    python benchmarks/studies/binary_dev/record_probe.py OUT.json
"""

import json
import sys
import time

from joblib import Parallel, delayed

sys.path.insert(0, ".")
sys.path.insert(0, "benchmarks/studies/binary_dev")
import probe

import sklearn_plc

CAPTURED = {}


def _fit_and_capture(self, *args, **kwargs):
    fitted = type(self)._unpatched_fit(self, *args, **kwargs)
    selection = self.selection_ or {}
    if selection.get("compared") == "halves":
        selection = selection.get("replaced") or {}
    check = getattr(self, "halves_check_", None)
    CAPTURED.update(
        fifth_gain=selection.get("gain"),
        fifth_se=selection.get("standard_error"),
        deferred=bool(selection.get("deferred")),
        halves_gain=None if check is None else check["gain"],
        halves_se=None if check is None else check["standard_error"],
        halves_said_undo=None if check is None else check["undone"],
    )
    return fitted


def cell(*grid_point):
    classifier = sklearn_plc.PLCClassifier
    if not hasattr(classifier, "_unpatched_fit"):
        classifier._unpatched_fit = classifier.fit
    classifier.fit = _fit_and_capture  # each task's own CAPTURED
    CAPTURED.clear()
    row = probe.cell(*grid_point)
    row.update(CAPTURED)
    return row


if __name__ == "__main__":
    grid = [
        (d, m, n, s, {})
        for d in ("bin-a", "bin-b", "bin-c")
        for m in (
            "random-forest",
            "extra-trees",
            "gradient-boosting",
            "logistic",
            "5-nn",
        )
        for n in ("clean", "I-25", "III-25", "U30")
        for s in (100, 101, 102, 103, 104)
    ]
    start = time.time()
    rows = Parallel(n_jobs=2)(delayed(cell)(*g) for g in grid)
    with open(sys.argv[1], "w") as log:
        json.dump({"runs": rows, "wall_s": time.time() - start}, log)
    print("wall", time.time() - start)
