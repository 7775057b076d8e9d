import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import (
    ExtraTreesClassifier,
    RandomForestClassifier,
    StackingClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
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
# the model, keep the last labels. The mechanics tests below use it with a
# logistic regression (fast), which on 2-D blobs does not memorise its labels (so
# the defaults would rightly leave them as given).
PAPER = dict(
    estimator=LogisticRegression(max_iter=1000),
    min_memorisation=0,
    min_correction_rate=0.001,
    validation_fraction=None,
    doubtful="keep",
)


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


@pytest.mark.parametrize(
    ("confidence", "expected"),
    [("auto", "cv"), ("oob", "oob"), ("in_sample", "in_sample")],
)
def test_the_confidence_used_is_recorded(noisy_blobs, confidence, expected):
    forest = RandomForestClassifier(n_estimators=30)
    plc = PLCClassifier(forest, confidence=confidence, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.confidence_ == expected


def test_auto_judges_a_forest_of_a_hundred_trees_out_of_bag(noisy_blobs):
    forest = RandomForestClassifier(n_estimators=100, max_depth=3)
    plc = PLCClassifier(forest, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.confidence_ == "oob"


@pytest.mark.parametrize(
    "estimator",
    [
        RandomForestClassifier(n_estimators=99, max_depth=3),  # too few members
        RandomForestClassifier(n_estimators=100, max_depth=3, bootstrap=False),
        ExtraTreesClassifier(n_estimators=100, max_depth=3),  # bootstrap=False
    ],
)
def test_auto_uses_folds_where_out_of_bag_is_missing_or_coarse(noisy_blobs, estimator):
    plc = PLCClassifier(estimator, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.confidence_ == "cv"


@pytest.mark.parametrize(
    ("params", "fit_params"),
    [({"cv": 4}, {}), ({"cv": GroupKFold(3)}, {"groups": np.arange(600) % 7})],
)
def test_auto_uses_the_folds_the_caller_chose(noisy_blobs, params, fit_params):
    forest = RandomForestClassifier(n_estimators=100, max_depth=3)
    plc = PLCClassifier(forest, random_state=0, **params)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, **fit_params)
    assert plc.confidence_ == "cv"


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


def test_correction_never_empties_a_class():
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(30, 3))
    y = np.arange(30) % 3  # labels unrelated to X
    plc = PLCClassifier(random_state=0).fit(X, y)
    assert set(plc.labels_) == {0, 1, 2}


# --- the fitted model ------------------------------------------------------------


def test_final_model_is_trained_on_the_corrected_labels(noisy_blobs):
    plc = PLCClassifier(LogisticRegression(max_iter=1000), random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    direct = LogisticRegression(max_iter=1000).fit(noisy_blobs.X, plc.labels_)
    np.testing.assert_allclose(plc.estimator_.coef_, direct.coef_, rtol=1e-6)


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
    assert hasattr(PLCClassifier(LogisticRegression()), "decision_function")


# --- scikit-learn integration ------------------------------------------------------


def test_works_as_a_pipeline_step(noisy_blobs):
    pipe = Pipeline(
        [("scale", StandardScaler()), ("plc", PLCClassifier(random_state=0))]
    )
    pipe.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert pipe.score(noisy_blobs.X, noisy_blobs.y_clean) > 0.8


def test_grid_search_over_theta_and_beta(noisy_blobs, without_halves_check):
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


@pytest.mark.parametrize("in_pipeline", [False, True])
def test_a_stacking_ensemble_with_its_default_final_estimator_is_taken(
    noisy_blobs, in_pipeline
):
    # its predict_proba appears only once fitted (a LogisticRegression made at fit)
    stacking = StackingClassifier([("lr", LogisticRegression())])
    estimator = make_pipeline(StandardScaler(), stacking) if in_pipeline else stacking
    plc = PLCClassifier(estimator, random_state=0).fit(
        noisy_blobs.X, noisy_blobs.y_noisy
    )
    assert plc.predict_proba(noisy_blobs.X[:3]).shape == (3, plc.classes_.shape[0])


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


@pytest.mark.parametrize("dtype", ["string", object])
def test_pandas_na_labels_are_named_as_missing(noisy_blobs, dtype):
    # regression: pd.NA in y crashed with "boolean value of NA is ambiguous"
    y = pd.Series(np.array(["a", "b"], dtype=object)[noisy_blobs.y_noisy], dtype=dtype)
    y[5] = pd.NA
    with pytest.raises(ValueError, match="y has 1 missing labels"):
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
        {"confidence": "out_of_bag"},
        {"warm_up": -1},
        {"validation_fraction": 1.0},
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


def test_the_default_model_fits_raw_features_quietly_and_corrects():
    from sklearn.datasets import load_digits
    from sklearn.exceptions import ConvergenceWarning

    from sklearn_plc.noise import PMDNoise

    X, y = load_digits(return_X_y=True)
    _, y_noisy = PMDNoise("I", 0.35, random_state=0).fit_resample(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        plc = PLCClassifier(random_state=0).fit(X, y_noisy)
    assert plc.termination_condition_ == "converged"
    assert purity(plc.labels_, y) > purity(y_noisy, y) + 0.1


@pytest.mark.parametrize(
    "removed",
    ["schedule", "window", "min_confidence", "revert_if_worse", "final_fit", "n_jobs"],
)
def test_parameters_removed_in_this_version_are_not_accepted(removed):
    # the changelog says what replaces each
    assert removed not in PLCClassifier().get_params()
