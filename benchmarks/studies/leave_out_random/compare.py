"""Compare unseen-style logs run by run.

``python compare.py VARIANT.json[.gz] LIBRARY.json[.gz] [LIBRARY.json[.gz] ...]``

Later library logs override earlier ones for the same (dataset, model, noise, seed).
Prints the runs that move, then per-cell means (PLC - Standard, cleanlab - PLC) for
the cells the variant ran, before and after.
"""

import collections
import gzip
import json
import sys

import numpy as np


def runs(path):
    return {
        (r["dataset"], r["model"], r["noise"], r["seed"]): r
        for r in json.load((gzip.open if path.endswith(".gz") else open)(path, "rt"))[
            "runs"
        ]
    }


def main(variant_path, *library_paths):
    variant = runs(variant_path)
    library = {}
    for path in library_paths:
        library.update(runs(path))
    missing = [k for k in variant if k not in library]
    if missing:
        print(f"{len(missing)} variant runs have no library run, e.g. {missing[:3]}")
    keys = [k for k in variant if k in library]
    moved = [k for k in keys if abs(variant[k]["plc"] - library[k]["plc"]) > 1e-12]
    print(f"{len(moved)} of {len(keys)} runs move")
    for k in sorted(moved):
        v, lib = variant[k], library[k]
        print(
            f"  {k}: {lib['termination']} -> {v['termination']}, set aside "
            f"{lib['n_set_aside']} -> {v['n_set_aside']}, PLC-Std "
            f"{100 * (lib['plc'] - lib['standard']):+.1f} -> "
            f"{100 * (v['plc'] - v['standard']):+.1f} (cleanlab "
            f"{100 * (lib['cleanlab'] - lib['standard']):+.1f})"
        )
    paired = [100 * (variant[k]["plc"] - library[k]["plc"]) for k in keys]
    print(
        f"paired {np.mean(paired):+.3f} +- "
        f"{np.std(paired, ddof=1) / np.sqrt(len(paired)):.3f} a run"
    )
    cells = collections.defaultdict(list)
    for k in keys:
        cells[k[:3]].append(k)
    for clean in (True, False):
        chosen = {c: ks for c, ks in cells.items() if (c[2] == "clean") == clean}
        if not chosen:
            continue
        out = {}
        for name, source in (("library", library), ("variant", variant)):
            gain = [
                np.mean([100 * (source[k]["plc"] - source[k]["standard"]) for k in ks])
                for ks in chosen.values()
            ]
            ahead = [
                np.mean([100 * (library[k]["cleanlab"] - source[k]["plc"]) for k in ks])
                for ks in chosen.values()
            ]
            out[name] = (
                np.mean(gain),
                sum(g >= -0.5 for g in gain),
                sum(a > 1 for a in ahead),
            )
        cl = np.mean(
            [
                np.mean(
                    [
                        100 * (library[k]["cleanlab"] - library[k]["standard"])
                        for k in ks
                    ]
                )
                for ks in chosen.values()
            ]
        )
        label = "clean" if clean else "noisy"
        print(f"{label} ({len(chosen)} cells; cleanlab {cl:+.2f}):")
        for name, (g, within, ahead) in out.items():
            print(
                f"  {name}: {g:+.2f} a cell, {within} within 0.5, "
                f"cleanlab ahead by > 1 in {ahead}"
            )
    by_cell = collections.defaultdict(list)
    for k in moved:
        by_cell[k[:3]].append(k)
    for c in sorted(by_cell):
        allk = cells[c]
        before = np.mean(
            [100 * (library[k]["plc"] - library[k]["standard"]) for k in allk]
        )
        after = np.mean(
            [100 * (variant[k]["plc"] - variant[k]["standard"]) for k in allk]
        )
        cl = np.mean(
            [100 * (library[k]["cleanlab"] - library[k]["standard"]) for k in allk]
        )
        print(f"  cell {c}: {before:+.2f} -> {after:+.2f} (cleanlab {cl:+.2f})")


if __name__ == "__main__":
    main(*sys.argv[1:])
