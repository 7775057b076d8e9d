"""Two logs of one benchmark command, run by run: ``python -m benchmarks compare``.

A change to the library is read on the development protocol by running the
same command before and after it (the ``tables``, ``quick`` or ``unseen``
command's ``.json`` log, ``--dev`` for choosing) and pairing the runs: same
dataset, model, noise and seed, so that a run's split, noisy labels and
Standard fit are the same on both sides and only PLC can differ. The paired
mean and its standard error say whether a change moves PLC beyond the draw;
the cell lines give the issues' targets on each side.
"""

import gzip
import json
from collections import defaultdict

import numpy as np

from .unseen import CLEAN

# the scores a run may have, by the name the unseen check's rows use
SCORES = ("accuracy", "balanced")


def _open(path):
    path = str(path)
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def _unseen_row(row):
    scores = {"accuracy": {}, "balanced": {}}
    for method in ("standard", "plc", "cleanlab"):
        if method in row:
            scores["accuracy"][method] = row[method]
        if f"{method}_balanced" in row:
            scores["balanced"][method] = row[f"{method}_balanced"]
    return scores


def _tables_row(row):
    scores = {"accuracy": {}, "balanced": {}}
    for method, name in (
        ("standard", "Standard"),
        ("plc", "PLC"),
        ("cleanlab", "cleanlab"),
    ):
        if name in row:
            scores["accuracy"][method] = row[name]["accuracy"]
            if "balanced_accuracy" in row[name]:
                scores["balanced"][method] = row[name]["balanced_accuracy"]
    return scores


def load_runs(path):
    """A log's runs by ``(dataset, model, noise, seed)``: each method's scores.

    Reads the ``.json`` log (or a gzipped one) of ``tables``, ``quick`` or
    ``unseen``; a tables run's model is part of its dataset's name (``""``).

    Returns
    -------
    dict
        ``{(dataset, model, noise, seed): {"accuracy": {method: score},
        "balanced": {...}}}`` with methods ``standard``, ``plc`` and, where the
        log has them, ``cleanlab``; runs without PLC are left out.
    """
    with _open(path) as log:
        runs = json.load(log)["runs"]
    loaded = {}
    for row in runs:
        if "kind" in row:  # a tables log: its clean-label bounds have no PLC
            if row["kind"] != "cell" or "PLC" not in row:
                continue
            key = (row["dataset"], "", row["noise"], row["seed"])
            loaded[key] = _tables_row(row)
        elif "plc" in row:
            key = (row["dataset"], row["model"], row["noise"], row["seed"])
            loaded[key] = _unseen_row(row)
    if not loaded:
        raise SystemExit(
            f"compare: {path} holds no PLC run; give the .json log of a tables, "
            "quick or unseen run."
        )
    return loaded


def _cell_lines(runs, score, label):
    """The target figures over cells (means over seeds) of one side."""
    cells = defaultdict(list)
    for (dataset, model, noise, _), run in runs.items():
        cells[(dataset, model, noise)].append(run[score])
    lines = []
    for clean in (True, False):
        gains, cleanlab_gains = [], []
        for (_, _, noise), scores in cells.items():
            if (noise == CLEAN) != clean:
                continue
            gains.append(100 * np.mean([s["plc"] - s["standard"] for s in scores]))
            if all("cleanlab" in s for s in scores):
                cleanlab_gains.append(
                    100 * np.mean([s["cleanlab"] - s["standard"] for s in scores])
                )
            else:
                cleanlab_gains.append(np.nan)
        if not gains:
            continue
        gains, cleanlab_gains = np.array(gains), np.array(cleanlab_gains)
        line = (
            f"{label}, {'clean' if clean else 'noisy'} cells ({len(gains)}): "
            f"PLC − Standard {gains.mean():+.2f} a cell, ≥ Standard − 0.5 in "
            f"{int(np.sum(gains >= -0.5))}, worst {gains.min():+.2f}"
        )
        if not np.isnan(cleanlab_gains).all():
            compared = ~np.isnan(cleanlab_gains)
            line += (
                f"; cleanlab {np.nanmean(cleanlab_gains):+.2f}, ahead by > 1 point in "
                f"{int(np.sum(cleanlab_gains[compared] - gains[compared] > 1))}"
            )
        lines.append(line)
    return lines


def compare_logs(before_path, after_path):
    """Markdown: PLC after − before, run by run, and each side's cell figures.

    Cleanlab's scores, which do not depend on the library, are taken from
    whichever log has them (``--methods Standard PLC`` runs leave them out).
    """
    before, after = load_runs(before_path), load_runs(after_path)
    common = [key for key in after if key in before]
    if not common:
        raise SystemExit(
            f"compare: {before_path} and {after_path} share no run (dataset, model, "
            "noise and seed); compare two runs of one command."
        )
    for key in common:
        for score in SCORES:
            for source, target in ((before, after), (after, before)):
                if "cleanlab" in source[key][score]:
                    target[key][score].setdefault(
                        "cleanlab", source[key][score]["cleanlab"]
                    )
    lines = [
        f"Runs in both logs: {len(common)} (before {len(before)}, after "
        f"{len(after)}). PLC after − before, points a run (± its standard error):",
        "",
    ]
    for score in SCORES:
        keys = [
            k for k in common if "plc" in before[k][score] and "plc" in after[k][score]
        ]
        if not keys:
            continue
        change = 100 * np.array(
            [after[k][score]["plc"] - before[k][score]["plc"] for k in keys]
        )
        moved = np.abs(change) > 1e-9
        error = change.std(ddof=1) / np.sqrt(change.size) if change.size > 1 else np.nan
        lines.append(
            f"- {score}: {change.mean():+.3f} ± {error:.3f} ({int(moved.sum())} of "
            f"{change.size} runs moved)"
        )
        by_group = defaultdict(list)
        for key, value in zip(keys, change, strict=True):
            dataset, model, noise, _ = key
            by_group[(model or dataset, noise == CLEAN)].append(value)
        groups = [
            f"{name} {'clean' if clean else 'noisy'} {np.mean(values):+.2f}"
            for (name, clean), values in sorted(by_group.items())
            if np.any(np.abs(values) > 1e-9)
        ]
        if groups:
            lines.append(
                f"  - by model (or dataset), where a run moved: {'; '.join(groups)}"
            )
        lines += [
            f"  - {line}"
            for label, runs in (("before", before), ("after", after))
            for line in _cell_lines({k: runs[k] for k in keys}, score, label)
        ]
    return "\n".join(lines)
