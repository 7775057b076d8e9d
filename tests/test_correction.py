import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sklearn_plc.correction import (
    align_class_distribution,
    confidence_ratio,
    correct_labels,
    is_quiet_pass,
    next_threshold,
    relabel_weights,
)


@st.composite
def proba_and_labels(draw):
    n_samples = draw(st.integers(1, 40))
    n_classes = draw(st.integers(2, 6))
    # float32-representable values, so that float32 and float64 copies are equal
    proba = draw(
        arrays(
            np.float32,
            (n_samples, n_classes),
            elements=st.floats(0, 1, width=32),
        )
    )
    labels = draw(arrays(np.intp, n_samples, elements=st.integers(0, n_classes - 1)))
    return proba, labels


thresholds = st.floats(0.01, 1.0)


def test_corrects_a_label_whose_ratio_is_below_the_threshold_to_the_argmax():
    proba = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    new_labels, changed = correct_labels(proba, np.array([2, 1]), threshold=0.3)
    # sample 0: 0.1 / 0.7 < 0.3 -> class 0; sample 1: 0.3 / 0.6 = 0.5 -> kept
    np.testing.assert_array_equal(new_labels, [0, 1])
    np.testing.assert_array_equal(changed, [True, False])


def test_a_top_class_below_min_confidence_is_not_corrected_to():
    # both ratios are below 0.3; only the first row's top class has half or more
    proba = np.array([[0.6, 0.1, 0.3], [0.45, 0.1, 0.45]])
    new_labels, changed = correct_labels(
        proba, np.array([1, 1]), threshold=0.3, min_confidence=0.5
    )
    np.testing.assert_array_equal(changed, [True, False])
    np.testing.assert_array_equal(new_labels, [0, 1])


def test_min_confidence_zero_is_the_ratio_rule_alone(make_posterior):
    proba = make_posterior(500, 6, seed=3)
    labels = np.random.RandomState(0).randint(6, size=500)
    paper = correct_labels(proba, labels, 0.4)
    floored = correct_labels(proba, labels, 0.4, min_confidence=0.0)
    np.testing.assert_array_equal(paper[0], floored[0])
    np.testing.assert_array_equal(paper[1], floored[1])


def test_min_confidence_outside_zero_one_is_rejected():
    with pytest.raises(ValueError, match="min_confidence must be a number in"):
        correct_labels(np.array([[0.9, 0.1]]), np.array([1]), 0.3, min_confidence=2)


def test_a_new_class_without_a_clear_lead_over_the_runner_up_is_not_chosen():
    # both labels are far below their row's top class; in the second row the
    # top class (0.45) is only 1.5x the runner-up (0.3), short of 2x
    proba = np.array([[0.7, 0.05, 0.25], [0.45, 0.25, 0.3]])
    new_labels, changed = correct_labels(
        proba, np.array([1, 1]), threshold=0.9, runner_up_ratio=0.5
    )
    np.testing.assert_array_equal(changed, [True, False])
    np.testing.assert_array_equal(new_labels, [0, 1])


def test_the_current_label_as_runner_up_does_not_block_a_correction():
    # the label (0.35) is the runner-up; the only third class has 0.05
    new_labels, changed = correct_labels(
        np.array([[0.6, 0.35, 0.05]]), np.array([1]), threshold=0.9, runner_up_ratio=0.5
    )
    np.testing.assert_array_equal(changed, [True])
    np.testing.assert_array_equal(new_labels, [0])


def test_runner_up_ratio_one_is_the_ratio_rule_alone(make_posterior):
    proba = make_posterior(500, 6, seed=3)
    labels = np.random.RandomState(0).randint(6, size=500)
    paper = correct_labels(proba, labels, 0.4)
    margin_off = correct_labels(proba, labels, 0.4, runner_up_ratio=1.0)
    np.testing.assert_array_equal(paper[0], margin_off[0])
    np.testing.assert_array_equal(paper[1], margin_off[1])


