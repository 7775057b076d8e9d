import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from sklearn_plc import PLCClassifier
from sklearn_plc.metrics import label_recovery_report


def test_counts_fixed_damaged_and_wrong_to_wrong_labels():
    y_clean = np.array([0, 0, 1, 1, 2, 2])
    y_noisy = np.array([1, 0, 0, 1, 0, 2])  # samples 0, 2, 4 wrong
    y_corrected = np.array([0, 1, 1, 1, 1, 2])  # fixes 0 and 2, breaks 1, 4 -> 1
    report = label_recovery_report(y_clean, y_noisy, y_corrected)
    assert report["n_noisy"] == 3
    assert report["n_changed"] == 4
    assert report["n_fixed"] == 2
    assert report["n_damaged"] == 1
    assert report["n_wrong_to_wrong"] == 1
    assert report["purity_before"] == pytest.approx(3 / 6)
    assert report["purity_after"] == pytest.approx(4 / 6)
    assert report["precision"] == pytest.approx(2 / 4)
    assert report["recall"] == pytest.approx(2 / 3)
    assert report["damage"] == pytest.approx(1 / 3)


def test_no_change_gives_nan_precision():
    report = label_recovery_report([0, 1], [1, 1], [1, 1])
    assert np.isnan(report["precision"])
    assert report["recall"] == 0.0


def test_no_noise_gives_nan_recall():
    report = label_recovery_report([0, 1], [0, 1], [0, 1])
    assert np.isnan(report["recall"])
    assert report["damage"] == 0.0


def test_string_labels_work():
    report = label_recovery_report(["a", "b"], ["b", "b"], ["a", "b"])
    assert report["n_fixed"] == 1 and report["purity_after"] == 1.0


def test_arrays_of_different_lengths_are_rejected():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        label_recovery_report([0, 1], [0, 1, 1], [0, 1])


def test_set_aside_samples_are_counted_with_the_share_of_wrong_labels_they_held():
    y_clean = np.array([0, 0, 1, 1])
    y_noisy = np.array([1, 0, 0, 1])
    report = label_recovery_report(
        y_clean, y_noisy, y_noisy, set_aside=np.array([True, True, False, False])
    )
    assert report["n_set_aside"] == 2
    assert report["set_aside_precision"] == pytest.approx(1 / 2)
    assert report["purity_trained"] == pytest.approx(1 / 2)


def test_a_set_aside_mask_that_is_not_boolean_is_explained():
    with pytest.raises(ValueError, match="set_aside must be a boolean mask"):
        label_recovery_report([0, 1], [0, 1], [0, 1], set_aside=[0, 1])


def test_a_weighed_relabel_counts_its_labels_by_their_weights():
    y_clean, y_noisy = np.array([0, 0, 1, 1]), np.array([1, 0, 1, 1])
    y_corrected = np.array([0, 0, 1, 0])
    report = label_recovery_report(
        y_clean, y_noisy, y_corrected, relabel_weight=[0.75, 1, 1, 0.6]
    )
    assert report["n_weighed"] == 2
    # right weight: 0.75 (fixed), 1, 1, 0.4 (damaged, its given label right)
    assert report["weighted_purity"] == pytest.approx((0.75 + 1 + 1 + 0.4) / 4)


def test_a_weighed_relabel_left_out_of_the_final_fit_is_not_counted_as_weighed():
    y_clean, y_noisy = np.array([0, 0, 1, 1]), np.array([1, 0, 1, 1])
    y_corrected = np.array([0, 0, 1, 0])
    report = label_recovery_report(
        y_clean,
        y_noisy,
        y_corrected,
        set_aside=np.array([False, False, False, True]),
        relabel_weight=[0.75, 1, 1, 0.6],
    )
    assert report["n_weighed"] == 1


def test_without_weights_weighted_purity_is_the_trained_purity():
    report = label_recovery_report([0, 0, 1], [1, 0, 1], [0, 1, 1])
    assert report["n_weighed"] == 0
    assert report["weighted_purity"] == report["purity_trained"]


def _same_report(first, second):
    assert first.keys() == second.keys()
    for key, value in first.items():
        assert value == second[key] or (np.isnan(value) and np.isnan(second[key]))


def test_a_fitted_plc_reports_its_labels_with_its_weighed_relabels(noisy_blobs):
    b = noisy_blobs
    plc = PLCClassifier(DecisionTreeClassifier(max_depth=4), random_state=4)
    plc.fit(b.X, b.y_noisy)
    report = label_recovery_report(b.y_clean, b.y_noisy, plc)
    assert report["n_weighed"] > 0
    _same_report(
        report,
        label_recovery_report(
            b.y_clean,
            b.y_noisy,
            plc.labels_,
            set_aside=plc.set_aside_,
            relabel_weight=plc.relabel_weight_,
        ),
    )


def test_a_fitted_plc_reports_the_samples_its_final_fit_left_out(noisy_blobs):
    b = noisy_blobs
    plc = PLCClassifier(
        DecisionTreeClassifier(max_depth=4), doubtful="set_aside", random_state=0
    ).fit(b.X, b.y_noisy)
    report = label_recovery_report(b.y_clean, b.y_noisy, plc)
    assert report["n_set_aside"] == plc.set_aside_.sum() > 0


def test_a_set_aside_given_with_a_fitted_plc_replaces_its_own(noisy_blobs):
    b = noisy_blobs
    plc = PLCClassifier(
        DecisionTreeClassifier(max_depth=4), doubtful="set_aside", random_state=0
    ).fit(b.X, b.y_noisy)
    none = np.zeros(b.y_noisy.shape[0], dtype=bool)
    report = label_recovery_report(b.y_clean, b.y_noisy, plc, set_aside=none)
    assert plc.set_aside_.any() and report["n_set_aside"] == 0


def test_an_unfitted_plc_as_the_corrected_labels_is_explained():
    with pytest.raises(ValueError, match=r"PLCClassifier without labels_.*fit it"):
        label_recovery_report([0, 1], [0, 1], PLCClassifier(LogisticRegression()))


def test_a_pipeline_as_the_corrected_labels_points_to_its_last_step():
    from sklearn.pipeline import make_pipeline

    pipe = make_pipeline(PLCClassifier(LogisticRegression()))
    with pytest.raises(ValueError, match=r"Pipeline without labels_.*pipe\[-1\]"):
        label_recovery_report([0, 1], [0, 1], pipe)


def test_precision_at_k_counts_the_wrong_labels_among_the_first_k():
    from sklearn_plc.metrics import precision_at_k

    y_noisy, y_clean = np.array([0, 1, 1, 0]), np.array([0, 0, 1, 1])
    assert precision_at_k([1, 3, 0, 2], y_noisy, y_clean, k=2) == 1.0
    assert precision_at_k([0, 2, 1, 3], y_noisy, y_clean, k=2) == 0.0
    assert precision_at_k([1], y_noisy, y_clean, k=2) == 0.5  # one place unfilled
