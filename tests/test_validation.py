"""Every input a scikit-learn user brings, and errors that name the fix.

One regression test per case found by trying the library as a new user would:
text and dict inputs, polars frames, groups, generators as cv, rare classes,
nested parameters of the default estimator, empty data.
"""

import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.compose import make_column_transformer
from sklearn.feature_extraction import DictVectorizer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier

from sklearn_plc import PLCClassifier

WORDS = {0: "bad awful poor dull", 1: "good great fine nice"}


@pytest.fixture
def documents():
    """60 short documents whose words give away their class."""
    rng = np.random.RandomState(0)
    y = np.arange(60) % 2
    docs = [
        " ".join(rng.choice(WORDS[label].split(), size=3)) + f" filler{i % 7}"
        for i, label in enumerate(y)
    ]
    return docs, y


def text_pipeline():
    return make_pipeline(TfidfVectorizer(), LogisticRegression())


# --- inputs that are not a 2-D array ---------------------------------------------


def test_a_list_of_documents_reaches_a_text_pipeline(documents):
    docs, y = documents
    plc = PLCClassifier(text_pipeline(), random_state=0).fit(docs, y)
    assert np.array_equal(plc.predict(docs), y)


def test_a_series_of_text_reaches_a_text_pipeline(documents):
    docs, y = documents
    plc = PLCClassifier(text_pipeline(), random_state=0).fit(pd.Series(docs), y)
    assert np.array_equal(plc.predict(pd.Series(docs)), y)


def test_text_input_sets_no_feature_count(documents):
    docs, y = documents
    plc = PLCClassifier(text_pipeline(), random_state=0).fit(docs, y)
    assert not hasattr(plc, "n_features_in_")


def test_a_list_of_dicts_reaches_a_dict_vectorizer_pipeline():
    rng = np.random.RandomState(0)
    y = np.arange(60) % 2
    records = [{"signal": label + rng.rand(), "other": rng.rand()} for label in y]
    model = make_pipeline(DictVectorizer(), LogisticRegression())
    plc = PLCClassifier(model, random_state=0).fit(records, y)
    assert plc.predict(records).shape == (60,)


def test_text_pipeline_pickles_and_grid_searches(documents):
    docs, y = documents
    search = GridSearchCV(
        PLCClassifier(text_pipeline(), random_state=0), {"theta": [0.2, 0.4]}, cv=3
    ).fit(docs, y)
    restored = pickle.loads(pickle.dumps(search.best_estimator_))
    assert np.array_equal(restored.predict(docs), search.predict(docs))


# --- dataframes reach the estimator as they are ---------------------------------


def test_a_polars_frame_reaches_a_column_transformer_by_name():
    polars = pytest.importorskip("polars")
    rng = np.random.RandomState(0)
    y = np.arange(60) % 2
    frame = polars.DataFrame(
        {"amount": rng.randn(60) + 2 * y, "kind": np.where(y == 1, "a", "b")}
    )
    columns = make_column_transformer(
        (StandardScaler(), ["amount"]), (OneHotEncoder(), ["kind"])
    )
    plc = PLCClassifier(make_pipeline(columns, LogisticRegression()), random_state=0)
    plc.fit(frame, y)
    assert list(plc.feature_names_in_) == ["amount", "kind"]
    assert np.mean(plc.predict(frame) == y) > 0.9


# --- cv and groups ---------------------------------------------------------------


def test_groups_reach_a_group_aware_splitter(noisy_blobs, without_halves_check):
    """No fold's model is trained on a sample of the group it predicts."""

    class RecordingGroupKFold(GroupKFold):
        seen = []

        def split(self, X, y=None, groups=None):
            type(self).seen.append(groups)
            return super().split(X, y, groups)

    groups = np.arange(len(noisy_blobs.y_noisy)) // 20
    plc = PLCClassifier(cv=RecordingGroupKFold(5), random_state=0).fit(
        noisy_blobs.X, noisy_blobs.y_noisy, groups=groups
    )
    # the folds are made from the samples not set aside for validation
    training = np.setdiff1d(np.arange(len(groups)), plc.validation_indices_)
    assert RecordingGroupKFold.seen
    assert all(
        np.array_equal(seen, groups[training]) for seen in RecordingGroupKFold.seen
    )


def test_validation_samples_are_whole_groups(noisy_blobs):
    groups = np.arange(len(noisy_blobs.y_noisy)) // 20
    plc = PLCClassifier(cv=GroupKFold(5), random_state=0).fit(
        noisy_blobs.X, noisy_blobs.y_noisy, groups=groups
    )
    validation = plc.validation_indices_
    training = np.setdiff1d(np.arange(len(groups)), validation)
    assert validation.size > 0
    assert not np.isin(groups[validation], groups[training]).any()