@pytest.mark.parametrize("runner_up_ratio", [0, 1.5])
def test_runner_up_ratio_outside_zero_one_is_rejected(runner_up_ratio):
    with pytest.raises(ValueError, match="runner_up_ratio must be a number in"):
        correct_labels(
            np.array([[0.9, 0.1]]), np.array([1]), 0.3, runner_up_ratio=runner_up_ratio
        )


def test_label_tied_with_the_top_class_is_never_corrected():
    proba = np.array([[0.5, 0.5], [0.4, 0.4]])
    _, changed = correct_labels(proba, np.array([1, 0]), threshold=1.0)
    assert not changed.any()


def test_zero_probabilities_raise_no_warning():
    proba = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new_labels, changed = correct_labels(proba, np.array([1, 1, 1]), 0.3)
        ratio = confidence_ratio(proba, np.array([1, 1, 1]))
    np.testing.assert_array_equal(changed, [True, False, False])
    np.testing.assert_array_equal(new_labels, [0, 1, 1])
    np.testing.assert_array_equal(ratio, [0.0, 1.0, 1.0])


def test_binary_rule_matches_the_papers_margin_form():
    # For two classes, f_y / f_max < δ  <=>  f_max > 1 / (1 + δ).
    f = np.linspace(0.5, 1.0, 100)  # avoids the boundary f = 0.8 itself
    proba = np.column_stack([f, 1 - f])
    _, changed = correct_labels(proba, np.ones(f.size, dtype=int), threshold=0.25)
    np.testing.assert_array_equal(changed, f > 1 / 1.25)


def test_labels_argument_is_not_modified():
    labels = np.array([1, 1])
    correct_labels(np.array([[0.9, 0.1], [0.9, 0.1]]), labels, 0.3)
    np.testing.assert_array_equal(labels, [1, 1])


def test_new_labels_keep_the_dtype_of_the_labels():
    labels = np.array([1, 0], dtype=np.int32)
    new_labels, _ = correct_labels(np.array([[0.9, 0.1], [0.9, 0.1]]), labels, 0.3)
    assert new_labels.dtype == np.int32


@given(proba_and_labels(), thresholds)
@settings(max_examples=200, deadline=None)
def test_only_samples_below_the_threshold_change_each_to_the_argmax(data, threshold):
    proba, labels = data
    new_labels, changed = correct_labels(proba, labels, threshold)
    ratio = confidence_ratio(proba, labels)
    # Away from the boundary (float rounding), the ratio decides.
    assert changed[ratio < threshold - 1e-6].all()
    assert not changed[ratio > threshold + 1e-6].any()
    np.testing.assert_array_equal(new_labels[~changed], labels[~changed])
    top = proba[changed].max(axis=1)
    np.testing.assert_array_equal(proba[changed, new_labels[changed]], top)
    assert (new_labels[changed] != labels[changed]).all()


@given(proba_and_labels(), thresholds, thresholds)
@settings(max_examples=200, deadline=None)
def test_raising_the_threshold_never_uncorrects_a_sample(data, first, second):
    proba, labels = data
    low, high = sorted([first, second])
    _, changed_low = correct_labels(proba, labels, low)
    _, changed_high = correct_labels(proba, labels, high)
    assert not (changed_low & ~changed_high).any()


@given(proba_and_labels(), thresholds)
@settings(max_examples=200, deadline=None)
def test_float32_and_float64_give_the_same_corrections(data, threshold):
    proba, labels = data
    labels32, changed32 = correct_labels(proba, labels, threshold)
    labels64, changed64 = correct_labels(proba.astype(np.float64), labels, threshold)
    np.testing.assert_array_equal(changed32, changed64)
    np.testing.assert_array_equal(labels32, labels64)


@given(proba_and_labels(), thresholds, st.floats(0.01, 1.0))
@settings(max_examples=200, deadline=None)
def test_float32_and_float64_give_the_same_margin_decisions(
    data, threshold, runner_up_ratio
):
    proba, labels = data
    labels32, changed32 = correct_labels(
        proba, labels, threshold, runner_up_ratio=runner_up_ratio
    )
    labels64, changed64 = correct_labels(
        proba.astype(np.float64), labels, threshold, runner_up_ratio=runner_up_ratio
    )
    np.testing.assert_array_equal(changed32, changed64)
    np.testing.assert_array_equal(labels32, labels64)


