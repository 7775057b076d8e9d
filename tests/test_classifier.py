import itertools
import pickle

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import (
    BaggingClassifier,
    ExtraTreesClassifier,
    RandomForestClassifier,
)
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_plc import PLCClassifier


def purity(labels, clean):
    return float(np.mean(labels == clean))


class WeightRecordingLogisticRegression(LogisticRegression):
    """Remembers the sample weights of every fit (shared by all clones)."""

    seen_weights = []

    def fit(self, X, y, sample_weight=None):
        type(self).seen_weights.append(sample_weight)
        return super().fit(X, y, sample_weight=sample_weight)


class NaNProbaClassifier(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_)), np.nan)


# The paper's algorithm, without the safeguards of the defaults: correct whatever
# the model, keep the last labels. The mechanics tests below use it, since the
# logistic regression on 2-D blobs they run does not memorise its labels (and the
# defaults would rightly leave them as given).
PAPER = dict(min_memorisation=0, min_correction_rate=0.001, revert_if_worse=False)


# --- what PLC does to the labels -------------------------------------------------


@pytest.mark.parametrize("confidence", ["cv", "in_sample"])
def test_purity_improves_on_pmd_like_noise(noisy_blobs, confidence):
    plc = PLCClassifier(confidence=confidence, random_state=0, **PAPER)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert purity(plc.labels_, noisy_blobs.y_clean) > purity(
        noisy_blobs.y_noisy, noisy_blobs.y_clean
    )


def test_corrections_start_at_the_initial_threshold(noisy_blobs):
    plc = PLCClassifier(theta=0.3, random_state=0, **PAPER)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    first = plc.history_[0]
    assert first["threshold"] == 0.3
    assert first["n_corrected"] > 0


def test_first_corrections_lie_in_the_confident_region(noisy_blobs):
    plc = PLCClassifier(random_state=0, **PAPER).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    first = plc.corrected_iter_ == 0
    later = plc.corrected_iter_ > 0
    assert first.any() and later.any()
    assert noisy_blobs.margin[first].mean() > noisy_blobs.margin[later].mean()


def test_threshold_grows_from_theta_to_theta_end(noisy_blobs):
    plc = PLCClassifier(random_state=0, **PAPER).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    thresholds = [record["threshold"] for record in plc.history_]
    assert thresholds == sorted(thresholds)
    assert plc.theta_ == 0.9
    assert plc.termination_condition_ == "converged"


def test_multiplicative_schedule_multiplies_the_threshold(noisy_blobs):
    plc = PLCClassifier(schedule="multiplicative", beta=0.5, random_state=0, **PAPER)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    levels = sorted({record["threshold"] for record in plc.history_})
    np.testing.assert_allclose(levels[:3], [0.3, 0.45, 0.675])


def test_history_agrees_with_labels_and_corrected_iter(noisy_blobs):
    plc = PLCClassifier(random_state=0, **PAPER).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert len(plc.history_) == plc.n_iter_
    assert plc.history_[-1]["n_changed"] == np.sum(plc.labels_ != noisy_blobs.y_noisy)
    changed_last_in = np.bincount(plc.corrected_iter_[plc.corrected_iter_ >= 0])
    for round_index, count in enumerate(changed_last_in):
        assert count <= plc.history_[round_index]["n_corrected"]
    never = plc.corrected_iter_ == -1
    np.testing.assert_array_equal(plc.labels_[never], noisy_blobs.y_noisy[never])


def test_corrections_log_replays_to_the_corrected_labels(noisy_blobs):
    plc = PLCClassifier(random_state=0, **PAPER).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    log = plc.corrections_
    labels = noisy_blobs.y_noisy.copy()
    for sample, old, new in zip(log["sample"], log["from"], log["to"], strict=True):
        assert labels[sample] == old
        labels[sample] = new
    np.testing.assert_array_equal(labels, plc.labels_)
    per_round = np.bincount(log["round"], minlength=plc.n_iter_)
    assert per_round.tolist() == [r["n_corrected"] for r in plc.history_]


