"""Validation shared by every noise injector: levels, labels and posteriors."""

from numbers import Number, Real

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _num_samples, column_or_1d


def _check_noise_level(noise_level):
    if not isinstance(noise_level, Real) or not 0 <= noise_level <= 1:
        raise ValueError(
            f"noise_level must be a number in [0, 1]; got {noise_level!r}."
        )
    return float(noise_level)


def _check_lengths(X, y):
    """Raise unless `X` has one row per label of `y`."""
    n_rows, n_labels = _num_samples(X), _num_samples(y)
    if n_rows != n_labels:
        raise ValueError(
            f"X has {n_rows} rows but y has {n_labels} labels; pass one label per "
            f"row of X."
        )


def _check_two_classes(classes):
    if classes.shape[0] == 0:
        raise ValueError("y is empty; pass at least one label per class, two classes.")
    if classes.shape[0] < 2:
        raise ValueError(
            f"y holds a single class ({classes[:1].tolist()!r}); label noise moves "
            f"labels between classes, so y needs at least two."
        )


def _label_kind(value):
    if isinstance(value, str):
        return "str"
    if isinstance(value, (Number, np.number)):
        return "number"
    return type(value).__name__


def check_one_label_type(y):
    """Raise where labels mix types (e.g. ints and strings).

    NumPy cannot order such labels in an object array, so they cannot be made
    classes (scikit-learn reports them as a target of unknown type); and a
    plain list of them becomes an array of strings, ``1`` and ``"1"`` one class,
    so a list or tuple is checked before it is converted.
    """
    if isinstance(y, list | tuple):  # a missing label (None) is named elsewhere
        y = np.array([value for value in y if value is not None], dtype=object)
    if y.dtype.kind != "O":
        return
    examples = {}
    for value in y:
        examples.setdefault(_label_kind(value), value)
    if len(examples) > 1:
        shown = ", ".join(f"{kind} ({value!r})" for kind, value in examples.items())
        raise ValueError(
            f"y mixes labels of different types: {shown}. A class needs one name; "
            f"convert the labels to one type first, e.g. y.astype(str)."
        )


def _encode(y, classes=None):
    """Validate labels (at least two classes); return ``(classes, encoded)``."""
    if isinstance(y, list | tuple):  # mixed types, before they become strings
        check_one_label_type(y)
    y = column_or_1d(y)
    check_one_label_type(y)
    if classes is None:
        compact = _encode_compact_integers(y)
        if compact is not None:
            _check_two_classes(compact[0])
            return compact
    check_classification_targets(y)
    if classes is None:
        classes, encoded = np.unique(y, return_inverse=True)
        _check_two_classes(classes)
        return classes, encoded.astype(np.intp, copy=False)
    classes = np.asarray(classes)
    if np.unique(classes).shape[0] != classes.shape[0]:
        raise ValueError(f"classes must be distinct; got {classes.tolist()!r}.")
    order = np.argsort(classes)
    position = np.searchsorted(classes[order], y)
    position = np.clip(position, 0, classes.shape[0] - 1)
    encoded = order[position]
    unknown = classes[encoded] != y
    if unknown.any():
        raise ValueError(
            f"y contains labels that are not in classes, e.g. "
            f"{np.unique(y[unknown])[:5].tolist()!r}; add them to classes."
        )
    return classes, encoded.astype(np.intp, copy=False)


def _encode_compact_integers(y):
    """`np.unique(y, return_inverse=True)` for compact integers, without a sort.

    None unless `y` holds integers spanning a range no wider than a few times
    their number. One-dimensional integer labels are always binary or
    multiclass targets, so scikit-learn's target-type check (another sort) is
    not needed either.
    """
    if y.dtype.kind not in "iu" or y.shape[0] == 0:
        return None
    lowest, highest = int(y.min()), int(y.max())
    if highest - lowest > 4 * y.shape[0]:
        return None
    offset = y.astype(np.intp) - lowest
    present = np.flatnonzero(np.bincount(offset))
    position = np.empty(int(present[-1]) + 1, dtype=np.intp)
    position[present] = np.arange(present.shape[0])
    return (present + lowest).astype(y.dtype), position[offset]


def _check_posterior(proba, n_samples, n_classes):
    """Check the shape of a posterior; its values are checked by `_top_two`.

    The values (finite, non-negative, rows summing to 1) are checked in the
    same pass that finds each row's top two classes (`_check_posterior_values`),
    so a large posterior is read from memory once.
    """
    proba = np.asarray(proba)
    if proba.shape != (n_samples, n_classes):
        raise ValueError(
            f"proba must have shape (n_samples, n_classes) = ({n_samples}, "
            f"{n_classes}), one column per class in sorted order; got {proba.shape}."
        )
    return proba


def _check_posterior_values(row_sums, lowest):
    """Raise unless a posterior with these row sums and smallest entry is valid."""
    if not np.isfinite(row_sums).all() or lowest < 0:  # NaN/inf make their sum so
        raise ValueError(
            "proba must hold finite, non-negative probabilities; it has negative, "
            "NaN or infinite entries."
        )
    off = np.abs(row_sums - 1) > 1e-4
    if off.any():
        raise ValueError(
            f"Every row of proba must sum to 1; {np.count_nonzero(off)} rows do not "
            f"(e.g. row {int(np.flatnonzero(off)[0])} sums to "
            f"{row_sums[off][0]:.6g}). Pass predict_proba output, or normalise it."
        )


def _like_y(y, y_noisy):
    """`y_noisy` as a Series where `y` is one: pandas with `y`'s index, name and
    dtype, polars with its name and dtype.

    imbalanced-learn's samplers return the target's type, and the rows are the
    same rows here, so a pandas Series keeps its index; the noisy labels are
    drawn from `y`'s own classes, so its dtype (a categorical one too) holds them.
    """
    if type(y).__name__ != "Series":
        return y_noisy
    if hasattr(y, "index"):  # pandas
        return type(y)(y_noisy, index=y.index, name=y.name, dtype=y.dtype)
    return type(y)(y.name, y_noisy, dtype=y.dtype)  # polars: Series(name, values)
