from dataclasses import dataclass

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.linear_model import LogisticRegression


@dataclass
class NoisyBlobs:
    X: np.ndarray
    y_clean: np.ndarray
    y_noisy: np.ndarray
    margin: np.ndarray  # η_u − η_s of the clean posterior: 0 at the boundary


def _pmd_like_blobs(n_samples, seed):
    """Two Gaussian blobs whose labels flip more often near the class boundary.

    The flip probability is the paper's Type-I profile τ = ½(1 − g²) on the clean
    posterior's margin g, scaled to flip about a quarter of the labels.
    """
    rng = np.random.RandomState(seed)
    X, y = make_blobs(
        n_samples=n_samples, centers=[[-1.5, 0], [1.5, 0]], random_state=seed
    )
    posterior = LogisticRegression().fit(X, y).predict_proba(X)
    margin = np.abs(posterior[:, 1] - posterior[:, 0])
    flip_probability = 0.5 * (1 - margin**2)
    flip_probability *= 0.25 / flip_probability.mean()
    flipped = rng.uniform(size=n_samples) < np.minimum(flip_probability, 1)
    y_noisy = np.where(flipped, 1 - y, y)
    return NoisyBlobs(X, y, y_noisy, margin)


@pytest.fixture
def noisy_blobs():
    return _pmd_like_blobs(600, seed=0)


def softmax_posterior(n_samples, n_classes, seed, scale=2.0):
    """A random posterior: the softmax of Gaussian logits times `scale`."""
    rng = np.random.RandomState(seed)
    logits = scale * rng.normal(size=(n_samples, n_classes))
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    return proba / proba.sum(axis=1, keepdims=True)


@pytest.fixture(scope="session")
def make_posterior():
    """The `softmax_posterior` factory, for tests that need their own posterior."""
    return softmax_posterior


@pytest.fixture(scope="session")
def posterior():
    """20,000 samples, 5 classes; each labelled with its most likely class."""
    proba = softmax_posterior(20_000, 5, seed=0)
    return proba, proba.argmax(axis=1)


def top_two_and_gap(proba):
    order = np.argsort(-proba, axis=1)
    rows = np.arange(proba.shape[0])
    return (
        order[:, 0],
        order[:, 1],
        proba[rows, order[:, 0]] - proba[rows, order[:, 1]],
    )


@pytest.fixture(scope="session")
def top_two():
    """``(top class, runner-up, gap)`` of each row, by sorting (a reference)."""
    return top_two_and_gap


@pytest.fixture
def without_halves_check(monkeypatch):
    """The run alone, without the check on halves: for tests of the run's own
    fits and verdicts (the check refits the whole run on each half)."""
    from sklearn_plc._paths.refit import RefitPath

    monkeypatch.setattr(RefitPath, "_checks", lambda self, *args: False)
