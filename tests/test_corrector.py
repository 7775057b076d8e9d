import numpy as np

from sklearn_plc._corrector import LabelCorrector


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


def test_held_out_selection_goes_back_to_the_best_judged_labels():
    given = np.array([1, 1, 0, 0])
    corrector = make_corrector(given, n_iter_no_change=1)
    corrector.add_proba(np.array([[0.9, 0.1]] * 4), held_out=True)  # agrees 2/4
    corrector.run_round()  # corrects samples 0 and 1 to class 0
    worse = np.array([[0.1, 0.9]] * 4)  # agrees 2/4 again: no gain
    corrector.add_proba(worse, held_out=True)
    assert corrector.stalled
    corrector.select_best()
    np.testing.assert_array_equal(corrector.labels, given)
    assert corrector.selection["round"] == 0
    assert corrector.corrections["sample"].size == 0
    assert (corrector.corrected_iter == -1).all()


def test_held_out_selection_keeps_labels_that_agree_better():
    given = np.array([0, 0, 1, 1, 1, 1])
    corrector = make_corrector(given, n_iter_no_change=1)
    first = np.array([[0.9, 0.1]] * 4 + [[0.1, 0.9]] * 2)  # agrees 4/6
    corrector.add_proba(first, held_out=True)
    corrector.run_round()  # relabels samples 2 and 3 to class 0
    corrector.add_proba(np.eye(2)[given], held_out=True)  # agrees 6/6
    assert not corrector.stalled
    corrector.select_best()
    assert corrector.selection["round"] == 1
    np.testing.assert_array_equal(corrector.labels, [0, 0, 0, 0, 1, 1])


def _corrected_then_judged(second_round_proba):
    """Given labels judged by round 0, corrected, then judged again."""
    given = np.array([0] * 8 + [1] * 8)
    corrector = make_corrector(given)
    first = np.eye(2)[given].copy()
    first[:2] = [0.05, 0.95]  # round 0 agrees 14/16 and relabels samples 0 and 1
    corrector.add_proba(first, held_out=True)
    corrector.run_round()
    corrector.add_proba(second_round_proba, held_out=True)
    corrector.run_round()
    return given, corrector


def test_corrections_are_undone_when_their_models_agree_clearly_worse():
    given, corrector = _corrected_then_judged(np.array([[0.5, 0.5]] * 16))
    assert corrector.undo_if_worse(2.0)  # agreement 14/16 -> 8/16
    np.testing.assert_array_equal(corrector.labels, given)
    assert corrector.selection["round"] == 0
    assert corrector.selection["gain"] < 0
    assert corrector.corrections["sample"].size == 0
    assert (corrector.corrected_iter == -1).all()


def test_corrections_are_kept_when_their_models_agree_as_well():
    _, corrector = _corrected_then_judged(np.eye(2)[[1, 1] + [0] * 6 + [1] * 8])
    labels = corrector.labels.copy()
    assert not corrector.undo_if_worse(2.0)  # agreement 14/16 both times
    np.testing.assert_array_equal(corrector.labels, labels)
    assert corrector.selection["round"] == 1
    assert corrector.selection["gain"] == 0


def test_undo_if_worse_without_a_threshold_only_records_the_evidence():
    _, corrector = _corrected_then_judged(np.array([[0.5, 0.5]] * 16))
    labels = corrector.labels.copy()
    assert not corrector.undo_if_worse(None)
    np.testing.assert_array_equal(corrector.labels, labels)
    assert corrector.selection["gain"] < 0
