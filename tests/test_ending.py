"""How a refit run ends (sklearn_plc._ending): undo, contest, what is left out.

The decisions are tested on :func:`end_of_run` with plain evidence; the runs
below them check that a fitted PLCClassifier acts on them.
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits, make_classification
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from sklearn_plc import PLCClassifier
from sklearn_plc.noise import (
    asymmetric_transition_matrix,
    flip_labels_with_matrix,
    uniform_transition_matrix,
)


def test_a_model_too_weak_to_judge_is_not_judged_without_its_disputes():
    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(400, 5)), rng.randint(10, size=400)
    plc = PLCClassifier(
        DecisionTreeClassifier(random_state=0), doubtful="set_aside", random_state=0
    )
    plc.fit(X, y)
    assert plc.termination_condition_ == "too_weak_to_judge"
    assert plc.selection_ is None  # its disputes are not even compared


@pytest.fixture(scope="module")
def weak_twenty_classes():
    """20 classes, 30% uniform noise: models too weak to judge the labels."""
    X, y = make_classification(
        1500,
        n_features=20,
        n_informative=10,
        n_classes=20,
        n_clusters_per_class=1,
        class_sep=1.0,
        random_state=0,
    )
    y_noisy = flip_labels_with_matrix(
        y, uniform_transition_matrix(20, 0.3), random_state=0
    )
    return X, y, y_noisy


def test_a_memorising_model_too_weak_to_judge_leaves_out_random_labels(
    weak_twenty_classes,
):
    X, y, y_noisy = weak_twenty_classes
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0)
    plc = PLCClassifier(trees, random_state=0).fit(X, y_noisy)
    assert plc.termination_condition_ == "too_weak_to_judge"
    assert plc.memorisation_["rate"] >= 0.8
    assert 0.1 < plc.memorisation_["random_label_share"] < 0.9
    np.testing.assert_array_equal(plc.labels_, y_noisy)
    wrong = y_noisy != y
    assert plc.set_aside_.any()
    assert wrong[plc.set_aside_].mean() > 2 * wrong.mean()
    kept = ~plc.set_aside_
    direct = clone(trees).fit(X[kept], y_noisy[kept])
    np.testing.assert_array_equal(plc.predict(X), direct.predict(X))


def test_a_weak_model_whose_disputes_look_drawn_at_random_is_judged(
    weak_twenty_classes,
):
    # 5-NN confuses each class with its neighbours; uniform noise lands anywhere
    X, _, y_noisy = weak_twenty_classes
    knn = make_pipeline(StandardScaler(), KNeighborsClassifier())
    plc = PLCClassifier(knn, random_state=0).fit(X, y_noisy)
    evidence = plc.memorisation_
    assert evidence["judge_margin"] < -evidence["judge_margin_standard_error"]
    share_error = evidence["random_label_share_standard_error"]
    assert evidence["random_label_share"] - share_error > 0.5
    assert plc.termination_condition_ != "too_weak_to_judge"
    assert plc.selection_["compared"] in ("corrections", "halves")


def test_a_smooth_model_too_weak_to_judge_keeps_every_sample(weak_twenty_classes):
    # it averages random labels out: leaving them out would only lose samples
    X, _, y_noisy = weak_twenty_classes
    plc = PLCClassifier(LogisticRegression(max_iter=1000), random_state=0)
    plc.fit(X, y_noisy)
    assert plc.termination_condition_ == "too_weak_to_judge"
    assert plc.memorisation_["rate"] < 0.5
    assert plc.memorisation_["random_label_share"] > 0.1
    assert not plc.set_aside_.any()


def test_random_labels_stay_when_disputed_keeps_every_sample(weak_twenty_classes):
    X, _, y_noisy = weak_twenty_classes
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0)
    plc = PLCClassifier(trees, doubtful="keep", random_state=0).fit(X, y_noisy)
    assert plc.termination_condition_ == "too_weak_to_judge"
    assert not plc.set_aside_.any()


@pytest.fixture(scope="module")
def digits_uniform_noise():
    """Digits with 30% uniform noise: each wrong label drawn at random."""
    X, y = load_digits(return_X_y=True)
    matrix = uniform_transition_matrix(10, 0.3)
    return X, y, flip_labels_with_matrix(y, matrix, random_state=0)


def test_a_corrected_memorising_model_leaves_out_random_labels(digits_uniform_noise):
    X, y, y_noisy = digits_uniform_noise
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0)  # no bootstrap
    plc = PLCClassifier(trees, random_state=2).fit(X, y_noisy)
    assert plc.termination_condition_ == "converged"
    assert (plc.labels_ != y_noisy).any()
    assert plc.memorisation_["random_label_share"] > 0.3
    wrong = y_noisy != y
    assert plc.set_aside_.any()
    assert wrong[plc.set_aside_].mean() > 2 * wrong.mean()
    # every other sample weighs 1 in all (a relabel: both labels by weight)
    root_weight = plc.estimator_.estimators_[0].tree_.weighted_n_node_samples[0]
    assert root_weight == pytest.approx(len(X) - plc.set_aside_.sum())


def test_noise_that_follows_the_models_confusion_is_relabelled_not_left_out():
    # pair noise: each class's wrong labels are one other class, which the model
    # learns to confuse it with
    X, y = load_digits(return_X_y=True)
    matrix = asymmetric_transition_matrix(np.arange(10), 0.3)
    y_noisy = flip_labels_with_matrix(y, matrix, random_state=0)
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0)
    plc = PLCClassifier(trees, random_state=0).fit(X, y_noisy)
    assert plc.termination_condition_ == "converged"
    assert (plc.labels_ != y_noisy).any()
    assert plc.memorisation_["random_label_share"] < 0.05
    assert not plc.set_aside_.any()


@pytest.fixture(scope="module")
def noisy_digits():
    """Digits with 30% uniform noise: naive Bayes does not memorise them, and
    leaving out the labels it surely disputes trains it clearly better."""
    X, y = load_digits(return_X_y=True)
    matrix = uniform_transition_matrix(10, 0.3)
    return X, flip_labels_with_matrix(y, matrix, random_state=0)


def test_a_model_that_does_not_memorise_leaves_out_its_sure_disputes_if_clearly_better(
    noisy_digits,
):
    X, y_noisy = noisy_digits
    plc = PLCClassifier(GaussianNB(), random_state=0).fit(X, y_noisy)
    assert plc.termination_condition_ == "not_memorising"
    np.testing.assert_array_equal(plc.labels_, y_noisy)
    selection = plc.selection_
    assert selection["compared"] == "set_aside" and selection["chosen"]
    assert selection["gain"] > 3 * selection["standard_error"]
    assert plc.set_aside_.sum() == selection["n_set_aside"] > 0
    assert plc.estimator_.class_count_.sum() == len(X) - plc.set_aside_.sum()


def test_the_judging_samples_it_surely_disputes_are_left_out_too(noisy_digits):
    X, y_noisy = noisy_digits
    y_true = load_digits().target
    plc = PLCClassifier(GaussianNB(), random_state=0).fit(X, y_noisy)
    judged = np.zeros(len(X), dtype=bool)
    judged[plc.validation_indices_] = True
    left_out_judged = plc.set_aside_ & judged
    assert left_out_judged.any() and (plc.set_aside_ & ~judged).any()
    # the same held-out rule picks wrong labels among them, as among the rest
    kept_judged = judged & ~plc.set_aside_
    wrong = y_noisy != y_true
    assert wrong[left_out_judged].mean() > 2 * wrong[kept_judged].mean()


@pytest.mark.parametrize("doubtful", ["keep", "weigh"])
def test_only_doubtful_auto_and_set_aside_leave_out_the_sure_disputes(
    noisy_digits, doubtful
):
    X, y_noisy = noisy_digits
    plc = PLCClassifier(GaussianNB(), doubtful=doubtful, random_state=0)
    plc.fit(X, y_noisy)
    assert plc.termination_condition_ == "not_memorising"
    assert plc.selection_ is None and not plc.set_aside_.any()


def test_a_run_whose_passes_after_the_first_round_were_quiet_judges_its_corrections():
    # a rare class under one-sided noise: each pass moves a few labels, no refit
    X, y = load_digits(return_X_y=True)
    y = (y == 8).astype(int)
    y_noisy = flip_labels_with_matrix(y, [[1.0, 0.0], [0.3, 0.7]], random_state=1)
    plc = PLCClassifier(ExtraTreesClassifier(30, random_state=0), random_state=0)
    plc.fit(X, y_noisy)
    assert [r["refit"] for r in plc.history_[1:]] == [False] * (len(plc.history_) - 1)
    assert (plc.labels_ != y_noisy).any()
    assert plc.selection_["compared"] == "corrections" and plc.selection_["weighed"]


def test_weighed_folds_with_every_weight_one_predict_as_the_hard_folds(noisy_blobs):
    from sklearn_plc._final_fit import weighed_out_of_fold_proba
    from sklearn_plc._held_out import out_of_fold_proba

    labels = noisy_blobs.y_noisy
    validation = np.arange(0, 600, 5)
    rest = np.setdiff1d(np.arange(600), validation)
    splits = [
        (rest[train], rest[test]) for train, test in KFold(3).split(rest.reshape(-1, 1))
    ]
    tree = DecisionTreeClassifier(random_state=0)
    classes = np.array([0, 1])
    hard, _ = out_of_fold_proba(
        tree,
        noisy_blobs.X,
        labels,
        splits,
        classes,
        fit_params={},
        validation=validation,
    )
    weighed = weighed_out_of_fold_proba(
        tree,
        noisy_blobs.X,
        labels,
        1 - labels,  # never fitted: every weight is 1
        np.ones(600),
        splits,
        classes=classes,
        params={},
        key="sample_weight",
        validation=validation,
    )
    np.testing.assert_allclose(weighed, hard)


def test_nothing_is_set_aside_when_kept_labels_show_no_clear_gain_without_any(
    noisy_blobs,
):
    plc = PLCClassifier(
        LogisticRegression(max_iter=1000), doubtful="set_aside", random_state=0
    ).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "not_memorising"
    assert not plc.selection_["chosen"]
    assert not plc.set_aside_.any()


def test_corrections_judged_at_no_loss_are_kept(noisy_blobs, without_halves_check):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.selection_["gain"] >= 0
    assert plc.termination_condition_ == "converged"


# --- the end of a run as a function of its evidence -------------------------------

from sklearn_plc._ending import (  # noqa: E402
    EndingSettings,
    FitRequest,
    RunEvidence,
    end_of_run,
)
from sklearn_plc._judge import JudgedRefit  # noqa: E402

N_JUDGED = 100
GIVEN = np.arange(200) % 2
CORRECTED = np.where(np.arange(200) < 20, 1 - GIVEN, GIVEN)  # 20 relabels


def agreeing(n_agree, n=N_JUDGED):
    """Per judged sample, whether it agrees: the first `n_agree` do."""
    return np.arange(n) < n_agree


def settings(**changes):
    values = dict(
        doubtful="keep",
        judge_acts=True,
        held_out=True,
        weighable=False,
        refits_folds=True,
    )
    return EndingSettings(**{**values, **changes})


def evidence(corrected_agree=80, stopped="converged", **changes):
    """A kept run judged at 80 of 100 on the given labels, `corrected_agree` after."""
    pass_proba = np.where(
        (CORRECTED == 1)[:, None], [[0.3, 0.7]], [[0.7, 0.3]]
    )  # each relabel weighed at 0.7
    values = dict(
        stopped=stopped,
        given_labels=GIVEN,
        labels=CORRECTED,
        reference=JudgedRefit(0, agreeing(80)),
        last=JudgedRefit(3, agreeing(corrected_agree)),
        pass_proba=pass_proba,
        disputed=np.zeros(200, dtype=bool),
    )
    return RunEvidence(**{**values, **changes})


def test_corrections_judged_clearly_worse_are_undone():
    ending = end_of_run(evidence(corrected_agree=60), settings())
    assert ending.termination == "undone" and ending.restore_given_labels
    np.testing.assert_array_equal(ending.labels, GIVEN)
    assert ending.selection["undone"] and ending.selection["round"] == 3


def test_corrections_judged_at_no_loss_are_kept_as_corrected():
    ending = end_of_run(evidence(corrected_agree=85), settings())
    assert ending.termination == "converged" and not ending.restore_given_labels
    np.testing.assert_array_equal(ending.labels, CORRECTED)
    assert ending.selection["chosen"] and ending.selection["gain"] > 0


def test_one_sample_lost_does_not_undo():
    one_lost = evidence(corrected_agree=79)
    assert end_of_run(one_lost, settings()).termination == "converged"


def test_a_judge_that_may_not_act_keeps_the_corrections_and_reports_the_evidence():
    ending = end_of_run(evidence(corrected_agree=0), settings(judge_acts=False))
    assert ending.termination == "converged"
    assert not ending.selection["undone"] and ending.selection["gain"] < 0


def test_an_undo_where_the_final_fit_weighs_asks_for_the_weighed_folds():
    request = end_of_run(evidence(corrected_agree=60), settings(weighable=True))
    assert isinstance(request, FitRequest) and request.name == "weighed_folds"
    np.testing.assert_allclose(request.weights[:20], 0.7)
    assert (request.weights[20:] == 1).all()


@pytest.mark.parametrize("weighed_agree", [80, 60])
def test_the_weighed_folds_decide_the_undo(weighed_agree):
    run = evidence(corrected_agree=60).with_fitted(
        "weighed_folds", JudgedRefit(4, agreeing(weighed_agree), weighed=True)
    )
    ending = end_of_run(run, settings(weighable=True))
    assert ending.selection["weighed"] and ending.selection["round"] == 4
    assert (ending.termination == "undone") is (weighed_agree == 60)


def test_an_undo_with_hard_final_labels_or_after_an_early_stop_is_not_judged_again():
    hard = end_of_run(evidence(corrected_agree=60), settings())
    early = end_of_run(
        evidence(corrected_agree=60, stopped="undone"), settings(weighable=True)
    )
    for ending in (hard, early):
        assert ending.termination == "undone" and not ending.selection["weighed"]


def test_a_small_loss_asks_for_new_held_out_probabilities_with_doubtful_auto():
    request = end_of_run(evidence(corrected_agree=79), settings(doubtful="auto"))
    assert request == FitRequest("contest")


@pytest.mark.parametrize("doubtful", ["keep", "weigh", "set_aside"])
def test_only_doubtful_auto_contests_a_small_loss(doubtful):
    ending = end_of_run(evidence(corrected_agree=79), settings(doubtful=doubtful))
    assert ending.termination == "converged"


def test_a_judge_that_may_not_act_does_not_contest_a_small_loss():
    run = evidence(corrected_agree=79)
    ending = end_of_run(run, settings(doubtful="auto", judge_acts=False))
    assert ending.termination == "converged"


def test_a_run_forced_to_contest_asks_for_new_probabilities_without_a_verdict():
    # judged at a gain (85 against 80): its own verdict would keep the corrections
    run = evidence(corrected_agree=85, stopped="corrections_contested")
    request = end_of_run(run, settings(doubtful="auto"))
    assert request == FitRequest("contest")


def sure_of_class_0(first_rows=40):
    """Held-out probabilities that agree with every label at 0.9 but in the first
    `first_rows`, which are class 0 at 0.9 (a dispute of their class-1 labels)."""
    proba = np.where((GIVEN == 0)[:, None], [[0.9, 0.1]], [[0.1, 0.9]])
    proba[:first_rows] = [0.9, 0.1]
    return proba


def test_contested_corrections_keep_the_given_labels_and_leave_out_the_disputed():
    run = evidence(corrected_agree=79).with_fitted("contest", sure_of_class_0())
    ending = end_of_run(run, settings(doubtful="auto"))
    assert ending.termination == "corrections_contested"
    assert ending.restore_given_labels and ending.relabel_weight is None
    np.testing.assert_array_equal(ending.labels, GIVEN)
    # confident learning disputes the class-1 labels of samples sure of class 0
    np.testing.assert_array_equal(
        ending.set_aside, (GIVEN == 1) & (np.arange(200) < 40)
    )
    assert ending.selection["n_set_aside"] == 20 and not ending.selection["chosen"]


def test_contested_disputes_read_the_new_probabilities_with_the_first_rounds():
    # the first round is sure of class 1 where the new folds are sure of class 0:
    # their average disputes nothing
    first = np.where((GIVEN == 0)[:, None], [[0.9, 0.1]], [[0.1, 0.9]])
    first[:40] = [0.1, 0.9]
    run = evidence(corrected_agree=79, first_proba=first).with_fitted(
        "contest", sure_of_class_0()
    )
    run = RunEvidence(**{**run.__dict__, "memorisation": {"rate": 0.0}})
    ending = end_of_run(run, settings(doubtful="auto"))
    assert ending.termination == "corrections_contested"
    assert not ending.set_aside.any()


def test_a_run_forced_to_contest_contests_corrections_its_verdict_would_keep():
    run = evidence(corrected_agree=85, stopped="corrections_contested")
    run = run.with_fitted("contest", sure_of_class_0())
    ending = end_of_run(run, settings(doubtful="auto"))
    assert ending.termination == "corrections_contested"
    np.testing.assert_array_equal(ending.labels, GIVEN)
    assert ending.set_aside.sum() == 20


def test_a_run_forced_to_contest_is_not_undone_by_its_verdict():
    run = evidence(corrected_agree=60, stopped="corrections_contested")
    run = run.with_fitted("contest", sure_of_class_0())
    ending = end_of_run(run, settings(doubtful="auto"))
    assert ending.termination == "corrections_contested"


def unjudged(**changes):
    """A kept run whose passes after the first round were all quiet: its last
    judged models are the first round's."""
    reference = JudgedRefit(0, agreeing(80))
    return evidence(reference=reference, last=reference, **changes)


