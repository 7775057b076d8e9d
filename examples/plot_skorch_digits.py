"""
A CNN on 8×8 digits with skorch: correction inside one training run
===================================================================

Wrapped around a skorch ``NeuralNetClassifier``, PLC corrects the labels after
every epoch of a single training run. It uses the softmax outputs recorded during
that epoch's own training passes, so it costs no extra forward pass. The warm-up
ends when the net's agreement with the labels levels off.
"""

import matplotlib.pyplot as plt
import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from skorch import NeuralNetClassifier
from torch import nn

from sklearn_plc import PLCClassifier
from sklearn_plc.noise import PMDNoise

X, y = load_digits(return_X_y=True)
images = (X / 16).astype(np.float32).reshape(-1, 1, 8, 8)
X_train, X_test, y_train, y_test = train_test_split(
    images, y, test_size=0.3, stratify=y, random_state=0
)
noise = PMDNoise("I", noise_level=0.35, random_state=0)
_, y_noisy = noise.fit_resample(X_train.reshape(len(X_train), -1), y_train)


class SmallCNN(nn.Module):
    """Two convolutions and a linear layer; returns logits for 10 classes."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        self.classify = nn.Linear(32 * 16, 10)

    def forward(self, X):
        return self.classify(self.features(X))


def make_net():
    return NeuralNetClassifier(
        SmallCNN,
        criterion=nn.CrossEntropyLoss,  # the module returns logits
        optimizer=torch.optim.Adam,
        lr=3e-3,
        batch_size=64,
        max_epochs=25,
        train_split=None,
        iterator_train__shuffle=True,  # skorch keeps the data's order by default
        verbose=0,
        device="cuda" if torch.cuda.is_available() else "cpu",
    )


torch.manual_seed(0)
plain = make_net().fit(X_train, y_noisy)
plc = PLCClassifier(make_net(), random_state=0).fit(X_train, y_noisy)
print(f"plain net: test accuracy {np.mean(plain.predict(X_test) == y_test):.3f}")
print(
    f"PLC:       test accuracy {np.mean(plc.predict(X_test) == y_test):.3f}, "
    f"warm-up {plc.warm_up_} epochs, label purity "
    f"{np.mean(y_noisy == y_train):.3f} -> {np.mean(plc.labels_ == y_train):.3f}"
)

# %%
# Corrections per epoch, and how many were right
# ----------------------------------------------
# ``corrections_`` logs every change. With clean labels at hand, which you have
# only in an experiment, each epoch's precision follows.

log = plc.corrections_
right = log["to"] == y_train[log["sample"]]
epochs = np.arange(plc.n_iter_)
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.bar(
    epochs + 1,
    np.bincount(log["round"][right], minlength=plc.n_iter_),
    label="corrected to the clean label",
)
ax.bar(
    epochs + 1,
    np.bincount(log["round"][~right], minlength=plc.n_iter_),
    bottom=np.bincount(log["round"][right], minlength=plc.n_iter_),
    label="corrected to a wrong label",
)
ax.axvline(plc.warm_up_ + 0.5, color="k", ls="--", label="end of warm-up")
ax.set_xlabel("epoch")
ax.set_ylabel("labels corrected")
ax.legend()
fig.tight_layout()
