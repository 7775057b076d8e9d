"""The PMD maths (sklearn_plc/noise/_pmd.py): noise functions, both scalings."""

import itertools

import numpy as np
import pytest
from sklearn.datasets import load_digits

from sklearn_plc.noise import (
    PMDNoise,
    estimate_posterior,
    pmd_flip_labels,
    pmd_flip_probability,
    pmd_keep_probability,
    pmd_tau,
)
from sklearn_plc.noise._pmd import PMD_TYPES


@pytest.fixture(scope="module")
def digits_posterior():
    X, y = load_digits(return_X_y=True)
    return estimate_posterior(X, y, random_state=0), y


def keep_formula(proba, labels, noise_type, scale):
    """The issue's formula for scaling="keep", written out sample by sample."""
    expected = np.zeros(labels.shape[0])
    for i, row in enumerate(proba):
        order = np.argsort(-row, kind="stable")
        if labels[i] != order[0]:
            continue  # not labelled u: never flipped
        g = row[order[0]] - row[order[1]]
        tau = {
            "I": -0.5 * g**2 + 0.5,
            "II": 1 - g**3,
            "III": 1 - (g**3 + g**2 + g) / 3,
        }[noise_type]
        keep = max(1 - tau, 0.5) if noise_type == "I" else 1 - tau
        expected[i] = 1 - keep / scale if scale >= 1 else scale * tau
    return expected


# --- the noise functions -----------------------------------------------------------


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


def test_type_one_keep_probability_is_floored_at_one_half():
    np.testing.assert_allclose(pmd_keep_probability([0.0, 1.0], "I"), [0.5, 1.0])


# --- scaling="keep" (the scripts' form, the default) -----------------------------


@pytest.mark.parametrize("noise_type", ["I", "II", "III"])
@pytest.mark.parametrize("noise_level", [0.05, 0.35, 0.70])
def test_keep_matches_the_scripts_formula_on_every_sample(
    make_posterior, noise_type, noise_level
):
    proba = make_posterior(3000, 4, seed=5)
    rng = np.random.RandomState(0)
    labels = np.where(rng.uniform(size=3000) < 0.9, proba.argmax(axis=1), 0)
    p, _, scale = pmd_flip_probability(
        labels, proba, noise_type=noise_type, noise_level=noise_level
    )
    np.testing.assert_allclose(
        p, keep_formula(proba, labels, noise_type, scale), rtol=0, atol=1e-9
    )
    assert p.mean() == pytest.approx(noise_level, abs=1e-9)


def test_keep_scales_tau_down_below_the_level_of_factor_one(make_posterior):
    proba = make_posterior(3000, 4, seed=5)
    labels = proba.argmax(axis=1)
    at_one, _, _ = pmd_flip_probability(labels, proba, noise_type="II", factor=1.0)
    low = at_one.mean() / 2
    p, _, scale = pmd_flip_probability(labels, proba, noise_type="II", noise_level=low)
    assert scale == pytest.approx(0.5)
    np.testing.assert_allclose(p, 0.5 * at_one, atol=1e-12)


def test_keep_is_continuous_across_factor_one(make_posterior):
    proba = make_posterior(500, 3, seed=1)
    labels = proba.argmax(axis=1)
    below, _, _ = pmd_flip_probability(labels, proba, noise_type="III", factor=1 - 1e-9)
    above, _, _ = pmd_flip_probability(labels, proba, noise_type="III", factor=1 + 1e-9)
    np.testing.assert_allclose(below, above, atol=1e-8)


def test_keep_with_the_scripts_factor_flips_at_least_one_minus_one_over_f(
    make_posterior,
):
    proba = make_posterior(2000, 3, seed=2)
    labels = proba.argmax(axis=1)
    p, _, scale = pmd_flip_probability(labels, proba, noise_type="II", factor=1.2)
    assert scale == 1.2
    assert p.min() >= 1 - 1 / 1.2 - 1e-12