def test_corrections_no_refit_trained_on_are_judged_on_folds_fitted_as_the_final_fit():
    request = end_of_run(unjudged(), settings(weighable=True))
    assert isinstance(request, FitRequest) and request.name == "weighed_folds"
    np.testing.assert_allclose(request.weights[:20], 0.7)


@pytest.mark.parametrize("weighed_agree", [85, 60])
def test_those_folds_decide_whether_such_corrections_stay(weighed_agree):
    run = unjudged().with_fitted(
        "weighed_folds", JudgedRefit(4, agreeing(weighed_agree), weighed=True)
    )
    ending = end_of_run(run, settings(weighable=True))
    assert ending.selection["compared"] == "corrections"
    assert ending.selection["weighed"] and ending.selection["round"] == 4
    assert (ending.termination == "undone") is (weighed_agree == 60)


@pytest.mark.parametrize(
    "change",
    [dict(weighable=False), dict(refits_folds=False), dict(judge_acts=False)],
)
def test_unjudged_corrections_are_judged_only_on_folds_fitted_as_the_final_fit(change):
    ending = end_of_run(unjudged(), settings(**{"weighable": True, **change}))
    assert ending.termination == "converged" and ending.selection is None


def test_a_run_that_corrected_nothing_asks_for_no_judged_folds():
    ending = end_of_run(unjudged(labels=GIVEN), settings(weighable=True))
    assert ending.termination == "converged" and ending.selection is None


