import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from sklearn_plc import PLCClassifier
from sklearn_plc.plotting import (
    plot_correction_history,
    plot_corrections_2d,
    purity_per_round,
)


@pytest.fixture
def fitted(noisy_blobs):
    plc = PLCClassifier(random_state=0).fit(noisy_blobs.X, noisy_blobs.y_noisy)
    yield plc, noisy_blobs
    plt.close("all")


def test_purity_per_round_ends_at_the_final_purity(fitted):
    plc, data = fitted
    purity = purity_per_round(plc, data.y_noisy, data.y_clean)
    assert purity.shape == (plc.n_iter_,)
    assert purity[-1] == np.mean(plc.labels_ == data.y_clean)


@pytest.fixture
def restored():
    """A run that set its corrections back: the undo is a record after the rounds."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=200, random_state=0)
    y_noisy = np.where(np.arange(200) < 20, 1 - y, y)
    plc = PLCClassifier(random_state=0).fit(X, y_noisy)
    assert plc.history_[-1].get("undo") and len(plc.history_) == plc.n_iter_ + 1
    yield plc, y_noisy, y
    plt.close("all")


def test_purity_after_an_undo_ends_at_the_given_labels_purity(restored):
    plc, y_noisy, y = restored
    purity = purity_per_round(plc, y_noisy, y)
    assert purity.shape == (len(plc.history_),)
    assert purity[-1] == np.mean(y_noisy == y) == np.mean(plc.labels_ == y)


def test_history_plot_draws_the_undo_as_its_last_bar(restored):
    plc, y_noisy, y = restored
    ax = plot_correction_history(plc, y_noisy=y_noisy, y_clean=y)
    assert len(ax.patches) == 2 * len(plc.history_)


def test_history_plot_has_one_bar_per_round_and_class_of_outcome(fitted):
    plc, data = fitted
    ax = plot_correction_history(plc, y_noisy=data.y_noisy, y_clean=data.y_clean)
    assert len(ax.patches) == 2 * plc.n_iter_
    labels = ax.get_legend_handles_labels()[1]
    assert "corrected to the clean label" in labels


def test_history_plot_needs_both_label_sets_for_purity(fitted):
    plc, data = fitted
    with pytest.raises(ValueError, match="both y_noisy and y_clean"):
        plot_correction_history(plc, y_clean=data.y_clean)


def test_2d_plot_marks_fixed_and_remaining_errors(fitted):
    plc, data = fitted
    ax = plot_corrections_2d(
        data.X, data.y_clean, data.y_noisy, plc.labels_, estimator=plc
    )
    labels = ax.get_legend_handles_labels()[1]
    fixed = np.sum((data.y_noisy != data.y_clean) & (plc.labels_ == data.y_clean))
    assert f"corrupted, fixed ({fixed})" in labels


def test_2d_plot_rejects_other_dimensions(fitted):
    plc, data = fitted
    with pytest.raises(ValueError, match="exactly 2 columns"):
        plot_corrections_2d(
            np.c_[data.X, data.X], data.y_clean, data.y_noisy, plc.labels_
        )
