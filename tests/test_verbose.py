"""What ``verbose`` says: an honest progress bar, per-round lines, one outcome line."""

import contextlib
import io

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_classification
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from sklearn_plc import PLCClassifier
from sklearn_plc.noise import flip_labels_with_matrix, uniform_transition_matrix


def forest():
    return RandomForestClassifier(n_estimators=30, random_state=0)


def last_bar(err):
    return err.strip().replace("\n", "\r").split("\r")[-1]


def test_verbose_says_in_one_line_why_the_labels_were_kept(noisy_blobs, capsys):
    plc = PLCClassifier(LogisticRegression(), verbose=1, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    assert plc.termination_condition_ == "not_memorising"
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    assert "kept the labels as given" in out[0] and "does not memorise" in out[0]


def test_verbose_says_when_the_sure_disputes_were_left_out(capsys):
    X, y = load_digits(return_X_y=True)
    y_noisy = flip_labels_with_matrix(
        y, uniform_transition_matrix(10, 0.3), random_state=0
    )
    plc = PLCClassifier(GaussianNB(), verbose=1, random_state=0).fit(X, y_noisy)
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert "does not memorise" in line
    assert f"its {plc.set_aside_.sum()} sure disputes were left out" in line
    assert f"{plc.selection_['gain']:+.3f}" in line


@pytest.fixture(scope="module")
def twenty_classes_uniform_noise():
    """20 classes, 30% uniform noise: a forest too weak to judge them."""
    X, y = make_classification(
        1500, n_informative=10, n_classes=20, n_clusters_per_class=1, random_state=0
    )
    y_noisy = flip_labels_with_matrix(
        y, uniform_transition_matrix(20, 0.3), random_state=0
    )
    return X, y_noisy


def test_verbose_says_when_a_weak_models_random_looking_labels_were_left_out(
    capsys, twenty_classes_uniform_noise
):
    X, y_noisy = twenty_classes_uniform_noise
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0)
    plc = PLCClassifier(trees, verbose=1, random_state=0).fit(X, y_noisy)
    assert plc.termination_condition_ == "too_weak_to_judge"
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert "a stronger model can judge" in line
    assert f"the {plc.set_aside_.sum()} disputed labels more likely drawn" in line


def test_verbose_gives_a_refused_models_random_share_and_chance_agreement(
    capsys, twenty_classes_uniform_noise
):
    X, y_noisy = twenty_classes_uniform_noise
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0)
    plc = PLCClassifier(trees, verbose=1, random_state=0).fit(X, y_noisy)
    evidence = plc.memorisation_
    (line,) = capsys.readouterr().out.strip().splitlines()
    share = evidence["random_label_share"]
    error = evidence["random_label_share_standard_error"]
    assert f"random share {share:.2f} ± {error:.2f}" in line
    assert f"against {evidence['chance_agreement']:.1%} by chance" in line


def test_verbose_says_when_corrections_were_undone_and_the_evidence(
    noisy_blobs, capsys
):
    # verified labels of the wrong class: the corrections lose agreement with them
    trusted = np.random.RandomState(0).uniform(size=len(noisy_blobs.y_noisy)) < 0.2
    y = np.where(trusted, 1 - noisy_blobs.y_clean, noisy_blobs.y_noisy)
    plc = PLCClassifier(
        RandomForestClassifier(n_estimators=30, random_state=0),
        doubtful="keep",
        min_correction_rate=0.05,
        verbose=1,
        random_state=8,
    )
    plc.fit(noisy_blobs.X, y, trusted=trusted)
    assert plc.termination_condition_ == "undone"
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert "undid its corrections" in line
    assert f"{plc.selection_['gain']:+.3f}" in line


def test_verbose_says_when_corrections_were_contested_and_how_many_left_out(capsys):
    X, y = make_classification(n_samples=300, random_state=0)
    y_noisy = y.copy()
    y_noisy[:60] = 1 - y_noisy[:60]
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    plc = PLCClassifier(forest, verbose=1, random_state=6).fit(X, y_noisy)
    assert plc.termination_condition_ == "corrections_contested"
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert "set its corrections aside" in line
    assert f"the {plc.set_aside_.sum()} that confident learning disputes" in line
    assert f"{plc.selection_['gain']:+.3f}" in line


