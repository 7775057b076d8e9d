"""
Tabular data: a pipeline, a grid search, and scoring on clean labels
====================================================================

``PLCClassifier`` is an ordinary scikit-learn classifier. It sits in a
``Pipeline``, and ``GridSearchCV`` tunes its threshold ``theta`` and step ``beta``.
To measure what the corrections are worth, inject the noise inside an
imbalanced-learn pipeline: the noise step runs on the training folds only, so each
fold trains on noisy labels and is scored on clean ones.
"""

import numpy as np
from imblearn.pipeline import make_pipeline as make_noisy_pipeline
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_plc import PLCClassifier
from sklearn_plc.noise import PMDNoise

X, y = load_digits(return_X_y=True)

# %%
# Train on noisy labels, score on clean ones
# ------------------------------------------
# PMD noise flips labels near the class boundaries to the runner-up class.

base = Pipeline(
    [("scale", StandardScaler()), ("model", LogisticRegression(max_iter=300))]
)
plc = PLCClassifier(base, confidence="in_sample", random_state=0)
noise = PMDNoise("I", noise_level=0.35, random_state=0)

standard_scores = cross_val_score(make_noisy_pipeline(noise, base), X, y, cv=3)
plc_scores = cross_val_score(make_noisy_pipeline(noise, plc), X, y, cv=3)
print(f"Standard on noisy labels: {standard_scores.mean():.3f}")
print(f"PLC on noisy labels:      {plc_scores.mean():.3f}")

# %%
# Look at what PLC changed
# ------------------------
_, y_noisy = noise.fit_resample(X, y)
plc.fit(X, y_noisy)
print(f"label purity {np.mean(y_noisy == y):.3f} -> {np.mean(plc.labels_ == y):.3f}")
for record in plc.history_[:6]:
    print(record)

# %%
# Grid search over ``theta`` and ``beta``
# ---------------------------------------
# Without clean validation labels, the cross-validated score measures agreement
# with the *noisy* labels. Inject the noise in the pipeline, as above, when you
# have clean labels to score on.

pipe = Pipeline(
    [
        ("scale", StandardScaler()),
        (
            "plc",
            PLCClassifier(
                LogisticRegression(max_iter=300), confidence="in_sample", random_state=0
            ),
        ),
    ]
)
grid = GridSearchCV(pipe, {"plc__theta": [0.2, 0.4], "plc__beta": [0.1, 0.3]}, cv=3)
grid.fit(X, y_noisy)
print(grid.best_params_)