def test_corrections_stay_where_the_new_models_cannot_be_fitted():
    run = evidence(corrected_agree=79).with_fitted("contest", None)
    assert end_of_run(run, settings(doubtful="auto")).termination == "converged"


def not_memorising(**changes):
    """A refused run whose first round surely disputes the first 30 labels."""
    first = np.where((GIVEN == 0)[:, None], [[0.8, 0.2]], [[0.2, 0.8]])
    first[:30] = first[:30, ::-1]
    values = dict(
        stopped="not_memorising",
        labels=GIVEN,
        last=None,
        first_proba=first,
        memorisation={"rate": 0.05},
        validation=np.arange(100, 200),
    )
    return evidence(**{**values, **changes})


def test_a_model_that_does_not_memorise_asks_to_refit_without_its_sure_disputes():
    request = end_of_run(not_memorising(), settings(doubtful="auto"))
    assert request.name == "left_out"
    # the fold-trained ones only: the validation samples are not in any fold
    np.testing.assert_array_equal(np.flatnonzero(request.left_out), np.arange(30))


@pytest.mark.parametrize("n_agree", [80, 95])
def test_the_sure_disputes_are_left_out_only_on_a_clear_gain(n_agree):
    run = not_memorising().with_fitted("left_out", agreeing(n_agree))
    ending = end_of_run(run, settings(doubtful="auto"))
    assert ending.termination == "not_memorising"
    assert ending.selection["compared"] == "set_aside"
    chosen = n_agree == 95
    assert ending.selection["chosen"] is chosen
    assert ending.selection["n_set_aside"] == 30
    if chosen:
        np.testing.assert_array_equal(np.flatnonzero(ending.set_aside), np.arange(30))
    else:
        assert ending.set_aside is None


