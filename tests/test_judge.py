"""The held-out judge (sklearn_plc._judge): who judges, memorisation, the undo."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_plc._halves import check_on_halves, halves_verdict, split_halves
from sklearn_plc._judge import (
    HeldOutJudge,
    can_judge,
    chance_agreement,
    choose_judged_samples,
    corrections_verdict,
    judge_sample_weight,
    memorisation_evidence,
    memorises,
    removal_verdict,
    split_validation,
)

GIVEN = np.array([0] * 8 + [1] * 8)


def first_round_proba():
    """Round 0 agrees with 14 of the 16 given labels."""
    proba = np.eye(2)[GIVEN].copy()
    proba[:2] = [0.05, 0.95]
    return proba


def judged_twice(second_round_proba):
    judge = HeldOutJudge(GIVEN)
    judge.judge(first_round_proba(), 0)
    judge.judge(second_round_proba, 1)
    return judge


def verdict_of(judge, standard_errors):
    return corrections_verdict(judge.reference, judge.last, standard_errors)


def test_agreement_is_the_share_of_judged_samples_predicted_as_given():
    judge = HeldOutJudge(GIVEN, judged=np.arange(4))
    proba = np.eye(2)[[0, 0, 1, 1] + [1] * 12]
    assert judge.judge(proba, 0) == 0.5  # samples 0..3 only


def test_nothing_judged_after_the_first_round_gives_no_verdict():
    judge = HeldOutJudge(GIVEN)
    judge.judge(first_round_proba(), 0)
    assert verdict_of(judge, 1.0) is None


def test_corrections_whose_models_agree_clearly_worse_are_undone():
    judge = judged_twice(np.array([[0.5, 0.5]] * 16))  # 14/16 -> 8/16
    selection = verdict_of(judge, 1.0)
    assert selection["undone"] and selection["round"] == 1
    assert selection["gain"] < 0


def test_an_undone_verdict_reports_the_agreement_of_the_labels_it_undid():
    selection = verdict_of(judged_twice(np.array([[0.5, 0.5]] * 16)), 2.0)
    assert selection["holdout_agreement"] == 0.5
    assert selection["given_labels_agreement"] == 14 / 16
    assert selection["gain"] == selection["holdout_agreement"] - 14 / 16


def test_corrections_that_lose_one_judged_sample_are_kept():
    second = first_round_proba()
    second[2] = [0.05, 0.95]  # 13/16: one sample more than the first round lost
    selection = verdict_of(judged_twice(second), 1.0)
    assert selection["gain"] < -selection["standard_error"]
    assert not selection["undone"]


def test_corrections_whose_models_agree_as_well_are_kept():
    judge = judged_twice(np.eye(2)[[1, 1] + [0] * 6 + [1] * 8])  # 14/16 twice
    selection = verdict_of(judge, 2.0)
    assert not selection["undone"] and selection["round"] == 1
    assert selection["gain"] == 0 and selection["n_judged"] == 16


def test_a_verdict_without_a_bar_only_records_the_evidence():
    selection = verdict_of(judged_twice(np.array([[0.5, 0.5]] * 16)), None)
    assert not selection["undone"] and selection["gain"] < 0


def test_models_without_some_samples_are_chosen_above_the_bar_only():
    judge = HeldOutJudge(GIVEN)
    judge.judge(first_round_proba(), 0)
    every_label = np.eye(2)[GIVEN]  # 16/16 against the first round's 14/16
    # a gain of 2/16 at a standard error of about 0.08: clears half of one
    # by one sample more, not one
    selection = removal_verdict(
        judge.agrees(every_label), judge.reference.agrees, None, 0.5
    )
    assert selection["compared"] == "removal" and selection["round"] == 0
    assert selection["gain"] == 2 / 16 and selection["n_judged"] == 16
    assert selection["chosen"] and not selection["undone"]
    assert not removal_verdict(
        judge.agrees(every_label), judge.reference.agrees, None, 1.0
    )["chosen"]


def _rare_class_removal():
    """4 samples of a rare class, 36 of a common one: the removal wins all 4
    of the rare class and loses 5 of the common one, a loss in a plain count."""
    labels = np.array([1] * 4 + [0] * 36)
    incumbent = np.ones(40, dtype=bool)
    incumbent[:4] = False
    removal = np.ones(40, dtype=bool)
    removal[4:9] = False
    return labels, removal, incumbent


def test_the_removal_is_judged_on_plain_agreement_by_default():
    _, removal, incumbent = _rare_class_removal()
    selection = removal_verdict(removal, incumbent, None, 0.0)
    assert not selection["chosen"] and not selection["sample_weighted"]
    assert selection["gain"] == pytest.approx(-1 / 40)


def test_the_removal_is_judged_balanced_where_the_estimator_balances_classes():
    labels, removal, incumbent = _rare_class_removal()
    weights = judge_sample_weight(
        LogisticRegression(class_weight="balanced"), np.array([0, 1]), labels
    )
    selection = removal_verdict(removal, incumbent, weights, 0.0)
    assert selection["sample_weighted"] and selection["chosen"]
    assert selection["gain"] == pytest.approx((4 / 4 - 5 / 36) / 2)
    assert selection["holdout_agreement"] == pytest.approx((1 + 31 / 36) / 2)
    assert selection["given_labels_agreement"] == pytest.approx(0.5)


def test_the_judge_weighs_no_sample_where_the_estimator_weighs_none():
    labels = np.array([0, 0, 1])
    assert judge_sample_weight(LogisticRegression(), np.array([0, 1]), labels) is None


def test_the_judge_reads_a_pipelines_last_step_class_weight():
    labels = np.array([0, 0, 0, 1])
    model = make_pipeline(StandardScaler(), LogisticRegression(class_weight="balanced"))
    weights = judge_sample_weight(model, np.array(["a", "b"]), labels)
    assert weights.tolist() == [1 / 3, 1 / 3, 1 / 3, 1.0]


def test_the_judge_maps_a_class_weight_dict_through_the_callers_labels():
    labels = np.array([0, 1, 1])
    model = LogisticRegression(class_weight={"spam": 5.0})
    weights = judge_sample_weight(model, np.array(["ham", "spam"]), labels)
    assert weights.tolist() == [1.0, 5.0, 5.0]


def test_the_judge_weighs_samples_by_the_sample_weight_given_to_fit():
    labels = np.array([0, 1, 1])
    weights = judge_sample_weight(
        LogisticRegression(class_weight={1: 2.0}),
        np.array([0, 1]),
        labels,
        sample_weight=np.array([3.0, 1.0, 0.5]),
    )
    assert weights.tolist() == [3.0, 2.0, 1.0]


def test_memorisation_counts_the_contradicted_labels_fitted_in_sample():
    held_out = np.eye(2)[1 - GIVEN]  # contradicts every label
    in_sample = np.eye(2)[GIVEN]  # fits every label
    evidence = memorisation_evidence(GIVEN, held_out, in_sample)
    assert evidence["rate"] == 1.0
    assert evidence["out_of_fold_agreement"] == 0.0
    assert memorises(evidence, 0.1)


def test_memorisation_is_not_measured_on_the_left_out_samples():
    held_out = np.eye(2)[GIVEN].copy()
    held_out[:4] = np.eye(2)[1 - GIVEN[:4]]  # contradicted, but left out
    evidence = memorisation_evidence(GIVEN, held_out, np.eye(2)[GIVEN], np.arange(4))
    assert evidence["out_of_fold_agreement"] == 1.0


def test_memorisation_is_not_measured_where_no_model_trained_on_the_sample():
    held_out = np.eye(2)[GIVEN].copy()
    held_out[:4] = np.eye(2)[1 - GIVEN[:4]]  # contradicted, but never seen
    in_sample = np.eye(2)[GIVEN].copy()
    in_sample[:4] = np.nan
    evidence = memorisation_evidence(GIVEN, held_out, in_sample)
    assert evidence["out_of_fold_agreement"] == 1.0


def test_a_model_that_fits_none_of_what_it_contradicts_does_not_memorise():
    held_out = np.eye(2)[1 - GIVEN]
    evidence = memorisation_evidence(GIVEN, held_out, held_out)
    assert evidence["rate"] == 0.0 and not memorises(evidence, 0.1)


def test_sure_disputes_count_labels_at_most_the_sure_ratio_of_the_top():
    held_out = np.eye(2)[GIVEN] * 0.5 + 0.25  # the label at 0.75: agreed
    held_out[:2] = [0.2, 0.8]  # label 0 at a quarter of the top: sure
    held_out[2:4] = [0.4, 0.6]  # label 0 at two thirds of the top: not sure
    evidence = memorisation_evidence(GIVEN, held_out, held_out, sure_ratio=0.5)
    assert evidence["sure_disputes"] == 2 / 16
    assert evidence["judge_margin"] == 12 / 16 - 2 / 16


def test_a_model_that_surely_disputes_most_labels_cannot_judge():
    held_out = np.tile([0.1, 0.9], (16, 1))  # every label 0 surely disputed
    evidence = memorisation_evidence(GIVEN, held_out, held_out)
    assert evidence["judge_margin"] == 0.5 - 0.5  # 8 agreements, 8 disputes
    held_out[8:12] = [0.9, 0.1]  # four label-1 samples surely disputed too
    evidence = memorisation_evidence(GIVEN, held_out, held_out)
    assert evidence["judge_margin"] == 4 / 16 - 12 / 16
    assert not can_judge(evidence)


def test_a_margin_within_one_standard_error_of_zero_is_not_a_refusal():
    held_out = np.tile([0.1, 0.9], (16, 1))
    held_out[8] = [0.9, 0.1]  # 7 agreements, 9 sure disputes of 16
    evidence = memorisation_evidence(GIVEN, held_out, held_out)
    assert -evidence["judge_margin_standard_error"] < evidence["judge_margin"] < 0
    assert can_judge(evidence)


def refused_evidence(share, share_error, agreement=0.3, chance=0.1):
    """A judge margin clearly below zero, with the rest of the evidence given."""
    return {
        "judge_margin": -0.4,
        "judge_margin_standard_error": 0.02,
        "out_of_fold_agreement": agreement,
        "chance_agreement": chance,
        "n_measured": 1000,
        "random_label_share": share,
        "random_label_share_standard_error": share_error,
    }


def test_a_weak_model_whose_disputes_mostly_look_random_can_judge():
    assert can_judge(refused_evidence(0.7, 0.05))


def test_a_weak_model_whose_random_share_is_within_an_error_of_half_cannot():
    assert not can_judge(refused_evidence(0.7, 0.25))
    assert not can_judge(refused_evidence(0.45, 0.01))


def test_a_weak_model_that_predicts_the_labels_no_better_than_chance_cannot():
    # agreement 0.34 against 0.33 by chance: within a standard error (0.015)
    assert not can_judge(refused_evidence(0.9, 0.05, agreement=0.34, chance=0.33))
    assert can_judge(refused_evidence(0.9, 0.05, agreement=0.38, chance=0.33))


def test_chance_agreement_is_the_agreement_of_independent_draws():
    labels = np.array([0, 0, 0, 1])  # shares 3/4, 1/4
    predictions = np.array([1, 1, 0, 0])  # shares 1/2, 1/2
    assert chance_agreement(labels, predictions) == 3 / 4 * 1 / 2 + 1 / 4 * 1 / 2


def test_a_weak_model_without_a_random_share_cannot_judge():
    assert not can_judge(refused_evidence(None, None))  # two classes
    assert not can_judge(refused_evidence(float("nan"), None))  # no evidence


def test_the_set_aside_is_stratified_and_disjoint():
    train, validation = split_validation(0.25, GIVEN, np.random.RandomState(0), None)
    assert np.intersect1d(train, validation).size == 0
    assert np.bincount(GIVEN[validation]).tolist() == [2, 2]


def choose(can_set_aside, validation_fraction=0.2, groups=None):
    return choose_judged_samples(
        GIVEN,
        np.random.RandomState(0),
        groups,
        validation_fraction=validation_fraction,
        can_set_aside=can_set_aside,
    )


def test_validation_samples_are_drawn_stratified():
    training, validation, judged = choose(can_set_aside=True)
    assert np.bincount(GIVEN[validation]).tolist() == [2, 2]  # 0.2 of 8 each
    np.testing.assert_array_equal(
        np.sort(np.concatenate([training, validation])), np.arange(GIVEN.shape[0])
    )
    np.testing.assert_array_equal(judged, validation)


def test_a_group_stays_whole_in_the_validation_samples():
    groups = np.repeat(np.arange(8), 2)
    _, validation, _ = choose(can_set_aside=True, groups=groups)
    assert np.isin(groups, groups[validation]).sum() == validation.size


def test_folds_given_as_pairs_judge_in_place():
    assert choose(can_set_aside=False) == (None, None, None)


@pytest.mark.parametrize(
    ("class_weight", "weighted"), [(None, False), ("balanced", True)]
)
def test_a_fitted_run_judges_as_its_estimator_weighs_the_classes(
    class_weight, weighted
):
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    from sklearn_plc import PLCClassifier

    X, y = make_classification(600, weights=[0.85], random_state=0)
    y_noisy = y.copy()
    y_noisy[np.flatnonzero(y == 1)[::4]] = 0  # a quarter of the rare class
    forest = RandomForestClassifier(20, class_weight=class_weight, random_state=0)
    plc = PLCClassifier(forest, random_state=0).fit(X, y_noisy)
    assert plc.selection_["sample_weighted"] is weighted


def test_a_fitted_run_judges_each_sample_at_the_weight_given_to_fit():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    from sklearn_plc import PLCClassifier

    X, y = make_classification(600, random_state=0)
    weights = np.where(y == 1, 2.0, 1.0)
    forest = RandomForestClassifier(20, random_state=0)
    plc = PLCClassifier(forest, random_state=0).fit(X, y, sample_weight=weights)
    assert plc.selection_["sample_weighted"]


def test_the_check_on_halves_undoes_a_result_that_agrees_clearly_worse():
    plain = np.ones(100, dtype=bool)
    worse = plain.copy()
    worse[:10] = False  # ten samples only the plain fit agrees with
    selection = halves_verdict(worse, plain, "converged", 1.0)
    assert selection["undone"] and not selection["chosen"]
    assert selection["compared"] == "halves" and selection["ending"] == "converged"
    assert selection["n_judged"] == 100


def test_the_check_on_halves_keeps_a_result_within_its_bar():
    plain = np.ones(100, dtype=bool)
    plain[:10] = False
    slightly_worse = plain.copy()
    slightly_worse[:4] = True  # four gains, six losses: within a standard error
    slightly_worse[10:16] = False
    selection = halves_verdict(slightly_worse, plain, "converged", 1.0)
    assert selection["gain"] < 0 and not selection["undone"]
    assert selection["n_differ"] == 10 and not selection["too_few_differ"]


@pytest.mark.parametrize("n_differ", [0, 1, 2])
def test_the_check_on_halves_undoes_a_result_that_changes_too_few_predictions(
    n_differ,
):
    plain = np.ones(100, dtype=bool)
    better = plain.copy()
    plain[:n_differ] = False  # even where every one of them is a gain
    selection = halves_verdict(better, plain, "converged", 1.0)
    assert selection["undone"] and selection["too_few_differ"]
    assert selection["n_differ"] == n_differ


def test_the_check_on_halves_weighs_each_sample():
    plain = np.array([True] * 90 + [False] * 10)
    candidate = np.array([True] * 80 + [False] * 10 + [True] * 10)
    # ten losses in the common class, ten gains in the rare one
    assert halves_verdict(candidate, plain, "converged", 1.0)["gain"] == 0
    weights = np.where(np.arange(100) < 90, 1 / 90, 1 / 10)
    weighed = halves_verdict(candidate, plain, "converged", 1.0, weights)
    assert weighed["gain"] > 0 and weighed["sample_weighted"]


def test_the_halves_are_stratified_and_complementary():
    labels = np.array([0] * 40 + [1] * 20)
    halves = split_halves(labels, np.random.RandomState(0), None)
    assert len(halves) == 2
    for part, other in halves:
        np.testing.assert_array_equal(np.sort(np.concatenate([part, other])), range(60))
        assert np.bincount(labels[part]).tolist() == [20, 10]


def test_the_halves_keep_a_group_on_one_side():
    labels = np.array([0, 1] * 30)
    groups = np.repeat(np.arange(12), 5)
    for part, other in split_halves(labels, np.random.RandomState(0), groups):
        assert not np.intersect1d(groups[part], groups[other]).size


class _Predicts:
    """A fitted two-class model that predicts the class index in column 0 of X."""

    classes_ = np.array([0, 1])

    def predict_proba(self, X):
        return np.eye(2)[np.asarray(X)[:, 0].astype(int)]


def _samples(predicted):
    """X whose column 0 is the class each sample is predicted, column 1 its row."""
    return np.column_stack([predicted, np.arange(predicted.shape[0])])


def test_each_sample_is_judged_by_the_half_that_never_saw_it():
    labels = np.array([0, 1] * 30)
    trained_on = []

    def fit_halves(part):
        trained_on.append(part)
        return _Predicts(), _Predicts()

    rng = np.random.RandomState(0)
    X = _samples(labels)
    selection = check_on_halves(X, labels, np.array([0, 1]), rng, None, fit_halves, "c")
    assert len(trained_on) == 2 and not np.intersect1d(*trained_on).size
    assert selection["holdout_agreement"] == 1.0 and selection["n_judged"] == 60


def test_the_check_undoes_a_run_whose_halves_predict_clearly_worse():
    labels = np.array([0, 1] * 30)
    wrong = np.where(np.arange(60) < 12, 1 - labels, labels)

    class RunModel(_Predicts):  # wrong on the first 12 rows (X's column 1)
        def predict_proba(self, X):
            return np.eye(2)[wrong[np.asarray(X)[:, 1]]]

    rng = np.random.RandomState(0)
    X = _samples(labels)
    selection = check_on_halves(
        X,
        labels,
        np.array([0, 1]),
        rng,
        None,
        lambda part: (RunModel(), _Predicts()),
        "c",
    )
    assert selection["undone"] and selection["ending"] == "c"
    assert selection["gain"] == pytest.approx(-0.2)


@pytest.mark.parametrize(("verified_only", "undone"), [(False, False), (True, True)])
def test_the_verified_samples_alone_judge_the_check_where_asked(verified_only, undone):
    labels = np.array([0, 1] * 30)
    rows = np.arange(60)
    run_wrong = np.where(rows < 12, 1 - labels, labels)  # 12 losses, all verified
    plain_wrong = np.where(rows >= 30, 1 - labels, labels)  # 30, none verified

    class Predicts(_Predicts):
        def __init__(self, predicted):
            self.predicted = predicted

        def predict_proba(self, X):
            return np.eye(2)[self.predicted[np.asarray(X)[:, 1]]]

    verified = rows < 30
    selection = check_on_halves(
        _samples(labels),
        labels,
        np.array([0, 1]),
        np.random.RandomState(0),
        None,
        lambda part: (Predicts(run_wrong), Predicts(plain_wrong)),
        "c",
        judged=verified if verified_only else None,
    )
    assert selection["undone"] is undone and selection["verified"] is verified_only
    assert selection["n_judged"] == (30 if verified_only else 60)


def test_the_check_gives_up_where_a_half_cannot_be_run():
    def fit_halves(part):
        raise ValueError("a class too small for the folds")

    labels = np.array([0, 1] * 30)
    rng = np.random.RandomState(0)
    X = _samples(labels)
    assert (
        check_on_halves(X, labels, np.array([0, 1]), rng, None, fit_halves, "c") is None
    )
