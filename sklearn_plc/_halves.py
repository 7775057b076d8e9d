"""The check on halves: a judge that hears every sample without the leak.

The samples are split into two stratified halves (:func:`split_halves`); the
run is made again on each half alone and each half's final model predicts the
other half, whose labels it never saw, directly or through a correction; a
plain fit on each half does the same (:func:`check_on_halves`, which any run
path calls with its own fits); :func:`halves_verdict` undoes the run's result
where its models agree clearly worse with the given labels (with the verified
ones alone where they judge, ``validation_fraction="trusted"``: they train the
models of their own half as anchors and judge those of the other). A half's run
takes the act the run took where a verdict of its own could choose another (a
refit run that kept its corrections keeps each half's, past the gates; a
contested run's halves contest): the check judges that act.
"""

import warnings

import numpy as np
from sklearn.model_selection import StratifiedGroupKFold
from sklearn.utils import _safe_indexing

from ._draws import draw_seed, sample_keys, stratified_blocks
from ._held_out import proba_per_class
from ._judge import _weighted_mean
from ._thresholds import EVIDENCE_STANDARD_ERRORS
from .evidence import agreement_gain, agrees_clearly_worse, could_call_worse


def split_halves(encoded, rng, groups, ids=None):
    """Two halves of the samples: a list of two ``(one half, the other)`` index pairs.

    Stratified by the given labels, each class's key order cut in two
    (:func:`~sklearn_plc._draws.stratified_blocks`; `ids`, the samples'
    identities for their keys, None: their positions), so that a label
    changed moves at most a boundary sample of a class across; a group on
    one side when `groups` are given.
    """
    seed = draw_seed(rng)
    if groups is not None:
        splitter = StratifiedGroupKFold(2, shuffle=True, random_state=seed)
        return list(splitter.split(np.zeros((encoded.shape[0], 1)), encoded, groups))
    ids = np.arange(encoded.shape[0]) if ids is None else ids
    second = stratified_blocks(sample_keys(seed, ids), encoded, 2).astype(bool)
    first, second = np.flatnonzero(~second), np.flatnonzero(second)
    return [(first, second), (second, first)]


def check_on_halves(
    X,
    given,
    classes,
    rng,
    groups,
    fit_halves,
    ending,
    weights=None,
    ids=None,
    judged=None,
):
    """The run's result made on each half and judged on the other (``halves_check_``).

    `fit_halves(part)` returns ``(run's model, plain model)``, both fitted on
    the samples `part` only: the run made again on them (its own folds and
    final fit, not checked again; the path decides which of its own verdicts
    a half's run takes) and the estimator on their labels as given. Each
    predicts the other half, whose labels it never saw, and
    :func:`halves_verdict` compares them over every sample. Any path can be
    checked this way, whatever its models. Warnings of the halves'
    fits are silenced: each half warns as the run itself did.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The samples, as the paths' models take them.
    given : ndarray of int of shape (n_samples,)
        The labels as given, as indices into `classes`.
    classes : ndarray of shape (n_classes,)
        The caller's labels, which the models were fitted on.
    rng : numpy.random.RandomState
        Draws the halves.
    groups : array-like or None
        Keeps a group on one side.
    fit_halves : callable
        ``part -> (model, plain_model)``.
    ending : str
        The ending that is checked.
    weights : ndarray of shape (n_samples,) or None, default=None
        Each sample's weight in the verdict (:func:`judge_sample_weight`).
    ids : ndarray of int of shape (n_samples,) or None, default=None
        The samples' identities for the halves' draw (:func:`split_halves`);
        None: their positions.
    judged : ndarray of bool of shape (n_samples,) or None, default=None
        The samples whose predictions judge: the verified (``trusted``) ones
        where they judge alone (``validation_fraction="trusted"``); each is
        still predicted by the half that did not train on it, and every sample
        trains its own half's models. None: every sample judges.

    Returns
    -------
    selection : dict or None
        :func:`halves_verdict`'s, with ``"verified"`` (whether the trusted
        samples alone judged), or None where a half cannot be run (a
        ``ValueError``: a class too small for the folds of a half, or too few
        groups), which a ``UserWarning`` then says.
    """
    n_samples = given.shape[0]
    predicted = np.empty(n_samples, dtype=np.intp)
    plain_predicted = np.empty(n_samples, dtype=np.intp)
    failure = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for part, other in split_halves(given, rng, groups, ids):
            try:
                model, plain = fit_halves(part)
            except ValueError as error:
                failure = (part.shape[0], error)
                break
            X_other = _safe_indexing(X, other)
            predicted[other] = proba_per_class(model, X_other, classes).argmax(axis=1)
            plain_predicted[other] = proba_per_class(plain, X_other, classes).argmax(
                axis=1
            )
    if failure is not None:
        n_part, error = failure
        warnings.warn(
            f"PLC could not check its result on halves (halves_check_ is None): "
            f"the run made again on one half ({n_part} of the {n_samples} "
            f"samples) failed: {error} The result stands without that check.",
            UserWarning,
            stacklevel=2,
        )
        return None
    agrees, plain_agrees = predicted == given, plain_predicted == given
    if judged is not None:
        agrees, plain_agrees = agrees[judged], plain_agrees[judged]
        weights = None if weights is None else weights[judged]
    selection = halves_verdict(
        agrees, plain_agrees, ending, EVIDENCE_STANDARD_ERRORS, weights
    )
    return {**selection, "verified": judged is not None}