def disputes_drawn_at_random(share):
    """A non-memorising model's evidence whose disputes look random at `share`."""
    return {
        "rate": 0.05,
        "random_label_share": share,
        "random_label_share_standard_error": 0.1,
        "out_of_fold_agreement": 0.7,
        "chance_agreement": 0.25,
        "n_measured": 200,
    }


@pytest.mark.parametrize("share", [0.4, 0.8])
def test_disputes_that_look_drawn_at_random_are_left_out_at_one_standard_error(share):
    # 85 of 100 judged samples agree against 80: a gain of about 2.3 standard errors
    run = not_memorising(memorisation=disputes_drawn_at_random(share))
    ending = end_of_run(
        run.with_fitted("left_out", agreeing(85)), settings(doubtful="auto")
    )
    looks_random = share == 0.8
    assert ending.selection["standard_errors"] == (1 if looks_random else 3)
    assert ending.selection["chosen"] is looks_random
    assert (ending.set_aside is not None) is looks_random


def test_a_model_at_chance_keeps_the_bar_of_three_standard_errors():
    at_chance = {**disputes_drawn_at_random(0.8), "chance_agreement": 0.7}
    run = not_memorising(memorisation=at_chance)
    ending = end_of_run(
        run.with_fitted("left_out", agreeing(85)), settings(doubtful="auto")
    )
    assert ending.selection["standard_errors"] == 3
    assert not ending.selection["chosen"]


