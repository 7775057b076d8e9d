"""The refit path (sklearn_plc._paths.refit): rounds, memorisation, refits, final fit.

How a run ends (undo, contest, judged set-aside): test_ending.py.
"""

import itertools
from dataclasses import replace

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.datasets import load_digits, make_classification
from sklearn.ensemble import (
    BaggingClassifier,
    RandomForestClassifier,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier

from sklearn_plc import PLCClassifier
from sklearn_plc.noise import flip_labels_with_matrix, uniform_transition_matrix

# The paper's algorithm, without the safeguards of the defaults (see
# test_classifier.py).
PAPER = dict(
    estimator=LogisticRegression(max_iter=1000),
    min_memorisation=0,
    min_correction_rate=0.001,
    validation_fraction=None,
    doubtful="keep",
)


def purity(labels, clean):
    return float(np.mean(labels == clean))


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
    plc = PLCClassifier(LogisticRegression(max_iter=1000), random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "not_memorising"
    assert plc.memorisation_["rate"] < 0.1
    np.testing.assert_array_equal(plc.labels_, noisy_blobs.y_noisy)
    assert plc.n_iter_ == 1 and plc.history_[0]["n_corrected"] == 0
    assert (plc.corrected_iter_ == -1).all()


def test_kept_labels_give_the_model_fitted_on_them(noisy_blobs):
    plc = PLCClassifier(LogisticRegression(max_iter=1000), random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    direct = LogisticRegression(max_iter=1000).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_allclose(plc.estimator_.coef_, direct.coef_, rtol=1e-6)


def test_labels_are_kept_when_the_model_surely_disputes_more_than_it_confirms():
    # a tree memorises labels that carry no signal, and held out it disputes
    # about nine in ten of them with probability 1: too weak to judge them
    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(400, 5)), rng.randint(10, size=400)
    plc = PLCClassifier(DecisionTreeClassifier(random_state=0), random_state=0)
    plc.fit(X, y)
    assert plc.termination_condition_ == "too_weak_to_judge"
    assert (
        plc.memorisation_["sure_disputes"] > plc.memorisation_["out_of_fold_agreement"]
    )
    np.testing.assert_array_equal(plc.labels_, y)
    assert plc.n_iter_ == 1 and plc.history_[0]["n_corrected"] == 0


@pytest.mark.parametrize("confidence", ["cv", "oob"])
def test_a_memorising_model_is_corrected(noisy_blobs, confidence, without_halves_check):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, confidence=confidence, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.memorisation_["rate"] > 0.5
    assert plc.termination_condition_ not in ("not_memorising", "undone")
    assert purity(plc.labels_, noisy_blobs.y_clean) > purity(
        noisy_blobs.y_noisy, noisy_blobs.y_clean
    )


class FitCountingForest(RandomForestClassifier):
    """Counts its fits (shared by all clones)."""

    n_fits = 0

    def fit(self, X, y, sample_weight=None):
        type(self).n_fits += 1
        return super().fit(X, y, sample_weight=sample_weight)


def test_out_of_bag_confidence_fits_one_model_a_refit(
    noisy_blobs, without_halves_check
):
    FitCountingForest.n_fits = 0
    plc = PLCClassifier(
        FitCountingForest(n_estimators=30),
        confidence="oob",
        doubtful="keep",  # the final forest trains on every sample
        random_state=0,
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
    from sklearn_plc._held_out import out_of_bag_proba

    proba, (model, in_sample) = out_of_bag_proba(
        ensemble,
        noisy_blobs.X,
        noisy_blobs.y_noisy,
        np.arange(2),
        fit_params={},
        in_sample=False,
    )
    uniform = np.isclose(proba, 1 / 2).all(axis=1)
    assert 0.5 < uniform.mean() < 0.8  # one member trains on about 63% of them
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert in_sample is None and model.oob_score


def test_each_fold_model_predicts_in_sample_the_next_folds_samples(noisy_blobs):
    from sklearn.neighbors import KNeighborsClassifier

    from sklearn_plc._held_out import out_of_fold_proba

    X, labels = noisy_blobs.X, noisy_blobs.y_noisy
    validation = np.arange(20)
    train = np.arange(20, len(X))
    splits = [(train[fit], train[test]) for fit, test in KFold(3).split(train)]
    proba, in_sample = out_of_fold_proba(
        KNeighborsClassifier(1),  # predicts the label of every sample it saw
        X,
        labels,
        splits,
        np.arange(2),
        fit_params={},
        in_sample=True,
        validation=validation,
    )
    assert np.isnan(in_sample[validation]).all()
    np.testing.assert_array_equal(in_sample[train].argmax(axis=1), labels[train])
    assert (proba[train].argmax(axis=1) != labels[train]).any()


def test_min_memorisation_zero_corrects_whatever_the_model(noisy_blobs):
    plc = PLCClassifier(min_memorisation=0, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.memorisation_ is None
    assert plc.history_[0]["n_corrected"] > 0


# On noisy_blobs the first pass changes fewer than a tenth of the labels (the
# refit default's quiet bar: 37 of 600 with 20 trees), so the second refit comes
# late or not at all; the tests that judge one right after the first wait for
# fewer changes
QUIET_FOR_A_SECOND_REFIT = 0.05


class RowRecordingForest(RandomForestClassifier):
    """Remembers the last column (a row id) of every training set (all clones)."""

    seen_rows = []

    def fit(self, X, y, sample_weight=None):
        type(self).seen_rows.append(np.asarray(X)[:, -1].astype(int))
        return super().fit(X, y, sample_weight=sample_weight)


def with_row_ids(X):
    return np.column_stack([X, np.arange(X.shape[0])])


@pytest.mark.parametrize("confidence", ["cv", "oob"])
def test_no_correcting_model_trains_on_the_validation_samples(
    noisy_blobs, confidence, without_halves_check
):
    RowRecordingForest.seen_rows = []
    forest = RowRecordingForest(n_estimators=20, random_state=0)
    plc = PLCClassifier(
        forest,
        confidence=confidence,
        validation_fraction=0.2,
        doubtful="keep",  # the final model trains on every sample
        random_state=0,
    )
    X = with_row_ids(noisy_blobs.X)
    plc.fit(X, noisy_blobs.y_noisy)
    validation = plc.validation_indices_
    on_all = [rows for rows in RowRecordingForest.seen_rows if rows.size == len(X)]
    others = [rows for rows in RowRecordingForest.seen_rows if rows.size < len(X)]
    assert len(on_all) == 1  # the final model
    refits = sum(bool(record["refit"]) for record in plc.history_)
    assert len(others) >= refits and plc.history_[0]["n_corrected"] > 0
    assert not any(np.isin(validation, rows).any() for rows in others)


def test_the_memorisation_test_fits_no_model_beside_the_folds(
    noisy_blobs, without_halves_check
):
    RowRecordingForest.seen_rows = []
    forest = RowRecordingForest(n_estimators=20, random_state=0)
    # the final model trains on every sample once
    plc = PLCClassifier(forest, cv=3, doubtful="keep", random_state=0)
    plc.fit(with_row_ids(noisy_blobs.X), noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "converged"
    n_refits = sum(record["refit"] for record in plc.history_)
    sizes = [rows.size for rows in RowRecordingForest.seen_rows]
    assert sizes.count(len(noisy_blobs.X)) == 1  # the final fit alone
    assert len(sizes) == 3 * n_refits + 1


def test_the_validation_samples_alone_judge_the_labels(
    noisy_blobs, without_halves_check
):
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, validation_fraction=0.2, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.validation_indices_.size == int(np.ceil(0.2 * len(noisy_blobs.X)))
    assert plc.selection_["n_judged"] == plc.validation_indices_.size


def test_validation_samples_are_corrected_too(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    # doubtful="weigh": the corrections stand (no removal candidate)
    plc = PLCClassifier(
        forest, validation_fraction=0.2, doubtful="weigh", random_state=0
    )
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    validation = plc.validation_indices_
    assert (plc.labels_[validation] != noisy_blobs.y_noisy[validation]).any()


@pytest.mark.parametrize("seed", [0, 1])
def test_validation_evidence_sees_no_gain_on_labels_unrelated_to_X(
    seed, without_halves_check
):
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
    assert evidence["gain"] < 2.5 * evidence["standard_error"]


def test_without_a_validation_fraction_nothing_is_set_aside_or_undone(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, validation_fraction=None, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.validation_indices_ is None
    assert plc.selection_["n_judged"] == len(noisy_blobs.X)  # recorded only
    assert not plc.selection_["undone"]


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
    plc = PLCClassifier(forest, validation_fraction=None, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    assert plc.corrections_["sample"].size > 0
    np.testing.assert_array_equal(plc.labels_[trusted], noisy_blobs.y_noisy[trusted])
    assert not np.isin(plc.corrections_["sample"], np.flatnonzero(trusted)).any()


@pytest.mark.parametrize("confidence", ["cv", "oob"])
def test_trusted_samples_alone_judge_the_check_on_halves_where_asked(
    noisy_blobs, confidence
):
    trusted = trusted_share(len(noisy_blobs.y_noisy))
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(
        forest, confidence=confidence, validation_fraction="trusted", random_state=0
    )
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    check = plc.halves_check_
    assert check["verified"] and check["n_judged"] == trusted.sum()


def test_trusted_samples_that_judge_the_check_train_the_correcting_models(
    noisy_blobs,
):
    RowRecordingForest.seen_rows = []
    trusted = trusted_share(len(noisy_blobs.y_noisy))
    forest = RowRecordingForest(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, validation_fraction="trusted", random_state=0)
    X = with_row_ids(noisy_blobs.X)
    plc.fit(X, noisy_blobs.y_noisy, trusted=trusted)
    folds = [rows for rows in RowRecordingForest.seen_rows if rows.size < len(X)]
    verified = np.flatnonzero(trusted)
    assert folds and all(np.isin(verified, rows).any() for rows in folds)


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
        (np.array([3, 8, 41]), r"np.isin\(np.arange\(n_samples\), positions\)"),
    ],
)
def test_bad_trusted_masks_are_explained(noisy_blobs, trusted, message):
    with pytest.raises(ValueError, match=message):
        PLCClassifier().fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)


@pytest.mark.parametrize(
    "trusted, message",
    [
        (None, "but fit was given none"),
        (np.zeros(600, dtype=bool), "trusted marks no sample"),
        (np.ones(600, dtype=bool), "trusted marks every sample"),
    ],
)
def test_trusted_judges_need_trusted_and_untrusted_samples(
    noisy_blobs, trusted, message
):
    plc = PLCClassifier(validation_fraction="trusted")
    with pytest.raises(ValueError, match=message):
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)


def test_few_trusted_samples_judging_give_a_warning(noisy_blobs):
    trusted = trusted_share(len(noisy_blobs.y_noisy), share=0.05)
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    plc = PLCClassifier(forest, validation_fraction="trusted", random_state=0)
    with pytest.warns(UserWarning, match=r"Only \d+ trusted samples judge"):
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)


def test_trusted_samples_outside_the_validation_train_every_correcting_model(
    noisy_blobs, without_halves_check
):
    RowRecordingForest.seen_rows = []
    trusted = trusted_share(len(noisy_blobs.y_noisy))
    forest = RowRecordingForest(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, confidence="oob", random_state=0)
    X = with_row_ids(noisy_blobs.X)
    plc.fit(X, noisy_blobs.y_noisy, trusted=trusted)
    training = np.setdiff1d(np.flatnonzero(trusted), plc.validation_indices_)
    correcting = [rows for rows in RowRecordingForest.seen_rows if rows.size < len(X)]
    assert correcting
    assert all(np.isin(training, rows).all() for rows in correcting)


def test_a_refit_with_trusted_labels_judges_on_the_same_samples(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    before = PLCClassifier(forest, random_state=0).fit(
        noisy_blobs.X, noisy_blobs.y_noisy
    )
    trusted = trusted_share(len(noisy_blobs.y_noisy))
    after = PLCClassifier(forest, random_state=0).fit(
        noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted
    )
    np.testing.assert_array_equal(after.validation_indices_, before.validation_indices_)


@pytest.mark.parametrize("confidence", ["cv", "oob"])
def test_confirming_labels_the_run_did_not_dispute_changes_nothing(
    noisy_blobs, confidence
):
    # a review that confirms labels the run neither changed, left out nor
    # disputed gives the same run: the same splits, models and labels
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    before = PLCClassifier(forest, confidence=confidence, random_state=0).fit(
        noisy_blobs.X, noisy_blobs.y_noisy
    )
    undisputed = np.flatnonzero(
        (before.labels_ == noisy_blobs.y_noisy)
        & ~before.set_aside_
        & (before.label_evidence_["given_ratio"] == 1)
    )
    trusted = np.zeros(len(noisy_blobs.y_noisy), dtype=bool)
    trusted[undisputed[::10]] = True
    after = PLCClassifier(forest, confidence=confidence, random_state=0).fit(
        noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted
    )
    assert before.corrections_["sample"].size > 0
    np.testing.assert_array_equal(after.labels_, before.labels_)
    np.testing.assert_array_equal(
        after.predict_proba(noisy_blobs.X), before.predict_proba(noisy_blobs.X)
    )


@pytest.mark.parametrize(
    "doubtful, confidence, seed",
    [("set_aside", "cv", 1), ("auto", "oob", 1)],  # the second: contested, left out
)
def test_trusted_samples_are_never_left_out(noisy_blobs, doubtful, confidence, seed):
    trusted = trusted_share(len(noisy_blobs.y_noisy))
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(
        forest, doubtful=doubtful, confidence=confidence, random_state=seed
    )
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    assert plc.set_aside_.any()
    assert not plc.set_aside_[trusted].any()


def test_every_label_trusted_gives_the_plain_fit(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    trusted = np.ones(len(noisy_blobs.y_noisy), dtype=bool)
    plc = PLCClassifier(forest, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    plain = clone(forest).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_array_equal(plc.labels_, noisy_blobs.y_noisy)
    np.testing.assert_array_equal(
        plc.predict_proba(noisy_blobs.X), plain.predict_proba(noisy_blobs.X)
    )


def test_no_label_trusted_is_a_fit_without_trusted(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    none = np.zeros(len(noisy_blobs.y_noisy), dtype=bool)
    with_mask = PLCClassifier(forest, random_state=0)
    with_mask.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=none)
    without = PLCClassifier(forest, random_state=0)
    without.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_array_equal(with_mask.labels_, without.labels_)


def test_grid_search_splits_the_trusted_mask_with_the_samples(noisy_blobs):
    trusted = trusted_share(len(noisy_blobs.y_noisy), share=0.3)
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    plc = PLCClassifier(forest, validation_fraction="trusted", random_state=0)
    search = GridSearchCV(plc, {"theta": [0.3, 0.5]}, cv=3)
    search.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    best = search.best_estimator_
    # the refit on all samples is checked on all the trusted ones
    assert best.halves_check_["n_judged"] == trusted.sum()


def test_trusted_is_routed_to_plc_when_requested(noisy_blobs):
    trusted = trusted_share(len(noisy_blobs.y_noisy), share=0.3)
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        plc = PLCClassifier(forest, validation_fraction="trusted", random_state=0)
        plc.set_fit_request(trusted=True)
        search = GridSearchCV(plc, {"theta": [0.3, 0.5]}, cv=3)
        search.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    assert search.best_estimator_.halves_check_["n_judged"] == trusted.sum()


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


def test_parallel_folds_give_the_same_labels(noisy_blobs):
    from joblib import parallel_config

    serial = PLCClassifier(random_state=0)
    parallel = PLCClassifier(random_state=0)
    serial.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    with parallel_config(n_jobs=2):
        parallel.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_array_equal(serial.labels_, parallel.labels_)


def test_custom_splitter_is_used(noisy_blobs):
    plc = PLCClassifier(
        cv=KFold(3, shuffle=True, random_state=0), random_state=0, **PAPER
    )
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.history_[0]["n_corrected"] > 0


def test_auto_min_correction_rate_is_a_tenth_per_refit(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    n_samples = len(noisy_blobs.y_noisy)
    for record, following in itertools.pairwise(plc.history_):
        quiet = record["n_corrected"] <= 0.1 * n_samples
        raised = following["threshold"] > record["threshold"]
        assert raised == (quiet and record["threshold"] < 0.9)


def test_disputed_samples_are_left_out_of_the_final_fit(noisy_blobs):
    plc = PLCClassifier(
        DecisionTreeClassifier(random_state=0), doubtful="set_aside", random_state=1
    ).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "converged"
    n_trained = plc.estimator_.tree_.n_node_samples[0]
    assert 0 < plc.set_aside_.sum() == noisy_blobs.X.shape[0] - n_trained


def test_doubtful_keep_trains_the_final_model_on_every_sample(noisy_blobs):
    plc = PLCClassifier(
        DecisionTreeClassifier(random_state=0), doubtful="keep", random_state=0
    ).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert not plc.set_aside_.any()
    assert plc.estimator_.tree_.n_node_samples[0] == noisy_blobs.X.shape[0]


def weighed_tree(**params):
    """PLC around a tree with soft leaves, so that relabels have weights below 1."""
    tree = DecisionTreeClassifier(min_samples_leaf=10, random_state=0)
    return PLCClassifier(tree, random_state=1, **params)


def test_a_weighed_relabel_trains_on_both_labels_at_weights_summing_to_one(
    noisy_blobs,
):
    plc = weighed_tree(doubtful="weigh").fit(noisy_blobs.X, noisy_blobs.y_noisy)
    n_samples = noisy_blobs.X.shape[0]
    n_weighed = np.count_nonzero(plc.relabel_weight_ < 1)
    assert plc.termination_condition_ == "converged" and n_weighed > 0
    root = plc.estimator_.tree_
    assert root.n_node_samples[0] == n_samples + n_weighed
    assert root.weighted_n_node_samples[0] == pytest.approx(n_samples)


def test_only_changed_labels_are_weighed(noisy_blobs):
    plc = weighed_tree(doubtful="weigh").fit(noisy_blobs.X, noisy_blobs.y_noisy)
    unchanged = plc.labels_ == noisy_blobs.y_noisy
    assert (plc.relabel_weight_[unchanged] == 1).all()
    assert ((plc.relabel_weight_ > 0.5) | unchanged).all()


# The tests of what the final fit does with kept corrections run without the
# held-out judge (validation_fraction=None), which could contest them.
NOT_JUDGED = dict(validation_fraction=None)


def test_auto_weighs_where_the_estimator_takes_sample_weights(noisy_blobs):
    weighed = weighed_tree(doubtful="weigh", **NOT_JUDGED)
    weighed.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    auto = weighed_tree(**NOT_JUDGED).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_array_equal(auto.relabel_weight_, weighed.relabel_weight_)


def test_a_pipeline_passes_the_relabel_weights_to_its_last_step(noisy_blobs):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    tree = DecisionTreeClassifier(min_samples_leaf=10, random_state=0)
    pipeline = make_pipeline(StandardScaler(), tree)
    plc = PLCClassifier(pipeline, random_state=0, **NOT_JUDGED)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    n_weighed = np.count_nonzero(plc.relabel_weight_ < 1)
    root = plc.estimator_[-1].tree_
    assert n_weighed > 0
    assert root.n_node_samples[0] == noisy_blobs.X.shape[0] + n_weighed
    assert root.weighted_n_node_samples[0] == pytest.approx(noisy_blobs.X.shape[0])


def test_auto_leaves_the_relabels_out_where_fit_takes_no_sample_weight(noisy_blobs):
    from sklearn.neighbors import KNeighborsClassifier

    plc = PLCClassifier(KNeighborsClassifier(), random_state=0, **NOT_JUDGED)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    changed = plc.labels_ != noisy_blobs.y_noisy
    assert changed.any() and (plc.relabel_weight_ == 1).all()
    assert plc.set_aside_[changed].all()
    n_trained = plc.estimator_.n_samples_fit_
    assert n_trained == noisy_blobs.X.shape[0] - plc.set_aside_.sum()


class SizeRecordingNeighbours(KNeighborsClassifier):
    """Remembers the size of every training set (all clones)."""

    sizes = []

    def fit(self, X, y):
        SizeRecordingNeighbours.sizes.append(X.shape[0])
        return super().fit(X, y)


def fold_training_sizes(data, **params):
    """Per fold of the first round and of every later one, its training size."""
    SizeRecordingNeighbours.sizes = []
    plc = PLCClassifier(SizeRecordingNeighbours(), random_state=0, **params)
    plc.fit(data.X, data.y_noisy)
    folds = SizeRecordingNeighbours.sizes[:-1]  # the final fit comes last
    return folds[:3], folds[3:]


def test_an_unweighed_loop_leaves_the_doubtful_out_of_the_later_fold_fits(
    noisy_blobs,
):
    first, later = fold_training_sizes(noisy_blobs, **NOT_JUDGED)
    assert later and all(size < first[fold % 3] for fold, size in enumerate(later))


def test_a_fold_too_small_without_the_doubtful_is_fitted_on_all_its_samples():
    from sklearn.neighbors import KNeighborsClassifier

    rng = np.random.RandomState(5)  # 15 samples: 5-NN folds of about 8
    X = rng.randn(15, 2)
    y = (X[:, 0] > 0).astype(int)
    flipped = rng.rand(15) < 0.35
    y[flipped] = 1 - y[flipped]
    plc = PLCClassifier(KNeighborsClassifier(5), min_memorisation=0, random_state=4)
    with pytest.warns(UserWarning, match="could not be fitted without the"):
        plc.fit(X, y)
    assert plc.estimator_.n_samples_fit_ == 15 - plc.set_aside_.sum()


def test_keep_fits_every_fold_on_all_its_samples(noisy_blobs):
    first, later = fold_training_sizes(noisy_blobs, doubtful="keep", **NOT_JUDGED)
    assert later and all(size == first[fold % 3] for fold, size in enumerate(later))


def test_keep_trains_an_unweighed_model_on_every_sample(noisy_blobs):
    from sklearn.neighbors import KNeighborsClassifier

    plc = PLCClassifier(KNeighborsClassifier(), doubtful="keep", random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert (plc.labels_ != noisy_blobs.y_noisy).any()
    assert not plc.set_aside_.any()
    assert plc.estimator_.n_samples_fit_ == noisy_blobs.X.shape[0]


def test_weigh_without_sample_weight_support_is_explained(noisy_blobs):
    from sklearn.neighbors import KNeighborsClassifier

    plc = PLCClassifier(KNeighborsClassifier(), doubtful="weigh")
    with pytest.raises(ValueError, match="takes no sample_weight"):
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)


def test_relabel_weights_multiply_the_callers_sample_weights(noisy_blobs):
    n_samples = noisy_blobs.X.shape[0]
    plc = weighed_tree(doubtful="weigh").fit(
        noisy_blobs.X, noisy_blobs.y_noisy, sample_weight=np.full(n_samples, 2.0)
    )
    assert plc.estimator_.tree_.weighted_n_node_samples[0] == pytest.approx(
        2 * n_samples
    )


def test_nothing_is_weighed_when_the_labels_are_kept(noisy_blobs):
    plc = PLCClassifier(LogisticRegression(max_iter=1000), random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "not_memorising"
    assert (plc.relabel_weight_ == 1).all()


def test_set_aside_in_two_classes_relabels_only_at_a_margin_of_one_half(noisy_blobs):
    plc = PLCClassifier(
        DecisionTreeClassifier(random_state=0), doubtful="set_aside", random_state=0
    ).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert max(record["threshold"] for record in plc.history_) <= 1 / 3


def test_setting_aside_never_empties_a_class():
    from sklearn_plc._left_out import keep_every_class

    labels = np.array([0, 0, 1, 1, 2])
    left_out = np.array([True, False, True, True, False])
    kept = keep_every_class(left_out, labels)
    assert kept.tolist() == [True, False, False, False, False]
    assert left_out.tolist() == [True, False, True, True, False]  # not modified


class ContraryOnceCorrected(DecisionTreeClassifier):
    """A tree (on X less its last column, a row id) that predicts the other class
    once it is trained on any label other than :attr:`given`'s: models of the
    corrected labels then disagree with every judged label."""

    given = None

    def fit(self, X, y, sample_weight=None):
        self.corrected_ = bool((y != self.given[X[:, -1].astype(int)]).any())
        return super().fit(X[:, :-1], y, sample_weight=sample_weight)

    def predict_proba(self, X):
        proba = super().predict_proba(X[:, :-1])
        return proba[:, ::-1] if self.corrected_ else proba


def test_a_refit_judged_clearly_worse_stops_the_run_there(noisy_blobs):
    ContraryOnceCorrected.given = noisy_blobs.y_noisy
    plc = PLCClassifier(
        ContraryOnceCorrected(random_state=0),
        doubtful="keep",
        min_correction_rate=QUIET_FOR_A_SECOND_REFIT,
        random_state=0,
    )
    plc.fit(with_row_ids(noisy_blobs.X), noisy_blobs.y_noisy)
    assert [record["refit"] for record in plc.history_] == [True, True, False]
    assert plc.history_[-1]["undo"] and plc.n_iter_ == 2
    assert plc.termination_condition_ == "undone"
    assert plc.selection_["undone"] and plc.selection_["round"] == 1
    np.testing.assert_array_equal(plc.labels_, noisy_blobs.y_noisy)


def unrelated_labels(seed=1):
    """Labels no model can predict, on which a forest's corrections do harm."""
    rng = np.random.RandomState(seed)
    return rng.normal(size=(600, 5)), rng.randint(0, 3, 600)


def test_a_result_that_trains_worse_models_on_halves_is_undone():
    X, y = unrelated_labels()
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, validation_fraction=0.25, random_state=1).fit(X, y)
    check = plc.halves_check_
    assert check["undone"] and check["n_judged"] == 600
    assert check["ending"] != "undone"  # the run's own verdict had kept them
    assert plc.termination_condition_ == "undone"
    assert plc.selection_["compared"] == "halves"
    np.testing.assert_array_equal(plc.labels_, y)
    assert not plc.set_aside_.any() and (plc.relabel_weight_ == 1).all()


def test_an_undone_result_fits_the_plain_model():
    X, y = unrelated_labels()
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, validation_fraction=0.25, random_state=1).fit(X, y)
    plain = clone(plc.estimator_).fit(X, y)
    np.testing.assert_array_equal(plc.predict(X), plain.predict(X))


def test_a_result_the_halves_confirm_keeps_its_own_verdict(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    X, y = noisy_blobs.X, noisy_blobs.y_noisy
    plc = PLCClassifier(forest, random_state=0).fit(X, y)
    assert not plc.halves_check_["undone"]
    assert plc.halves_check_["ending"] == plc.termination_condition_
    assert plc.selection_ is None or plc.selection_["compared"] != "halves"
    assert (plc.labels_ != y).any()


def test_a_run_with_reviewed_labels_is_checked_with_them(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    trusted = np.arange(len(noisy_blobs.X)) < 150
    plc = PLCClassifier(forest, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    assert (plc.labels_ != noisy_blobs.y_noisy).any()
    assert plc.halves_check_ is not None


def test_a_run_that_keeps_the_labels_is_not_checked(noisy_blobs):
    plc = PLCClassifier(LogisticRegression(), random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "not_memorising"
    assert plc.halves_check_ is None


@pytest.mark.parametrize("how", ["no_judge", "in_sample"])
def test_the_check_on_halves_runs_only_where_the_judge_acts(noisy_blobs, how):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    params = {}
    if how == "no_judge":
        params["validation_fraction"] = None
    else:
        params["confidence"] = "in_sample"
    plc = PLCClassifier(forest, random_state=0, **params)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert (plc.labels_ != noisy_blobs.y_noisy).any()
    assert plc.halves_check_ is None


@pytest.fixture
def halves_settings(monkeypatch):
    """``(settings, termination)`` of each half's own run, in order."""
    from sklearn_plc._paths import refit

    recorded = []
    run = refit.RefitPath._run

    def recording(path, *args, **kwargs):
        result = run(path, *args, **kwargs)
        if not path.checks_on_halves:
            recorded.append((path.settings, result.termination))
        return result

    monkeypatch.setattr(refit.RefitPath, "_run", recording)
    return recorded


def test_where_the_run_kept_its_corrections_the_halves_keep_theirs(
    noisy_blobs, halves_settings
):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plc = PLCClassifier(forest, random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.halves_check_["ending"] == "converged"
    # no validation fifth in a half: no verdict of its own can undo the act checked
    assert [s.validation_fraction for s, _ in halves_settings] == [None, None]
    assert [s.forced_act for s, _ in halves_settings] == ["relabel", "relabel"]


def test_the_halves_of_a_contested_run_contest(halves_settings):
    X, y = make_classification(n_samples=300, random_state=0)
    y_noisy = y.copy()
    y_noisy[:60] = 1 - y_noisy[:60]
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, random_state=6).fit(X, y_noisy)
    assert plc.halves_check_["ending"] == "corrections_contested"
    assert [ending for _, ending in halves_settings] == ["corrections_contested"] * 2


def test_a_run_forced_to_relabel_corrects_a_model_the_memorisation_test_stops(
    monkeypatch,
):
    # naive Bayes does not memorise noisy digits: a run of its own keeps the labels
    X, y = load_digits(return_X_y=True)
    y_noisy = flip_labels_with_matrix(
        y, uniform_transition_matrix(10, 0.3), random_state=0
    )
    run_settings = PLCClassifier._run_settings
    monkeypatch.setattr(
        PLCClassifier,
        "_run_settings",
        lambda plc: replace(
            run_settings(plc), validation_fraction=None, forced_act="relabel"
        ),
    )
    plc = PLCClassifier(GaussianNB(), random_state=0).fit(X, y_noisy)
    assert plc.termination_condition_ in ("converged", "max_iter")
    assert plc.memorisation_["rate"] < 0.1  # recorded, and not acted on
    assert (plc.labels_ != y_noisy).any()


def test_the_halves_of_a_non_memorising_run_leave_out_their_sure_disputes(
    halves_settings,
):
    # naive Bayes on noisy digits: its sure disputes are left out, on clear evidence
    X, y = load_digits(return_X_y=True)
    y_noisy = flip_labels_with_matrix(
        y, uniform_transition_matrix(10, 0.3), random_state=0
    )
    plc = PLCClassifier(GaussianNB(), random_state=0).fit(X, y_noisy)
    assert plc.termination_condition_ == "not_memorising" and plc.set_aside_.any()
    assert [s.forced_act for s, _ in halves_settings] == ["leave_out"] * 2
    # each half's run left its own out, so the check compares two different fits
    assert plc.halves_check_["n_differ"] > 0