def test_verbose_reports_the_corrections_of_a_converged_run(noisy_blobs, capsys):
    plc = PLCClassifier(forest(), verbose=1, validation_fraction=None, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    (line,) = capsys.readouterr().out.strip().splitlines()
    changed = np.count_nonzero(plc.labels_ != noisy_blobs.y_noisy)
    assert f"{changed} of {len(noisy_blobs.y_noisy)} labels changed" in line


def test_verbose_counts_the_relabels_fitted_on_both_labels(noisy_blobs, capsys):
    plc = PLCClassifier(forest(), verbose=1, validation_fraction=None, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    (line,) = capsys.readouterr().out.strip().splitlines()
    n_weighed = np.count_nonzero(plc.relabel_weight_ < 1)
    assert n_weighed > 0
    assert f"{n_weighed} relabels fitted on both labels by weight" in line


def test_the_progress_bar_counts_the_rounds_run_and_names_the_outcome(
    noisy_blobs, capsys
):
    plc = PLCClassifier(LogisticRegression(), verbose=1, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    bar = last_bar(capsys.readouterr().err)
    assert f"PLC: {plc.n_iter_}round" in bar and "not_memorising" in bar
    assert "/30" not in bar  # no max_iter total that the run never reaches


def test_verbose_2_adds_one_line_per_round(noisy_blobs, capsys):
    plc = PLCClassifier(forest(), verbose=2, validation_fraction=None, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    captured = capsys.readouterr()
    rounds = [line for line in captured.out.splitlines() if line.startswith("round ")]
    assert len(rounds) == plc.n_iter_
    assert "threshold" in rounds[0] and "held-out agreement" in rounds[0]


def test_verbose_1_prints_no_round_lines(noisy_blobs, capsys):
    plc = PLCClassifier(forest(), verbose=1, validation_fraction=None, random_state=0)
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy)
    out = capsys.readouterr().out
    assert not [line for line in out.splitlines() if line.startswith("round ")]


def test_the_judged_evidence_says_when_weighed_folds_gave_it():
    from sklearn_plc._report import _judged

    selection = {
        "compared": "corrections",
        "holdout_agreement": 0.70,
        "given_labels_agreement": 0.72,
        "gain": -0.02,
        "standard_error": 0.01,
        "n_judged": 120,
        "weighed": False,
    }
    # a final fit that weighs is not what the judged models did
    assert _judged(selection).endswith("on models trained on the hard corrected labels")
    assert _judged({**selection, "weighed": True}).endswith(
        "on folds weighed as the final fit is"
    )


def test_verbose_names_the_bar_a_non_memorising_models_disputes_missed(capsys):
    from sklearn.datasets import make_classification

    X, y = make_classification(600, n_informative=5, random_state=0)
    y_noisy = flip_labels_with_matrix(
        y, uniform_transition_matrix(2, 0.2), random_state=0
    )
    plc = PLCClassifier(LogisticRegression(), verbose=1, random_state=1)
    plc.fit(X, y_noisy)
    assert plc.selection_["compared"] == "set_aside"
    assert not plc.selection_["chosen"]
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert "no clear gain, one above 3 standard errors" in line


def test_verbose_names_the_bar_of_disputes_that_look_drawn_at_random(capsys):
    # naive Bayes does not memorise; under uniform noise its disputes look random
    X, y = load_digits(return_X_y=True)
    X, y = X[:500], y[:500]
    y_noisy = flip_labels_with_matrix(
        y, uniform_transition_matrix(10, 0.3), random_state=3
    )
    plc = PLCClassifier(GaussianNB(), verbose=1, random_state=3).fit(X, y_noisy)
    selection = plc.selection_
    assert plc.termination_condition_ == "not_memorising"
    assert selection["chosen"] and plc.set_aside_.any()
    # left out on a gain the bar of three standard errors would have refused
    assert selection["gain"] < 3 * selection["standard_error"]
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert (
        "by more than 1 standard error, the bar of a model whose disputes look "
        "drawn at random" in line
    )


@pytest.fixture(scope="module")
def random_labels_corrected():
    """Extra trees on digits, 30% uniform noise: corrected, random labels left out.

    ``(plc, line)``: the fitted classifier and its one verbose line.
    """
    X, y = load_digits(return_X_y=True)
    y_noisy = flip_labels_with_matrix(
        y, uniform_transition_matrix(10, 0.3), random_state=0
    )
    trees = ExtraTreesClassifier(n_estimators=50, random_state=0)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        plc = PLCClassifier(trees, verbose=1, random_state=2).fit(X, y_noisy)
    (line,) = out.getvalue().strip().splitlines()
    return plc, line


def test_verbose_says_a_corrected_run_left_out_random_looking_labels(
    random_labels_corrected,
):
    plc, line = random_labels_corrected
    assert plc.termination_condition_ == "converged"
    assert f"{plc.set_aside_.sum()} set aside from the final fit" in line
    assert "drawn at random: random share" in line


def test_verbose_counts_no_relabel_left_out_as_fitted_on_both_labels(
    random_labels_corrected,
):
    plc, line = random_labels_corrected
    weighed = plc.relabel_weight_ < 1
    assert (weighed & plc.set_aside_).any()  # some weighed relabels were left out
    n_fitted = np.count_nonzero(weighed & ~plc.set_aside_)
    assert f"{n_fitted} relabels fitted on both" in line


def test_verbose_says_when_the_halves_undid_the_result(capsys):
    rng = np.random.RandomState(1)
    X, y = rng.normal(size=(600, 5)), rng.randint(0, 3, 600)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    PLCClassifier(forest, validation_fraction=0.25, random_state=1, verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert "made again on each half of the samples" in out
    assert "on 600 judged samples, each half predicted by models fitted" in out


def test_verbose_says_when_the_halves_found_too_few_predictions_changed(capsys):
    from sklearn.datasets import load_wine
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_wine(return_X_y=True)  # right labels; a few relabelled
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    plc = PLCClassifier(model, random_state=3, verbose=1).fit(X, y)
    assert plc.termination_condition_ == "undone"
    np.testing.assert_array_equal(plc.labels_, y)
    out = capsys.readouterr().out
    n_differ = plc.halves_check_["n_differ"]
    assert f"predicted {n_differ} of the 178 samples differently" in out
    assert "too few for any verdict to call it worse" in out


def test_verbose_says_when_the_halves_confirmed_the_result(noisy_blobs, capsys):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    PLCClassifier(forest, random_state=2, verbose=1).fit(
        noisy_blobs.X, noisy_blobs.y_noisy
    )
    out = capsys.readouterr().out
    assert "Made again on each half of the samples, it did not agree" in out


def test_verbose_says_when_the_trusted_samples_alone_judged_the_halves(
    noisy_blobs, capsys
):
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    trusted = np.arange(len(noisy_blobs.y_noisy)) % 4 == 0
    plc = PLCClassifier(
        forest, validation_fraction="trusted", random_state=2, verbose=1
    )
    plc.fit(noisy_blobs.X, noisy_blobs.y_noisy, trusted=trusted)
    out = capsys.readouterr().out
    assert "the trusted samples alone judging" in out


def test_verbose_says_when_the_halves_undid_a_one_run_learner(capsys):
    from sklearn.neural_network import MLPClassifier

    X, y = make_classification(
        600, 10, n_informative=5, n_classes=4, class_sep=0.8, random_state=0
    )
    mlp = MLPClassifier((32,), max_iter=60, random_state=0)
    PLCClassifier(mlp, random_state=0, verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert "PLC set its result (corrected labels) aside" in out
    assert "each half predicted by models fitted on the other" in out
