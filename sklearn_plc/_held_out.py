"""Held-out class probabilities: out-of-fold on fixed folds, or out-of-bag.

The folds are made once per fit (:func:`make_splits`) and reused every round.
Out-of-fold probabilities are safe when a fold lacks a class.

`sklearn.model_selection.cross_val_predict` fails when a training fold holds a
single class, which label correction can cause (a class shrinks to a few
samples that land in one test fold). Here such a fold predicts its one class
with probability 1, as any model trained on one class would, and every fold's
probabilities are placed in one column per class.
"""

import warnings
from numbers import Integral

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils.parallel import delayed

from ._draws import draw_seed, sample_keys, stratified_blocks
from ._parallel import run_in_parallel
from ._thresholds import OUT_OF_BAG_MIN_MEMBERS


def make_splits(cv, X, encoded, rng, groups, train=None, ids=None):
    """The folds of `cv`; with `train`, folds of those samples only (global indices).

    An int `cv` makes stratified folds by each class's key order
    (:func:`~sklearn_plc._draws.stratified_blocks`; `ids`, the samples'
    identities for their keys, None: their positions), so that a label
    changed or a sample more moves at most a boundary sample of a class to
    another fold; a splitter is used as given.
    """
    if isinstance(cv, Integral):
        if groups is not None:
            raise ValueError(
                f"groups were passed to fit, but cv={cv} makes "
                "stratified folds, which ignore groups. Pass a group-aware "
                "splitter, e.g. cv=GroupKFold(5) or StratifiedGroupKFold(5)."
            )
        seed = draw_seed(rng)
        train = np.arange(encoded.shape[0]) if train is None else train
        ids = train if ids is None else np.asarray(ids)[train]
        counts = np.bincount(encoded[train])
        smallest = counts[counts > 0].min()
        if smallest < cv:
            warnings.warn(
                f"The least populated class in y has only {smallest} members, "
                f"which is less than cv={cv}: a fold whose models never saw "
                f"that class gives it probability 0.",
                UserWarning,
                stacklevel=2,
            )
        blocks = stratified_blocks(sample_keys(seed, ids), encoded[train], cv)
        return [(train[blocks != fold], train[blocks == fold]) for fold in range(cv)]
    splitter = check_cv(cv, encoded, classifier=True)
    if train is None:
        return _folds_of(splitter, X, encoded, groups, n_set_aside=0)
    # splitters read only the number of rows from X
    folds = _folds_of(
        splitter,
        np.zeros((train.shape[0], 1)),
        encoded[train],
        None if groups is None else np.asarray(groups)[train],
        n_set_aside=encoded.shape[0] - train.shape[0],
    )
    return [(train[fit], train[test]) for fit, test in folds]


def _folds_of(splitter, X, encoded, groups, n_set_aside):
    """``list(splitter.split(X, encoded, groups))``, or an error that says why not.

    A group-aware splitter refuses to make more folds than there are groups;
    the error then counts the groups PLC left it (after `n_set_aside`
    validation samples) and names the fixes.
    """
    try:
        return list(splitter.split(X, encoded, groups))
    except ValueError as error:
        if groups is None:
            raise
        n_groups = np.unique(groups).shape[0]
        set_aside = fixes = ""
        if n_set_aside:
            set_aside = (
                f", once {n_set_aside} samples were set aside as validation samples"
            )
            fixes = ", or validation_fraction=None, which sets no groups aside"
        raise ValueError(
            f"cv={splitter!r} cannot make its folds of {encoded.shape[0]} samples "
            f"in {n_groups} group{'' if n_groups == 1 else 's'}{set_aside}: "
            f"{error} Use a splitter with fewer folds than there are groups, more "
            f"(smaller) groups{fixes}."
        ) from error


def splits_without(splits, left_out):
    """The folds with the `left_out` samples (a mask) taken out of their fits.

    Each fold's test part is unchanged, so every sample is still predicted.
    """
    return [(fit[~left_out[fit]], test) for fit, test in splits]


