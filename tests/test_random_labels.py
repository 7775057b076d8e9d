"""Labels drawn at random told apart from a model's confusions (_random_labels)."""

import numpy as np
import pytest

from sklearn_plc._random_label_detector import (
    PROBABILITY_FLOOR,
    probability_resolution,
    random_label_posterior,
    random_label_share,
    random_labels,
)


def model_proba(n_samples, n_classes, rng):
    """Peaked probabilities, one row a sample."""
    return rng.dirichlet(np.full(n_classes, 0.3), size=n_samples)


def confused_labels(proba, rng):
    """Labels drawn from each sample's probabilities outside its top class."""
    outside = proba.copy()
    outside[np.arange(len(proba)), proba.argmax(axis=1)] = 0
    outside /= outside.sum(axis=1, keepdims=True)
    return np.array([rng.choice(len(row), p=row) for row in outside])


def random_other_labels(proba, rng):
    """Labels drawn at random among the classes other than each top class."""
    n_samples, n_classes = proba.shape
    offset = rng.randint(1, n_classes, size=n_samples)
    return (proba.argmax(axis=1) + offset) % n_classes


def test_labels_drawn_from_the_models_confusion_have_no_random_share():
    rng = np.random.RandomState(0)
    proba = model_proba(4000, 8, rng)
    share, _, _ = random_label_posterior(proba, confused_labels(proba, rng), 1e-3)
    assert share < 0.05


def test_labels_drawn_at_random_have_a_random_share_near_one():
    rng = np.random.RandomState(0)
    proba = model_proba(4000, 8, rng)
    share, _, _ = random_label_posterior(proba, random_other_labels(proba, rng), 1e-3)
    assert share > 0.9


def _mixture(rng, n_samples=1000, share=0.6):
    """Peaked probabilities, and labels drawn at random for `share` of them."""
    proba = model_proba(n_samples, 8, rng)
    labels = confused_labels(proba, rng)
    drawn = rng.rand(n_samples) < share
    labels[drawn] = random_other_labels(proba[drawn], rng)
    return proba, labels


def test_the_shares_standard_error_is_its_spread_over_draws():
    rng = np.random.RandomState(0)
    draws = np.array([random_label_share(*_mixture(rng)) for _ in range(60)])
    shares, errors = draws[:, 0], draws[:, 1]
    assert np.mean(errors) == pytest.approx(np.std(shares), rel=0.25)


def test_a_share_read_from_uninformative_probabilities_has_a_wide_error():
    # a model that knows nothing: nearly uniform probabilities, labels at random
    rng = np.random.RandomState(0)
    proba = rng.dirichlet(np.full(8, 200.0), size=1500)
    _, error = random_label_share(proba, rng.randint(8, size=1500))
    assert error > 0.2
    assert random_label_share(*_mixture(rng, n_samples=1500))[1] < 0.03


def test_no_share_is_read_in_two_classes():
    proba = np.tile([0.3, 0.7], (10, 1))
    assert random_label_share(proba, np.zeros(10, dtype=int)) == (None, None)


def test_the_share_follows_the_mixture_of_the_two():
    rng = np.random.RandomState(0)
    proba = model_proba(6000, 8, rng)
    labels = confused_labels(proba, rng)
    drawn = rng.rand(len(labels)) < 0.3
    labels[drawn] = random_other_labels(proba[drawn], rng)
    share, disputed, posterior = random_label_posterior(proba, labels, 1e-3)
    assert share == pytest.approx(0.3, abs=0.06)
    assert disputed.all() and posterior.shape == (len(labels),)
    # the labels spotted are mostly the drawn ones
    spotted, _ = random_labels(proba, labels)
    assert drawn[spotted].mean() > 0.8 and spotted.sum() > 0.5 * drawn.sum()


def test_the_top_class_is_never_disputed():
    rng = np.random.RandomState(0)
    proba = model_proba(500, 5, rng)
    labels = proba.argmax(axis=1)
    share, disputed, posterior = random_label_posterior(proba, labels, 1e-3)
    assert share == 0.0 and not disputed.any() and posterior.size == 0
    assert not random_labels(proba, labels)[0].any()


def test_two_classes_read_nothing():
    rng = np.random.RandomState(0)
    proba = model_proba(500, 2, rng)
    spotted, share = random_labels(proba, 1 - proba.argmax(axis=1))
    assert share is None and not spotted.any()


def test_hard_probabilities_carry_no_evidence():
    # one vote a sample: every dispute has probability 0, as likely confused
    # as drawn at random once floored at the resolution
    rng = np.random.RandomState(0)
    votes = rng.randint(6, size=300)
    proba = np.eye(6)[votes]
    labels = (votes + rng.randint(1, 6, size=300)) % 6
    spotted, share = random_labels(proba, labels)
    assert np.isnan(share) and not spotted.any()


def test_the_resolution_of_vote_counts_is_one_vote():
    rng = np.random.RandomState(0)
    proba = rng.multinomial(5, np.full(4, 0.25), size=200) / 5
    assert probability_resolution(proba) == pytest.approx(0.2)


def test_continuous_probabilities_are_floored():
    proba = np.array([[0.9999999, 1e-7, 0.0], [0.2, 0.3, 0.5]])
    assert probability_resolution(proba) == PROBABILITY_FLOOR


def test_the_inputs_are_not_changed():
    rng = np.random.RandomState(0)
    proba = model_proba(300, 5, rng)
    labels = random_other_labels(proba, rng)
    copies = proba.copy(), labels.copy()
    random_labels(proba, labels)
    np.testing.assert_array_equal(proba, copies[0])
    np.testing.assert_array_equal(labels, copies[1])
