import itertools

import numpy as np
import pytest
from imblearn.pipeline import make_pipeline as make_imblearn_pipeline
from sklearn.datasets import load_digits, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_plc import PLCClassifier
from sklearn_plc.noise import (
    AsymmetricNoise,
    HybridNoise,
    PMDNoise,
    TransitionMatrixNoise,
    UniformNoise,
    asymmetric_transition_matrix,
    estimate_posterior,
    flip_labels_with_matrix,
    pmd_flip_labels,
    pmd_tau,
    uniform_transition_matrix,
)

N_LARGE = 20_000


def softmax_posterior(n_samples, n_classes, seed, scale=2.0):
    rng = np.random.RandomState(seed)
    logits = scale * rng.normal(size=(n_samples, n_classes))
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    return proba / proba.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def posterior():
    proba = softmax_posterior(N_LARGE, 5, seed=0)
    return proba, proba.argmax(axis=1)


def top_two_and_gap(proba):
    order = np.argsort(-proba, axis=1)
    rows = np.arange(proba.shape[0])
    return (
        order[:, 0],
        order[:, 1],
        proba[rows, order[:, 0]] - proba[rows, order[:, 1]],
    )


# --- noise levels ------------------------------------------------------------------


@pytest.mark.parametrize("noise_type", ["I", "II", "III"])
@pytest.mark.parametrize("noise_level", [0.35, 0.70])
def test_pmd_realised_rate_is_within_1_5_points(posterior, noise_type, noise_level):
    proba, y = posterior
    noise = PMDNoise(noise_type, noise_level, random_state=0)
    noise.corrupt(y, proba)
    assert abs(noise.noise_rate_ - noise_level) <= 0.015


@pytest.mark.parametrize("noise_level", [0.30, 0.60])
def test_uniform_realised_rate_is_within_1_5_points(posterior, noise_level):
    noise = UniformNoise(noise_level, random_state=0)
    noise.corrupt(posterior[1])
    assert abs(noise.noise_rate_ - noise_level) <= 0.015


@pytest.mark.parametrize("noise_level", [0.30, 0.45])
def test_asymmetric_realised_rate_is_within_1_5_points(posterior, noise_level):
    noise = AsymmetricNoise(noise_level, random_state=0)
    noise.corrupt(posterior[1])
    assert abs(noise.noise_rate_ - noise_level) <= 0.015


def test_transition_matrix_realised_rate_is_within_1_5_points(posterior):
    matrix = uniform_transition_matrix(5, 0.4)
    noise = TransitionMatrixNoise(matrix, random_state=0)
    noise.corrupt(posterior[1])
    assert abs(noise.noise_rate_ - 0.4) <= 0.015


# --- PMD semantics ---------------------------------------------------------------


@pytest.mark.parametrize(
    "noise_type, expected",
    [
        ("I", [0.5, 0.5 - 0.5 * 0.25, 0.0]),
        ("II", [1.0, 1 - 0.125, 0.0]),
        ("III", [1.0, 1 - (0.125 + 0.25 + 0.5) / 3, 0.0]),
    ],
)
def test_tau_follows_the_papers_formulas(noise_type, expected):
    np.testing.assert_allclose(pmd_tau([0.0, 0.5, 1.0], noise_type), expected)


def test_pmd_flips_only_from_the_top_class_to_the_runner_up(posterior):
    proba, y = posterior
    y_noisy = pmd_flip_labels(y, proba, noise_level=0.5, random_state=0)
    top, second, _ = top_two_and_gap(proba)
    flipped = y_noisy != y
    assert flipped.any()
    np.testing.assert_array_equal(y[flipped], top[flipped])
    np.testing.assert_array_equal(y_noisy[flipped], second[flipped])


def test_pmd_never_flips_a_sample_not_labelled_with_its_top_class(posterior):
    proba, y = posterior
    _, second, _ = top_two_and_gap(proba)
    y_other = second  # every label is the runner-up, never u
    noise = PMDNoise(noise_level=0.0, random_state=0)
    np.testing.assert_array_equal(noise.corrupt(y_other, proba), y_other)
    mixed = np.where(np.arange(y.size) % 2 == 0, y, second)
    y_noisy = PMDNoise(noise_level=0.3, random_state=0).corrupt(mixed, proba)
    np.testing.assert_array_equal(y_noisy[1::2], mixed[1::2])


@pytest.mark.parametrize("noise_type", ["I", "II", "III"])
def test_pmd_flip_rate_decreases_as_the_margin_grows(posterior, noise_type):
    proba, y = posterior
    noise = PMDNoise(noise_type, 0.35, random_state=0)
    noise.corrupt(y, proba)
    _, _, gap = top_two_and_gap(proba)
    bins = np.quantile(gap, np.linspace(0, 1, 6))
    which = np.clip(np.searchsorted(bins, gap, side="right") - 1, 0, 4)
    rates = [noise.noisy_mask_[which == b].mean() for b in range(5)]
    assert all(later <= earlier + 0.02 for earlier, later in itertools.pairwise(rates))
    assert rates[0] > rates[-1] + 0.1