def class_columns(proba, columns, n_classes):
    """Place the columns of `proba` (for classes `columns`) into an n × k matrix.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, len(columns))
        Probabilities of a model that knows the classes `columns`.
    columns : array-like of int
        The class index (into ``range(n_classes)``) of each column of `proba`.
    n_classes : int
        Total number of classes.

    Returns
    -------
    full : ndarray of shape (n_samples, n_classes)
        `proba` itself when its columns already are ``0..n_classes-1``;
        otherwise a copy with zeros for the classes the model does not know.
    """
    proba = np.asarray(proba)
    columns = np.asarray(columns)
    if proba.ndim != 2 or proba.shape[1] != columns.shape[0]:
        raise ValueError(
            f"The estimator's predict_proba returned an array of shape "
            f"{proba.shape}, but the estimator knows {columns.shape[0]} classes; "
            f"PLC needs one probability column per class."
        )
    if columns.shape[0] == n_classes and np.array_equal(columns, np.arange(n_classes)):
        return proba
    full = np.zeros((proba.shape[0], n_classes), dtype=proba.dtype)
    full[:, columns.astype(np.intp)] = proba
    return full


def model_columns(model, classes):
    """The index into `classes` of each class a fitted model knows.

    The model was trained on labels from `classes` (the caller's own labels),
    so its ``classes_`` are a sorted subset of them.
    """
    known = np.asarray(model.classes_)
    columns = np.searchsorted(classes, known)
    inside = columns < classes.shape[0]
    if not (inside.all() and np.array_equal(classes[columns], known)):
        raise ValueError(
            f"The fitted estimator reports classes_ {known.tolist()!r}, which are "
            f"not among the training labels {classes.tolist()!r}; its classes_ "
            f"must be the labels it was fitted on."
        )
    return columns


def proba_per_class(model, X, classes):
    """A fitted model's probabilities on `X`, one column per class of `classes`."""
    return class_columns(
        model.predict_proba(X), model_columns(model, classes), classes.shape[0]
    )


def fit_on_indices(model, X, labels, classes, fit_params):
    """Fit `model` on the labels `classes[labels]`, the caller's own label space.

    The model then sees the labels the user knows, so per-class parameters
    (``class_weight``) given in those labels reach the right classes.
    """
    return model.fit(X, classes.take(labels), **fit_params)


def per_sample_params(params, indices, n_samples):
    """Index the fit parameters that hold one value per sample (sample_weight)."""
    return {
        key: _safe_indexing(value, indices)
        if hasattr(value, "__len__")
        and not isinstance(value, str | dict)
        and len(value) == n_samples
        else value
        for key, value in params.items()
    }


def with_sample_weight(params, key, weights):
    """`params` (a new dict) with `weights` at `key`, times any weights already there.

    `weights` None returns `params` as they are.
    """
    if weights is None:
        return params
    given = params.get(key)
    if given is not None:
        weights = weights * np.asarray(given, dtype=np.float64)
    return {**params, key: weights}


def fit_fold(model, X, labels, train, classes, fit_params):
    """Fit `model` on the `train` samples (row indices into `X` and `labels`)."""
    return fit_on_indices(
        model,
        _safe_indexing(X, train),
        labels[train],
        classes,
        per_sample_params(fit_params, train, labels.shape[0]),
    )


def _fold_proba(estimator, X, labels, train, predicted, classes, fit_params, fit=None):
    """Fit a clone on the `train` samples; return its probabilities on `predicted`.

    `fit` fits the clone as :func:`fit_fold` does (the default) or otherwise
    (the weighed final fit's way, ``_final_fit.weighed_out_of_fold_proba``).
    """
    present = np.unique(labels[train])
    if present.shape[0] == 1:
        proba = np.zeros((predicted.shape[0], classes.shape[0]))
        proba[:, present[0]] = 1.0
        return proba
    model = (fit or fit_fold)(clone(estimator), X, labels, train, classes, fit_params)
    return proba_per_class(model, _safe_indexing(X, predicted), classes)