def test_a_halfs_run_forced_to_leave_out_its_sure_disputes_fits_nothing_more():
    forced = settings(doubtful="auto", leaves_out=True)
    ending = end_of_run(not_memorising(), forced)
    assert ending.termination == "not_memorising" and ending.selection["forced"]
    # every sure dispute, the validation samples' too, as a chosen leave-out
    assert ending.set_aside.sum() == ending.selection["n_set_aside"] == 30
    np.testing.assert_array_equal(ending.labels, GIVEN)


def memorising(**changes):
    """A corrected run (judged level with the labels as given) whose first round
    confidently disputes the first 30 labels."""
    return not_memorising(
        **{
            "stopped": "converged",
            "labels": CORRECTED,
            "last": JudgedRefit(3, agreeing(80)),
            "memorisation": {"rate": 0.9},
            "judged": np.arange(100, 200),
            **changes,
        }
    )


def test_a_memorising_run_asks_to_refit_without_its_confident_disputes():
    request = end_of_run(memorising(), settings(doubtful="auto"))
    assert request.name == "removal" and request.weights is None
    # every sample confident learning disputes, the judging ones too
    np.testing.assert_array_equal(np.flatnonzero(request.left_out), np.arange(30))


def test_where_the_final_fit_weighs_the_removal_gives_each_class_its_share_back():
    # one-sided: 30 of the class-1 samples are labelled 0
    first = np.where((GIVEN == 0)[:, None], [[0.8, 0.2]], [[0.2, 0.8]])
    first[np.flatnonzero(GIVEN == 0)[:30]] = [0.2, 0.8]
    run = memorising(first_proba=first)
    # weighable: the undo's weighed folds are not asked (no loss to confirm)
    request = end_of_run(run, settings(doubtful="auto", weighable=True))
    assert request.name == "removal"
    assert request.left_out.sum() == 30 and (GIVEN[request.left_out] == 0).all()
    # class 1 lost 30 of its 130 samples to class 0: weight 130 / 100
    np.testing.assert_allclose(request.weights[GIVEN == 1], 1.3)
    np.testing.assert_allclose(request.weights[GIVEN == 0], 1.0)


