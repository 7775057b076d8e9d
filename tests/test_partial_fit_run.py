"""One training run of a partial_fit learner, corrected after every epoch."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_plc import PLCClassifier
from sklearn_plc._paths.epochs import learned_margin, plateau_epoch


class CountingMLP(MLPClassifier):
    """Counts its fit and partial_fit calls (shared by all clones)."""

    calls = []

    def fit(self, X, y):
        type(self).calls.append("fit")
        return super().fit(X, y)

    def partial_fit(self, X, y, classes=None):
        type(self).calls.append("partial_fit")
        return super().partial_fit(X, y, classes=classes)


def mlp(**params):
    return MLPClassifier((32,), max_iter=40, random_state=0, **params)


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def test_one_model_is_trained_with_one_partial_fit_call_per_epoch(noisy_blobs):
    CountingMLP.calls = []
    model = CountingMLP((32,), max_iter=25, random_state=0)
    plc = PLCClassifier(model, confidence="eval_pass", random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert CountingMLP.calls == ["partial_fit"] * 25
    assert plc.n_iter_ == 25 and len(plc.history_) == 25
    assert plc.estimator_.t_ == 25 * len(noisy_blobs.y_noisy)  # samples seen


def test_the_epochs_correct_labels_after_the_warm_up(noisy_blobs):
    plc = PLCClassifier(mlp(), confidence="eval_pass", random_state=1)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.warm_up_ >= 1
    assert all(r["n_corrected"] == 0 for r in plc.history_[: plc.warm_up_])
    assert plc.corrections_["sample"].size > 0
    assert plc.termination_condition_ in ("converged", "max_epochs")


def test_two_classes_are_relabelled_only_at_a_margin_of_one_half(noisy_blobs):
    plc = PLCClassifier(mlp(), confidence="eval_pass", random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert max(r["threshold"] for r in plc.history_) <= 1 / 3


def test_the_learner_sees_the_callers_labels(noisy_blobs):
    names = np.array(["cat", "dog"])
    plc = PLCClassifier(mlp(), confidence="eval_pass", random_state=0)
    plc.fit(noisy_blobs.X, names[noisy_blobs.y_noisy])
    np.testing.assert_array_equal(plc.estimator_.classes_, names)
    assert set(plc.predict(noisy_blobs.X)) <= {"cat", "dog"}


def test_sample_weight_reaches_every_partial_fit(noisy_blobs):
    weights = np.ones(len(noisy_blobs.y_noisy))
    weights[noisy_blobs.y_noisy == 1] = 0.0  # class 1 weightless: never predicted
    model = SGDClassifier(loss="log_loss", max_iter=10, random_state=0)
    plc = PLCClassifier(model, confidence="eval_pass", random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, sample_weight=weights)
    assert (plc.predict(noisy_blobs.X) == 0).all()


def test_same_random_state_gives_the_same_labels(noisy_blobs):
    first = PLCClassifier(mlp(), confidence="eval_pass", random_state=3)
    second = PLCClassifier(mlp(), confidence="eval_pass", random_state=3)
    first.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    second.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    np.testing.assert_array_equal(first.labels_, second.labels_)


def test_an_estimator_without_partial_fit_is_told_what_works(noisy_blobs):
    plc = PLCClassifier(LogisticRegression(), confidence="eval_pass")
    with pytest.raises(ValueError, match=r"partial_fit.*confidence='cv'"):
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)


def test_a_learner_that_accumulates_counts_is_refused(noisy_blobs):
    from sklearn.naive_bayes import GaussianNB

    plc = PLCClassifier(GaussianNB(), confidence="eval_pass")
    with pytest.raises(ValueError, match="accumulates what it has seen"):
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)


def test_training_pass_is_for_nets_and_names_eval_pass(noisy_blobs):
    plc = PLCClassifier(mlp(), confidence="training_pass")
    with pytest.raises(ValueError, match="'eval_pass' for an estimator with"):
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)


class CountingScaler(StandardScaler):
    """Counts its fit calls (shared by all clones)."""

    fits = 0

    def fit(self, X, y=None, sample_weight=None):
        type(self).fits += 1
        return super().fit(X, y, sample_weight=sample_weight)


def test_a_pipeline_fits_its_first_steps_once_and_its_learner_per_epoch(noisy_blobs):
    CountingScaler.fits, CountingMLP.calls = 0, []
    pipeline = make_pipeline(
        CountingScaler(), CountingMLP((32,), max_iter=100, random_state=0)
    )
    plc = PLCClassifier(
        pipeline, confidence="eval_pass", validation_fraction=None, random_state=0
    )
    X = noisy_blobs.X * 100 + 5
    plc.fit(X, noisy_blobs.y_noisy)
    assert CountingScaler.fits == 1
    assert CountingMLP.calls == ["partial_fit"] * plc.n_iter_
    np.testing.assert_allclose(plc.estimator_[0].mean_, X.mean(0))
    assert plc.corrections_["sample"].size > 0


def test_a_pipeline_passes_fit_params_and_sample_weight_to_its_steps(noisy_blobs):
    weights = np.ones(len(noisy_blobs.y_noisy))
    weights[noisy_blobs.y_noisy == 1] = 0.0  # class 1 weightless: never predicted
    pipeline = make_pipeline(
        StandardScaler(), SGDClassifier(loss="log_loss", max_iter=10, random_state=0)
    )
    plc = PLCClassifier(pipeline, confidence="eval_pass", random_state=0)
    plc.fit(
        noisy_blobs.X,
        noisy_blobs.y_noisy,
        sample_weight=weights,
        standardscaler__sample_weight=weights,
    )
    assert (plc.predict(noisy_blobs.X) == 0).all()
    class_0 = noisy_blobs.X[noisy_blobs.y_noisy == 0]
    np.testing.assert_allclose(plc.estimator_[0].mean_, class_0.mean(0))


def test_the_run_ends_as_the_learner_would_once_the_labels_settle(noisy_blobs):
    model = MLPClassifier((32,), max_iter=500, n_iter_no_change=5, random_state=0)
    plc = PLCClassifier(model, confidence="eval_pass", random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "converged" and plc.n_iter_ < 500
    assert plc.history_[-1]["threshold"] == pytest.approx(1 / 3)
    assert all(r["n_corrected"] == 0 for r in plc.history_[-5:])


def test_the_threshold_stays_while_the_learners_loss_still_improves(noisy_blobs):
    # tol=None: the learner never declares its loss settled, so however quiet
    # the passes, the threshold stays at theta
    model = SGDClassifier(loss="log_loss", max_iter=60, tol=None, random_state=0)
    plc = PLCClassifier(model, confidence="eval_pass", theta=0.2, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert {r["threshold"] for r in plc.history_} == {0.2}


def test_a_learner_without_a_tolerance_runs_its_max_iter(noisy_blobs):
    model = SGDClassifier(loss="log_loss", max_iter=60, tol=None, random_state=0)
    plc = PLCClassifier(model, confidence="eval_pass", random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.n_iter_ == 60 and plc.termination_condition_ == "max_epochs"


@pytest.mark.parametrize(
    ("estimator", "expected"),
    [
        (mlp(), "eval_pass"),
        (make_pipeline(StandardScaler(), mlp()), "eval_pass"),
        (mlp(solver="lbfgs"), "cv"),  # lbfgs has no partial_fit
        (mlp(early_stopping=True), "cv"),  # partial_fit cannot stop early
        (SGDClassifier(loss="log_loss", random_state=0), "cv"),  # linear
        (GaussianNB(), "cv"),  # its partial_fit counts every epoch again
    ],
)
def test_auto_trains_scikit_learns_net_once(noisy_blobs, estimator, expected):
    plc = PLCClassifier(estimator, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.confidence_ == expected


def test_eval_pass_refuses_a_learner_that_stops_on_its_own_validation(noisy_blobs):
    plc = PLCClassifier(mlp(early_stopping=True), confidence="eval_pass")
    with pytest.raises(ValueError, match="early_stopping=False"):
        plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)


def test_a_run_that_ends_early_leaves_its_progress_bar_full(noisy_blobs, capsys):
    model = MLPClassifier((32,), max_iter=500, n_iter_no_change=5, random_state=0)
    plc = PLCClassifier(model, confidence="eval_pass", verbose=1, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "converged"
    last_bar = capsys.readouterr().err.split("\r")[-1]
    assert f"{plc.n_iter_}/{plc.n_iter_}" in last_bar and "100%" in last_bar


def test_the_warm_up_waits_while_the_net_predicts_the_common_class_alone():
    # Regression: digit 8 against the rest (10% positives), 30% of the positives
    # labelled negative. The net first predicts "not 8" for every sample, its
    # plain agreement with the labels levelled off at 93% by epoch 3, the
    # warm-up ended there, and the passes relabelled every positive away.
    from sklearn.datasets import load_digits

    from sklearn_plc.noise import TransitionMatrixNoise

    X, digits = load_digits(return_X_y=True)
    y = (digits == 8).astype(int)
    noise = TransitionMatrixNoise([[1.0, 0.0], [0.3, 0.7]], random_state=0)
    _, y_noisy = noise.fit_resample(X, y)
    net = make_pipeline(StandardScaler(), MLPClassifier((64,), random_state=0))
    plc = PLCClassifier(net, confidence="eval_pass", random_state=0)
    plc.fit(X, y_noisy)
    assert plc.warm_up_ > 8
    assert np.count_nonzero(plc.labels_ == 1) > 0.8 * np.count_nonzero(y_noisy == 1)


def test_a_first_epoch_well_above_chance_then_a_slow_rise_is_a_plateau():
    # most of the learning in the first epoch, then a slow climb (memorising)
    curve = [0.628, 0.629, 0.630, 0.631]
    assert not plateau_epoch(curve, chance=0.5)  # climbed 0.001 an epoch
    assert plateau_epoch(curve, chance=0.5, margin=0.05)


def test_a_first_epoch_barely_above_chance_still_counts_its_climb_from_there():
    curve = [0.515, 0.516, 0.517, 0.518]  # a rare class barely predicted
    assert not plateau_epoch(curve, chance=0.5, margin=0.05)


def test_the_learned_margin_widens_as_the_rarest_class_shrinks():
    balanced = learned_margin(np.repeat([0, 1], [550, 550]))
    rare = learned_margin(np.repeat([0, 1], [1000, 100]))
    assert rare > balanced


def test_the_warm_up_ends_once_a_run_that_learned_in_its_first_epoch_levels_off():
    # Regression: breast cancer, 30% uniform noise. The MLP's balanced agreement
    # starts at 0.63 (chance 0.5) and then rises about 0.001 an epoch; counted
    # from the first epoch the climb never reached 0.005 an epoch, so the
    # warm-up lasted 149 epochs while the MLP memorised its noisy labels.
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    from sklearn_plc.noise import UniformNoise

    X, y = load_breast_cancer(return_X_y=True)
    X_train, _, y_train, _ = train_test_split(
        X, y, test_size=0.3, random_state=102, stratify=y
    )
    _, y_noisy = UniformNoise(0.3, random_state=102).fit_resample(X_train, y_train)
    net = make_pipeline(
        StandardScaler(), MLPClassifier((64,), max_iter=300, random_state=0)
    )
    plc = PLCClassifier(net, random_state=102).fit(X_train, y_noisy)
    assert plc.confidence_ == "eval_pass"
    assert plc.warm_up_ < 20


def test_the_warm_up_ends_where_the_learners_own_fit_would_stop(noisy_blobs):
    # SGD fits its labels within a few epochs: its agreement never climbs to
    # level off, and the warm-up used to last half of its max_iter (500 epochs)
    sgd = SGDClassifier(loss="log_loss", random_state=0)
    plc = PLCClassifier(sgd, confidence="eval_pass", random_state=1)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    plain = SGDClassifier(loss="log_loss", random_state=0)
    plain.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.warm_up_ <= 2 * plain.n_iter_
    assert plc.termination_condition_ == "converged"


@pytest.fixture(scope="module")
def hard_clean():
    """Four overlapping classes, labels exactly right: one run changes right ones."""
    from sklearn.datasets import make_classification

    return make_classification(
        600, 10, n_informative=5, n_classes=4, class_sep=0.8, random_state=0
    )


def test_a_run_that_changes_right_labels_is_undone_on_halves(hard_clean):
    X, y = hard_clean
    model = MLPClassifier((32,), max_iter=60, random_state=0)
    plc = PLCClassifier(model, random_state=0).fit(X, y)
    assert plc.termination_condition_ == "undone"
    assert plc.halves_check_["undone"] and plc.halves_check_["gain"] < 0
    assert plc.selection_["compared"] == "halves"
    np.testing.assert_array_equal(plc.labels_, y)
    assert plc.history_[-1]["undo"]


def test_an_undone_run_keeps_the_plain_fit(hard_clean):
    X, y = hard_clean
    model = MLPClassifier((32,), max_iter=60, random_state=0)
    plc = PLCClassifier(model, random_state=0).fit(X, y)
    plain = MLPClassifier((32,), max_iter=60, random_state=0).fit(X, y)
    np.testing.assert_allclose(plc.predict_proba(X), plain.predict_proba(X))


def test_the_check_keeps_corrections_whose_halves_train_no_worse(hard_clean):
    from sklearn_plc.noise import UniformNoise

    X, y = hard_clean
    _, noisy = UniformNoise(0.3, random_state=0).fit_resample(X, y)
    model = MLPClassifier((32,), max_iter=60, random_state=0)
    plc = PLCClassifier(model, random_state=0).fit(X, noisy)
    assert not plc.halves_check_["undone"]
    assert plc.termination_condition_ in ("converged", "max_epochs")
    assert np.any(plc.labels_ != noisy)


def test_the_trusted_samples_alone_judge_a_one_run_where_asked(hard_clean):
    X, y = hard_clean
    trusted = np.arange(len(y)) % 3 == 0
    model = MLPClassifier((32,), max_iter=60, random_state=0)
    plc = PLCClassifier(model, validation_fraction="trusted", random_state=0)
    plc.fit(X, y, trusted=trusted)
    assert plc.halves_check_["verified"]
    assert plc.halves_check_["n_judged"] == trusted.sum()


def test_without_a_judge_the_one_run_is_not_checked(hard_clean):
    X, y = hard_clean
    model = MLPClassifier((32,), max_iter=60, random_state=0)
    plc = PLCClassifier(model, validation_fraction=None, random_state=0).fit(X, y)
    assert plc.halves_check_ is None
    assert np.any(plc.labels_ != y)


class WeightRecordingMLP(MLPClassifier):
    """Records the sample weights each fit and partial_fit call receives."""

    weights = []

    def fit(self, X, y, sample_weight=None):
        type(self).weights.append(("fit", sample_weight))
        return super().fit(X, y, sample_weight=sample_weight)

    def partial_fit(self, X, y, sample_weight=None, classes=None):
        type(self).weights.append(("partial_fit", sample_weight))
        return super().partial_fit(X, y, sample_weight=sample_weight, classes=classes)


def test_the_check_gives_a_pipelines_plain_fits_the_sample_weight(hard_clean):
    X, y = hard_clean
    WeightRecordingMLP.weights = []
    weights = np.linspace(0.5, 1.5, len(y))
    pipeline = make_pipeline(
        StandardScaler(), WeightRecordingMLP((32,), max_iter=60, random_state=0)
    )
    plc = PLCClassifier(pipeline, confidence="eval_pass", random_state=0)
    plc.fit(X, y, sample_weight=weights)
    plain_fits = [w for call, w in WeightRecordingMLP.weights if call == "fit"]
    assert plc.halves_check_ is not None and len(plain_fits) >= 2
    assert all(w is not None for w in plain_fits[:2])
    assert sum(len(w) for w in plain_fits[:2]) == len(y)  # one per half
    assert all(w is not None for call, w in WeightRecordingMLP.weights)