@pytest.mark.parametrize("noise_type", ["I", "II", "III"])
def test_pmd_flip_probability_is_the_scaled_tau(posterior, noise_type):
    proba, y = posterior
    noise = PMDNoise(noise_type, 0.35, random_state=0)
    noise.corrupt(y, proba)
    _, _, gap = top_two_and_gap(proba)
    expected = np.minimum(1.0, noise.scale_ * pmd_tau(gap, noise_type))
    np.testing.assert_allclose(noise.flip_probability_, expected, atol=1e-12)
    assert noise.flip_probability_.mean() == pytest.approx(0.35, rel=1e-6)


def test_pmd_level_is_exact_on_a_sharp_posterior():
    # Regression: margins near 1 give τ near 1e-13; the scale must still be solved
    # exactly (a root-finder's tolerance tied to 1 / min τ overshot to 50%).
    proba = softmax_posterior(N_LARGE, 10, seed=2, scale=12.0)
    proba[:100] = np.eye(10)[proba[:100].argmax(axis=1)] * (1 - 9e-14) + 1e-14
    noise = PMDNoise("I", 0.35, random_state=0)
    noise.corrupt(proba.argmax(axis=1), proba)
    assert noise.flip_probability_.mean() == pytest.approx(0.35, rel=1e-9)


def test_pmd_works_for_two_classes():
    proba = softmax_posterior(N_LARGE, 2, seed=1)
    y = proba.argmax(axis=1)
    noise = PMDNoise("II", 0.3, random_state=0)
    y_noisy = noise.corrupt(y, proba)
    assert abs(noise.noise_rate_ - 0.3) <= 0.015
    np.testing.assert_array_equal(y_noisy[noise.noisy_mask_], 1 - y[noise.noisy_mask_])


def test_pmd_fit_resample_estimates_the_posterior_out_of_fold():
    X, y = load_digits(return_X_y=True)
    noise = PMDNoise("I", 0.35, random_state=0)
    X_out, _ = noise.fit_resample(X, y)
    assert X_out is X
    assert abs(noise.noise_rate_ - 0.35) <= 0.03
    assert noise.transition_matrix_.shape == (10, 10)


def test_estimate_posterior_rows_are_distributions():
    X, y = make_classification(
        n_samples=200, n_classes=3, n_informative=4, random_state=0
    )
    proba = estimate_posterior(X, y, random_state=0)
    assert proba.shape == (200, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_unreachable_pmd_level_names_the_largest_reachable_level():
    proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [1.0, 0.0]])
    y = np.array([0, 0, 0, 0])  # sample 2 is not labelled u, sample 3 has τ = 0
    with pytest.raises(ValueError, match=r"at most 0.5000 of the labels can flip"):
        pmd_flip_labels(y, proba, noise_level=0.7, classes=[0, 1])


# --- i.i.d. semantics ------------------------------------------------------------


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


# --- reproducibility, inputs ------------------------------------------------------


@pytest.mark.parametrize(
    "make_noise",
    [
        lambda: UniformNoise(0.3, random_state=7),
        lambda: AsymmetricNoise(0.3, random_state=7),
        lambda: PMDNoise("III", 0.35, random_state=7),
    ],
)
def test_same_random_state_gives_identical_output(make_noise):
    X, y = load_digits(return_X_y=True)
    _, first = make_noise().fit_resample(X, y)
    _, second = make_noise().fit_resample(X, y)
    np.testing.assert_array_equal(first, second)


def test_inputs_are_not_mutated(posterior):
    proba, y = posterior
    proba_copy, y_copy = proba.copy(), y.copy()
    PMDNoise(noise_level=0.35, random_state=0).corrupt(y, proba)
    UniformNoise(0.3, random_state=0).corrupt(y)
    np.testing.assert_array_equal(proba, proba_copy)
    np.testing.assert_array_equal(y, y_copy)


def test_string_labels_work(posterior):
    proba, y = posterior
    names = np.array(["ant", "bee", "cat", "dog", "eel"])
    y_noisy = PMDNoise(noise_level=0.35, random_state=0).corrupt(names[y], proba)
    assert set(y_noisy) <= set(names)
    reference = PMDNoise(noise_level=0.35, random_state=0).corrupt(y, proba)
    np.testing.assert_array_equal(y_noisy, names[reference])
    asym = AsymmetricNoise(0.3, mapping={"ant": "bee"}, random_state=0)
    assert set(asym.corrupt(names[y])) == set(names)