def test_a_third_class_exactly_at_the_margin_does_not_block():
    # 0.25 is exactly half of 0.5, in float32 as in float64
    proba = np.array([[0.5, 0.0, 0.25, 0.25]], dtype=np.float32)
    _, changed = correct_labels(proba, np.array([1]), 0.3, runner_up_ratio=0.5)
    np.testing.assert_array_equal(changed, [True])


def test_a_pass_over_many_blocks_decides_as_row_by_row(make_posterior):
    # more rows than one block holds, so the pass runs block by block
    proba = make_posterior(6000, 60, seed=5).astype(np.float32)
    labels = np.random.RandomState(1).randint(60, size=6000)
    new_labels, changed = correct_labels(proba, labels, 0.6, runner_up_ratio=0.5)
    for row in np.random.RandomState(2).choice(6000, size=300, replace=False):
        one_label, one_changed = correct_labels(
            proba[row : row + 1], labels[row : row + 1], 0.6, runner_up_ratio=0.5
        )
        assert one_changed[0] == changed[row]
        assert one_label[0] == new_labels[row]


@pytest.mark.parametrize("threshold", [0.0, -0.1, 1.5])
def test_threshold_outside_zero_one_is_rejected(threshold):
    with pytest.raises(ValueError, match=r"threshold must be a number in \(0, 1\]"):
        correct_labels(np.array([[0.9, 0.1]]), np.array([0]), threshold)


def test_labels_outside_the_class_range_are_rejected():
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 1\]"):
        correct_labels(np.array([[0.9, 0.1]]), np.array([2]), 0.3)


def test_non_integer_labels_are_rejected_with_the_fix():
    with pytest.raises(ValueError, match="return_inverse"):
        correct_labels(np.array([[0.9, 0.1]]), np.array(["a"]), 0.3)


def test_labels_and_proba_of_different_lengths_are_rejected():
    with pytest.raises(ValueError, match="one entry per row of proba"):
        correct_labels(np.array([[0.9, 0.1]]), np.array([0, 1]), 0.3)


def test_one_dimensional_proba_is_rejected():
    with pytest.raises(ValueError, match="2-D array"):
        correct_labels(np.array([0.9, 0.1]), np.array([0, 1]), 0.3)


def test_quiet_pass_counts_up_to_the_rate():
    assert is_quiet_pass(10, 10_000, 0.001)
    assert not is_quiet_pass(11, 10_000, 0.001)
    assert is_quiet_pass(0, 10, 0.0)
    assert not is_quiet_pass(1, 10, 0.0)


def test_additive_schedule_adds_beta_after_a_quiet_pass():
    assert next_threshold(0.3, 0, 1000, step=0.1, end=0.9) == pytest.approx(0.4)


def test_multiplicative_schedule_scales_by_one_plus_beta():
    raised = next_threshold(0.4, 0, 1000, step=0.5, end=0.9, schedule="multiplicative")
    assert raised == pytest.approx(0.6)


def test_threshold_stays_after_a_busy_pass():
    assert next_threshold(0.3, 2, 1000, step=0.1, end=0.9) == 0.3


def test_threshold_is_capped_at_the_end():
    assert next_threshold(0.85, 0, 1000, step=0.1, end=0.9) == 0.9


def test_repeated_additive_steps_reach_the_end_exactly():
    threshold = 0.3
    for _ in range(6):
        threshold = next_threshold(threshold, 0, 10, step=0.1, end=0.9)
    assert threshold == 0.9


@pytest.mark.parametrize("step", [0.0, -0.1, float("nan")])
def test_a_step_that_would_not_relax_the_threshold_is_rejected(step):
    with pytest.raises(ValueError, match="step must be a positive number"):
        next_threshold(0.3, 0, 10, step=step, end=0.9)


