"""
Reviewing the disputed labels: PLC's list, a person's check, and a refit
========================================================================

PLC ranks the labels it disputes (``review_list()``) by what a reviewer's
answer would change in the final fit: labels it kept against its models, or
relabelled on thin evidence, before labels it relabelled with strong evidence.
A reviewer checks the top of that list, keeps or corrects each label, and PLC
is fitted again with those labels marked ``trusted``: they are never changed
or left out, and they train every model that corrects the rest.

Here the reviewer is simulated by the clean labels of digits with 35%
feature-dependent (PMD Type-I) noise. The plot compares three orders of review
at the same budget: PLC's list, cleanlab's label-quality ranking on the same
noisy labels, and a random order.
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
# One fit on the noisy labels. Each row is a disputed label: the given and the
# suggested class, what PLC did, and its evidence, ranked by ``change_proba``,
# the chance that the true label differs from what the final fit trained on.

plc = PLCClassifier(random_state=0).fit(X_train, y_noisy)
rows = plc.review_list()
print(rows.head(5)[["sample", "given", "suggested", "action", "change_proba"]])
wrong = y_noisy != y_train
already_right = plc.labels_ == y_train
likely_wrong = plc.review_list(rank="likelihood")  # the audit ranking
for name, ranked in (("change", rows), ("likelihood", likely_wrong)):
    top = ranked["position"][:100]
    print(
        f"rank={name!r}: {wrong[top].mean():.0%} of the first 100 are wrong labels "
        f"(noise rate {wrong.mean():.0%}); PLC already trains on the right label "
        f"for {already_right[top].mean():.0%} of them"
    )

# %%
# Three orders of review
# ----------------------
# PLC's list, then the labels it does not dispute; cleanlab's label quality on
# out-of-fold probabilities of the same model; a random order.

listed = np.asarray(rows["position"])
rest = np.setdiff1d(np.arange(len(y_noisy)), listed)
proba = cross_val_predict(
    RandomForestClassifier(random_state=0), X_train, y_noisy, method="predict_proba"
)
orders = {
    "PLC's review list": np.concatenate([listed, rest]),
    "cleanlab's label quality": np.argsort(get_label_quality_scores(y_noisy, proba)),
    "random": np.random.RandomState(0).permutation(len(y_noisy)),
}

# %%
# Review, then fit again
# ----------------------
# A reviewer checks the first ``budget`` labels of an order: each gets its true
# label (kept where it was right, corrected where it was wrong) and is marked
# ``trusted``.

budgets = [0, 100, 200, 400]
accuracy = {}
for name, order in orders.items():
    accuracy[name] = []
    for budget in budgets:
        reviewed = order[:budget]
        y_reviewed = y_noisy.copy()
        y_reviewed[reviewed] = y_train[reviewed]
        trusted = np.zeros(len(y_noisy), dtype=bool)
        trusted[reviewed] = True
        model = PLCClassifier(random_state=0)
        model.fit(X_train, y_reviewed, trusted=trusted if budget else None)
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
