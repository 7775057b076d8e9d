"""The refit path's fits, each a function of one frozen :class:`RefitContext`.

The context is made once per fit (by :meth:`RefitPath.run`): the data, the
classes, the seeded estimator, the fit parameters, the groups, the per-sample
weights, the validation samples, the folds and the random state. The round
fits (:func:`fit_round`), the fits the end of the run asks for
(:func:`fit_requested`) and the final fit (:func:`final_model`) read it and
nothing else, so that every candidate the judge weighs is fitted on the same
splits, parameters and seeds.
"""

import functools
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from .._final_fit import (
    fit_final_model,
    warn_fitted_on_every_sample,
    weighed_out_of_fold_proba,
)
from .._held_out import (
    make_splits,
    out_of_bag_proba,
    out_of_fold_proba,
    round_proba,
    splits_without,
    with_sample_weight,
)
from .._judge import JudgedRefit, can_judge, memorisation_evidence, memorises
from .._left_out import doubtful_samples, keep_every_class
from .._random_label_detector import random_label_share
from .._thresholds import sure_ratio_for
from .._validation import check_finite_proba


@dataclass
class Round:
    """What one round's fit gives the loop."""

    agreement: float | None  # held-out agreement with the given labels
    refusal: str | None  # "not_memorising", "too_weak_to_judge" or None
    model: object  # the in-sample or out-of-bag model; None out of fold
    model_labels: np.ndarray | None  # the labels `model` was fitted on
    memorisation: dict | None = None  # the first round's test
    first_proba: np.ndarray | None = None  # the first round's, as recorded


@dataclass(frozen=True)
class RefitContext:
    """Everything a refit run's fits read, made once per fit.

    Attributes
    ----------
    settings : RunSettings
        The resolved parameters.
    estimator : estimator object
        The estimator to clone for every fit (its unset random states seeded
        once), never fitted itself.
    X : array-like
        The training data.
    classes : ndarray
        The caller's labels; models are fitted on ``classes[labels]``.
    fit_params : dict
        The estimator's fit parameters (``sample_weight`` among them).
    groups : array-like or None
        Sample groups for a group-aware ``cv``.
    sample_weight : ndarray or None
        The caller's per-sample weights.
    weight_key : str or None
        The ``fit`` keyword for per-sample weights where relabels are weighed
        (:func:`relabel_weight_key`); None: hard labels.
    rng : numpy.random.RandomState
        Draws the splits made after the context (a contest's folds, the halves).
    validation : ndarray of int or None
        The samples no correcting model trains on.
    splits : list of (ndarray, ndarray) or None
        The loop's folds (``confidence="cv"``); None otherwise.
    ids : ndarray of int or None
        The samples' identities for the run's random splits
        (:mod:`sklearn_plc._draws`); None: their positions.
    continuing : bool
        In sample, an estimator that continues training on each fit
        (``warm_start``).
    """

    settings: object
    estimator: object
    X: object
    classes: np.ndarray
    fit_params: dict
    groups: object
    sample_weight: np.ndarray | None
    weight_key: str | None
    rng: object
    validation: np.ndarray | None = None
    splits: list | None = None
    ids: np.ndarray | None = None
    continuing: bool = False

    @property
    def leaves_out_doubtful(self):
        """``doubtful="auto"`` with held-out probabilities and no sample weights.

        The final fit, and every round's fold fits after the first, then leave
        the doubtful samples out.
        """
        return (
            self.settings.doubtful == "auto"
            and self.settings.held_out
            and self.weight_key is None
        )


def fit_round(context, corrector, round_index, labels, model, judge):
    """Fit this round's model(s) on `labels` (a copy of the current labels).

    With held-out confidence and ``min_memorisation > 0``, the first round
    also takes the memorisation test, at no extra fit: each fold's model
    (out of bag, the ensemble) also predicts samples it trained on; and it
    asks whether the model confirms more labels than it surely disputes
    (:func:`~sklearn_plc._judge.can_judge`); a run with a ``forced_act``
    records both tests and refuses on neither. Out of bag, every round's
    model is fitted on all samples and is kept as the last model; in
    sample, the round's model (`model`, continued, or a fresh clone) is.
    Returns a :class:`Round`.
    """
    settings, estimator, splits = context.settings, context.estimator, context.splits
    validation = context.validation
    in_sample = judge is None
    if in_sample and not context.continuing:
        model = clone(estimator)
    measure = not in_sample and round_index == 0 and settings.min_memorisation > 0
    round_splits = splits
    if splits is not None and context.leaves_out_doubtful and corrector.recorded:
        # an unweighted fold model would take a doubtful label at full weight,
        # and its next predictions would confirm it (k-NN: it votes)
        left_out = keep_every_class(
            doubtful_samples(
                corrector.disputed(), corrector.labels, corrector.initial_labels
            ),
            labels,
        )
        round_splits = splits_without(splits, left_out)
    fit_proba = functools.partial(
        round_proba,
        settings.confidence,
        model if in_sample else estimator,
        context.X,
        labels,
        context.classes,
        fit_params=context.fit_params,
        in_sample=measure,
        validation=validation,
    )
    try:
        proba, in_sample_proba, model_on_all = fit_proba(round_splits)
    except ValueError as error:
        if round_splits is splits:
            # an invalid parameter (scikit-learn's InvalidParameterError is also
            # a TypeError) says what to fix as it is
            if splits is None or round_index > 0 or isinstance(error, TypeError):
                raise
            n_samples = labels.shape[0]
            raise _fold_fit_failed(splits, n_samples, settings.cv, error) from error
        # too few samples left in a fold for the estimator (k-NN: n_neighbors)
        warn_fitted_on_every_sample(
            estimator, int(left_out.sum()), settings.doubtful, error
        )
        proba, in_sample_proba, model_on_all = fit_proba(splits)
    check_finite_proba(proba, round_index)
    agreement = None if in_sample else judge.judge(proba, corrector.n_rounds)
    corrector.add_proba(proba)
    if in_sample:
        fitted = Round(agreement, None, model, labels)
    elif settings.confidence == "oob":
        # the round's ensemble leaves the validation samples out
        fitted = Round(
            agreement, None, model_on_all, labels if validation is None else None
        )
    else:
        fitted = Round(agreement, None, None, None)
    if measure:
        fitted.first_proba = corrector.recorded[-1]  # as the corrector keeps it
        fitted.memorisation = memorisation_evidence(
            corrector.initial_labels,
            proba,
            in_sample_proba,
            validation,
            sure_ratio=sure_ratio_for(proba.shape[1]),
        )
        share, share_error = random_label_share(
            fitted.first_proba, corrector.initial_labels
        )
        fitted.memorisation["random_label_share"] = share
        fitted.memorisation["random_label_share_standard_error"] = share_error
        refuses = settings.forced_act is None  # a forced act's run passed both
        if refuses and not memorises(fitted.memorisation, settings.min_memorisation):
            fitted.refusal = "not_memorising"
        elif refuses and not can_judge(fitted.memorisation):
            fitted.refusal = "too_weak_to_judge"
    return fitted


