"""Small torch modules and offline image-like data for the benchmarks and tests."""

import numpy as np
from torch import nn


class Conv1DNet(nn.Module):
    """A small 1-D CNN for mnist1d (inputs of shape (n, length), float32)."""

    def __init__(self, n_classes=10, channels=32):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, channels, 5, padding=2),
            nn.ReLU(),
            nn.Conv1d(channels, channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv1d(channels, channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool1d(4),
            nn.Flatten(),
        )
        self.classify = nn.Linear(4 * channels, n_classes)

    def forward(self, X):
        return self.classify(self.features(X.unsqueeze(1)))


class Conv2DNet(nn.Module):
    """A small 2-D CNN for 8×8 digit images (inputs of shape (n, 1, 8, 8))."""

    def __init__(self, n_classes=10, channels=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, 2 * channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        self.classify = nn.Linear(2 * channels * 16, n_classes)

    def forward(self, X):
        return self.classify(self.features(X))


def _adam_logits_net(module, *, max_epochs, lr, batch_size, device, **params):
    """A skorch classifier for a logits `module`: Adam, shuffled, no valid split."""
    import torch
    from skorch import NeuralNetClassifier

    return NeuralNetClassifier(
        module,
        criterion=torch.nn.CrossEntropyLoss,
        optimizer=torch.optim.Adam,
        lr=lr,
        batch_size=batch_size,
        max_epochs=max_epochs,
        train_split=None,
        iterator_train__shuffle=True,
        verbose=0,
        device=device,
        **params,
    )


def make_mnist1d_net(max_epochs=30, channels=32, lr=2e-3, device="cpu"):
    """The skorch 1-D CNN every mnist1d benchmark trains (Adam, batch 128, shuffled)."""
    return _adam_logits_net(
        Conv1DNet,
        max_epochs=max_epochs,
        lr=lr,
        batch_size=128,
        device=device,
        module__channels=channels,
    )


def make_digits_net(max_epochs=30, lr=2e-3, device="cpu"):
    """The skorch 2-D CNN for 8×8 digit images (Adam, batch 64, shuffled, logits)."""
    return _adam_logits_net(
        Conv2DNet, max_epochs=max_epochs, lr=lr, batch_size=64, device=device
    )


def make_mnist1d(n_samples=10_000, seed=0):
    """mnist1d built locally (never downloaded): ``X_train, X_test, y_train, y_test``.

    mnist1d seeds NumPy's global generator; its state is restored afterwards.
    """
    from mnist1d.data import get_dataset_args, make_dataset

    state = np.random.get_state()  # noqa: NPY002 (mnist1d seeds the global RNG)
    try:
        args = get_dataset_args()
        args.num_samples, args.seed = n_samples, seed
        data = make_dataset(args)
    finally:
        np.random.set_state(state)  # noqa: NPY002
    as_float = np.float32
    return (
        data["x"].astype(as_float),
        data["x_test"].astype(as_float),
        data["y"].astype(np.int64),
        data["y_test"].astype(np.int64),
    )
