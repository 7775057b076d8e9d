"""The i.i.d. noise maths (sklearn_plc/noise/_iid.py): transition matrices."""

import numpy as np

from sklearn_plc.noise import (
    AsymmetricNoise,
    UniformNoise,
    asymmetric_transition_matrix,
    flip_labels_with_matrix,
)


def test_uniform_off_diagonal_entries_are_equal_within_sampling_error(posterior):
    noise = UniformNoise(0.4, random_state=0)
    noise.corrupt(posterior[1])
    off_diagonal = noise.transition_matrix_[~np.eye(5, dtype=bool)]
    np.testing.assert_allclose(off_diagonal, 0.1, atol=0.015)
    np.testing.assert_allclose(noise.transition_matrix_.sum(axis=1), 1.0)


def test_asymmetric_noise_only_produces_the_mapped_pairs(posterior):
    noise = AsymmetricNoise(0.3, mapping={0: 3, 2: 1}, random_state=0)
    noise.corrupt(posterior[1])
    allowed = np.eye(5, dtype=bool)
    allowed[0, 3] = allowed[2, 1] = True
    assert (noise.transition_matrix_[~allowed] == 0).all()
    assert (
        noise.transition_matrix_[0, 3] > 0.25 and noise.transition_matrix_[2, 1] > 0.25
    )


def test_asymmetric_default_maps_each_class_to_the_next():
    matrix = asymmetric_transition_matrix([0, 1, 2], 0.2)
    np.testing.assert_allclose(matrix, [[0.8, 0.2, 0], [0, 0.8, 0.2], [0.2, 0, 0.8]])


def test_a_degenerate_transition_matrix_is_followed_exactly():
    y = np.repeat([0, 1, 2], 50)
    swap = [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
    np.testing.assert_array_equal(flip_labels_with_matrix(y, swap), (y + 1) % 3)
