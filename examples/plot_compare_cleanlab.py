"""
PLC, Standard training and cleanlab on the same noisy labels
============================================================

The same base model, split and noise for every method. Test labels are clean.
cleanlab's ``CleanLearning`` finds likely label errors from out-of-fold
probabilities and trains on the rest. PLC relabels them instead.
"""

import matplotlib.pyplot as plt
from cleanlab.classification import CleanLearning
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_plc import PLCClassifier
from sklearn_plc.noise import PMDNoise

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.3, stratify=y, random_state=0
)
_, y_noisy = PMDNoise("II", noise_level=0.35, random_state=0).fit_resample(
    X_train, y_train
)
base = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))

methods = {
    "Standard": clone(base),
    "PLC": PLCClassifier(clone(base), random_state=0),
    "cleanlab": CleanLearning(clone(base), seed=0),
    "clean labels": clone(base),
}
scores = {}
for name, model in methods.items():
    labels = y_train if name == "clean labels" else y_noisy
    scores[name] = model.fit(X_train, labels).score(X_test, y_test)
    print(f"{name:12s} test accuracy {scores[name]:.3f}")

fig, ax = plt.subplots(figsize=(6, 3))
ax.barh(list(scores), list(scores.values()), color=["C7", "C0", "C1", "C2"])
ax.set_xlim(0.5, 1)
ax.set_xlabel("clean test accuracy")
fig.tight_layout()
