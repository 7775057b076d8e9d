"""
Progressive correction on 2-D data (the paper's Figure 1)
=========================================================

Two Gaussian blobs get PMD noise: labels flip often near the boundary and rarely
far from it. PLC, around its default random forest, first corrects the labels in
the region where the forest's held-out (out-of-fold) probabilities are confident,
then relaxes its threshold round by round.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_blobs

from sklearn_plc import PLCClassifier
from sklearn_plc.metrics import label_recovery_report
from sklearn_plc.noise import PMDNoise
from sklearn_plc.plotting import plot_correction_history, plot_corrections_2d

X, y = make_blobs(
    n_samples=800, centers=[[-2, 0], [2, 0]], cluster_std=1.2, random_state=0
)
noise = PMDNoise("I", noise_level=0.3, random_state=0)
_, y_noisy = noise.fit_resample(X, y)
plc = PLCClassifier(random_state=0).fit(X, y_noisy)

# %%
# What PLC fixed
# --------------
# Black rings: corrupted labels that PLC restored. Red rings: corrupted labels
# still wrong. Magenta crosses: right labels made wrong. The shaded area is where the
# final classifier is confident enough to correct a label at the initial
# threshold ``theta``; the first corrections happen there.
#
# The labels still wrong after PLC lie near the clean boundary (x = 0), where
# the noise made the two classes equally likely: there no model can tell a flip
# from a right label.

fig, ax = plt.subplots(figsize=(7, 5))
plot_corrections_2d(
    X, y, y_noisy, plc.labels_, estimator=plc, threshold=plc.theta, ax=ax
)
print(label_recovery_report(y, y_noisy, plc))

# %%
# Round by round
# --------------
# The threshold grows only after a quiet pass. With the clean labels at hand,
# each round's corrections split into right and wrong ones.

plot_correction_history(plc, y_noisy=y_noisy, y_clean=y)