@pytest.mark.parametrize("n_agree", [80, 95])
def test_the_removal_is_chosen_only_on_a_gain_above_one_standard_error(n_agree):
    run = memorising(stopped="undone").with_fitted("removal", agreeing(n_agree))
    ending = end_of_run(run, settings(doubtful="auto"))
    chosen = n_agree == 95
    removal = ending.selection if chosen else ending.selection["removal"]
    assert removal["compared"] == "removal" and removal["chosen"] is chosen
    assert removal["n_set_aside"] == 30 and removal["against"] == "given"
    if chosen:
        assert ending.termination == "disputes_removed"
        np.testing.assert_array_equal(np.flatnonzero(ending.set_aside), np.arange(30))
        np.testing.assert_array_equal(ending.labels, GIVEN)
    else:
        assert ending.termination == "undone"


def test_a_corrected_run_is_displaced_only_by_a_removal_better_than_its_own_models():
    run = memorising(last=JudgedRefit(3, agreeing(95))).with_fitted(
        "removal", agreeing(95)
    )
    ending = end_of_run(run, settings(doubtful="auto"))
    assert ending.termination == "converged"
    removal = ending.selection["removal"]
    assert removal["against"] == "corrected" and removal["gain"] == 0
    assert ending.selection["compared"] == "corrections"