def _fold_fit_failed(splits, n_samples, cv, error):
    """The first round's fold fit failed: say how many samples a fold's model had."""
    smallest = min(train.shape[0] for train, _ in splits)
    return ValueError(
        f"The estimator could not be fitted on PLC's folds (cv={cv!r}): a fold's "
        f"model trains on {smallest} of the {n_samples} samples, those not set "
        f"aside as validation samples and not in the fold it predicts: "
        f"{str(error).rstrip('.')}. "
        f"Where the estimator needs more samples than that (k-NN's n_neighbors), "
        f"ask it for fewer, or pass more samples."
    )


def fit_requested(context, request, corrector, judge):
    """Fit what the end of the run asks (:class:`~sklearn_plc._ending.FitRequest`).

    Returns None where the models cannot be fitted (a fold too small for
    the estimator).
    """
    estimator, X, classes = context.estimator, context.X, context.classes
    splits, validation = context.splits, context.validation
    fit_params = context.fit_params
    labels = corrector.initial_labels
    if request.name == "weighed_folds":
        proba = weighed_out_of_fold_proba(
            estimator,
            X,
            corrector.labels,
            labels,
            request.weights,
            splits,
            classes=classes,
            params=fit_params,
            key=context.weight_key,
            validation=validation,
        )
        return JudgedRefit(corrector.n_rounds, judge.agrees(proba), weighed=True)
    try:
        if request.name in ("removal", "left_out"):
            params = with_sample_weight(fit_params, context.weight_key, request.weights)
            if splits is None:  # out of bag: one ensemble without them
                left_out = np.flatnonzero(request.left_out)
                if validation is not None:
                    left_out = np.union1d(left_out, validation)
                proba, _ = out_of_bag_proba(
                    estimator,
                    X,
                    labels,
                    classes,
                    fit_params=params,
                    in_sample=False,
                    validation=left_out,
                )
            else:
                proba, _ = out_of_fold_proba(
                    estimator,
                    X,
                    labels,
                    splits_without(splits, request.left_out),
                    classes,
                    fit_params=params,
                    validation=validation,
                )
            return judge.agrees(proba)
        # "contest": new held-out probabilities of every sample
        if context.settings.confidence == "oob":
            proba, _ = out_of_bag_proba(
                estimator, X, labels, classes, fit_params=fit_params, in_sample=False
            )
        else:
            proba, _ = out_of_fold_proba(
                estimator,
                X,
                labels,
                make_splits(
                    context.settings.cv,
                    X,
                    labels,
                    context.rng,
                    context.groups,
                    ids=context.ids,
                ),
                classes,
                fit_params=fit_params,
            )
        return proba
    except ValueError:
        return None


def final_model(context, model, model_labels, ending, given_labels):
    """``(model, set_aside)``: the model the run ends with, and what it left out.

    Reuses the loop's last `model` (fitted on `model_labels`) when it was
    fitted on exactly the final labels, no sample is left out and no relabel
    is weighed.
    """
    labels, set_aside = ending.labels, ending.set_aside
    relabel_weight = ending.relabel_weight
    weighed = relabel_weight is not None and (relabel_weight < 1).any()
    fit_params = with_sample_weight(
        context.fit_params, context.weight_key, ending.label_weight
    )
    model_is_current = (
        model is not None
        and np.array_equal(model_labels, labels)
        and (set_aside is None or not set_aside.any())
        and not weighed
        and ending.label_weight is None
    )
    if model_is_current:
        return model, set_aside
    return fit_final_model(
        model if context.continuing else clone(context.estimator),
        context.estimator,
        context.X,
        labels,
        context.classes,
        fit_params,
        set_aside=set_aside,
        relabel_weight=relabel_weight if weighed else None,
        given_labels=given_labels,
        key=context.weight_key,
        doubtful=context.settings.doubtful,
    )
