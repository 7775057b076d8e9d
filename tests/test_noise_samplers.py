"""The noise estimators (sklearn_plc/noise/_samplers.py) and the posterior."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from imblearn.pipeline import make_pipeline as make_imblearn_pipeline
from sklearn.datasets import load_digits, load_wine, make_classification
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
    estimate_posterior,
    uniform_transition_matrix,
)

# --- noise levels ------------------------------------------------------------------


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


# --- PMD estimator, posterior --------------------------------------------------


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


def test_a_bad_row_past_the_first_block_of_rows_is_found():
    # the values are checked block by block, in the pass that finds the top classes
    proba = np.full((100_000, 2), 0.5)
    proba[-1] = [0.5, 0.4]
    with pytest.raises(ValueError, match=r"1 rows do not \(e\.g\. row 99999 sums"):
        PMDNoise(noise_level=None, factor=1.0).corrupt(np.arange(100_000) % 2, proba)


def test_a_nan_in_the_posterior_is_rejected():
    with pytest.raises(ValueError, match="NaN"):
        PMDNoise().corrupt([0, 1], [[0.5, 0.5], [np.nan, 0.5]])


@pytest.mark.parametrize(
    "labels",
    [
        np.array([3, -2, 3, 7, -2, 0], dtype=np.int64),
        np.array([5, 9, 5, 255], dtype=np.uint8),
        np.array([0, 10**12, 10**12]),  # too sparse for a table: sorted instead
    ],
)
def test_integer_labels_are_encoded_as_by_np_unique(labels):
    from sklearn_plc.noise._validation import _encode

    classes, encoded = _encode(labels)
    expected_classes, expected_encoded = np.unique(labels, return_inverse=True)
    assert classes.dtype == labels.dtype
    np.testing.assert_array_equal(classes, expected_classes)
    np.testing.assert_array_equal(encoded, expected_encoded)


def test_mapping_to_an_unknown_class_is_rejected():
    with pytest.raises(ValueError, match="'wolf', which is not among the classes"):
        AsymmetricNoise(0.3, mapping={"cat": "wolf"}).corrupt(["cat", "dog"])


def test_mapping_a_class_to_itself_is_rejected():
    with pytest.raises(ValueError, match="sends class 'cat' to itself"):
        AsymmetricNoise(0.3, mapping={"cat": "cat"}).corrupt(["cat", "dog"])


def test_hybrid_noise_applies_its_pmd_parts_scaling(posterior):
    proba, y = posterior
    alone = PMDNoise(noise_level=0.35, scaling="flip", random_state=0)
    alone.corrupt(y, proba)
    hybrid = HybridNoise(
        PMDNoise(noise_level=0.35, scaling="flip", random_state=0),
        UniformNoise(0.3, random_state=0),
    )
    hybrid.corrupt(y, proba)
    np.testing.assert_array_equal(
        hybrid.pmd_.flip_probability_, alone.flip_probability_
    )


# --- scikit-learn's checks that apply to a resampler -------------------------------

# The noise steps follow imblearn's fit_resample convention and have no fit, so of
# scikit-learn's checks only those of the estimator API apply (parameters, clone,
# repr, tags); every check that fits is out of scope. imblearn's own sampler checks
# do not run against scikit-learn >= 1.7 (they read a removed input tag).
API_CHECKS = {
    "check_do_not_raise_errors_in_init_or_set_params",
    "check_estimator_cloneable",
    "check_estimator_repr",
    "check_estimator_tags_renamed",
    "check_get_params_invariance",
    "check_mixin_order",
    "check_no_attributes_set_in_init",
    "check_parameters_default_constructible",
    "check_set_params",
    "check_valid_tag_types",
}


@pytest.mark.parametrize(
    "sampler",
    [
        UniformNoise(0.2, random_state=0),
        AsymmetricNoise(0.2, random_state=0),
        TransitionMatrixNoise(uniform_transition_matrix(2, 0.2), random_state=0),
        PMDNoise("I", 0.2, random_state=0),
        HybridNoise(PMDNoise("I", 0.2), UniformNoise(0.1)),
    ],
    ids=type,
)
def test_samplers_pass_scikit_learns_api_checks(sampler):
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(sampler, on_fail=None)
    ran = {
        result["check_name"]: result["status"]
        for result in results
        if result["check_name"] in API_CHECKS
    }
    assert set(ran) == API_CHECKS
    assert set(ran.values()) == {"passed"}, ran


# --- the user's data -----------------------------------------------------------------

EVERY_INJECTOR = [
    lambda: UniformNoise(0.2, random_state=0),
    lambda: AsymmetricNoise(0.2, random_state=0),
    lambda: TransitionMatrixNoise(uniform_transition_matrix(2, 0.2), random_state=0),
    lambda: PMDNoise("I", 0.2, random_state=0),
    lambda: HybridNoise(PMDNoise("I", 0.2), UniformNoise(0.1)),
]


@pytest.mark.parametrize("make_noise", EVERY_INJECTOR)
@pytest.mark.parametrize("n_rows", [295, 10])
def test_x_and_y_of_different_lengths_are_rejected(make_noise, n_rows):
    X, y = make_classification(300, 5, random_state=0)
    with pytest.raises(ValueError, match=f"X has {n_rows} rows but y has 300 labels"):
        make_noise().fit_resample(X[:n_rows], y)


@pytest.mark.parametrize("make_noise", EVERY_INJECTOR)
def test_a_single_class_is_explained_in_terms_of_the_data(make_noise):
    X = np.random.RandomState(0).normal(size=(40, 3))
    with pytest.raises(ValueError, match="y holds a single class"):
        make_noise().fit_resample(X, np.full(40, 7))


def test_a_class_too_small_for_the_posterior_folds_is_named():
    X, y = make_classification(100, 5, random_state=0)
    y[:3] = 2  # class 2 has 3 samples, fewer than the 5 folds
    with pytest.raises(ValueError, match=r"class 2 has 3 samples.*cv=5"):
        PMDNoise("I", 0.2, random_state=0).fit_resample(X, y)


# --- any input: noisy labels at the stated level, or an error naming the fault -------

NOISE_LABEL_KINDS = {
    "int": lambda codes: codes - 1,
    "str": lambda codes: np.array(["ant", "bee", "cat", "dog"])[codes],
    "bool": lambda codes: codes.astype(bool),
}
# What an error may name: the inputs, or a parameter this test varies.
NOISE_NAMES = ("X", "y", "class", "noise_level", "cv")


@st.composite
def noise_inputs(draw):
    n_samples = draw(st.integers(0, 40))
    n_rows = n_samples + draw(st.sampled_from([0, 0, 0, -1, 2]))
    rng = np.random.RandomState(draw(st.integers(0, 2**16)))
    X = rng.normal(size=(max(n_rows, 0), 2))
    n_classes = draw(st.integers(1, 4))
    kind = draw(st.sampled_from(sorted(NOISE_LABEL_KINDS)))
    codes = rng.randint(
        n_classes if kind != "bool" else min(n_classes, 2), size=n_samples
    )
    y = NOISE_LABEL_KINDS[kind](codes)
    noise_level = draw(st.floats(-0.2, 1.2))
    return X, y, noise_level


IID_INJECTORS = {
    "uniform": lambda level: UniformNoise(level, random_state=0),
    "asymmetric": lambda level: AsymmetricNoise(level, random_state=0),
    "pmd": lambda level: PMDNoise("I", level, cv=2, random_state=0),
}


@settings(max_examples=80, deadline=None)
@given(noise_inputs(), st.sampled_from(sorted(IID_INJECTORS)))
def test_any_input_is_corrupted_or_raises_an_error_naming_the_fault(inputs, injector):
    X, y, noise_level = inputs
    X_before, y_before = X.copy(), y.copy()
    noise = IID_INJECTORS[injector](noise_level)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            X_out, y_noisy = noise.fit_resample(X, y)
    except (ValueError, TypeError) as error:
        message = str(error)
        assert any(name in message for name in NOISE_NAMES), message
    else:
        assert X_out is X and y_noisy.shape == y.shape and y_noisy.dtype == y.dtype
        assert set(np.unique(y_noisy)) <= set(np.unique(y))
        assert noise.noise_rate_ == pytest.approx(np.mean(y_noisy != y))
        if injector != "pmd":  # each label flips with probability noise_level
            spread = np.sqrt(noise_level * (1 - noise_level) / y.shape[0])
            assert abs(noise.noise_rate_ - noise_level) <= 5 * spread + 1e-9
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(y, y_before)


def test_an_empty_y_is_named_as_empty():
    with pytest.raises(ValueError, match="y is empty"):
        UniformNoise(0.2).fit_resample(np.zeros((0, 2)), np.zeros(0, dtype=int))


@pytest.mark.parametrize(
    "make_noise",
    [
        lambda: UniformNoise(random_state=0),
        lambda: PMDNoise("I", 0.3, random_state=0),
        lambda: HybridNoise(PMDNoise("I", 0.3, random_state=0), UniformNoise()),
    ],
)
def test_a_series_of_labels_comes_back_a_series_with_its_index_and_name(make_noise):
    pd = pytest.importorskip("pandas")
    X, y = load_wine(return_X_y=True, as_frame=True)
    y = pd.Series(y.to_numpy(), index=np.arange(len(y)) + 1000, name="cultivar")
    _, y_noisy = make_noise().fit_resample(X, y)
    assert isinstance(y_noisy, pd.Series)
    assert y_noisy.name == "cultivar"
    pd.testing.assert_index_equal(y_noisy.index, y.index)


def test_labels_of_mixed_types_are_named_with_the_fix():
    y = np.array([1, "a"] * 20, dtype=object)
    with pytest.raises(ValueError, match=r"mixes labels of different types.*astype"):
        UniformNoise().fit_resample(np.zeros((40, 1)), y)


def test_text_without_an_estimator_that_reads_it_names_the_fix():
    documents = ["good movie", "bad film", "great", "awful"] * 10
    with pytest.raises(ValueError, match=r"numeric features.*Pass estimator="):
        PMDNoise("I", 0.3).fit_resample(documents, [1, 0, 1, 0] * 10)


def test_text_with_an_estimator_that_reads_it_is_corrupted():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import make_pipeline

    documents = ["good movie", "bad film", "great", "awful"] * 10
    reader = make_pipeline(TfidfVectorizer(), LogisticRegression())
    noise = PMDNoise("I", 0.3, estimator=reader, random_state=0)
    _, y_noisy = noise.fit_resample(documents, [1, 0, 1, 0] * 10)
    assert len(y_noisy) == 40


@pytest.mark.parametrize("dtype", [object, "category"])
def test_pair_noise_takes_string_labels_held_as_objects_or_categories(dtype):
    pd = pytest.importorskip("pandas")
    X = np.zeros((300, 2))
    y = pd.Series(np.array(["ant", "bee", "cat"])[np.arange(300) % 3], dtype=dtype)
    _, y_noisy = AsymmetricNoise(0.3, random_state=0).fit_resample(X, y)
    moved = np.asarray(y_noisy) != np.asarray(y)
    assert 0.2 < moved.mean() < 0.4
    pairs = set(zip(np.asarray(y)[moved], np.asarray(y_noisy)[moved], strict=True))
    assert pairs <= {("ant", "bee"), ("bee", "cat"), ("cat", "ant")}


@pytest.mark.parametrize("dtype", ["category", "string", "Int64"])
def test_a_series_of_labels_keeps_its_dtype(dtype):
    pd = pytest.importorskip("pandas")
    labels = np.array(["ant", "bee", "cat"]) if dtype != "Int64" else np.arange(3)
    y = pd.Series(labels[np.arange(300) % 3], dtype=dtype)
    _, y_noisy = UniformNoise(0.3, random_state=0).fit_resample(np.zeros((300, 2)), y)
    assert y_noisy.dtype == y.dtype
    assert (np.asarray(y_noisy) != np.asarray(y)).any()


def test_a_polars_series_of_labels_comes_back_as_a_polars_series():
    pl = pytest.importorskip("polars")
    X = np.zeros((200, 2))
    y = pl.Series("target", np.arange(200) % 2)
    _, y_noisy = UniformNoise(0.3, random_state=0).fit_resample(X, y)
    assert isinstance(y_noisy, pl.Series) and y_noisy.name == "target"
    assert 0.2 < (y_noisy.to_numpy() != y.to_numpy()).mean() < 0.4
