"""Validation shared by every noise injector: levels, labels and posteriors."""

from numbers import Real

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d


def _check_noise_level(noise_level):
    if not isinstance(noise_level, Real) or not 0 <= noise_level <= 1:
        raise ValueError(
            f"noise_level must be a number in [0, 1]; got {noise_level!r}."
        )
    return float(noise_level)


def _encode(y, classes=None):
    """Validate labels; return ``(classes, encoded)``."""
    y = column_or_1d(y)
    check_classification_targets(y)
    if classes is None:
        classes, encoded = np.unique(y, return_inverse=True)
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


def _check_posterior(proba, n_samples, n_classes):
    proba = np.asarray(proba)
    if proba.shape != (n_samples, n_classes):
        raise ValueError(
            f"proba must have shape (n_samples, n_classes) = ({n_samples}, "
            f"{n_classes}), one column per class in sorted order; got {proba.shape}."
        )
    row_sums = proba.sum(axis=1)  # NaN or inf entries make their row's sum so
    if not np.isfinite(row_sums).all() or proba.min() < 0:
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
    return proba