def out_of_fold_proba(
    estimator,
    X,
    labels,
    splits,
    classes,
    *,
    fit_params,
    in_sample=False,
    validation=None,
    fit=None,
):
    """Probabilities of every sample from a model that did not train on it.

    Parameters
    ----------
    estimator : estimator object
        Cloned for each fold; fitted on the labels ``classes[labels]``.
    X : array-like, sparse matrix or DataFrame of shape (n_samples, ...)
        Samples; row-indexed with ``sklearn.utils._safe_indexing``.
    labels : ndarray of int of shape (n_samples,)
        Labels as class indices.
    splits : list of (train, test) index arrays
        Folds whose test parts partition the samples (all but `validation`).
    classes : ndarray of shape (n_classes,)
        The caller's labels, sorted; one column of the result per class.
    fit_params : dict
        Passed to each fold's ``fit``; per-sample values are indexed.
    in_sample : bool, default=False
        Also return in-sample probabilities, at no extra fit: each fold's
        model predicts the next fold's test samples that it trained on, so a
        sample is predicted once by a model that saw its label.
    validation : ndarray of int or None, default=None
        Samples that no fold trains on: each fold's model also predicts them,
        and their probabilities are the mean over the folds.
    fit : callable or None, default=None
        ``fit(model, X, labels, train, classes, fit_params)`` fits a fold's
        clone; None: :func:`fit_fold`, on the fold's labels as they are.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
    in_sample_proba : ndarray of shape (n_samples, n_classes) or None
        With `in_sample`, the in-sample probabilities, NaN in the rows that no
        fold's model trained on (`validation`, or rows outside the previous
        fold's training part when the folds are not complements); else None.
    """
    n_samples = labels.shape[0]
    extra = np.empty(0, np.intp) if validation is None else np.asarray(validation)
    # per fold: the next fold's test samples that this fold's model trained on
    seen = [
        np.intersect1d(splits[(index + 1) % len(splits)][1], train)
        if in_sample
        else np.empty(0, np.intp)
        for index, (train, _) in enumerate(splits)
    ]
    # folds in parallel as joblib.parallel_config says (one job by default), in
    # the fit's one pool (_parallel.one_pool_per_fit)
    fold_probas = run_in_parallel(
        delayed(_fold_proba)(
            estimator,
            X,
            labels,
            train,
            np.concatenate([test, extra, rows]),
            classes,
            fit_params,
            fit,
        )
        for (train, test), rows in zip(splits, seen, strict=True)
    )
    dtype = np.result_type(*fold_probas)
    proba = np.empty((n_samples, classes.shape[0]), dtype=dtype)
    covered = np.zeros(n_samples, dtype=bool)
    if validation is not None:
        proba[validation] = 0
        covered[validation] = True
    in_sample_proba = None
    if in_sample:
        in_sample_proba = np.full((n_samples, classes.shape[0]), np.nan)
    n_extra = extra.shape[0]
    for (_, test), rows, fold in zip(splits, seen, fold_probas, strict=True):
        n_test = test.shape[0]
        proba[test] = fold[:n_test]
        covered[test] = True
        if validation is not None:
            proba[validation] += fold[n_test : n_test + n_extra] / len(fold_probas)
        if in_sample:
            in_sample_proba[rows] = fold[n_test + n_extra :]
    if not covered.all():
        raise ValueError(
            "The cross-validation folds must put every sample in a test fold once "
            "(a partition, like KFold); use such a splitter for cv."
        )
    return proba, in_sample_proba


def supports_out_of_bag(estimator):
    """Whether `estimator` is a bagging ensemble that can score its out-of-bag samples.

    That is, it has an ``oob_score`` parameter and ``bootstrap=True``
    (:class:`~sklearn.ensemble.RandomForestClassifier`,
    :class:`~sklearn.ensemble.BaggingClassifier`, and ExtraTrees with
    bootstrap).
    """
    params = estimator.get_params(deep=False)
    return "oob_score" in params and params.get("bootstrap") is True


def judges_out_of_bag(estimator):
    """Whether ``confidence="auto"`` judges `estimator` out of bag.

    A bagging ensemble (`supports_out_of_bag`) with at least
    :data:`OUT_OF_BAG_MIN_MEMBERS` members.
    """
    if not supports_out_of_bag(estimator):
        return False
    members = estimator.get_params(deep=False).get("n_estimators")
    return isinstance(members, Integral) and members >= OUT_OF_BAG_MIN_MEMBERS


