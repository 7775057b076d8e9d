"""The wrapped scikit-learn estimator sees the caller's own labels.

Per-class parameters (``class_weight``) are given in the user's label space, so
they must reach an estimator that is trained on those labels, not on indices.
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_plc import PLCClassifier


@pytest.fixture(scope="module")
def three_blobs():
    X, y = make_blobs(n_samples=300, centers=3, cluster_std=3.0, random_state=0)
    return X, y


LABEL_SPACES = {
    "int": np.array([1, 2, 3]),
    "negative": np.array([-1, 1, 5]),
    "string": np.array(["ant", "bee", "cat"]),
    "object": np.array(["ant", "bee", "cat"], dtype=object),
}


@pytest.mark.parametrize("space", LABEL_SPACES)
def test_class_weight_dict_in_user_labels_matches_the_estimator_alone(
    three_blobs, space
):
    X, index = three_blobs
    names = LABEL_SPACES[space]
    y = names[index]
    weights = {names[0]: 1, names[1]: 20}
    model = LogisticRegression(class_weight=weights)
    # doubtful="keep": every sample in the final fit, as the estimator alone
    plc = PLCClassifier(model, doubtful="keep", random_state=0).fit(X, y)
    assert plc.termination_condition_ in ("not_memorising", "undone", "converged")
    np.testing.assert_array_equal(plc.estimator_.classes_, plc.classes_)
    if np.array_equal(plc.labels_, y):
        alone = clone(model).fit(X, y)
        np.testing.assert_array_equal(plc.predict(X), alone.predict(X))
        np.testing.assert_allclose(plc.predict_proba(X), alone.predict_proba(X))


def test_class_weight_dict_with_bool_labels(three_blobs):
    X, index = three_blobs
    y = index == 1
    model = LogisticRegression(class_weight={False: 1, True: 10})
    plc = PLCClassifier(model, doubtful="keep", random_state=0).fit(X, y)
    np.testing.assert_array_equal(plc.estimator_.classes_, [False, True])
    assert plc.predict(X).dtype == bool
    alone = clone(model).fit(X, y)
    np.testing.assert_array_equal(plc.predict(X), alone.predict(X))


@pytest.mark.parametrize("confidence", ["cv", "oob", "in_sample"])
def test_corrected_runs_train_every_model_on_user_labels(three_blobs, confidence):
    X, index = three_blobs
    y = np.array(["ant", "bee", "cat"])[index]
    forest = RandomForestClassifier(
        n_estimators=40, class_weight={"ant": 1, "bee": 3, "cat": 1}
    )
    plc = PLCClassifier(
        forest,
        confidence=confidence,
        min_memorisation=0,
        validation_fraction=None,
        random_state=0,
    ).fit(X, y)
    assert plc.corrections_["sample"].size > 0
    np.testing.assert_array_equal(plc.estimator_.classes_, plc.classes_)
    assert set(plc.predict(X)) <= {"ant", "bee", "cat"}
    assert plc.predict_proba(X).shape == (300, 3)


def test_balanced_class_weight_and_pipeline_step(three_blobs):
    X, index = three_blobs
    y = np.array([-1, 1, 5])[index]
    pipe = make_pipeline(
        StandardScaler(), LogisticRegression(class_weight={-1: 1, 1: 20})
    )
    plc = PLCClassifier(pipe, random_state=0).fit(X, y)
    np.testing.assert_array_equal(plc.estimator_.classes_, [-1, 1, 5])
    balanced = PLCClassifier(
        LogisticRegression(class_weight="balanced"), random_state=0
    ).fit(X, y)
    np.testing.assert_array_equal(balanced.estimator_.classes_, [-1, 1, 5])
