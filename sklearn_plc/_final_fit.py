"""What the final fit (and an unweighted fold fit) trains on, given the run's labels.

With ``contested="auto"`` or ``"weigh"``, a relabel is fitted on both its labels
by weight (:func:`weighed_fit`); where the estimator takes no sample weights, the
doubtful samples are left out instead (:func:`unweighed_set_aside`); a set-aside
never empties a class (:func:`keep_every_class`). Before an undo, the same folds
the run was judged on are fitted as the final fit weighs
(:func:`weighed_out_of_fold_proba`), so that the verdict is about the model that
ships.
"""

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.utils import _safe_indexing
from sklearn.utils.parallel import Parallel, delayed

from ._out_of_fold import fit_on_indices, per_sample_params, proba_per_class


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


def warn_fitted_on_every_sample(estimator, n_left_out, contested, error):
    """Warn that a fit without the doubtful samples failed and took them all."""
    warnings.warn(
        f"{type(estimator).__name__} could not be fitted without the {n_left_out} "
        f"doubtful samples that contested={contested!r} leaves out ({error}), so "
        f"that fit used every sample. With this little data, use contested='keep'.",
        UserWarning,
        stacklevel=4,
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


def _weighed_fold_proba(estimator, X, labels, given_labels, weight, fold, fit):
    """One fold of :func:`weighed_out_of_fold_proba`: its probabilities on `fold[1]`."""
    train, predicted = fold
    n_classes = fit["classes"].shape[0]
    present = np.unique(np.concatenate([labels[train], given_labels[train]]))
    if present.shape[0] == 1:  # as an unweighted fold fit would
        proba = np.zeros((predicted.shape[0], n_classes))
        proba[:, present[0]] = 1.0
        return proba
    model = weighed_fit(
        clone(estimator),
        _safe_indexing(X, train),
        labels[train],
        given_labels[train],
        weight[train],
        fit["classes"],
        per_sample_params(fit["params"], train, labels.shape[0]),
        fit["key"],
    )
    return proba_per_class(model, _safe_indexing(X, predicted), fit["classes"])


def weighed_out_of_fold_proba(
    estimator, X, labels, given_labels, relabel_weight, splits, **fit
):
    """Held-out probabilities of fold models fitted as the final fit is (weighed).

    Each fold's clone is fitted on its training part by :func:`weighed_fit` and
    predicts its test part and the `validation` samples (their mean over the
    folds), as :func:`~sklearn_plc._out_of_fold.out_of_fold_proba` does with the
    hard labels on the same `splits`. `fit` holds ``classes``, ``params``
    (the fit parameters), ``key`` (the weights' fit keyword), ``validation``
    and ``n_jobs``.
    """
    validation = fit["validation"]
    extra = np.empty(0, np.intp) if validation is None else np.asarray(validation)
    folds = [(train, np.concatenate([test, extra])) for train, test in splits]
    fold_probas = Parallel(n_jobs=fit["n_jobs"])(
        delayed(_weighed_fold_proba)(
            estimator, X, labels, given_labels, relabel_weight, fold, fit
        )
        for fold in folds
    )
    proba = np.zeros((labels.shape[0], fit["classes"].shape[0]))
    for (_, test), fold_proba in zip(splits, fold_probas, strict=True):
        proba[test] = fold_proba[: test.shape[0]]
        if validation is not None:
            proba[validation] += fold_proba[test.shape[0] :] / len(splits)
    return proba
