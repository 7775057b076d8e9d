"""
Reviewing labels: PLC's list, a person's check, and a refit
===========================================================

PLC ranks every training sample (``review_list()``) by where a reviewer's
answer would move its models most: the samples its models are least sure of
first, whether it disputes their labels or not, and labels it relabelled with
strong evidence late, as a review would only confirm them. A reviewer checks
the top of that list, keeps or corrects each label, and PLC
is fitted again with those labels marked ``trusted``: they are never changed
or left out, and the refit draws the validation samples and folds the fit
before it drew, so it differs only where the reviewed labels do.

Here the reviewer is simulated by the clean labels of digits with 35%
feature-dependent (PMD Type-I) noise, and reviews in batches, each from the
last refit's list. The plot compares three orders of review at the same
budget: PLC's list, cleanlab's label-quality ranking on the same labels, and a
random order.
"""

import matplotlib.pyplot as plt
import numpy as np
from cleanlab.rank import get_label_quality_scores
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_predict, train_test_split

from sklearn_plc import PLCClassifier
from sklearn_plc.noise import PMDNoise

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.3, stratify=y, random_state=0
)
noise = PMDNoise("I", noise_level=0.35, random_state=0)
_, y_noisy = noise.fit_resample(X_train, y_train)

# %%
# The list
# --------
# One fit on the noisy labels. Each row is a sample: the given and the
# suggested class, whether PLC disputes the label, what it did, and its
# evidence, ranked by ``top_proba``, the models' surety of their top class,
# lowest first.

plc = PLCClassifier(random_state=0).fit(X_train, y_noisy)
rows = plc.review_list()
print(rows.head(5)[["sample", "given", "suggested", "disputed", "action", "top_proba"]])
wrong = y_noisy != y_train
already_right = plc.labels_ == y_train
likely_wrong = plc.review_list(rank="likelihood")  # the audit ranking
for name, ranked in (("uncertainty", rows), ("likelihood", likely_wrong)):
    top = ranked["position"][:100]
    print(
        f"rank={name!r}: {wrong[top].mean():.0%} of the first 100 are wrong labels "
        f"(noise rate {wrong.mean():.0%}); PLC already trains on the right label "
        f"for {already_right[top].mean():.0%} of them"
    )

# %%
# Three orders of review, in a loop
# ---------------------------------
# A reviewer checks labels in batches: the first 100 of an order, then PLC is
# fitted again with them marked ``trusted`` (each gets its true label, kept
# where it was right, corrected where it was wrong), and the next batch comes
# from the new fit's own order, up to 200 and 400. A refit's ``review_list()``
# lists the labels already reviewed last (``reviewed``) and ranks the rest with
# what the reviewed labels taught its models. PLC's order is its list;
# cleanlab's is its label quality on out-of-fold probabilities of the same
# model, recomputed on the reviewed labels; the third order is random.


def cleanlab_order(labels):
    """Every sample, lowest label quality first (out-of-fold forest probabilities)."""
    proba = cross_val_predict(
        RandomForestClassifier(random_state=0), X_train, labels, method="predict_proba"
    )
    return np.argsort(get_label_quality_scores(labels, proba), kind="stable")


budgets = [0, 100, 200, 400]
random_order = np.random.RandomState(0).permutation(len(y_noisy))
accuracy = {}
for name in ("PLC's review list", "cleanlab's label quality", "random"):
    accuracy[name] = [plc.score(X_test, y_test)]
    reviewed = np.zeros(0, dtype=int)
    y_reviewed = y_noisy.copy()
    model = plc
    for budget in budgets[1:]:
        if name == "random":
            order = random_order
        elif name == "PLC's review list":
            order = np.asarray(model.review_list()["position"])
        else:
            order = cleanlab_order(y_reviewed)
        new = order[~np.isin(order, reviewed)][: budget - len(reviewed)]
        reviewed = np.concatenate([reviewed, new])
        y_reviewed[new] = y_train[new]  # the reviewer's answers
        trusted = np.zeros(len(y_noisy), dtype=bool)
        trusted[reviewed] = True
        model = PLCClassifier(random_state=0).fit(X_train, y_reviewed, trusted=trusted)
        accuracy[name].append(model.score(X_test, y_test))
    print(f"{name}: " + ", ".join(f"{a:.3f}" for a in accuracy[name]))

fig, ax = plt.subplots(figsize=(6, 4))
for name, values in accuracy.items():
    ax.plot(budgets, values, marker="o", label=name)
ax.set_xlabel("labels reviewed")
ax.set_ylabel("test accuracy of PLC refitted")
ax.legend()
fig.tight_layout()
plt.show()
