import numpy as np

from sklearn_plc._label_state import LabelCorrector


def make_corrector(labels, **overrides):
    params = dict(
        theta=0.3,
        beta=0.1,
        theta_end=0.9,
        schedule="additive",
        min_correction_rate=0.0,
        warm_up=0,
        window=1,
    )
    params.update(overrides)
    return LabelCorrector(np.asarray(labels), **params)


CONFIDENT_CLASS_0 = np.array([[0.95, 0.05], [0.95, 0.05], [0.05, 0.95]])


def test_warm_up_rounds_change_nothing_and_keep_the_threshold():
    corrector = make_corrector([1, 0, 1], warm_up=2)
    for _ in range(2):
        corrector.add_proba(CONFIDENT_CLASS_0)
        corrector.run_round()
    assert [r["n_corrected"] for r in corrector.history] == [0, 0]
    assert corrector.threshold == 0.3
    corrector.run_round()
    np.testing.assert_array_equal(corrector.labels, [0, 0, 1])
    np.testing.assert_array_equal(corrector.corrected_iter, [2, -1, -1])


def test_window_averages_the_recorded_probabilities():
    corrector = make_corrector([1, 0], window=2)
    corrector.add_proba(np.array([[0.9, 0.1], [0.5, 0.5]]))
    corrector.add_proba(np.array([[0.7, 0.3], [0.1, 0.9]]))
    corrector.add_proba(np.array([[0.5, 0.5], [0.3, 0.7]]))
    np.testing.assert_allclose(corrector.averaged_proba(), [[0.6, 0.4], [0.2, 0.8]])


def test_a_pass_that_would_empty_a_class_leaves_that_class_alone():
    corrector = make_corrector([1, 1, 0])
    corrector.add_proba(np.array([[0.9, 0.1], [0.9, 0.1], [0.9, 0.1]]))
    changed = corrector.run_round()
    np.testing.assert_array_equal(corrector.labels, [1, 1, 0])
    assert not changed.any()


def test_converges_after_a_quiet_pass_at_the_end_threshold():
    corrector = make_corrector([0, 1], theta=0.8, beta=0.1)
    corrector.add_proba(np.array([[0.9, 0.1], [0.1, 0.9]]))
    corrector.run_round()
    assert not corrector.converged and corrector.threshold == 0.9
    corrector.run_round()
    assert corrector.converged


def test_a_quiet_pass_that_may_not_raise_keeps_the_threshold():
    corrector = make_corrector([0, 1], theta=0.3, beta=0.1)
    corrector.add_proba(np.array([[0.9, 0.1], [0.1, 0.9]]))
    corrector.run_round(may_raise=False)
    assert corrector.threshold == 0.3 and not corrector.converged
    corrector.run_round()
    assert corrector.threshold == 0.4


def test_alignment_stops_a_pass_from_following_the_models_class_bias():
    # a third of the given labels are class 0, but the model puts two thirds of
    # its mass there: without alignment sample 1 moves to class 0, with it it stays
    labels = [0, 1, 1]
    proba = np.array([[0.9, 0.1], [0.75, 0.25], [0.35, 0.65]])
    plain = make_corrector(labels, theta=0.5)
    plain.add_proba(proba)
    plain.run_round()
    aligned = make_corrector(labels, theta=0.5, distribution_alignment=True)
    aligned.add_proba(proba)
    aligned.run_round()
    np.testing.assert_array_equal(plain.labels, [0, 0, 1])
    np.testing.assert_array_equal(aligned.labels, [0, 1, 1])


def test_alignment_counts_a_sample_of_weight_two_as_two_copies():
    labels = np.array([0, 1, 1])
    proba = np.array([[0.7, 0.3], [0.75, 0.25], [0.1, 0.9]])
    weighted = make_corrector(
        labels, theta=0.5, distribution_alignment=True, sample_weight=[2, 1, 1]
    )
    weighted.add_proba(proba)
    weighted.run_round()
    copied = make_corrector(np.r_[0, labels], theta=0.5, distribution_alignment=True)
    copied.add_proba(np.vstack([proba[:1], proba]))
    copied.run_round()
    unweighted = make_corrector(labels, theta=0.5, distribution_alignment=True)
    unweighted.add_proba(proba)
    unweighted.run_round()
    np.testing.assert_array_equal(weighted.labels, copied.labels[1:])
    np.testing.assert_array_equal(weighted.labels, [0, 0, 1])
    np.testing.assert_array_equal(unweighted.labels, [0, 1, 1])


def test_initial_labels_are_copied():
    labels = np.array([1, 0, 1])
    corrector = make_corrector(labels)
    corrector.add_proba(CONFIDENT_CLASS_0)
    corrector.run_round()
    np.testing.assert_array_equal(labels, [1, 0, 1])
    assert corrector.history[-1]["n_changed"] == 1