def halves_verdict(agrees, plain_agrees, ending, standard_errors, weights=None):
    """Whether the run's result, made on each half, trains worse for the other half.

    The check that hears every sample without the leak of the run's own folds
    (corrections made from a sample's label train the models that predict
    it): the samples are split into two halves, the run is made again on
    each half alone (its own folds and final fit), and each half's
    final model predicts the other half, whose labels it never saw, directly
    or through a correction. `agrees` is, per sample, whether that prediction
    is its given label, and `plain_agrees` the same for the estimator fitted
    on the other half's labels as given. The run's result is undone where the
    paired gain is below ``-standard_errors`` standard errors by one sample
    more (:func:`~sklearn_plc.evidence.agrees_clearly_worse`), each sample at
    its `weights` (:func:`judge_sample_weight`; None: equal). It is undone
    too where so few samples are predicted differently that no outcome could
    have called it worse (:func:`~sklearn_plc.evidence.could_call_worse`: one
    or two at a bar of one standard error): a result that changes almost no
    prediction has no evidence for it, and acting without evidence is not
    the default.

    Parameters
    ----------
    agrees, plain_agrees : ndarray of bool of shape (n_samples,)
    ending : str
        The ending that was checked (``termination_condition_`` before it).
    standard_errors : float >= 0
    weights : ndarray of shape (n_samples,) or None, default=None

    Returns
    -------
    selection : dict
        As :func:`corrections_verdict` gives it, with ``"compared": "halves"``,
        ``"round"`` None, ``"weighed"`` False, ``"ending"`` and ``"undone"``
        (``"chosen"`` its opposite), ``"n_differ"`` (the samples predicted
        differently) and ``"too_few_differ"`` (whether that alone undid it).
    """
    gain, standard_error = agreement_gain(agrees, plain_agrees, sample_weight=weights)
    n_judged = int(agrees.shape[0])
    differ = agrees != plain_agrees
    too_few_differ = not could_call_worse(differ, standard_errors, weights)
    undone = too_few_differ or agrees_clearly_worse(
        gain, standard_error, n_judged, standard_errors
    )
    return {
        "compared": "halves",
        "chosen": not undone,
        "round": None,
        "holdout_agreement": _weighted_mean(agrees, weights),
        "given_labels_agreement": _weighted_mean(plain_agrees, weights),
        "gain": gain,
        "standard_error": standard_error,
        "n_judged": n_judged,
        "undone": undone,
        "weighed": False,
        "sample_weighted": weights is not None,
        "ending": ending,
        "n_differ": int(differ.sum()),
        "too_few_differ": too_few_differ,
    }
