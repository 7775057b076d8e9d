"""Can a held-out signal tell a model too weak to judge from one worth correcting?

Question (issue "Ahead of cleanlab", item 2): on a few dev cells, compare the
precision of the first-pass relabelling candidates (ratio below 0.3 or 0.5 on
3-fold out-of-fold probabilities; precision against the clean labels) with
signals PLC could read without clean labels: the held-out agreement with the
given labels, the mean top probability, the candidates' top probability, the
share of candidates that a second 3-fold split also names (and with the same
class), the share an in-sample model still disputes, and the share of the
held-out disagreements that confident learning counts as wrong labels
(``estimated_label_errors`` over the disagreements: ``noise_share``).

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/studies/weak_model_signals.py

Prints one line per cell and cut; the figures are in docs/development.md.
"""

import warnings

import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from benchmarks.studies.common import estimated_label_errors, noisy_cell

CELLS = (
    ("wine-rf", "base", "I+U30", 100),
    ("wine-rf", "base", "I-35", 100),
    ("wine", "base", "III-35", 101),
    ("wine", "base", "I-35", 102),
    ("synthetic-5-rf", "base", "I-35", 100),
    ("synthetic-5-rf", "base", "I+U30", 100),
    ("weak20-dev", "logistic", "I-35", 102),
    ("weak20-dev", "logistic", "III-35", 101),
    ("binary-gb-dev", "gradient-boosting", "I-25", 101),
    ("binary-gb-dev", "gradient-boosting", "U30", 100),
    ("hard-dev", "5-nn", "I-35", 100),
    ("hard-dev", "random-forest", "I-35", 100),
)


def _held_out(make, X, y, seed):
    folds = StratifiedKFold(3, shuffle=True, random_state=seed)
    return cross_val_predict(make(), X, y, cv=folds, method="predict_proba")


def main():
    warnings.simplefilter("ignore")
    for cell in CELLS:
        X, _, y_clean, _, y_noisy, make = noisy_cell(*cell)
        rows = np.arange(y_noisy.shape[0])
        probas = [_held_out(make, X, y_noisy, seed) for seed in (0, 1)]
        ratios = [p[rows, y_noisy] / p.max(axis=1) for p in probas]
        tops = [p.argmax(axis=1) for p in probas]
        top_proba = probas[0].max(axis=1)
        in_sample = make().fit(X, y_noisy).predict_proba(X)
        in_sample_ratio = in_sample[rows, y_noisy] / in_sample.max(axis=1)
        agreement = np.mean(tops[0] == y_noisy)
        noise_share = estimated_label_errors(probas[0], y_noisy) / np.sum(
            tops[0] != y_noisy
        )
        for cut in (0.3, 0.5):
            candidates = ratios[0] < cut
            stable = candidates & (ratios[1] < cut) & (tops[0] == tops[1])
            print(
                " ".join(map(str, cell)),
                f"K={probas[0].shape[1]} cut={cut} agreement={agreement:.2f} "
                f"mean_top={top_proba.mean():.2f} "
                f"candidates={candidates.mean():.2f} "
                f"precision={np.mean(tops[0][candidates] == y_clean[candidates]):.2f} "
                f"top|candidates={top_proba[candidates].mean():.2f} "
                f"stable={stable.sum() / candidates.sum():.2f} "
                f"precision|stable={np.mean(tops[0][stable] == y_clean[stable]):.2f} "
                f"in_sample_disputes={np.mean(in_sample_ratio[candidates] < cut):.2f} "
                f"noise={np.mean(y_noisy != y_clean):.2f} "
                f"noise_share={noise_share:.2f}",
            )


if __name__ == "__main__":
    main()
