"""An undo confirmed out of bag on an ensemble weighed as the final fit is: a probe.

Question (issue "Ahead of cleanlab"): with folds, an undo is confirmed on fold models
fitted as the final fit weighs ("Judging the undo on the model that ships"). Now
that ``"auto"`` judges a forest of 100 or more trees out of bag, its runs had no
such confirmation. ``REJUDGE_WEIGHED_OUT_OF_BAG`` in ``sklearn_plc._refit_run``
fits one ensemble, weighed, on every sample but the validation samples, and asks
the verdict again on its predictions of them. Only the runs that out-of-bag PLC
undid can change, so this reruns the 100-tree forest's undone runs of
``oob_again_{dev,unseen,fresh}.json`` (``oob`` there is what ``"auto"`` now does)
with the switch on, and puts them back in.

The switch is not in the library (the probe lost on both checks): apply
``benchmarks/studies/oob_rejudge.patch`` first (``git apply``), then, from the
repository root with ``PYTHONPATH=.``::

    python benchmarks/studies/oob_rejudge.py run OUT.json dev|unseen|fresh
    python benchmarks/studies/oob_rejudge.py summary dev|unseen|fresh LOG.json

Logs: ``oob_rejudge_{dev,unseen,fresh}.json``.
"""

import sys
import warnings
from collections import defaultdict

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import (
    RUN_KEY,
    fit_plc_row,
    load_rows,
    patched,
    run_and_dump,
    run_or_summarise,
    with_standard_and_cleanlab,
)


def before(what):
    return load_rows(f"benchmarks/studies/oob_again_{what}.json")


def run_job(dataset, model, noise, seed, check):
    import sklearn_plc._refit_run as refit_run

    warnings.simplefilter("ignore")
    drawn = with_standard_and_cleanlab(dataset, model, noise, seed, check)
    (X_train, _, y_train, _, y_noisy, make), row, score = drawn
    y_noisy = np.asarray(y_noisy)
    with patched(refit_run, REJUDGE_WEIGHED_OUT_OF_BAG=True):
        row["rejudged"] = fit_plc_row(
            make, X_train, y_noisy, seed, y_train, score, confidence="oob"
        )
    return row


def run(out, what, variants=()):
    jobs = [
        (*(row[k] for k in RUN_KEY), what != "dev")
        for row in before(what)
        if row["model"] == "random-forest" and row["oob"]["termination"] == "undone"
    ]
    run_and_dump(run_job, jobs, out)


def summary(what, path):
    rerun = {tuple(r[k] for k in RUN_KEY): r for r in load_rows(path)}
    cells = defaultdict(lambda: ([], [], []))
    for row in before(what):
        if row["model"] != "random-forest":
            continue
        after = rerun.get(tuple(row[k] for k in RUN_KEY))
        final = after["rejudged"] if after else row["oob"]
        cell = cells[(row["dataset"], row["noise"])]
        cell[0].append(100 * (row["oob"]["acc"] - row["std"]))
        cell[1].append(100 * (final["acc"] - row["std"]))
        cell[2].append(100 * (row["cleanlab"] - row["std"]))
        if after:
            print(
                *(row[k] for k in RUN_KEY),
                f"{100 * (row['oob']['acc'] - row['std']):+.1f} -> "
                f"{100 * (after['rejudged']['acc'] - row['std']):+.1f}",
                after["rejudged"]["termination"],
            )
    for name, column in (("oob", 0), ("rejudged", 1)):
        gains = np.array([[np.mean(c[column]), np.mean(c[2])] for c in cells.values()])
        print(
            f"{name}: {len(gains)} cells, mean {gains[:, 0].mean():+.2f}, within 0.5 "
            f"{(gains[:, 0] >= -0.5).sum()}, >= cleanlab "
            f"{(gains[:, 0] >= gains[:, 1]).sum()}"
        )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