def test_restoring_the_given_labels_logs_the_undo_after_the_rounds():
    corrector = make_corrector([1, 0, 1])
    corrector.add_proba(CONFIDENT_CLASS_0)
    corrector.run_round()
    corrector.restore_given_labels()
    np.testing.assert_array_equal(corrector.labels, [1, 0, 1])
    assert corrector.corrections["round"].tolist() == [0, 1]
    assert corrector.corrections["to"].tolist() == [0, 1]
    assert (corrector.corrected_iter == -1).all()
    assert corrector.history[0]["n_corrected"] == 1  # the history keeps the round
    assert corrector.history[-1]["undo"] and corrector.history[-1]["n_changed"] == 0
    assert corrector.n_rounds == 1


def test_the_callers_held_out_agreement_is_recorded_in_the_history():
    corrector = make_corrector([1, 0, 1])
    corrector.add_proba(CONFIDENT_CLASS_0)
    corrector.run_round(holdout_agreement=0.75)
    corrector.run_round(refit=False)
    assert [r["holdout_agreement"] for r in corrector.history] == [0.75, None]


def test_a_disputed_label_not_sure_enough_to_relabel_stays_disputed():
    # sample 1's label is at ratio 0.44 / 0.56 = 0.79 to the top class: above 0.5
    proba = np.array([[0.9, 0.1], [0.44, 0.56], [0.05, 0.95]])
    corrector = make_corrector([0, 0, 0], theta_end=0.5)
    corrector.add_proba(proba)
    corrector.run_round()
    assert corrector.labels.tolist() == [0, 0, 1]  # only the sure one relabelled
    assert corrector.disputed().tolist() == [False, True, False]
    assert corrector.history[-1]["n_disputed"] == 1


def test_a_label_changed_twice_is_disputed_even_where_the_model_agrees():
    corrector = make_corrector([0, 0, 0])
    for proba in (CONFIDENT_CLASS_0[::-1], CONFIDENT_CLASS_0):
        corrector.add_proba(proba)
        corrector.run_round()
    assert corrector.n_changes.tolist() == [2, 0, 1]
    assert corrector.disputed().tolist() == [True, False, False]


def test_an_unweighed_fit_leaves_out_the_relabelled_and_the_disputed():
    from sklearn_plc._left_out import doubtful_samples

    # sample 1 is relabelled (sure), sample 2 disputed at a ratio above 0.5
    proba = np.array([[0.9, 0.1], [0.05, 0.95], [0.44, 0.56], [0.2, 0.8]])
    corrector = make_corrector([0, 0, 0, 1], theta_end=0.5)
    corrector.add_proba(proba)
    corrector.run_round()
    assert corrector.labels.tolist() == [0, 1, 0, 1]
    doubtful = doubtful_samples(
        corrector.disputed(), corrector.labels, corrector.initial_labels
    )
    assert doubtful.tolist() == [False, True, True, False]


def test_trusted_labels_are_never_disputed():
    corrector = make_corrector([1, 1, 1], trusted=np.array([True, False, False]))
    corrector.add_proba(np.array([[0.55, 0.45]] * 3))
    assert corrector.disputed().tolist() == [False, True, True]


def test_a_round_without_a_pass_records_no_disputed_count():
    corrector = make_corrector([1, 0, 1], warm_up=1)
    corrector.add_proba(CONFIDENT_CLASS_0)
    corrector.run_round()
    assert corrector.history[-1]["n_disputed"] is None


def drained_positives():
    """90 labels 0 and 10 labels 1; the model finds 20 positives among the 0s and
    doubts 4 of the given positives (one-sided noise: the positives are drained),
    of which confident learning counts 2 wrong."""
    labels = np.repeat([0, 1], [90, 10])
    proba = np.tile([0.95, 0.05], (100, 1))
    proba[70:90] = [0.1, 0.9]  # positives labelled 0
    proba[90:92] = [0.55, 0.45]  # given positives the model doubts
    proba[92:94] = [0.6, 0.4]
    proba[94:] = [0.1, 0.9]
    return labels, proba


def test_a_drained_class_loses_no_more_labels_than_confident_learning_counts():
    labels, proba = drained_positives()
    corrector = make_corrector(labels, theta=0.9, distribution_alignment=True)
    corrector.add_proba(proba)
    corrector.run_round()
    moved_out_of_1 = (labels == 1) & (corrector.labels != 1)
    assert moved_out_of_1.sum() == 2  # 4 under the paper's rule (below)
    np.testing.assert_array_equal(moved_out_of_1[90:92], [False, False])  # surest kept
    assert ((labels == 0) & (corrector.labels == 1)).sum() == 20


def test_the_papers_rule_moves_a_drained_class_away():
    labels, proba = drained_positives()
    corrector = make_corrector(labels, theta=0.9, distribution_alignment=False)
    corrector.add_proba(proba)
    corrector.run_round()
    assert ((labels == 1) & (corrector.labels != 1)).sum() == 4


def test_a_label_changed_back_to_the_one_given_counts_as_never_corrected():
    corrector = make_corrector([0, 0, 0])
    for proba in (CONFIDENT_CLASS_0[::-1], CONFIDENT_CLASS_0):
        corrector.add_proba(proba)
        corrector.run_round()
    assert corrector.labels.tolist() == [0, 0, 1]
    assert corrector.corrected_iter.tolist() == [-1, -1, 1]