def test_a_removal_chosen_over_corrections_returns_the_labels_as_given():
    run = memorising(last=JudgedRefit(3, agreeing(82))).with_fitted(
        "removal", agreeing(95)
    )
    ending = end_of_run(run, settings(doubtful="auto"))
    assert ending.termination == "disputes_removed"
    assert ending.restore_given_labels and ending.relabel_weight is None
    assert ending.selection["corrections"]["compared"] == "corrections"


def test_trusted_labels_are_never_removed():
    trusted = np.zeros(200, dtype=bool)
    trusted[:10] = True
    request = end_of_run(memorising(trusted=trusted), settings(doubtful="auto"))
    np.testing.assert_array_equal(np.flatnonzero(request.left_out), np.arange(10, 30))


@pytest.mark.parametrize(
    "change",
    [
        dict(stopped="too_weak_to_judge", labels=GIVEN, last=None),
        dict(stopped="not_memorising", labels=GIVEN, last=None, validation=None),
        dict(first_proba=None),
    ],
)
def test_no_removal_for_a_model_that_cannot_judge_or_does_not_memorise(change):
    ending = end_of_run(memorising(**change), settings(doubtful="auto"))
    assert not isinstance(ending, FitRequest)
    assert ending.termination != "disputes_removed"


@pytest.mark.parametrize(
    "change", [dict(judge_acts=False), dict(doubtful="keep"), dict(doubtful="weigh")]
)
def test_no_removal_without_an_acting_judge_or_where_nothing_is_left_out(change):
    ending = end_of_run(memorising(), settings(**{"doubtful": "auto", **change}))
    assert not isinstance(ending, FitRequest)
    assert ending.termination == "converged"


def random_label_evidence(rate, **changes):
    """Ten classes, 15% of labels the model's confusion and 15% drawn at random."""
    rng = np.random.RandomState(0)
    n, k = 400, 10
    true = rng.randint(k, size=n)
    proba = np.full((n, k), 0.02 / (k - 2))
    proba[np.arange(n), true] = 0.7
    proba[np.arange(n), (true + 1) % k] = 0.28
    labels, draw = true.copy(), rng.rand(n)
    labels[draw < 0.15] = (true[draw < 0.15] + 1) % k
    random = (draw >= 0.15) & (draw < 0.3)
    labels[random] = (true[random] + rng.randint(2, k, size=random.sum())) % k
    values = dict(
        stopped="too_weak_to_judge",
        given_labels=labels,
        labels=labels,
        reference=None,
        last=None,
        first_proba=proba,
        memorisation={"rate": rate},
        pass_proba=proba,
        disputed=np.zeros(n, dtype=bool),
    )
    return RunEvidence(**{**values, **changes}), random


def test_a_memorising_model_leaves_out_the_labels_drawn_at_random():
    run, random = random_label_evidence(rate=0.9)
    ending = end_of_run(run, settings(doubtful="auto", held_out=False))
    np.testing.assert_array_equal(ending.set_aside, random)
    assert ending.memorisation["random_label_share"] > 0.3


