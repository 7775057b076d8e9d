"""How a refit run ends (sklearn_plc._ending): undo, contest, judged set-aside."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits, make_classification
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from sklearn_plc import PLCClassifier
from sklearn_plc.noise import (
    asymmetric_transition_matrix,
    flip_labels_with_matrix,
    uniform_transition_matrix,
)


def test_corrections_that_their_models_judge_worse_are_undone(noisy_blobs, monkeypatch):
    # any loss at all counts as clearly worse: the wiring, not the threshold
    monkeypatch.setattr("sklearn_plc._ending.WORSE_STANDARD_ERRORS", -1e9)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, contested="keep", random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.selection_["undone"] and plc.selection_["round"] > 0
    assert plc.termination_condition_ == "undone"
    np.testing.assert_array_equal(plc.labels_, noisy_blobs.y_noisy)
    assert (plc.corrected_iter_ == -1).all()
    direct = clone(forest).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_array_equal(
        plc.predict(noisy_blobs.X), direct.predict(noisy_blobs.X)
    )


def test_a_model_too_weak_to_judge_is_not_judged_without_its_disputes():
    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(400, 5)), rng.randint(10, size=400)
    plc = PLCClassifier(
        DecisionTreeClassifier(random_state=0), contested="set_aside", random_state=0
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


def test_a_smooth_model_too_weak_to_judge_keeps_every_sample(weak_twenty_classes):
    # it averages random labels out: leaving them out would only lose samples
    X, _, y_noisy = weak_twenty_classes
    plc = PLCClassifier(LogisticRegression(max_iter=1000), random_state=0)
    plc.fit(X, y_noisy)
    assert plc.termination_condition_ == "too_weak_to_judge"
    assert plc.memorisation_["rate"] < 0.5
    assert plc.memorisation_["random_label_share"] > 0.1
    assert not plc.set_aside_.any()


def test_random_labels_stay_when_contested_keeps_every_sample(weak_twenty_classes):
    X, _, y_noisy = weak_twenty_classes
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0)
    plc = PLCClassifier(trees, contested="keep", random_state=0).fit(X, y_noisy)
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
    plc = PLCClassifier(trees, random_state=0).fit(X, y_noisy)
    assert plc.termination_condition_ == "converged"
    assert (plc.labels_ != y_noisy).any()
    assert plc.memorisation_["random_label_share"] > 0.3
    wrong = y_noisy != y
    assert plc.set_aside_.any()
    assert wrong[plc.set_aside_].mean() > 2 * wrong.mean()
    # every other sample weighs 1 in all (a relabel: both labels by weight)
    root_weight = plc.estimator_.estimators_[0].tree_.weighted_n_node_samples[0]
    assert root_weight == pytest.approx(len(X) - plc.set_aside_.sum())


def test_an_undone_memorising_model_leaves_out_random_labels(
    digits_uniform_noise, monkeypatch
):
    monkeypatch.setattr("sklearn_plc._ending.WORSE_STANDARD_ERRORS", -1e9)
    X, _, y_noisy = digits_uniform_noise
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0)
    plc = PLCClassifier(trees, random_state=0).fit(X, y_noisy)
    assert plc.termination_condition_ == "undone"
    np.testing.assert_array_equal(plc.labels_, y_noisy)
    assert plc.set_aside_.any()
    kept = ~plc.set_aside_
    direct = clone(trees).fit(X[kept], y_noisy[kept])
    np.testing.assert_array_equal(plc.predict(X), direct.predict(X))


def test_random_labels_join_the_contested_samples_left_out(
    digits_uniform_noise, monkeypatch
):
    X, _, y_noisy = digits_uniform_noise
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0)
    plc = PLCClassifier(trees, contested="set_aside", random_state=0)
    with_random = plc.fit(X, y_noisy).set_aside_.copy()
    monkeypatch.setattr("sklearn_plc._ending.RANDOM_LABELS_MIN_MEMORISATION", None)
    contested_only = plc.fit(X, y_noisy).set_aside_
    assert plc.termination_condition_ == "converged"
    assert contested_only.any()
    assert (with_random >= contested_only).all()
    assert with_random.sum() > contested_only.sum()


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


def test_a_model_that_does_not_memorise_fits_every_sample_without_a_clear_gain(
    noisy_digits, monkeypatch
):
    monkeypatch.setattr("sklearn_plc._ending.SET_ASIDE_STANDARD_ERRORS", 1e9)
    X, y_noisy = noisy_digits
    plc = PLCClassifier(GaussianNB(), random_state=0).fit(X, y_noisy)
    assert plc.selection_["compared"] == "set_aside"
    assert not plc.selection_["chosen"] and not plc.set_aside_.any()
    assert plc.estimator_.class_count_.sum() == len(X)


@pytest.mark.parametrize("contested", ["keep", "weigh"])
def test_only_contested_auto_and_set_aside_leave_out_the_sure_disputes(
    noisy_digits, contested
):
    X, y_noisy = noisy_digits
    plc = PLCClassifier(GaussianNB(), contested=contested, random_state=0)
    plc.fit(X, y_noisy)
    assert plc.termination_condition_ == "not_memorising"
    assert plc.selection_ is None and not plc.set_aside_.any()


def test_an_undo_is_logged_so_history_and_corrections_agree_with_labels(
    noisy_blobs, monkeypatch
):
    monkeypatch.setattr("sklearn_plc._ending.WORSE_STANDARD_ERRORS", -1e9)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    undo = plc.history_[-1]
    assert undo["undo"] and undo["n_changed"] == 0
    assert not any(record["undo"] for record in plc.history_[:-1])
    assert len(plc.history_) == plc.n_iter_ + 1
    labels = noisy_blobs.y_noisy.copy()
    log = plc.corrections_
    for sample, old, new in zip(log["sample"], log["from"], log["to"], strict=True):
        assert labels[sample] == old
        labels[sample] = new
    np.testing.assert_array_equal(labels, plc.labels_)
    per_record = np.bincount(log["round"], minlength=len(plc.history_))
    assert per_record.tolist() == [r["n_corrected"] for r in plc.history_]
    assert undo["n_corrected"] == plc.history_[-2]["n_changed"] > 0


def test_weighed_folds_with_every_weight_one_predict_as_the_hard_folds(noisy_blobs):
    from sklearn_plc._final_fit import weighed_out_of_fold_proba
    from sklearn_plc._out_of_fold import out_of_fold_proba

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
        n_jobs=None,
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
        n_jobs=None,
    )
    np.testing.assert_allclose(weighed, hard)


def weighed_folds_that_predict(monkeypatch, labels):
    """Make the weighed folds of the undo's second look predict `labels`."""

    def predicting(estimator, X, current, given, weight, splits, **fit):
        return np.eye(2)[labels]

    monkeypatch.setattr("sklearn_plc._ending.weighed_out_of_fold_proba", predicting)