@pytest.mark.parametrize("noise_level", [0.05, 0.35, 0.70])
@pytest.mark.parametrize("noise_type", ["I", "II", "III"])
def test_keep_realised_rate_on_digits_is_within_1_5_points(
    digits_posterior, noise_type, noise_level
):
    proba, y = digits_posterior
    noise = PMDNoise(noise_type, noise_level, random_state=0)
    noise.corrupt(y, proba)
    assert abs(noise.noise_rate_ - noise_level) <= 0.015


def test_keep_gives_each_type_its_own_flip_probabilities(digits_posterior):
    proba, y = digits_posterior
    fitted = [PMDNoise(noise_type, 0.35, random_state=0) for noise_type in PMD_TYPES]
    for noise in fitted:
        noise.corrupt(y, proba)
    for first, second in itertools.combinations(fitted, 2):
        assert np.abs(first.flip_probability_ - second.flip_probability_).max() > 0.05


def test_keep_reaches_every_sample_labelled_u_at_the_largest_level():
    proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [1.0, 0.0]])
    y = np.array([0, 0, 0, 0])  # sample 2 is not labelled u
    p, _, scale = pmd_flip_probability(y, proba, noise_type="I", noise_level=0.75)
    assert scale == np.inf
    np.testing.assert_allclose(p, [1, 1, 0, 1])


def test_keep_unreachable_level_names_the_largest_reachable_level():
    proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [1.0, 0.0]])
    y = np.array([0, 0, 0, 0])  # sample 2 is not labelled u
    with pytest.raises(ValueError, match=r"largest reachable level is 0.7500"):
        pmd_flip_labels(y, proba, noise_level=0.8, classes=[0, 1])


# --- scaling="flip" (the paper's sentence, for stress tests) -----------------------


@pytest.mark.parametrize("noise_type", ["I", "II", "III"])
def test_flip_probability_is_the_saturated_scaled_tau(posterior, top_two, noise_type):
    proba, y = posterior
    noise = PMDNoise(noise_type, 0.35, scaling="flip", random_state=0)
    noise.corrupt(y, proba)
    _, _, gap = top_two(proba)
    expected = np.minimum(1.0, noise.scale_ * pmd_tau(gap, noise_type))
    np.testing.assert_allclose(noise.flip_probability_, expected, atol=1e-12)
    assert noise.flip_probability_.mean() == pytest.approx(0.35, rel=1e-6)


@pytest.mark.parametrize(
    "noise_type, scale, n_flipped, first_flipped, index_sum",
    [
        ("I", 1.0064750401412805, 714, [4, 6, 9, 14, 16, 26, 30, 34, 43, 46], 700806),
        ("II", 0.4521116525816479, 708, [4, 9, 14, 16, 24, 26, 30, 34, 43, 46], 697537),
        ("III", 0.5245922489921093, 714, [4, 6, 9, 14, 16, 24, 26, 30, 34, 43], 701294),
    ],
)
def test_flip_reproduces_the_noise_of_version_0_1(
    make_posterior, noise_type, scale, n_flipped, first_flipped, index_sum
):
    # Regression: recorded with the library before scaling="keep" existed, when
    # min(1, c τ) was the only scaling.
    proba = make_posterior(2000, 4, seed=7)
    y = proba.argmax(axis=1)
    noise = PMDNoise(noise_type, 0.35, scaling="flip", random_state=0)
    flipped = np.flatnonzero(noise.corrupt(y, proba) != y)
    assert noise.scale_ == pytest.approx(scale, rel=1e-12)
    assert flipped.shape[0] == n_flipped
    assert flipped[:10].tolist() == first_flipped
    assert int(flipped.sum()) == index_sum


