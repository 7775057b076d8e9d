"""Compare a variant's benchmark runs with the library's, run by run.

``python compare.py --library LOG [LOG ...] --variant LOG [LOG ...] [--cleanlab LOG
...] [--scope SHARE [--errors N]]``: logs of ``python -m benchmarks tables`` or
``unseen`` (several per side are pooled, e.g. one per seed range). Prints the runs
that moved, then for each side and set (clean, noisy): the mean gain a cell over
Standard (points), the cells within 0.5, the worst cell, the cells where cleanlab
leads by more than a point (cleanlab's runs from ``--cleanlab``, by default the
library's logs: its runs are not repeatable), the median cost over a plain fit of the
runs that ran past the gates, and the paired difference a run. ``--scope SHARE``
compares the scoped test instead: the variant's run where the library's run was
refused as too weak with a ``random_label_share`` above SHARE (most of its disputes
look drawn at random), the library's otherwise (the library's logs must record the
share); ``--errors N``: above SHARE by more than N standard errors of the share (read
from the variant's run, which must record one).
"""

import argparse
import collections
import json
from pathlib import Path

import numpy as np

GATES = ("not_memorising", "too_weak_to_judge")


def _tables_run(row):
    plc, standard = row["PLC"], row["Standard"]
    return (row["dataset"], row["noise"], row["seed"]), {
        "plc": plc["accuracy"],
        "standard": standard["accuracy"],
        "cleanlab": row.get("cleanlab", {}).get("accuracy"),
        "termination": plc["termination"],
        "cost": plc["fit_s"] / standard["fit_s"],
        "share": (plc.get("memorisation") or {}).get("random_label_share"),
        "share_error": (plc.get("memorisation") or {}).get(
            "random_label_share_standard_error"
        ),
    }


def _unseen_run(row):
    return (row["dataset"], row["model"], row["noise"], row["seed"]), {
        "plc": row["plc"],
        "standard": row["standard"],
        "cleanlab": row.get("cleanlab"),
        "termination": row["termination"],
        "cost": row["plc_s"] / row["standard_s"],
        "share": (row.get("memorisation") or {}).get("random_label_share"),
        "share_error": (row.get("memorisation") or {}).get(
            "random_label_share_standard_error"
        ),
    }


def load(paths):
    """Every run of the logs at `paths`, by (dataset, [model,] noise, seed)."""
    runs = {}
    for path in paths:
        for row in json.loads(Path(path).read_text())["runs"]:
            if "PLC" in row and row.get("kind") == "cell":
                key, run = _tables_run(row)
            elif "plc" in row:
                key, run = _unseen_run(row)
            else:  # the tables' clean-label bounds
                continue
            runs[key] = run
    return runs


def points(run, method="plc"):
    return 100 * (run[method] - run["standard"])


def scoped(library_run, variant_run, share, errors=0.0):
    """The variant's run where the library refused a run whose disputes look random."""
    # a refused run's share is logged; its standard error, by the variant alone
    seen, error = library_run["share"], variant_run["share_error"] or 0.0
    looks_random = seen is not None and seen - errors * error > share  # NaN: no
    refused = library_run["termination"] == "too_weak_to_judge"
    return variant_run if refused and looks_random else library_run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", nargs="+", required=True)
    parser.add_argument("--variant", nargs="+", required=True)
    parser.add_argument("--cleanlab", nargs="+")
    parser.add_argument("--scope", type=float)
    parser.add_argument("--errors", type=float, default=0.0)
    args = parser.parse_args()
    library, variant = load(args.library), load(args.variant)
    if args.scope is not None:
        variant = {
            k: scoped(library[k], run, args.scope, args.errors)
            for k, run in variant.items()
        }
    cleanlab = load(args.cleanlab) if args.cleanlab else library
    keys = sorted(k for k in variant if k in library)
    moved = [k for k in keys if abs(variant[k]["plc"] - library[k]["plc"]) > 1e-9]
    print(f"{len(keys)} runs matched, {len(moved)} moved")
    for k in moved:
        print(
            f"  {k}: {library[k]['termination']} -> {variant[k]['termination']}, "
            f"{points(library[k]):+.1f} -> {points(variant[k]):+.1f}"
        )
    for name, runs in (("library", library), ("variant", variant)):
        for clean in (True, False):
            cells = collections.defaultdict(list)
            for k in keys:
                if (k[-2] == "clean") == clean:
                    cells[k[:-1]].append(k)
            if not cells:
                continue
            gains = np.array(
                [np.mean([points(runs[k]) for k in ks]) for ks in cells.values()]
            )
            ahead = sum(
                np.mean([points(cleanlab[k], "cleanlab") for k in ks]) - gain > 1
                for ks, gain in zip(cells.values(), gains, strict=True)
                if all(
                    k in cleanlab and cleanlab[k]["cleanlab"] is not None for k in ks
                )
            )
            print(
                f"{name} {'clean' if clean else 'noisy'}: {gains.mean():+.3f} a cell, "
                f"{np.sum(gains >= -0.5)} of {len(gains)} within 0.5, worst "
                f"{gains.min():+.2f}, cleanlab ahead by > 1 in {ahead}"
            )
        past_gates = [
            runs[k]["cost"] for k in keys if runs[k]["termination"] not in GATES
        ]
        terminations = collections.Counter(runs[k]["termination"] for k in keys)
        print(
            f"{name}: median cost of the runs past the gates "
            f"{np.median(past_gates):.1f}x a plain fit; {dict(terminations)}"
        )
    paired = [points(variant[k]) - points(library[k]) for k in keys]
    error = np.std(paired) / np.sqrt(len(paired))
    print(f"paired {np.mean(paired):+.3f} +- {error:.3f} a run")


if __name__ == "__main__":
    main()