@pytest.mark.parametrize("weighed_agree", [True, False])
def test_an_undo_follows_the_folds_fitted_as_the_final_fit_weighs(
    noisy_blobs, monkeypatch, weighed_agree
):
    # at this bar the hard refits' gain (about 3 standard errors) undoes
    monkeypatch.setattr("sklearn_plc._ending.WORSE_STANDARD_ERRORS", -4.0)
    given = noisy_blobs.y_noisy
    weighed_folds_that_predict(monkeypatch, given if weighed_agree else 1 - given)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, random_state=0).fit(noisy_blobs.X, given)
    assert plc.selection_["weighed"]
    assert plc.selection_["holdout_agreement"] == (1.0 if weighed_agree else 0.0)
    assert plc.selection_["undone"] is not weighed_agree
    assert (plc.termination_condition_ == "undone") is not weighed_agree


def test_an_undo_with_hard_final_labels_is_not_judged_again(noisy_blobs, monkeypatch):
    monkeypatch.setattr("sklearn_plc._ending.WORSE_STANDARD_ERRORS", -4.0)
    weighed_folds_that_predict(monkeypatch, noisy_blobs.y_noisy)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, contested="keep", random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "undone"
    assert not plc.selection_["weighed"]
    assert plc.selection_["holdout_agreement"] < 1.0


def test_revert_if_worse_false_keeps_the_corrections_and_reports_the_evidence(
    noisy_blobs, monkeypatch
):
    monkeypatch.setattr("sklearn_plc._ending.WORSE_STANDARD_ERRORS", -1e9)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, revert_if_worse=False, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert not plc.selection_["undone"] and plc.selection_["round"] > 0
    assert plc.termination_condition_ == "converged"
    assert plc.corrections_["sample"].size > 0


