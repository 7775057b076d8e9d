"""Which rows of a tables log have a class whose noisy majority is wrong.

The tables' target "every cell ≥ Standard − 0.5, except the rows where the noisy
majority is wrong" was counted, until the runs kept the counts
(``noisy_confusion``), as if only the 70% PMD rows had a wrong majority. This
redraws the noise of every cell of an older log (the draws are deterministic:
the same posterior, seed and noise cell), adds the counts, and prints the
targets as ``python -m benchmarks tables`` now counts them, with the rows left
out and, per row, the classes whose given labels are most often another class.
No model is fitted.

Usage (from the repository root, ``PYTHONPATH=.``)::

    python benchmarks/studies/majority_rows.py LOG.json [OUT.json]

``OUT.json``: the log with the counts added.
"""

import json
import sys
import warnings

import numpy as np

sys.path.insert(0, ".")


def with_counts(log):
    """The log's rows, each drawn cell with its ``noisy_confusion``."""
    from benchmarks import tables as T

    split = log["meta"].get("split", 0)
    posteriors = {}
    for row in log["runs"]:
        if row["kind"] != "cell" or "unreachable" in row:
            continue
        name = row["dataset"]
        if name not in posteriors:
            posteriors[name] = T._posterior(name, 1, split)[1]
        y_train = T._data(name, split)[2]
        y_noisy, rate, _ = T.NOISE_CELLS[row["noise"]].corrupt(
            y_train, posteriors[name], row["seed"]
        )
        if abs(rate - row["noise_rate"]) > 1e-9:
            # a net's posterior (digits, mnist1d) is not bit-for-bit reproducible
            print(
                f"  {name} {row['noise']} seed {row['seed']}: noise rate drawn "
                f"{rate:.4f}, logged {row['noise_rate']:.4f}"
            )
        n_classes = int(np.max(y_train)) + 1
        row["noisy_confusion"] = T.noisy_confusion(y_train, y_noisy, n_classes).tolist()
    return log


def main(path, out=None):
    from benchmarks import tables as T

    warnings.simplefilter("ignore")
    with open(path) as file:
        log = with_counts(json.load(file))
    summary = T.summarise(log["runs"])
    figures = T.target_figures(summary)
    print("rows left out (classes whose noisy majority is wrong), PLC − Standard:")
    for (name, noise), entry in sorted(summary.items()):
        wrong = entry.get("majority_wrong_classes")
        if wrong and "PLC" in entry:
            print(f"  {name} {noise}: classes {wrong}, {100 * T._gain(entry):+.1f}")
    print(
        f"within 0.5 of Standard: {figures['all_within_half_point']} of "
        f"{figures['all_cells']} cells; {figures['majority_right_within_half_point']} "
        f"of the {figures['majority_right_cells']} cells whose noisy majority is right"
    )
    for (name, noise), entry in sorted(summary.items()):
        if (
            "PLC" in entry
            and not entry.get("majority_wrong_classes")
            and T.NOISE_CELLS[noise].scaling == "keep"
            and T._gain(entry) < -0.005
        ):
            print(f"  missed: {name} {noise} {100 * T._gain(entry):+.1f}")
    if out:
        with open(out, "w") as file:
            json.dump(log, file)


if __name__ == "__main__":
    main(*sys.argv[1:])
