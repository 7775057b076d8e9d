"""Fitting on the run's labels as the ending decided: weighed, or with samples left out.

With ``doubtful="auto"`` or ``"weigh"``, a relabel is fitted on both its labels
by weight (:func:`weighed_fit`); :func:`fit_final_model` fits the final model on
the labels, weights and set-aside of :class:`~sklearn_plc._ending.Ending`.
Before an undo, the same folds the run was judged on are fitted as the final
fit weighs (:func:`weighed_out_of_fold_proba`), so that the verdict is about the
model that ships.
"""

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.utils import _safe_indexing

from ._held_out import (
    fit_fold,
    fit_on_indices,
    out_of_fold_proba,
    per_sample_params,
    with_sample_weight,
)


def warn_fitted_on_every_sample(estimator, n_left_out, doubtful, error, stacklevel=8):
    """Warn that a fit without the doubtful samples failed and took them all."""
    warnings.warn(
        f"{type(estimator).__name__} could not be fitted without the {n_left_out} "
        f"doubtful samples that doubtful={doubtful!r} leaves out ({error}), so "
        f"that fit used every sample. With this little data, use doubtful='keep'.",
        UserWarning,
        stacklevel=stacklevel,
    )


def weighed_fit(model, X, labels, given_labels, relabel_weight, classes, params, key):
    """Fit `model` on every sample, a relabelled one on both of its labels.

    A sample whose label changed appears twice: with its label at its
    `relabel_weight`, and with its given label at the rest. The weights go to
    the ``fit`` keyword `key`, times any per-sample weights already there.
    """
    n_samples = labels.shape[0]
    weighed = np.flatnonzero(relabel_weight < 1)
    rows = np.concatenate([np.arange(n_samples), weighed])
    weights = np.concatenate([relabel_weight, 1.0 - relabel_weight[weighed]])
    params = with_sample_weight(
        per_sample_params(params, rows, n_samples), key, weights
    )
    return fit_on_indices(
        model,
        _safe_indexing(X, rows),
        np.concatenate([labels, given_labels[weighed]]),
        classes,
        params,
    )


def weighed_fit_on(
    model, X, labels, given_labels, relabel_weight, indices, classes, params, key
):
    """:func:`weighed_fit` on the samples `indices` only (their fit params too)."""
    return weighed_fit(
        model,
        _safe_indexing(X, indices),
        labels[indices],
        given_labels[indices],
        relabel_weight[indices],
        classes,
        per_sample_params(params, indices, labels.shape[0]),
        key,
    )


def fit_final_model(
    final,
    estimator,
    X,
    labels,
    classes,
    fit_params,
    *,
    set_aside,
    relabel_weight,
    given_labels,
    key,
    doubtful,
):
    """Fit `final` (an unfitted clone, or the continuing model) as the run ends.

    The `set_aside` samples are left out, and with `relabel_weight` (some
    below 1) a relabel is fitted on both its labels (:func:`weighed_fit`,
    weights to the fit keyword `key`). Where the estimator cannot be fitted on
    the rest without weights (k-NN: fewer samples than ``n_neighbors``), it
    warns and fits a fresh clone of `estimator` on every sample.

    Returns
    -------
    model : estimator
        The fitted final model.
    set_aside : ndarray of bool or None
        The samples it left out: `set_aside`, or None where it fitted every
        sample instead.
    """
    if relabel_weight is not None:
        if set_aside is not None and set_aside.any():
            kept = np.flatnonzero(~set_aside)
            model = weighed_fit_on(
                final,
                X,
                labels,
                given_labels,
                relabel_weight,
                kept,
                classes,
                fit_params,
                key,
            )
            return model, set_aside
        model = weighed_fit(
            final, X, labels, given_labels, relabel_weight, classes, fit_params, key
        )
        return model, set_aside
    if set_aside is not None and set_aside.any():
        kept = np.flatnonzero(~set_aside)
        try:
            return fit_fold(final, X, labels, kept, classes, fit_params), set_aside
        except ValueError as error:
            warn_fitted_on_every_sample(
                estimator, int(set_aside.sum()), doubtful, error, stacklevel=8
            )
            set_aside = None
            final = clone(estimator)
    return fit_on_indices(final, X, labels, classes, fit_params), set_aside


def weighed_out_of_fold_proba(
    estimator, X, labels, given_labels, relabel_weight, splits, **fit
):
    """Held-out probabilities of fold models fitted as the final fit is (weighed).

    :func:`~sklearn_plc._held_out.out_of_fold_proba` on the same `splits`,
    each fold's clone fitted on its training part by :func:`weighed_fit`.
    `fit` holds ``classes``, ``params`` (the fit parameters), ``key`` (the
    weights' fit keyword) and ``validation``.
    """

    def fit_weighed(model, X, labels, train, classes, fit_params):
        return weighed_fit_on(
            model,
            X,
            labels,
            given_labels,
            relabel_weight,
            train,
            classes,
            fit_params,
            fit["key"],
        )

    proba, _ = out_of_fold_proba(
        estimator,
        X,
        labels,
        splits,
        fit["classes"],
        fit_params=fit["params"],
        validation=fit["validation"],
        fit=fit_weighed,
    )
    return proba