def test_nothing_is_set_aside_when_kept_labels_show_no_clear_gain_without_any(
    noisy_blobs,
):
    plc = PLCClassifier(
        LogisticRegression(max_iter=1000), contested="set_aside", random_state=0
    ).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "not_memorising"
    assert not plc.selection_["chosen"]
    assert not plc.set_aside_.any()


def judged_at_a_small_loss(monkeypatch):
    """The end verdict reports a held-out loss too small to undo the corrections."""
    from sklearn_plc._judge import HeldOutJudge

    verdict = HeldOutJudge.verdict

    def small_loss(self, standard_errors):
        selection = verdict(self, standard_errors)
        if selection is not None:
            selection.update(gain=-1e-3, undone=False, chosen=True)
        return selection

    monkeypatch.setattr(HeldOutJudge, "verdict", small_loss)


def test_corrections_judged_at_a_small_loss_give_way_to_leaving_out_the_disputed(
    noisy_blobs, monkeypatch
):
    judged_at_a_small_loss(monkeypatch)
    X, y_noisy = noisy_blobs.X, noisy_blobs.y_noisy
    plc = PLCClassifier(DecisionTreeClassifier(random_state=0), random_state=0)
    plc.fit(X, y_noisy)
    assert plc.termination_condition_ == "corrections_contested"
    np.testing.assert_array_equal(plc.labels_, y_noisy)
    assert not plc.selection_["chosen"] and not plc.selection_["undone"]
    assert plc.selection_["n_set_aside"] == plc.set_aside_.sum() > 0
    assert (plc.relabel_weight_ == 1).all()
    assert plc.estimator_.tree_.n_node_samples[0] == len(X) - plc.set_aside_.sum()
    # confident learning leaves out mostly wrong labels
    wrong = y_noisy != noisy_blobs.y_clean
    assert wrong[plc.set_aside_].mean() > 2 * wrong[~plc.set_aside_].mean()


def test_contested_disputes_read_the_new_folds_with_the_first_rounds(
    noisy_blobs, monkeypatch
):
    import sklearn_plc._ending as ending
    from sklearn_plc._corrector import LabelCorrector

    judged_at_a_small_loss(monkeypatch)
    seen = {}
    add_proba, new_folds = LabelCorrector.add_proba, ending.out_of_fold_proba
    issues = ending.confident_label_issues

    def first_round(corrector, *args, **kwargs):
        added = add_proba(corrector, *args, **kwargs)
        seen.setdefault("first", corrector.recorded[-1].astype(float))
        return added

    def new_proba(*args, **kwargs):
        seen["new"], fitted = new_folds(*args, **kwargs)
        return seen["new"], fitted

    def read(proba, labels):
        seen["read"] = proba
        return issues(proba, labels)

    monkeypatch.setattr(LabelCorrector, "add_proba", first_round)
    monkeypatch.setattr(ending, "out_of_fold_proba", new_proba)
    monkeypatch.setattr(ending, "confident_label_issues", read)
    plc = PLCClassifier(DecisionTreeClassifier(random_state=0), random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "corrections_contested"
    assert not np.allclose(seen["new"], seen["first"])
    np.testing.assert_allclose(seen["read"], (seen["new"] + seen["first"]) / 2)


def test_out_of_bag_corrections_judged_at_a_small_loss_fit_one_new_ensemble(
    noisy_blobs, monkeypatch
):
    judged_at_a_small_loss(monkeypatch)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, confidence="oob", random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "corrections_contested"
    assert plc.set_aside_.any()
    np.testing.assert_array_equal(plc.labels_, noisy_blobs.y_noisy)


@pytest.mark.parametrize("contested", ["keep", "weigh", "set_aside"])
def test_only_contested_auto_gives_way_on_a_small_loss(
    noisy_blobs, monkeypatch, contested
):
    judged_at_a_small_loss(monkeypatch)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, contested=contested, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "converged"
    assert (plc.labels_ != noisy_blobs.y_noisy).any()


def test_corrections_judged_at_no_loss_are_kept(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.selection_["gain"] >= 0
    assert plc.termination_condition_ == "converged"


def test_revert_if_worse_false_keeps_corrections_judged_at_a_small_loss(
    noisy_blobs, monkeypatch
):
    judged_at_a_small_loss(monkeypatch)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, revert_if_worse=False, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "converged"
    assert (plc.labels_ != noisy_blobs.y_noisy).any()
