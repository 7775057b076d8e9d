import numpy as np
import pytest

from sklearn_plc.evidence import (
    agreement_gain,
    agrees_clearly_worse,
    confident_label_issues,
    could_call_worse,
    memorisation_rate,
)


def test_memorisation_rate_is_the_share_of_contradicted_labels_fitted():
    out_of_fold = np.array([1, 1, 1, 1, 0, 0, 0, 0], dtype=bool)
    in_sample = np.array([1, 1, 1, 1, 1, 0, 0, 0], dtype=bool)
    assert memorisation_rate(in_sample, out_of_fold) == pytest.approx(0.25)


def test_memorisation_rate_is_zero_when_nothing_is_contradicted():
    assert memorisation_rate([1, 1], [1, 1]) == 0.0


@pytest.mark.parametrize("evidence", [agreement_gain, memorisation_rate])
def test_agreements_of_different_lengths_are_rejected(evidence):
    with pytest.raises(ValueError, match="must pair one entry per sample; got 3 and 2"):
        evidence([1, 1, 1], [1, 0])


@pytest.mark.parametrize("evidence", [agreement_gain, memorisation_rate])
def test_agreements_of_no_sample_are_rejected(evidence):
    with pytest.raises(ValueError, match="are empty"):
        evidence([], [])


def test_agreements_must_be_one_per_sample():
    with pytest.raises(ValueError, match=r"agrees must be a 1-D array.*\(2, 2\)"):
        agreement_gain([[1, 0], [0, 1]], [[1, 0], [0, 1]])


def test_agreement_gain_is_paired():
    reference = np.array([1, 0, 1, 0] * 25, dtype=bool)
    assert agreement_gain(reference, reference) == (0.0, 0.0)
    better = reference.copy()
    better[1] = True
    gain, standard_error = agreement_gain(better, reference)
    assert gain == pytest.approx(0.01)
    assert standard_error == pytest.approx(np.std(better * 1.0 - reference) / 10)


def losing(n_losses, n_samples=25):
    """The gain of a candidate that loses `n_losses` of `n_samples` agreements."""
    reference = np.ones(n_samples, dtype=bool)
    candidate = reference.copy()
    candidate[:n_losses] = False
    return agreement_gain(candidate, reference)


@pytest.mark.parametrize("n_samples", [25, 100, 1000])
def test_one_lost_sample_is_not_clearly_worse_on_any_number_of_samples(n_samples):
    gain, standard_error = losing(1, n_samples)
    assert gain < -standard_error  # the plain normal approximation: z = -1.0x
    assert not agrees_clearly_worse(gain, standard_error, n_samples, 1.0)


def test_three_lost_samples_and_none_gained_are_clearly_worse():
    assert agrees_clearly_worse(*losing(3), 25, 1.0)


def test_two_standard_errors_ask_for_more_lost_samples():
    assert not agrees_clearly_worse(*losing(5), 25, 2.0)
    assert agrees_clearly_worse(*losing(6), 25, 2.0)


def test_a_bar_of_zero_calls_any_loss_worse():
    assert agrees_clearly_worse(*losing(1), 25, 0.0)


def test_confident_learning_flags_a_label_confidently_of_another_class():
    proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.1, 0.9], [0.2, 0.8]])
    labels = np.array([0, 0, 0, 1, 1])
    # class 1's threshold is its labelled samples' mean, 0.85: sample 2 reaches
    # it, labelled 0; class 0's threshold (0.6) leaves the others of class 0
    assert confident_label_issues(proba, labels).tolist() == [
        False,
        False,
        True,
        False,
        False,
    ]


def test_confident_learning_flags_the_calibrated_count_by_largest_margin():
    # labelled 0: four confidently of 0, one (0.97) of 1, three of no class
    # (below both thresholds); calibrated to the class's 8 samples, (0 -> 1)
    # counts 8 / 5 = 1.6, rounded to 2: the two largest margins p1 - p0
    p1 = np.array([0.05, 0.05, 0.05, 0.05, 0.97, 0.93, 0.6, 0.55])
    proba = np.vstack([np.c_[1 - p1, p1], [[0.05, 0.95]] * 8])
    labels = np.r_[np.zeros(8, int), np.ones(8, int)]
    issues = confident_label_issues(proba, labels)
    assert np.flatnonzero(issues).tolist() == [4, 5]


def test_confident_learning_never_flags_a_label_that_is_the_top_class():
    rng = np.random.RandomState(0)
    proba = rng.dirichlet(np.ones(4) * 0.5, size=300)
    labels = rng.randint(4, size=300)
    issues = confident_label_issues(proba, labels)
    assert issues.any()
    top = proba.argmax(axis=1)
    assert not issues[top == labels].any()


def test_confident_learning_agrees_with_cleanlab():
    filter_module = pytest.importorskip("cleanlab.filter")
    rng = np.random.RandomState(0)
    agree = []
    for _ in range(20):
        n_samples, n_classes = rng.randint(50, 300), rng.randint(2, 6)
        proba = rng.dirichlet(np.ones(n_classes), size=n_samples)
        labels = np.r_[np.arange(n_classes), rng.randint(n_classes, size=n_samples)]
        proba = np.vstack([np.eye(n_classes) * 0.9 + 0.1 / n_classes, proba])
        ours = confident_label_issues(proba, labels)
        theirs = filter_module.find_label_issues(labels, proba, n_jobs=1)
        agree.append(np.mean(ours == theirs))
    assert np.mean(agree) > 0.99


def test_noise_that_moves_labels_both_ways_drains_no_class():
    from sklearn_plc.evidence import drained_class_caps

    labels = np.repeat([0, 1], [50, 50])
    proba = np.tile([0.9, 0.1], (100, 1))
    proba[50:] = [0.1, 0.9]
    proba[:10] = [0.1, 0.9]  # 10 wrong each way
    proba[50:60] = [0.9, 0.1]
    assert np.isinf(drained_class_caps(proba, labels, 2.0)).all()


@pytest.mark.parametrize("n_samples", [25, 124, 10_000])
def test_a_comparison_of_two_differing_samples_can_never_say_worse(n_samples):
    differ = np.arange(n_samples) < 2
    assert not could_call_worse(differ, 1.0)
    assert could_call_worse(np.arange(n_samples) < 3, 1.0)


def test_a_higher_bar_needs_more_differing_samples_to_say_worse():
    assert not could_call_worse(np.arange(100) < 5, 2.0)
    assert could_call_worse(np.arange(100) < 6, 2.0)


def test_heavy_differing_samples_can_say_worse_on_their_own():
    differ = np.arange(100) < 2
    weights = np.where(differ, 10.0, 1.0)  # a rare class weighed up
    assert could_call_worse(differ, 1.0, weights)
