"""What the final fit (and an unweighted fold fit) trains on, given the run's labels.

With ``contested="auto"`` or ``"weigh"``, a relabel is fitted on both its labels
by weight (:func:`weighed_fit`); where the estimator takes no sample weights, the
doubtful samples are left out instead (:func:`unweighed_set_aside`); a set-aside
never empties a class (:func:`keep_every_class`); :func:`fit_final_model` fits
the final model accordingly. Before an undo, the same folds
the run was judged on are fitted as the final fit weighs
(:func:`weighed_out_of_fold_proba`), so that the verdict is about the model that
ships.
"""

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.utils import _safe_indexing

from ._out_of_fold import (
    fit_fold,
    fit_on_indices,
    out_of_fold_proba,
    per_sample_params,
)


def keep_every_class(set_aside, labels):
    """`set_aside` without the samples whose class it would empty (a new array).

    Every class the labels hold keeps its samples in the final fit, as a
    correction pass never empties a class.
    """
    set_aside = set_aside.copy()
    n_classes = int(labels.max()) + 1
    kept = np.bincount(labels[~set_aside], minlength=n_classes)
    emptied = (kept == 0) & (np.bincount(labels, minlength=n_classes) > 0)
    set_aside[emptied[labels]] = False
    return set_aside


def unweighed_set_aside(corrector):
    """The samples that ``contested="auto"`` leaves out of an unweighted fit.

    An estimator whose ``fit`` takes no per-sample weights cannot train a
    relabel at part weight (:func:`weighed_fit`), so it trains on neither of
    its labels; nor on a label that the model still disputes. Every relabelled
    sample and every contested one is left out: of the final fit, and of the
    loop's fold fits after the first round, where a doubtful label kept at full
    weight would be confirmed by the next predictions (a k-NN's neighbours
    vote with it).
    """
    return corrector.contested() | (corrector.labels != corrector.initial_labels)


def warn_fitted_on_every_sample(estimator, n_left_out, contested, error, stacklevel=4):
    """Warn that a fit without the doubtful samples failed and took them all."""
    warnings.warn(
        f"{type(estimator).__name__} could not be fitted without the {n_left_out} "
        f"doubtful samples that contested={contested!r} leaves out ({error}), so "
        f"that fit used every sample. With this little data, use contested='keep'.",
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
    params = per_sample_params(params, rows, n_samples)
    if params.get(key) is not None:
        weights = weights * np.asarray(params[key], dtype=np.float64)
    params[key] = weights
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
    contested,
):
    """Fit `final` (an unfitted clone, or the continuing model) as the run ends.

    The `set_aside` samples are left out, and with `relabel_weight` (some
    below 1) a relabel is fitted on both its labels (:func:`weighed_fit`,
    weights to the fit keyword `key`). Where the estimator cannot be fitted on
    the rest without weights (k-NN: fewer samples than ``n_neighbors``), it
    warns and fits a fresh clone of `estimator` on every sample, and clears
    `set_aside` in place (the run's own array, so ``set_aside_`` follows).
    """
    if relabel_weight is not None:
        if set_aside is not None and set_aside.any():
            kept = np.flatnonzero(~set_aside)
            return weighed_fit_on(
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
        return weighed_fit(
            final, X, labels, given_labels, relabel_weight, classes, fit_params, key
        )
    if set_aside is not None and set_aside.any():
        kept = np.flatnonzero(~set_aside)
        try:
            return fit_fold(final, X, labels, kept, classes, fit_params)
        except ValueError as error:
            warn_fitted_on_every_sample(
                estimator, int(set_aside.sum()), contested, error, stacklevel=5
            )
            set_aside[:] = False
            final = clone(estimator)
    return fit_on_indices(final, X, labels, classes, fit_params)


def weighed_out_of_fold_proba(
    estimator, X, labels, given_labels, relabel_weight, splits, **fit
):
    """Held-out probabilities of fold models fitted as the final fit is (weighed).

    :func:`~sklearn_plc._out_of_fold.out_of_fold_proba` on the same `splits`,
    each fold's clone fitted on its training part by :func:`weighed_fit`.
    `fit` holds ``classes``, ``params`` (the fit parameters), ``key`` (the
    weights' fit keyword), ``validation`` and ``n_jobs``.
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
        n_jobs=fit["n_jobs"],
        validation=fit["validation"],
        fit=fit_weighed,
    )
    return proba