# --- pipelines -------------------------------------------------------------------


def test_noise_step_trains_on_noisy_labels_and_scores_on_clean_ones():
    X, y = make_classification(n_samples=400, random_state=0)
    # Every training label flipped: a model trained on them is inverted, so its
    # accuracy is near 0 on clean held-out labels (near 1 on noisy ones).
    model = make_imblearn_pipeline(
        UniformNoise(1.0, random_state=0), LogisticRegression()
    )
    assert cross_val_score(model, X, y, cv=4).mean() < 0.2


def test_pmd_noise_and_plc_in_one_cross_validated_pipeline():
    X, y = load_digits(return_X_y=True)
    model = make_imblearn_pipeline(
        PMDNoise("I", 0.35, random_state=0),
        PLCClassifier(
            LogisticRegression(max_iter=300), confidence="in_sample", random_state=0
        ),
    )
    scores = cross_val_score(model, X / 16, y, cv=3)
    assert scores.mean() > 0.8


def test_hybrid_noise_overlays_iid_noise_on_pmd_noise():
    X, y = load_digits(return_X_y=True)
    pmd = PMDNoise("I", 0.35, random_state=0)
    hybrid = HybridNoise(pmd, UniformNoise(0.3, random_state=0))
    _, y_noisy = hybrid.fit_resample(X, y)
    assert hybrid.pmd_.noise_rate_ == pytest.approx(0.35, abs=0.03)
    assert hybrid.noise_rate_ > hybrid.pmd_.noise_rate_ + 0.1
    np.testing.assert_array_equal(hybrid.noisy_mask_, y_noisy != y)


def test_hybrid_noise_corrupt_with_a_known_posterior(posterior):
    proba, y = posterior
    hybrid = HybridNoise(
        PMDNoise(noise_level=0.35, random_state=0), AsymmetricNoise(0.3, random_state=0)
    )
    hybrid.corrupt(y, proba)
    assert 0.45 < hybrid.noise_rate_ < 0.6


# --- bad input -----------------------------------------------------------------


@pytest.mark.parametrize("noise_level", [-0.1, 1.5])
def test_noise_level_outside_zero_one_is_rejected_by_estimators(noise_level):
    with pytest.raises(InvalidParameterError, match="'noise_level' parameter"):
        UniformNoise(noise_level).corrupt([0, 1, 0])


@pytest.mark.parametrize("noise_level", [-0.1, 1.5])
def test_noise_level_outside_zero_one_is_rejected_by_functions(noise_level):
    with pytest.raises(ValueError, match=r"noise_level must be a number in \[0, 1\]"):
        uniform_transition_matrix(3, noise_level)


def test_non_square_transition_matrix_is_rejected():
    with pytest.raises(ValueError, match="must be square"):
        TransitionMatrixNoise([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]]).corrupt([0, 1])


def test_transition_matrix_of_the_wrong_size_is_rejected():
    with pytest.raises(ValueError, match="there are 3 classes"):
        TransitionMatrixNoise(np.eye(2)).corrupt([0, 1, 2])


def test_non_stochastic_transition_matrix_is_rejected():
    with pytest.raises(ValueError, match=r"row 1 sums to 0\.9"):
        TransitionMatrixNoise([[1.0, 0.0], [0.4, 0.5]]).corrupt([0, 1])


def test_negative_transition_matrix_is_rejected():
    with pytest.raises(ValueError, match=">= 0"):
        TransitionMatrixNoise([[1.2, -0.2], [0.0, 1.0]]).corrupt([0, 1])


def test_posterior_of_the_wrong_shape_is_rejected():
    with pytest.raises(ValueError, match=r"proba must have shape .*\(3, 2\)"):
        PMDNoise().corrupt([0, 1, 1], np.full((3, 3), 1 / 3))


def test_posterior_with_negative_entries_is_rejected():
    with pytest.raises(ValueError, match="non-negative"):
        PMDNoise().corrupt([0, 1], [[1.2, -0.2], [0.5, 0.5]])


def test_posterior_rows_not_summing_to_one_are_rejected():
    with pytest.raises(ValueError, match=r"row 0 sums to 0\.8"):
        PMDNoise().corrupt([0, 1], [[0.6, 0.2], [0.5, 0.5]])


def test_mapping_to_an_unknown_class_is_rejected():
    with pytest.raises(ValueError, match="'wolf', which is not among the classes"):
        AsymmetricNoise(0.3, mapping={"cat": "wolf"}).corrupt(["cat", "dog"])


def test_mapping_a_class_to_itself_is_rejected():
    with pytest.raises(ValueError, match="sends class 'cat' to itself"):
        AsymmetricNoise(0.3, mapping={"cat": "cat"}).corrupt(["cat", "dog"])