def test_groups_are_routed_to_the_splitter_with_metadata_routing(noisy_blobs):
    groups = np.arange(len(noisy_blobs.y_noisy)) // 20
    with sklearn.config_context(enable_metadata_routing=True):
        plc = PLCClassifier(
            LogisticRegression().set_fit_request(sample_weight=False),
            cv=GroupKFold(5),
            random_state=0,
        )
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, groups=groups)
    assert plc.labels_.shape == noisy_blobs.y_noisy.shape


def test_groups_with_a_splitter_that_ignores_them_are_rejected(noisy_blobs):
    groups = np.arange(len(noisy_blobs.y_noisy)) // 20
    with pytest.raises(ValueError, match="GroupKFold"):
        PLCClassifier(cv=5).fit(noisy_blobs.X, noisy_blobs.y_noisy, groups=groups)


def test_groups_without_folds_are_rejected(noisy_blobs):
    groups = np.arange(len(noisy_blobs.y_noisy)) // 20
    with pytest.raises(ValueError, match="only shape the folds"):
        PLCClassifier(confidence="in_sample").fit(
            noisy_blobs.X, noisy_blobs.y_noisy, groups=groups
        )


def test_too_few_groups_for_the_folds_are_counted_with_the_fix(noisy_blobs):
    """Three groups, one set aside to judge: GroupKFold(3) is left two."""
    groups = np.arange(len(noisy_blobs.y_noisy)) % 3
    with pytest.raises(
        ValueError, match=r"in 2 groups, once \d+ samples were set aside.*fewer folds"
    ):
        PLCClassifier(cv=GroupKFold(3), random_state=0).fit(
            noisy_blobs.X, noisy_blobs.y_noisy, groups=groups
        )


def test_a_check_on_halves_without_enough_groups_says_so(noisy_blobs):
    """Four groups make the run's folds; a half of two cannot make three."""
    groups = np.arange(len(noisy_blobs.y_noisy)) % 4
    with pytest.warns(UserWarning, match="could not check its result on halves"):
        plc = PLCClassifier(cv=GroupKFold(3), random_state=0).fit(
            noisy_blobs.X, noisy_blobs.y_noisy, groups=groups
        )
    assert plc.halves_check_ is None


def test_a_fold_too_small_for_the_estimator_is_counted(noisy_blobs):
    """A plain fit takes 400 neighbours of 600 samples; a fold has fewer."""
    X, y = noisy_blobs.X, noisy_blobs.y_noisy
    KNeighborsClassifier(400).fit(X, y)
    with pytest.raises(ValueError, match=r"trains on \d+ of the 600 samples"):
        PLCClassifier(KNeighborsClassifier(400), random_state=0).fit(X, y)


def test_a_generator_as_cv_is_rejected_with_the_fix(noisy_blobs):
    folds = KFold(3).split(noisy_blobs.X)
    with pytest.raises(ValueError, match=r"cv is an iterator.*list\(cv\)"):
        PLCClassifier(cv=folds).fit(noisy_blobs.X, noisy_blobs.y_noisy)


def test_a_list_of_folds_fits_twice(noisy_blobs):
    folds = list(KFold(3, shuffle=True, random_state=0).split(noisy_blobs.X))
    plc = PLCClassifier(cv=folds, random_state=0)
    first = plc.fit(noisy_blobs.X, noisy_blobs.y_noisy).labels_.copy()
    assert np.array_equal(plc.fit(noisy_blobs.X, noisy_blobs.y_noisy).labels_, first)


# --- rare classes ----------------------------------------------------------------


def test_a_class_smaller_than_cv_warns_and_proceeds(noisy_blobs):
    y = noisy_blobs.y_noisy.copy()
    y[:3] = 2  # a class of 3 samples, below cv=5
    with pytest.warns(UserWarning, match="least populated class"):
        plc = PLCClassifier(cv=5, random_state=0).fit(noisy_blobs.X, y)
    assert list(plc.classes_) == [0, 1, 2]


def test_folds_that_cannot_be_stratified_name_a_cv_that_can():
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ValueError, match=r"largest has 2.*Use cv <= 2"):
        PLCClassifier(cv=5).fit(X, [0, 0, 1, 1, 2, 2])


def test_one_sample_per_class_suggests_in_sample_confidence():
    X = np.arange(6.0).reshape(3, 2)
    with pytest.raises(ValueError, match=r"single sample.*confidence='in_sample'"):
        PLCClassifier(cv=5).fit(X, [0, 1, 2])


# --- parameters and data ---------------------------------------------------------


def test_nested_parameters_of_the_default_estimator_can_be_set():
    plc = PLCClassifier().set_params(estimator__n_estimators=20)
    assert plc.estimator.get_params()["n_estimators"] == 20