def out_of_bag_proba(
    estimator,
    X,
    labels,
    classes,
    *,
    fit_params,
    in_sample,
    validation=None,
):
    """Probabilities of every sample from the members that did not train on it.

    One fit of a bagging ensemble on every sample: each member trains on a
    bootstrap sample, and each sample is predicted by the members whose
    bootstrap sample left it out (``oob_decision_function_``). A sample that
    every member trained on (rare with tens of members; the ensemble warns)
    gets uniform probabilities, so it is neither corrected nor counted as
    agreeing with its label.

    Parameters
    ----------
    estimator : estimator object
        Cloned and fitted with ``oob_score=True``; see `supports_out_of_bag`.
    X, labels, classes, fit_params
        As in :func:`out_of_fold_proba`; `fit_params` are passed whole.
    in_sample : bool
        Also predict the training samples with the fitted ensemble.
    validation : ndarray of int or None, default=None
        Samples that the ensemble does not train on; every member predicts
        them.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
    on_all : (model, in-sample proba or None)
        The ensemble, fitted on every sample but `validation`, and with
        `in_sample` its probabilities on all samples.
    """
    model = clone(estimator).set_params(oob_score=True)
    if validation is None:
        fit_on_indices(model, X, labels, classes, fit_params)
    else:
        train = np.setdiff1d(np.arange(labels.shape[0]), validation)
        fit_on_indices(
            model,
            _safe_indexing(X, train),
            labels[train],
            classes,
            per_sample_params(fit_params, train, labels.shape[0]),
        )
    out_of_bag = np.asarray(model.oob_decision_function_, dtype=np.float64)
    unseen = ~(out_of_bag.sum(axis=1) > 0)  # no member left it out (0 or NaN)
    if unseen.any():
        out_of_bag = out_of_bag.copy()
        out_of_bag[unseen] = 1.0 / out_of_bag.shape[1]
    out_of_bag = class_columns(
        out_of_bag, model_columns(model, classes), classes.shape[0]
    )
    if validation is None:
        proba = out_of_bag
    else:
        proba = np.empty((labels.shape[0], classes.shape[0]), dtype=out_of_bag.dtype)
        proba[train] = out_of_bag
        proba[validation] = proba_per_class(
            model, _safe_indexing(X, validation), classes
        )
    predicted = proba_per_class(model, X, classes) if in_sample else None
    return proba, (model, predicted)


def round_proba(
    confidence, model, X, labels, classes, splits, *, fit_params, in_sample, validation
):
    """Fit for one refit round; return probabilities with one column per class.

    With ``splits`` the probabilities are out of fold (`model` is cloned per
    fold and left unfitted). Out of bag (`confidence` ``"oob"``), they come
    from a clone of `model` fitted on all samples, which comes back. Otherwise
    `model` is fitted on all samples and predicts them. `validation` samples
    are predicted by models that did not train on them.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
    in_sample_proba : ndarray of shape (n_samples, n_classes) or None
        With `in_sample`, each sample's probabilities from a model that
        trained on it (NaN where none did; see :func:`out_of_fold_proba`).
    model_on_all : estimator or None
        The out-of-bag ensemble, fitted on all samples but `validation`.
    """
    if confidence == "oob":
        proba, (ensemble, in_sample_proba) = out_of_bag_proba(
            model,
            X,
            labels,
            classes,
            fit_params=fit_params,
            in_sample=in_sample,
            validation=validation,
        )
        return proba, in_sample_proba, ensemble
    if splits is not None:
        proba, in_sample_proba = out_of_fold_proba(
            model,
            X,
            labels,
            splits,
            classes,
            fit_params=fit_params,
            in_sample=in_sample,
            validation=validation,
        )
        return proba, in_sample_proba, None
    fit_on_indices(model, X, labels, classes, fit_params)
    return proba_per_class(model, X, classes), None, None