def test_unknown_schedule_is_rejected():
    with pytest.raises(ValueError, match="schedule must be one of"):
        next_threshold(0.3, 0, 10, step=0.1, end=0.9, schedule="cosine")


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_pass_rejects_probabilities_that_are_not_finite(bad):
    proba = np.array([[0.7, 0.3], [bad, 0.8], [0.5, 0.5]])
    with pytest.raises(ValueError, match="NaN or infinite values in 1 rows"):
        correct_labels(proba, np.array([1, 0, 1]), 0.5)


def test_huge_finite_scores_are_not_taken_for_infinite_ones():
    # rows need not sum to 1; their sum may overflow, their entries do not
    proba = np.array([[1e308, 1e307], [1e308, 1e308]])
    _, changed = correct_labels(proba, np.array([1, 0]), 0.5)
    assert changed.tolist() == [True, False]


def test_alignment_rejects_sample_weights_of_another_length():
    proba = np.array([[0.7, 0.3], [0.2, 0.8], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"one weight per row of proba \(3\)"):
        align_class_distribution(proba, np.array([0.5, 0.5]), np.ones(2))


def test_alignment_takes_out_a_class_the_model_over_predicts():
    # the model predicts class 0 for 2/3 of the mass; the given labels are 50/50
    proba = np.array([[0.9, 0.1], [0.6, 0.4], [0.5, 0.5]])
    aligned = align_class_distribution(proba, [0.5, 0.5])
    np.testing.assert_array_equal(aligned.argmax(axis=1), [0, 1, 1])
    assert abs(aligned.mean(axis=0)[0] - 0.5) < abs(proba.mean(axis=0)[0] - 0.5)


def test_alignment_changes_nothing_when_the_mean_prediction_is_the_prior():
    proba = np.array([[0.8, 0.2], [0.2, 0.8]])
    np.testing.assert_allclose(align_class_distribution(proba, [0.5, 0.5]), proba)


def test_alignment_keeps_rows_summing_to_one_and_a_never_predicted_class_at_zero():
    proba = np.array([[0.7, 0.3, 0.0], [0.2, 0.8, 0.0]], dtype=np.float32)
    aligned = align_class_distribution(proba, [0.2, 0.4, 0.4])
    assert aligned.dtype == np.float32
    np.testing.assert_allclose(aligned.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(aligned[:, 2], 0.0)


def test_alignment_does_not_modify_its_input():
    proba = np.array([[0.9, 0.1], [0.6, 0.4]])
    copy = proba.copy()
    align_class_distribution(proba, [0.5, 0.5])
    np.testing.assert_array_equal(proba, copy)


def test_alignment_rejects_a_prior_without_one_frequency_per_class():
    with pytest.raises(ValueError, match="one non-negative frequency per class"):
        align_class_distribution(np.full((2, 3), 1 / 3), [0.5, 0.5])


# --- relabel weights --------------------------------------------------------------


def test_a_relabel_is_weighed_by_its_share_of_the_two_labels_probability():
    proba = np.array([[0.1, 0.3, 0.6], [0.45, 0.1, 0.45]])
    weights = relabel_weights(proba, np.array([0, 0]), np.array([2, 2]))
    np.testing.assert_allclose(weights, [0.6 / 0.7, 0.5])


def test_an_unchanged_label_keeps_its_full_weight():
    proba = np.array([[0.1, 0.9], [0.9, 0.1]])
    weights = relabel_weights(proba, np.array([0, 0]), np.array([0, 0]))
    np.testing.assert_array_equal(weights, [1.0, 1.0])


def test_a_relabel_between_two_classes_without_probability_is_a_coin_toss():
    proba = np.array([[0.0, 0.0, 1.0]])
    assert relabel_weights(proba, np.array([0]), np.array([1]))[0] == 0.5


def test_a_cap_sends_back_only_this_passs_moves():
    from sklearn_plc.correction import cap_moves_out_of_classes

    proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.6, 0.4]])
    given = np.array([1, 1, 1])
    before = np.array([0, 1, 1])  # an earlier pass moved the first
    after = np.array([0, 0, 0])
    capped = cap_moves_out_of_classes(proba, given, before, after, np.array([9, 1]))
    np.testing.assert_array_equal(capped, [0, 1, 1])