def test_grid_search_over_the_default_estimators_parameters(
    noisy_blobs, without_halves_check
):
    grid = {"estimator__max_depth": [2, None]}
    search = GridSearchCV(PLCClassifier(random_state=0), grid)
    search.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert search.best_params_["estimator__max_depth"] in (2, None)


def test_empty_data_is_named_as_empty():
    with pytest.raises(ValueError, match="X is empty"):
        PLCClassifier().fit(np.zeros((0, 3)), [])


# --- other entry points ------------------------------------------------------------


def test_a_transition_matrix_for_classes_y_lacks_names_the_classes_found():
    from sklearn_plc.noise import TransitionMatrixNoise

    noise = TransitionMatrixNoise(np.full((3, 3), 1 / 3), random_state=0)
    with pytest.raises(ValueError, match=r"found in y, \[0, 1\].*classes=") as error:
        noise.fit_resample(np.zeros((4, 1)), [0, 1, 0, 1])
    assert "pass classes=" not in str(error.value)


def test_an_estimator_without_predict_proba_is_pointed_to_calibration(noisy_blobs):
    from sklearn.linear_model import RidgeClassifier

    with pytest.raises(ValueError, match="CalibratedClassifierCV"):
        PLCClassifier(RidgeClassifier()).fit(noisy_blobs.X, noisy_blobs.y_noisy)


def test_an_svc_is_told_how_to_get_probabilities(noisy_blobs):
    from sklearn.svm import SVC

    with pytest.raises(ValueError) as error:
        PLCClassifier(SVC()).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    message = str(error.value)
    assert "CalibratedClassifierCV(SVC(), ensemble=False)" in message
    assert "SVC(probability=True)" in message


def test_a_regressor_is_told_that_plc_needs_a_classifier(noisy_blobs):
    from sklearn.linear_model import Ridge

    with pytest.raises(ValueError, match="is a regressor") as error:
        PLCClassifier(Ridge()).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert "CalibratedClassifierCV" not in str(error.value)


def test_folds_too_small_after_the_set_aside_get_plcs_own_message():
    X = np.arange(12.0).reshape(6, 2)  # 3 per class; 2 per class after the set-aside
    with pytest.raises(ValueError, match=r"validation_fraction=0.2.*Use cv <= 2"):
        PLCClassifier(DecisionTreeClassifier(), cv=3).fit(X, [0, 0, 0, 1, 1, 1])


def test_help_lists_no_stray_annotations():
    import pydoc

    text = pydoc.render_doc(PLCClassifier, renderer=pydoc.plaintext)
    assert "__annotations__" not in text


def test_the_callback_example_shuffles_the_training_batches():
    from sklearn_plc.skorch import PLCCallback

    assert "iterator_train__shuffle=True" in PLCCallback.__doc__


def test_plotting_an_unfitted_model_raises_not_fitted():
    pytest.importorskip("matplotlib")
    from sklearn.exceptions import NotFittedError

    from sklearn_plc.plotting import plot_correction_history

    with pytest.raises(NotFittedError):
        plot_correction_history(PLCClassifier())


def test_recovery_report_of_labels_from_another_label_space_is_rejected():
    from sklearn_plc.metrics import label_recovery_report

    with pytest.raises(ValueError, match="y_corrected shares no label with y_clean"):
        label_recovery_report([0, 1, 1], [0, 1, 0], ["a", "b", "b"])


def test_feature_names_of_a_frame_are_warned_about_once(noisy_blobs):
    frame = pd.DataFrame(noisy_blobs.X, columns=["left", "right"])
    plc = PLCClassifier(random_state=0).fit(frame, noisy_blobs.y_noisy)
    with pytest.warns(UserWarning, match="feature names") as record:
        plc.predict(noisy_blobs.X)
    assert len([w for w in record if "feature names" in str(w.message)]) == 1


# --- any input: a fit, or an error that names what is wrong -----------------------

LABEL_KINDS = {
    "int": lambda codes: codes,
    "str": lambda codes: np.array(["ant", "bee", "cat", "dog"])[codes],
    "float": lambda codes: codes.astype(float) / 2,
    "bool": lambda codes: codes.astype(bool),
}
# What an error may name: the inputs, or a parameter this test varies.
NAMES = ("X", "y", "theta", "theta_end", "runner_up_ratio", "cv", "class", "sample")