def test_a_quiet_round_reuses_the_previous_probabilities(noisy_blobs):
    plc = PLCClassifier(random_state=0, **PAPER).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    for previous, record in zip(plc.history_, plc.history_[1:], strict=False):
        assert record["refit"] == (previous["n_corrected"] > 0)


def test_max_iter_stops_the_run(noisy_blobs):
    plc = PLCClassifier(max_iter=2, random_state=0, **PAPER)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.n_iter_ == 2
    assert plc.termination_condition_ == "max_iter"


# --- whether to correct, and which round to keep ----------------------------------


def test_labels_are_kept_when_the_model_does_not_memorise(noisy_blobs):
    plc = PLCClassifier(random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "labels_kept"
    assert plc.memorisation_["rate"] < 0.1
    np.testing.assert_array_equal(plc.labels_, noisy_blobs.y_noisy)
    assert plc.n_iter_ == 1 and plc.history_[0]["n_corrected"] == 0
    assert (plc.corrected_iter_ == -1).all()


def test_kept_labels_reuse_the_model_fitted_on_them(noisy_blobs):
    plc = PLCClassifier(random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    direct = LogisticRegression(max_iter=1000).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_allclose(plc.estimator_.coef_, direct.coef_, rtol=1e-6)


@pytest.mark.parametrize("confidence", ["cv", "oob"])
def test_a_memorising_model_is_corrected(noisy_blobs, confidence):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, confidence=confidence, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.memorisation_["rate"] > 0.5
    assert plc.termination_condition_ != "labels_kept"
    assert purity(plc.labels_, noisy_blobs.y_clean) > purity(
        noisy_blobs.y_noisy, noisy_blobs.y_clean
    )


@pytest.mark.parametrize(
    ("confidence", "expected"),
    [("auto", "cv"), ("oob", "oob"), ("in_sample", "in_sample")],
)
def test_the_confidence_used_is_recorded(noisy_blobs, confidence, expected):
    forest = RandomForestClassifier(n_estimators=30)
    plc = PLCClassifier(forest, confidence=confidence, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.confidence_ == expected


@pytest.mark.parametrize(
    "estimator",
    [
        LogisticRegression(),
        ExtraTreesClassifier(n_estimators=10),  # bootstrap=False
    ],
)
def test_out_of_bag_confidence_needs_a_bagging_ensemble(noisy_blobs, estimator):
    plc = PLCClassifier(estimator, confidence="oob")
    with pytest.raises(ValueError, match="confidence='oob' needs a bagging ensemble"):
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)


class FitCountingForest(RandomForestClassifier):
    """Counts its fits (shared by all clones)."""

    n_fits = 0

    def fit(self, X, y, sample_weight=None):
        type(self).n_fits += 1
        return super().fit(X, y, sample_weight=sample_weight)


def test_out_of_bag_confidence_fits_one_model_a_refit(
    noisy_blobs,
):
    FitCountingForest.n_fits = 0
    plc = PLCClassifier(
        FitCountingForest(n_estimators=30), confidence="oob", random_state=0
    )
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    refits = sum(record["refit"] for record in plc.history_)
    # one forest a refit, and a final one only if the last pass changed labels
    assert FitCountingForest.n_fits <= refits + 1
    direct = clone(plc.estimator_).set_params(oob_score=False)
    direct.fit(noisy_blobs.X, plc.labels_)
    np.testing.assert_array_equal(
        plc.predict_proba(noisy_blobs.X), direct.predict_proba(noisy_blobs.X)
    )


@pytest.mark.filterwarnings("ignore")  # the ensembles warn of the missing estimates
@pytest.mark.parametrize(
    "ensemble",
    [
        RandomForestClassifier(n_estimators=1, random_state=0),  # rows of zeros
        BaggingClassifier(DecisionTreeClassifier(), n_estimators=1, random_state=0),
    ],  # BaggingClassifier: rows of NaN
)
def test_samples_without_an_out_of_bag_estimate_get_uniform_probabilities(
    noisy_blobs, ensemble
):
    from sklearn_plc._out_of_fold import out_of_bag_proba

    proba, (model, in_sample) = out_of_bag_proba(
        ensemble, noisy_blobs.X, noisy_blobs.y_noisy, 2, fit_params={}, in_sample=False
    )
    uniform = np.isclose(proba, 1 / 2).all(axis=1)
    assert 0.5 < uniform.mean() < 0.8  # one member trains on about 63% of them
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert in_sample is None and model.oob_score


def test_min_memorisation_zero_corrects_whatever_the_model(noisy_blobs):
    plc = PLCClassifier(min_memorisation=0, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.memorisation_ is None
    assert plc.history_[0]["n_corrected"] > 0


def test_early_stopping_ends_on_the_chosen_rounds_labels(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, early_stopping=True, n_iter_no_change=1, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    chosen = plc.selection_["round"]
    assert chosen > 0 and plc.termination_condition_ == "no_improvement"
    assert (plc.corrections_["round"] < chosen).all()
    assert (plc.labels_ != noisy_blobs.y_noisy).sum() == plc.history_[chosen - 1][
        "n_changed"
    ]
    assert plc.history_[chosen]["holdout_agreement"] == pytest.approx(
        plc.selection_["holdout_agreement"]
    )


def test_corrections_that_their_models_judge_worse_are_undone(noisy_blobs, monkeypatch):
    # any loss at all counts as clearly worse: the wiring, not the threshold
    monkeypatch.setattr("sklearn_plc.classifier.WORSE_STANDARD_ERRORS", -1e9)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.selection_["undone"] and plc.selection_["round"] == 0
    assert plc.termination_condition_ == "labels_kept"
    np.testing.assert_array_equal(plc.labels_, noisy_blobs.y_noisy)
    assert plc.corrections_["sample"].size == 0
    direct = clone(forest).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_array_equal(
        plc.predict(noisy_blobs.X), direct.predict(noisy_blobs.X)
    )


def test_revert_if_worse_false_keeps_the_corrections_and_reports_the_evidence(
    noisy_blobs, monkeypatch
):
    monkeypatch.setattr("sklearn_plc.classifier.WORSE_STANDARD_ERRORS", -1e9)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, revert_if_worse=False, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert not plc.selection_["undone"] and plc.selection_["round"] > 0
    assert plc.termination_condition_ == "converged"
    assert plc.corrections_["sample"].size > 0


class RowRecordingForest(RandomForestClassifier):
    """Remembers the last column (a row id) of every training set (all clones)."""

    seen_rows = []

    def fit(self, X, y, sample_weight=None):
        type(self).seen_rows.append(np.asarray(X)[:, -1].astype(int))
        return super().fit(X, y, sample_weight=sample_weight)


def with_row_ids(X):
    return np.column_stack([X, np.arange(X.shape[0])])


@pytest.mark.parametrize("confidence", ["cv", "oob"])
def test_no_correcting_model_trains_on_the_validation_samples(noisy_blobs, confidence):
    RowRecordingForest.seen_rows = []
    forest = RowRecordingForest(n_estimators=20, random_state=0)
    plc = PLCClassifier(
        forest, confidence=confidence, validation_fraction=0.2, random_state=0
    )
    X = with_row_ids(noisy_blobs.X)
    plc.fit(X, noisy_blobs.y_noisy)
    validation = plc.validation_indices_
    on_all = [rows for rows in RowRecordingForest.seen_rows if rows.size == len(X)]
    others = [rows for rows in RowRecordingForest.seen_rows if rows.size < len(X)]
    assert len(on_all) <= 2  # the memorisation test's model (cv), the final model
    assert len(others) >= plc.n_iter_ and plc.history_[0]["n_corrected"] > 0
    assert not any(np.isin(validation, rows).any() for rows in others)


def test_the_validation_samples_alone_judge_the_labels(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, validation_fraction=0.2, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.validation_indices_.size == int(np.ceil(0.2 * len(noisy_blobs.X)))
    assert plc.selection_["n_judged"] == plc.validation_indices_.size


def test_validation_samples_are_corrected_too(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, validation_fraction=0.2, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    validation = plc.validation_indices_
    assert (plc.labels_[validation] != noisy_blobs.y_noisy[validation]).any()


@pytest.mark.parametrize("seed", [0, 1])
def test_validation_evidence_sees_no_gain_on_labels_unrelated_to_X(seed):
    # No model can predict these labels, so no set of training labels can
    # raise the held-out agreement. Without set-aside samples the corrections
    # carry each fold's given labels into the labels its judges train on, and
    # the agreement seems to rise by several standard errors.
    rng = np.random.RandomState(seed)
    X, y = rng.normal(size=(600, 5)), rng.randint(0, 3, 600)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, validation_fraction=0.25, random_state=seed).fit(X, y)
    assert plc.corrections_["sample"].size > 0
    evidence = plc.selection_
    assert abs(evidence["gain"]) < 2.5 * evidence["standard_error"]


def test_validation_fraction_is_unused_when_nothing_judges(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(
        forest, validation_fraction=0.2, revert_if_worse=False, random_state=0
    )
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.validation_indices_ is None


def test_folds_given_as_index_pairs_are_used_as_they_are(noisy_blobs):
    folds = list(KFold(3).split(noisy_blobs.X))
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, cv=folds, validation_fraction=0.2, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.validation_indices_ is None
    assert plc.selection_["n_judged"] == len(noisy_blobs.X)


# --- trusted labels ----------------------------------------------------------------


def trusted_share(n_samples, share=0.2, seed=0):
    return np.random.RandomState(seed).uniform(size=n_samples) < share


def test_trusted_labels_are_never_corrected(noisy_blobs):
    trusted = trusted_share(len(noisy_blobs.y_noisy))
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, revert_if_worse=False, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    assert plc.corrections_["sample"].size > 0
    np.testing.assert_array_equal(plc.labels_[trusted], noisy_blobs.y_noisy[trusted])
    assert not np.isin(plc.corrections_["sample"], np.flatnonzero(trusted)).any()


@pytest.mark.parametrize("confidence", ["cv", "oob"])
def test_trusted_samples_judge_in_place_of_the_set_aside(noisy_blobs, confidence):
    RowRecordingForest.seen_rows = []
    trusted = trusted_share(len(noisy_blobs.y_noisy))
    forest = RowRecordingForest(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, confidence=confidence, random_state=0)
    X = with_row_ids(noisy_blobs.X)
    plc.fit(X, noisy_blobs.y_noisy, trusted=trusted)
    np.testing.assert_array_equal(plc.validation_indices_, np.flatnonzero(trusted))
    assert plc.selection_["n_judged"] == trusted.sum()
    others = [rows for rows in RowRecordingForest.seen_rows if rows.size < len(X)]
    assert others and not any(np.isin(plc.validation_indices_, r).any() for r in others)


def test_corrections_that_lose_on_trusted_labels_are_undone(noisy_blobs):
    # The trusted labels here are the wrong class, so the corrections towards
    # the clean class lower the held-out agreement with them.
    trusted = trusted_share(len(noisy_blobs.y_noisy))
    y = np.where(trusted, 1 - noisy_blobs.y_clean, noisy_blobs.y_noisy)
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, random_state=0).fit(noisy_blobs.X, y, trusted=trusted)
    assert plc.selection_["undone"] and plc.selection_["gain"] < 0
    assert plc.termination_condition_ == "labels_kept"
    np.testing.assert_array_equal(plc.labels_, y)


def test_any_loss_on_trusted_labels_undoes(noisy_blobs, monkeypatch):
    from sklearn_plc._corrector import LabelCorrector

    bars = []
    undo = LabelCorrector.undo_if_worse

    def recording(self, standard_errors):
        bars.append(standard_errors)
        return undo(self, standard_errors)

    monkeypatch.setattr(LabelCorrector, "undo_if_worse", recording)
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    trusted = trusted_share(len(noisy_blobs.y_noisy))
    PLCClassifier(forest, random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    PLCClassifier(forest, random_state=0).fit(
        noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted
    )
    assert bars == [1.0, 0.0]


def test_trusted_labels_are_kept_with_in_sample_confidence(noisy_blobs):
    trusted = trusted_share(len(noisy_blobs.y_noisy), share=0.5)
    plc = PLCClassifier(confidence="in_sample", random_state=0, **PAPER)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    assert plc.corrections_["sample"].size > 0
    np.testing.assert_array_equal(plc.labels_[trusted], noisy_blobs.y_noisy[trusted])
    assert plc.validation_indices_ is None


def test_callers_trusted_mask_is_not_modified(noisy_blobs):
    trusted = trusted_share(len(noisy_blobs.y_noisy)).astype(int)
    given = trusted.copy()
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    PLCClassifier(forest, random_state=0).fit(
        noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted
    )
    np.testing.assert_array_equal(trusted, given)


@pytest.mark.parametrize(
    "trusted, message",
    [
        (np.ones(5, dtype=bool), "trusted has 5 entries but y has 600"),
        (np.full(600, 2), "must be a boolean mask"),
        (np.zeros(600, dtype=bool), "trusted marks no sample"),
        (np.ones(600, dtype=bool), "trusted marks every sample"),
    ],
)
def test_bad_trusted_masks_are_explained(noisy_blobs, trusted, message):
    with pytest.raises(ValueError, match=message):
        PLCClassifier().fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)


def test_few_trusted_samples_judging_give_a_warning(noisy_blobs):
    trusted = trusted_share(len(noisy_blobs.y_noisy), share=0.05)
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    with pytest.warns(UserWarning, match=r"Only \d+ trusted samples judge"):
        PLCClassifier(forest, random_state=0).fit(
            noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted
        )


def test_grid_search_splits_the_trusted_mask_with_the_samples(noisy_blobs):
    trusted = trusted_share(len(noisy_blobs.y_noisy), share=0.3)
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    search = GridSearchCV(
        PLCClassifier(forest, random_state=0), {"theta": [0.3, 0.5]}, cv=3
    )
    search.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    best = search.best_estimator_
    assert best.selection_["n_judged"] == trusted.sum()  # the refit on all samples


def test_trusted_is_routed_to_plc_when_requested(noisy_blobs):
    trusted = trusted_share(len(noisy_blobs.y_noisy), share=0.3)
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        plc = PLCClassifier(forest, random_state=0).set_fit_request(trusted=True)
        search = GridSearchCV(plc, {"theta": [0.3, 0.5]}, cv=3)
        search.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    assert search.best_estimator_.selection_["n_judged"] == trusted.sum()


def test_validation_fraction_that_leaves_no_training_sample_is_explained():
    X, y = np.arange(24.0).reshape(12, 2), np.array([0, 1] * 6)
    forest = RandomForestClassifier(n_estimators=5, random_state=0)
    plc = PLCClassifier(forest, validation_fraction=0.99, cv=2)
    with pytest.raises(ValueError, match=r"validation_fraction=0\.99 cannot set"):
        plc.fit(X, y)


def test_held_out_agreement_is_recorded_at_each_refit(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    for record in plc.history_:
        assert (record["holdout_agreement"] is not None) == record["refit"]


def test_early_stopping_needs_out_of_fold_confidence(noisy_blobs):
    plc = PLCClassifier(confidence="in_sample", early_stopping=True)
    with pytest.raises(ValueError, match="early_stopping=True judges"):
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)


def test_a_memorising_model_corrects_nothing_in_sample_but_does_out_of_fold(
    noisy_blobs,
):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    in_sample = PLCClassifier(forest, confidence="in_sample", random_state=0)
    in_sample.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    out_of_fold = PLCClassifier(forest, confidence="auto", random_state=0)
    out_of_fold.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert in_sample.history_[0]["n_corrected"] == 0
    assert out_of_fold.history_[0]["n_corrected"] > 0


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_warm_start_estimator_continues_training_every_round(noisy_blobs):
    mlp = MLPClassifier(
        hidden_layer_sizes=(8,), max_iter=5, warm_start=True, random_state=0
    )
    plc = PLCClassifier(mlp, confidence="in_sample", warm_up=3, max_iter=8)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert all(record["refit"] for record in plc.history_)
    assert [record["n_corrected"] for record in plc.history_[:3]] == [0, 0, 0]
    # one continued model: 5 epochs for each of the 8 rounds (+ a final fit
    # when the last pass changed labels)
    assert len(plc.estimator_.loss_curve_) >= 5 * plc.n_iter_


def test_window_averages_the_last_rounds(noisy_blobs):
    plc = PLCClassifier(window=3, random_state=0, **PAPER)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert purity(plc.labels_, noisy_blobs.y_clean) > purity(
        noisy_blobs.y_noisy, noisy_blobs.y_clean
    )


def test_correction_never_empties_a_class():
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(30, 3))
    y = np.arange(30) % 3  # labels unrelated to X
    plc = PLCClassifier(random_state=0).fit(X, y)
    assert set(plc.labels_) == {0, 1, 2}


# --- the fitted model ------------------------------------------------------------


def test_final_model_is_trained_on_the_corrected_labels(noisy_blobs):
    plc = PLCClassifier(random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    direct = LogisticRegression(max_iter=1000).fit(noisy_blobs.X, plc.labels_)
    np.testing.assert_allclose(plc.estimator_.coef_, direct.coef_, rtol=1e-6)


def test_final_fit_false_in_sample_keeps_the_last_model(noisy_blobs):
    plc = PLCClassifier(confidence="in_sample", final_fit=False, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.predict(noisy_blobs.X).shape == noisy_blobs.y_noisy.shape


def test_final_fit_false_out_of_fold_keeps_labels_but_cannot_predict(noisy_blobs):
    plc = PLCClassifier(confidence="cv", final_fit=False, random_state=0, **PAPER)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.labels_.shape == noisy_blobs.y_noisy.shape
    with pytest.raises(NotFittedError, match="final_fit=True"):
        plc.predict(noisy_blobs.X)


def test_predict_proba_has_one_column_per_class(noisy_blobs):
    plc = PLCClassifier(random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    proba = plc.predict_proba(noisy_blobs.X)
    assert proba.shape == (len(noisy_blobs.X), 2)
    np.testing.assert_array_equal(
        plc.predict(noisy_blobs.X), plc.classes_[proba.argmax(axis=1)]
    )


def test_methods_the_estimator_lacks_are_absent(noisy_blobs):
    plc = PLCClassifier(RandomForestClassifier(n_estimators=5, random_state=0))
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert not hasattr(plc, "decision_function")
    assert hasattr(PLCClassifier(), "decision_function")


# --- scikit-learn integration ------------------------------------------------------


def test_works_as_a_pipeline_step(noisy_blobs):
    pipe = Pipeline(
        [("scale", StandardScaler()), ("plc", PLCClassifier(random_state=0))]
    )
    pipe.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert pipe.score(noisy_blobs.X, noisy_blobs.y_clean) > 0.8


def test_grid_search_over_theta_and_beta(noisy_blobs):
    pipe = Pipeline(
        [("scale", StandardScaler()), ("plc", PLCClassifier(random_state=0))]
    )
    grid = GridSearchCV(pipe, {"plc__theta": [0.2, 0.4], "plc__beta": [0.1, 0.3]}, cv=3)
    grid.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert len(grid.cv_results_["params"]) == 4
    assert grid.best_params_["plc__theta"] in (0.2, 0.4)
    assert grid.best_estimator_.named_steps["plc"].labels_.shape == (600,)


def test_string_labels_round_trip(noisy_blobs):
    names = np.array(["cat", "dog"])
    plc = PLCClassifier(random_state=0).fit(noisy_blobs.X, names[noisy_blobs.y_noisy])
    assert plc.labels_.dtype == names.dtype
    assert set(plc.labels_) == {"cat", "dog"}
    assert set(plc.predict(noisy_blobs.X)) <= {"cat", "dog"}
    encoded = np.searchsorted(names, plc.labels_)
    reference = PLCClassifier(random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_array_equal(encoded, reference.labels_)


def test_pandas_labels_and_frames_round_trip(noisy_blobs):
    X = pd.DataFrame(noisy_blobs.X, columns=["width", "height"])
    y = pd.Series(np.array(["a", "b"], dtype=object)[noisy_blobs.y_noisy])
    plc = PLCClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(plc.feature_names_in_, ["width", "height"])
    assert set(plc.labels_) == {"a", "b"}
    assert set(plc.predict(X)) <= {"a", "b"}


def test_clone_and_pickle_give_identical_predictions(noisy_blobs):
    plc = PLCClassifier(random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    refit = clone(plc).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    restored = pickle.loads(pickle.dumps(plc))
    expected = plc.predict_proba(noisy_blobs.X)
    np.testing.assert_array_equal(refit.predict_proba(noisy_blobs.X), expected)
    np.testing.assert_array_equal(restored.predict_proba(noisy_blobs.X), expected)


def test_same_random_state_gives_identical_labels(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=10)  # its own seed left unset
    first = PLCClassifier(forest, random_state=3).fit(
        noisy_blobs.X, noisy_blobs.y_noisy
    )
    second = PLCClassifier(forest, random_state=3).fit(
        noisy_blobs.X, noisy_blobs.y_noisy
    )
    np.testing.assert_array_equal(first.labels_, second.labels_)
    assert forest.random_state is None  # the caller's estimator is untouched


def test_inputs_are_not_mutated(noisy_blobs):
    X, y = noisy_blobs.X.copy(), noisy_blobs.y_noisy.copy()
    PLCClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(X, noisy_blobs.X)
    np.testing.assert_array_equal(y, noisy_blobs.y_noisy)


def test_parallel_folds_give_the_same_labels(noisy_blobs):
    serial = PLCClassifier(n_jobs=1, random_state=0)
    parallel = PLCClassifier(n_jobs=2, random_state=0)
    serial.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    parallel.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_array_equal(serial.labels_, parallel.labels_)


def test_custom_splitter_is_used(noisy_blobs):
    plc = PLCClassifier(
        cv=KFold(3, shuffle=True, random_state=0), random_state=0, **PAPER
    )
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.history_[0]["n_corrected"] > 0


@pytest.mark.parametrize("confidence", ["cv", "in_sample"])
def test_sample_weight_reaches_every_fit(noisy_blobs, confidence):
    WeightRecordingLogisticRegression.seen_weights = []
    weights = np.linspace(0.5, 1.5, len(noisy_blobs.y_noisy))
    plc = PLCClassifier(
        WeightRecordingLogisticRegression(), confidence=confidence, random_state=0
    )
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, sample_weight=weights)
    seen = WeightRecordingLogisticRegression.seen_weights
    assert seen and all(w is not None for w in seen)
    # the fit on all samples (the final fit, or the memorisation test's) sees them all
    assert any(np.array_equal(w, weights) for w in seen)


def test_sample_weight_is_routed_to_a_pipeline_step(noisy_blobs):
    weights = np.where(noisy_blobs.X[:, 0] > 0, 5.0, 0.2)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(
            StandardScaler().set_fit_request(sample_weight=False),
            WeightRecordingLogisticRegression().set_fit_request(sample_weight=True),
        )
        WeightRecordingLogisticRegression.seen_weights = []
        plc = PLCClassifier(pipe, random_state=0)
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, sample_weight=weights)
    seen = WeightRecordingLogisticRegression.seen_weights
    # every fold fit and the fit on all samples get the weights
    assert len(seen) >= plc.cv + 1 and all(w is not None for w in seen)
    assert any(np.array_equal(w, weights) for w in seen)


def test_step_fit_params_reach_a_pipeline_without_routing(noisy_blobs):
    WeightRecordingLogisticRegression.seen_weights = []
    weights = np.ones(len(noisy_blobs.y_noisy))
    pipe = make_pipeline(StandardScaler(), WeightRecordingLogisticRegression())
    PLCClassifier(pipe, confidence="in_sample").fit(
        noisy_blobs.X,
        noisy_blobs.y_noisy,
        weightrecordinglogisticregression__sample_weight=weights,
    )
    assert all(w is not None for w in WeightRecordingLogisticRegression.seen_weights)


def test_verbose_shows_a_progress_bar(noisy_blobs, capsys):
    PLCClassifier(verbose=1, random_state=0, **PAPER).fit(
        noisy_blobs.X, noisy_blobs.y_noisy
    )
    err = capsys.readouterr().err
    assert "PLC" in err and "theta=" in err and "corrected=" in err


def test_silent_by_default(noisy_blobs, capsys):
    PLCClassifier(random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert capsys.readouterr().err == ""


# --- bad input ---------------------------------------------------------------------


def test_estimator_without_predict_proba_is_rejected_with_the_fix(noisy_blobs):
    with pytest.raises(ValueError, match="CalibratedClassifierCV"):
        PLCClassifier(LinearSVC()).fit(noisy_blobs.X, noisy_blobs.y_noisy)


def test_non_finite_probabilities_are_rejected(noisy_blobs):
    with pytest.raises(ValueError, match="NaN or infinite values for 600 samples"):
        PLCClassifier(NaNProbaClassifier(), confidence="in_sample").fit(
            noisy_blobs.X, noisy_blobs.y_noisy
        )


def test_nan_labels_are_rejected(noisy_blobs):
    y = noisy_blobs.y_noisy.astype(float)
    y[[3, 7]] = np.nan
    with pytest.raises(ValueError, match=r"2 missing labels .* positions \[3, 7\]"):
        PLCClassifier().fit(noisy_blobs.X, y)


def test_infinite_labels_are_rejected(noisy_blobs):
    y = noisy_blobs.y_noisy.astype(float)
    y[4] = np.inf
    with pytest.raises(ValueError, match=r"1 infinite labels, .* positions \[4\]"):
        PLCClassifier().fit(noisy_blobs.X, y)


def test_none_labels_are_rejected(noisy_blobs):
    y = np.array(["a", "b"], dtype=object)[noisy_blobs.y_noisy]
    y[5] = None
    with pytest.raises(ValueError, match="missing labels"):
        PLCClassifier().fit(noisy_blobs.X, y)


def test_a_single_class_is_rejected(noisy_blobs):
    with pytest.raises(ValueError, match="at least two classes"):
        PLCClassifier().fit(noisy_blobs.X, np.zeros(600))


def test_x_and_y_of_different_lengths_are_rejected(noisy_blobs):
    with pytest.raises(ValueError, match="one label per row of X"):
        PLCClassifier().fit(noisy_blobs.X, noisy_blobs.y_noisy[:-1])


def test_sample_weight_of_the_wrong_length_is_rejected(noisy_blobs):
    with pytest.raises(ValueError, match="one weight per sample"):
        PLCClassifier().fit(
            noisy_blobs.X, noisy_blobs.y_noisy, sample_weight=np.ones(5)
        )


@pytest.mark.parametrize(
    "params",
    [
        {"theta": 0.0},
        {"theta": 1.0},
        {"theta": -0.2},
        {"beta": 0.0},
        {"beta": -0.1},
        {"theta_end": 1.5},
        {"theta_end": 0.0},
        {"schedule": "exponential"},
        {"confidence": "out_of_bag"},
        {"window": 0},
        {"min_confidence": 1.5},
        {"min_confidence": -0.1},
        {"runner_up_ratio": 0.0},
        {"runner_up_ratio": 1.5},
    ],
)
def test_out_of_range_parameters_are_rejected(noisy_blobs, params):
    name = next(iter(params))
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
        PLCClassifier(**params).fit(noisy_blobs.X, noisy_blobs.y_noisy)


def test_theta_end_below_theta_is_rejected_with_the_fix(noisy_blobs):
    with pytest.raises(ValueError, match="set theta_end >= theta"):
        PLCClassifier(theta=0.5, theta_end=0.4).fit(noisy_blobs.X, noisy_blobs.y_noisy)


def test_auto_min_correction_rate_is_five_percent_per_refit(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    n_samples = len(noisy_blobs.y_noisy)
    for record, following in itertools.pairwise(plc.history_):
        quiet = record["n_corrected"] <= 0.05 * n_samples
        raised = following["threshold"] > record["threshold"]
        assert raised == (quiet and record["threshold"] < 0.9)
