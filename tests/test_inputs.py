"""Every input a scikit-learn user brings, and errors that name the fix.

One regression test per case found by trying the library as a new user would:
text and dict inputs, polars frames, groups, generators as cv, rare classes,
nested parameters of the default estimator, empty data.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.compose import make_column_transformer
from sklearn.feature_extraction import DictVectorizer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

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


def test_groups_reach_a_group_aware_splitter(noisy_blobs):
    """No fold's model is trained on a sample of the group it predicts."""

    class RecordingGroupKFold(GroupKFold):
        seen = []

        def split(self, X, y=None, groups=None):
            type(self).seen.append(groups)
            return super().split(X, y, groups)

    groups = np.arange(len(noisy_blobs.y_noisy)) // 20
    PLCClassifier(cv=RecordingGroupKFold(5), random_state=0).fit(
        noisy_blobs.X, noisy_blobs.y_noisy, groups=groups
    )
    assert RecordingGroupKFold.seen
    assert all(np.array_equal(seen, groups) for seen in RecordingGroupKFold.seen)


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
    plc = PLCClassifier().set_params(estimator__C=2.0)
    assert plc.estimator.get_params()["C"] == 2.0


def test_grid_search_over_the_default_estimators_parameters(noisy_blobs):
    search = GridSearchCV(PLCClassifier(random_state=0), {"estimator__C": [0.1, 1.0]})
    search.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert search.best_params_["estimator__C"] in (0.1, 1.0)


def test_empty_data_is_named_as_empty():
    with pytest.raises(ValueError, match="X is empty"):
        PLCClassifier().fit(np.zeros((0, 3)), [])


def test_the_progress_bar_closes_at_the_rounds_run(noisy_blobs, capsys):
    plc = PLCClassifier(min_memorisation=0, max_iter=50, verbose=1, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.n_iter_ < 50
    last = capsys.readouterr().err.strip().split("\r")[-1]
    assert f"{plc.n_iter_}/{plc.n_iter_}" in last