def test_a_smooth_model_keeps_the_labels_drawn_at_random_and_records_their_share():
    run, _ = random_label_evidence(rate=0.5)
    ending = end_of_run(run, settings(doubtful="auto", held_out=False))
    assert ending.set_aside is None
    assert ending.memorisation["random_label_share"] > 0.3


def test_trusted_labels_drawn_at_random_are_never_left_out():
    run, random = random_label_evidence(rate=0.9)
    trusted = random.copy()
    trusted[np.flatnonzero(random)[5:]] = False  # five of them verified
    run = RunEvidence(**{**run.__dict__, "trusted": trusted})
    ending = end_of_run(run, settings(doubtful="auto", held_out=False))
    np.testing.assert_array_equal(ending.set_aside, random & ~trusted)


def test_random_labels_join_the_disputed_samples_left_out():
    run, random = random_label_evidence(rate=0.9, stopped="converged")
    disputed = np.zeros(400, dtype=bool)
    disputed[:10] = True
    run = RunEvidence(**{**run.__dict__, "disputed": disputed})
    ending = end_of_run(run, settings(doubtful="set_aside"))
    np.testing.assert_array_equal(ending.set_aside, random | disputed)


def test_doubtful_keep_leaves_nothing_out():
    run, _ = random_label_evidence(rate=0.9, stopped="converged")
    assert end_of_run(run, settings(doubtful="keep")).set_aside is None


def test_a_kept_run_that_weighs_gives_each_relabel_its_weight():
    ending = end_of_run(evidence(), settings(doubtful="auto", weighable=True))
    np.testing.assert_allclose(ending.relabel_weight[:20], 0.7)
    assert (ending.relabel_weight[20:] == 1).all() and ending.set_aside is None


def test_an_unweighable_kept_run_leaves_out_the_relabels_and_the_disputes():
    disputed = np.zeros(200, dtype=bool)
    disputed[[50, 51]] = True
    ending = end_of_run(evidence(disputed=disputed), settings(doubtful="auto"))
    assert ending.relabel_weight is None
    np.testing.assert_array_equal(
        np.flatnonzero(ending.set_aside), [*range(20), 50, 51]
    )


# --- the ending, acted on by a fitted PLCClassifier --------------------------------


def wrong_trusted_labels(noisy_blobs):
    """``(y, trusted)``: verified labels of the wrong class, which corrections lose."""
    trusted = np.random.RandomState(0).uniform(size=len(noisy_blobs.y_noisy)) < 0.2
    return np.where(trusted, 1 - noisy_blobs.y_clean, noisy_blobs.y_noisy), trusted


def undone_run(noisy_blobs, **params):
    y, trusted = wrong_trusted_labels(noisy_blobs)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, min_correction_rate=0.05, random_state=0, **params)
    return plc.fit(noisy_blobs.X, y, trusted=trusted), forest, y


def test_an_undone_run_fits_the_final_model_on_the_labels_as_given(noisy_blobs):
    plc, forest, y = undone_run(noisy_blobs, doubtful="keep")
    assert plc.termination_condition_ == "undone"
    np.testing.assert_array_equal(plc.labels_, y)
    assert (plc.corrected_iter_ == -1).all()
    direct = clone(forest).fit(noisy_blobs.X, y)
    np.testing.assert_array_equal(
        plc.predict(noisy_blobs.X), direct.predict(noisy_blobs.X)
    )


def test_an_undo_is_logged_so_history_and_corrections_agree_with_labels(noisy_blobs):
    plc, _, y = undone_run(noisy_blobs, doubtful="keep")
    undo = plc.history_[-1]
    assert undo["undo"] and undo["n_changed"] == 0
    assert not any(record["undo"] for record in plc.history_[:-1])
    assert len(plc.history_) == plc.n_iter_ + 1
    labels = y.copy()
    log = plc.corrections_
    for sample, old, new in zip(log["sample"], log["from"], log["to"], strict=True):
        assert labels[sample] == old
        labels[sample] = new
    np.testing.assert_array_equal(labels, plc.labels_)
    per_record = np.bincount(log["round"], minlength=len(plc.history_))
    assert per_record.tolist() == [r["n_corrected"] for r in plc.history_]
    assert undo["n_corrected"] == plc.history_[-2]["n_changed"] > 0