@st.composite
def fit_inputs(draw):
    n_samples = draw(st.integers(0, 30))
    n_features = draw(st.integers(1, 3))
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64, object]))
    rng = np.random.RandomState(draw(st.integers(0, 2**16)))
    X = rng.normal(size=(n_samples, n_features)).astype(dtype)
    for value in draw(st.lists(st.sampled_from([np.nan, np.inf]), max_size=2)):
        if n_samples and dtype in (np.float64, np.float32, object):
            X[rng.randint(n_samples), rng.randint(n_features)] = value
    n_classes = draw(st.integers(1, 4))
    kind = draw(st.sampled_from(sorted(LABEL_KINDS)))
    y = LABEL_KINDS[kind](rng.randint(n_classes, size=n_samples))
    if draw(st.booleans()) and n_samples and kind == "float":
        y[0] = np.nan
    params = dict(
        theta=draw(st.floats(-0.5, 1.5)),
        theta_end=draw(st.floats(0.0, 1.2)),
        runner_up_ratio=draw(st.floats(-0.5, 1.5)),
        cv=draw(st.integers(1, 6)),
        confidence=draw(st.sampled_from(["cv", "in_sample"])),
        max_iter=3,
        random_state=0,
    )
    return X, y, params


@settings(max_examples=60, deadline=None)
@given(fit_inputs())
def test_any_input_fits_or_raises_an_error_naming_the_fault(inputs):
    X, y, params = inputs
    X_before, y_before = X.copy(), y.copy()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            PLCClassifier(LogisticRegression(max_iter=200), **params).fit(X, y)
    except (ValueError, TypeError) as error:
        message = str(error)
        assert any(name in message for name in NAMES), message
    # repr compares NaN with NaN, and object arrays value by value
    assert repr(X.tolist()) == repr(X_before.tolist()) and X.dtype == X_before.dtype
    assert repr(y.tolist()) == repr(y_before.tolist()) and y.dtype == y_before.dtype


# --- where the final fit's relabel weights go ---------------------------------


def test_the_sample_weight_key_of_an_estimator_and_of_a_pipeline():
    from sklearn.neighbors import KNeighborsClassifier

    from sklearn_plc._validation import sample_weight_key

    assert sample_weight_key(LogisticRegression()) == "sample_weight"
    pipeline = make_pipeline(StandardScaler(), LogisticRegression())
    assert sample_weight_key(pipeline) == "logisticregression__sample_weight"
    assert sample_weight_key(make_pipeline(KNeighborsClassifier())) is None


def test_with_routing_a_pipeline_takes_weights_its_step_requests():
    from sklearn_plc._validation import sample_weight_key

    with sklearn.config_context(enable_metadata_routing=True):
        requested = LogisticRegression().set_fit_request(sample_weight=True)
        assert sample_weight_key(make_pipeline(requested)) == "sample_weight"
        assert sample_weight_key(make_pipeline(LogisticRegression())) is None


def test_labels_of_mixed_types_are_named_with_the_fix():
    y = np.array([1, "a"] * 20, dtype=object)
    with pytest.raises(ValueError, match=r"mixes labels of different types.*astype"):
        PLCClassifier().fit(np.zeros((40, 1)), y)


def test_whole_number_float_labels_are_classes_and_other_floats_are_rejected():
    # as the user guide's "Supported inputs" says
    X = np.random.RandomState(0).normal(size=(60, 2))
    y = np.arange(60) % 2
    plc = PLCClassifier(LogisticRegression(), random_state=0).fit(X, y.astype(float))
    assert plc.classes_.tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="continuous"):
        PLCClassifier(LogisticRegression()).fit(X, y + 0.5)


def test_the_largest_cv_an_error_suggests_can_be_made():
    # the judge's validation samples are counted in the first message, so
    # following it does not lead to a second, smaller bound
    from sklearn.datasets import load_wine
    from sklearn.naive_bayes import GaussianNB

    X, y = load_wine(return_X_y=True)
    with pytest.raises(ValueError, match=r"Use cv <= (\d+)") as error:
        PLCClassifier(GaussianNB(), cv=200, random_state=0).fit(X, y)
    largest = int(re.search(r"cv <= (\d+)", str(error.value)).group(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # classes smaller than the folds
        PLCClassifier(GaussianNB(), cv=largest, random_state=0).fit(X, y)


@pytest.mark.parametrize("bad", [-1.0, np.nan])
def test_a_negative_or_nan_sample_weight_is_refused_by_name(bad):
    X, y = np.random.RandomState(0).normal(size=(40, 2)), np.arange(40) % 2
    weights = np.ones(40)
    weights[3] = bad
    with pytest.raises(ValueError, match=r"sample_weight holds 1 negative.*sample 3"):
        PLCClassifier(LogisticRegression()).fit(X, y, sample_weight=weights)


def test_a_plain_list_mixing_strings_and_integers_is_refused():
    X = np.random.RandomState(0).normal(size=(6, 2))
    y = ["cat", "dog", 0, 1, "cat", 0]
    with pytest.raises(ValueError, match="y mixes labels of different types"):
        PLCClassifier(LogisticRegression()).fit(X, y)
