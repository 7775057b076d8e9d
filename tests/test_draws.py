"""The random splits that stay put (sklearn_plc._draws) and the splits built on them."""

import numpy as np
import pytest
from scipy import stats

from sklearn_plc._draws import sample_keys, stratified_blocks, within_class_quantiles
from sklearn_plc._halves import split_halves
from sklearn_plc._held_out import make_splits
from sklearn_plc._judge import split_validation

LABELS = np.random.RandomState(0).randint(0, 3, 600)


def test_a_samples_key_depends_on_the_seed_and_its_id_only():
    ids = np.arange(100, 200)
    np.testing.assert_array_equal(sample_keys(7, ids)[10:], sample_keys(7, ids[10:]))


def test_keys_are_uniform_and_differ_between_seeds():
    keys = sample_keys(3, np.arange(20_000))
    assert stats.kstest(keys, "uniform").pvalue > 0.01
    assert np.corrcoef(keys, sample_keys(4, np.arange(20_000)))[0, 1] < 0.05


def test_quantiles_spread_each_class_evenly_over_the_unit_interval():
    quantiles = within_class_quantiles(sample_keys(0, np.arange(600)), LABELS)
    for label in range(3):
        in_class = np.sort(quantiles[label == LABELS])
        n_class = in_class.shape[0]
        np.testing.assert_allclose(in_class, (np.arange(n_class) + 0.5) / n_class)


def test_a_class_of_one_sample_sits_in_the_middle():
    assert within_class_quantiles(np.array([0.3]), np.array([2]))[0] == 0.5


def test_blocks_divide_each_class_as_evenly_as_it_divides():
    blocks = stratified_blocks(sample_keys(0, np.arange(600)), LABELS, 4)
    for label in range(3):
        counts = np.bincount(blocks[label == LABELS], minlength=4)
        assert counts.max() - counts.min() <= 1


def test_a_changed_label_moves_at_most_a_boundary_sample_per_class():
    keys = sample_keys(0, np.arange(600))
    changed = LABELS.copy()
    changed[17] = (changed[17] + 1) % 3
    moved = stratified_blocks(keys, LABELS, 3) != stratified_blocks(keys, changed, 3)
    moved[17] = False
    assert moved.sum() <= 2 * 2  # two classes' counts change, two boundaries each


def test_folds_cover_every_sample_once_and_stay_put_under_a_changed_label():
    splits = make_splits(3, None, LABELS, np.random.RandomState(0), None)
    tests = np.concatenate([test for _, test in splits])
    np.testing.assert_array_equal(np.sort(tests), np.arange(600))
    for fit, test in splits:
        assert np.intersect1d(fit, test).size == 0
    changed = LABELS.copy()
    changed[:5] = (changed[:5] + 1) % 3
    redrawn = make_splits(3, None, changed, np.random.RandomState(0), None)
    moved = sum(
        np.setxor1d(a, b).size for (_, a), (_, b) in zip(splits, redrawn, strict=True)
    )
    assert moved <= 2 * (5 + 2 * 2 * 3)


def test_folds_of_a_subset_keep_each_samples_key_through_its_id():
    train = np.arange(100, 600)
    on_subset = make_splits(
        3, None, LABELS[train], np.random.RandomState(0), None, ids=train
    )
    on_rows = make_splits(3, None, LABELS, np.random.RandomState(0), None, train=train)
    for (_, subset_test), (_, rows_test) in zip(on_subset, on_rows, strict=True):
        np.testing.assert_array_equal(train[subset_test], rows_test)


def test_validation_from_classes_too_small_to_stratify_takes_the_lowest_keys():
    _, validation = split_validation(0.2, np.arange(10), np.random.RandomState(0), None)
    assert validation.shape[0] == 2


def test_a_validation_that_takes_every_sample_says_what_to_change():
    with pytest.raises(ValueError, match=r"validation_fraction=0\.9 cannot"):
        split_validation(0.9, np.arange(2), np.random.RandomState(0), None)


def test_the_halves_stay_put_under_changed_labels():
    halves = split_halves(LABELS, np.random.RandomState(0), None)
    changed = LABELS.copy()
    changed[:5] = (changed[:5] + 1) % 3
    redrawn = split_halves(changed, np.random.RandomState(0), None)
    assert np.setxor1d(halves[0][0], redrawn[0][0]).size <= 2 * (5 + 2 * 2)
