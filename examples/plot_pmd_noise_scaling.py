"""
PMD noise: the two ways to set the noise level
==============================================

PMD noise flips a sample labelled with its most likely class ``u`` to the
runner-up ``s`` with a probability that falls as the clean posterior's margin
``g = η_u − η_s`` grows. The noise function ``τ(g)`` gives the shape; the noise
level is set by one constant, in one of two ways:

- ``scaling="keep"`` (the default, as the authors' scripts made the paper's
  noisy labels): the probability of keeping ``u``, ``1 − τ``, is divided by a
  factor ``F``. Every sample can flip, near the boundary more often, and the
  flip probability stays below ½ wherever ``1 − τ > F / 2``.
- ``scaling="flip"`` (the paper's sentence "we multiply τ by a constant"):
  ``min(1, c τ)``. On a confident posterior, ``c`` must be large to reach 35%,
  which saturates a band at the boundary: there most labels are the wrong class,
  and the three types become nearly the same noise.

The posterior here is the out-of-fold estimate on sklearn's digits, as the
benchmarks use it.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from sklearn_plc.noise import PMDNoise, estimate_posterior

X, y = load_digits(return_X_y=True)
posterior = estimate_posterior(X, y, random_state=0)
ordered = np.sort(posterior, axis=1)
margin = ordered[:, -1] - ordered[:, -2]
labelled_u = posterior.argmax(axis=1) == y
order = np.argsort(margin[labelled_u])

fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
for ax, scaling in zip(axes, ("keep", "flip"), strict=True):
    for noise_type, colour in zip(("I", "II", "III"), ("C0", "C1", "C2"), strict=True):
        noise = PMDNoise(noise_type, 0.35, scaling=scaling, random_state=0)
        noise.corrupt(y, posterior)
        ax.plot(
            margin[labelled_u][order],
            noise.flip_probability_[labelled_u][order],
            color=colour,
            label=f"Type-{noise_type} (scale {noise.scale_:.3g})",
        )
    if scaling == "keep":
        scripts = PMDNoise("I", noise_level=None, factor=1.2, random_state=0)
        scripts.corrupt(y, posterior)
        ax.plot(
            margin[labelled_u][order],
            scripts.flip_probability_[labelled_u][order],
            color="C0",
            linestyle=":",
            label="Type-I, scripts' F = 1.2",
        )
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_title(f'scaling="{scaling}", 35% noise')
    ax.set_xlabel("margin g = η_u − η_s")
    ax.legend(fontsize=7)
axes[0].set_ylabel("P(flip)")
fig.tight_layout()
plt.show()

# %%
# Share of the samples whose label is more likely wrong than right after the
# noise (flip probability above ½):
for scaling in ("keep", "flip"):
    noise = PMDNoise("I", 0.35, scaling=scaling, random_state=0)
    noise.corrupt(y, posterior)
    print(f"{scaling}: {np.mean(noise.flip_probability_ > 0.5):.1%}")