def test_flip_level_is_exact_on_a_sharp_posterior(make_posterior):
    # Regression: margins near 1 give τ near 1e-13; the scale must still be solved
    # exactly (a root-finder's tolerance tied to 1 / min τ overshot to 50%).
    proba = make_posterior(20_000, 10, seed=2, scale=12.0)
    proba[:100] = np.eye(10)[proba[:100].argmax(axis=1)] * (1 - 9e-14) + 1e-14
    noise = PMDNoise("I", 0.35, scaling="flip", random_state=0)
    noise.corrupt(proba.argmax(axis=1), proba)
    assert noise.flip_probability_.mean() == pytest.approx(0.35, rel=1e-9)


def test_flip_unreachable_level_names_the_largest_reachable_level():
    proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [1.0, 0.0]])
    y = np.array([0, 0, 0, 0])  # sample 2 is not labelled u, sample 3 has τ = 0
    with pytest.raises(ValueError, match=r"largest reachable level is 0.5000"):
        pmd_flip_labels(y, proba, noise_level=0.7, scaling="flip", classes=[0, 1])


# --- both scalings ------------------------------------------------------------------


@pytest.mark.parametrize("scaling", ["keep", "flip"])
def test_pmd_flips_only_from_the_top_class_to_the_runner_up(
    posterior, top_two, scaling
):
    proba, y = posterior
    y_noisy = pmd_flip_labels(
        y, proba, noise_level=0.5, scaling=scaling, random_state=0
    )
    top, second, _ = top_two(proba)
    flipped = y_noisy != y
    assert flipped.any()
    np.testing.assert_array_equal(y[flipped], top[flipped])
    np.testing.assert_array_equal(y_noisy[flipped], second[flipped])


@pytest.mark.parametrize("scaling", ["keep", "flip"])
def test_pmd_never_flips_a_sample_not_labelled_with_its_top_class(
    posterior, top_two, scaling
):
    proba, y = posterior
    _, second, _ = top_two(proba)
    mixed = np.where(np.arange(y.size) % 2 == 0, y, second)
    noise = PMDNoise(noise_level=0.3, scaling=scaling, random_state=0)
    y_noisy = noise.corrupt(mixed, proba)
    np.testing.assert_array_equal(y_noisy[1::2], mixed[1::2])
    assert (noise.flip_probability_[1::2] == 0).all()


@pytest.mark.parametrize("scaling", ["keep", "flip"])
@pytest.mark.parametrize("noise_type", ["I", "II", "III"])
def test_pmd_flip_rate_decreases_as_the_margin_grows(
    posterior, top_two, noise_type, scaling
):
    proba, y = posterior
    noise = PMDNoise(noise_type, 0.35, scaling=scaling, random_state=0)
    noise.corrupt(y, proba)
    _, _, gap = top_two(proba)
    bins = np.quantile(gap, np.linspace(0, 1, 6))
    which = np.clip(np.searchsorted(bins, gap, side="right") - 1, 0, 4)
    rates = [noise.noisy_mask_[which == b].mean() for b in range(5)]
    assert all(later <= earlier + 0.02 for earlier, later in itertools.pairwise(rates))
    assert rates[0] > rates[-1] + 0.1


@pytest.mark.parametrize("scaling", ["keep", "flip"])
def test_pmd_works_for_two_classes(make_posterior, scaling):
    proba = make_posterior(20_000, 2, seed=1)
    y = proba.argmax(axis=1)
    noise = PMDNoise("II", 0.3, scaling=scaling, random_state=0)
    y_noisy = noise.corrupt(y, proba)
    assert abs(noise.noise_rate_ - 0.3) <= 0.015
    np.testing.assert_array_equal(y_noisy[noise.noisy_mask_], 1 - y[noise.noisy_mask_])


def test_noise_level_and_factor_together_are_rejected():
    with pytest.raises(ValueError, match="Pass noise_level=None to use a factor"):
        PMDNoise(noise_level=0.35, factor=1.2).corrupt([0, 1], [[0.6, 0.4]] * 2)


def test_neither_noise_level_nor_factor_is_rejected():
    with pytest.raises(ValueError, match="Give exactly one of noise_level"):
        pmd_flip_probability([0, 1], [[0.6, 0.4]] * 2, noise_type="I", noise_level=None)
