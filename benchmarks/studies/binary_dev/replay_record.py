"""Replay undo rules on the `record` logs (both judges' evidence on every run).

`record.patch` (at 0a3e88c, `PLC_VARIANT=record`) defers the validation fifth's
final undo to the check on halves and applies no undo of the halves', so every
run logs the kept (or contested) result's test accuracy with the fifth's and the
halves' gain and standard error. An undone run is replayed at the plain fit's
accuracy (the Standard column). Rules: `library` (either judge at one standard
error), `joint:BAR` (kept runs: `(z_fifth + z_halves) / sqrt(2) < -BAR`; the
fifth's own undo still first, contested runs as the library).

    python replay_record.py two-class record_bin.json.gz base3.json.gz
    python replay_record.py dev tables_dev_record.json.gz LIBRARY.json CLEANLAB.json
"""

import gzip
import json
import sys
from collections import defaultdict

import numpy as np

RULES = ("library", "joint:0.547", "joint:1")
KEPT = ("converged", "max_iter")


def _load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as handle:
        return json.load(handle)["runs"]


def _z(gain, standard_error):
    if gain is None:
        return None
    if not standard_error:
        return 0.0 if gain == 0 else float(np.sign(gain)) * 9.0
    return gain / standard_error


def undoes(rule, kept, fifth_undo, halves_undo, z_fifth, z_halves, too_few):
    if rule == "library" or not kept or z_fifth is None or z_halves is None:
        return fifth_undo or halves_undo
    bar = float(rule.split(":")[1])
    return fifth_undo or too_few or (z_fifth + z_halves) / np.sqrt(2) < -bar


def _two_class(rows):
    out = {}
    for r in rows:
        kept = r["termination"] in KEPT
        z5, zh = (
            _z(r["fifth_gain"], r["fifth_se"]),
            _z(r["halves_gain"], r["halves_se"]),
        )
        too_few = bool(r["halves_said_undo"]) and r["halves_gain"] == 0
        fifth_undo, halves_undo = bool(r["deferred"]), bool(r["halves_said_undo"])
        key = (r["dataset"], r["model"], r["noise"], r["seed"])
        out[key] = {
            rule: r["standard"]
            if undoes(rule, kept, fifth_undo, halves_undo, z5, zh, too_few)
            else r["plc"]
            for rule in RULES
        }
        out[key].update(standard=r["standard"], cleanlab=r["cleanlab"])
    return out


def _dev(rows, cleanlab_rows):
    cleanlab = {
        (x["dataset"], x["noise"], x["seed"]): x["cleanlab"]["accuracy"]
        for x in cleanlab_rows
        if x["kind"] == "cell" and "cleanlab" in x
    }
    out = {}
    for x in rows:
        if x["kind"] != "cell" or "PLC" not in x:
            continue
        p = x["PLC"]
        kept = p["termination"] in KEPT and p.get("holdout_compared") == "corrections"
        z5 = (
            _z(p.get("holdout_gain"), p.get("holdout_standard_error")) if kept else None
        )
        zh = _z(p.get("halves_gain"), p.get("halves_standard_error"))
        halves_undo = bool(p.get("halves_undone"))
        too_few = halves_undo and p.get("halves_gain") == 0
        fifth_undo = kept and z5 is not None and z5 < -1.0
        key = (x["dataset"], x["noise"], x["seed"])
        standard = x["Standard"]["accuracy"]
        out[key] = {
            rule: standard
            if undoes(rule, kept, fifth_undo, halves_undo, z5, zh, too_few)
            else p["accuracy"]
            for rule in RULES
        }
        out[key].update(standard=standard, cleanlab=cleanlab.get(key, np.nan))
    return out


def summary(runs, rule):
    cells, clean_cells = defaultdict(list), defaultdict(list)
    for key, run in runs.items():
        target = clean_cells if "clean" in key else cells
        target[key[:-1]].append(
            (
                100 * (run[rule] - run["standard"]),
                100 * (run["cleanlab"] - run["standard"]),
            )
        )
    noisy = np.array([np.mean(v, axis=0) for v in cells.values()])
    clean = np.array([np.mean(v, axis=0)[0] for v in clean_cells.values()])
    print(
        f"{rule:12s} noisy {noisy[:, 0].mean():+.2f}, cleanlab ahead by > 1 "
        f"{int(np.sum(noisy[:, 1] - noisy[:, 0] > 1))} of {len(noisy)} | clean "
        f"{clean.mean():+.2f}, within 0.5 {int(np.sum(clean >= -0.5))} of {len(clean)}"
    )


if __name__ == "__main__":
    if sys.argv[1] == "two-class":
        runs = _two_class(_load(sys.argv[2]))
    else:
        runs = _dev(_load(sys.argv[2]), _load(sys.argv[4]))
    for rule in RULES:
        summary(runs, rule)
