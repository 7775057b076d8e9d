"""The held-out judge: is the model worth correcting, and did the corrections help?

Three questions, each answered on samples whose labels no judged model trained
on, and from the given labels alone unless verified (``trusted``) ones exist:

- **which samples judge** (:func:`choose_judged_samples`): stratified
  validation samples, ``validation_fraction`` of all, drawn as without the
  ``trusted`` ones (which judge the check on halves alone where
  ``validation_fraction="trusted"``, :mod:`sklearn_plc._halves`);
- **whether the model memorises its labels and can judge them**
  (:func:`memorisation_evidence`, :func:`memorises`, :func:`can_judge`),
  measured in the first round; a model that does not memorise, or that surely
  disputes more labels than it confirms (unless most of its disputes look
  drawn at random), is left with the labels as given;
- **whether the corrected labels train worse models** (:class:`HeldOutJudge`):
  the held-out agreement with the given labels of each refit, and the undo
  that returns the labels as given when the last refit agrees clearly worse
  than the first.

The math (paired gain, memorisation rate) lives in :mod:`sklearn_plc.evidence`;
what the run does with the verdict, in :mod:`sklearn_plc._ending`.
"""

from typing import NamedTuple

import numpy as np
from sklearn.model_selection import GroupShuffleSplit
from sklearn.pipeline import Pipeline

from ._draws import draw_seed, sample_keys, within_class_quantiles
from ._thresholds import EVIDENCE_STANDARD_ERRORS
from .correction import confidence_ratio
from .evidence import agreement_gain, agrees_clearly_worse, memorisation_rate


def split_validation(fraction, encoded, rng, groups, ids=None):
    """Set aside `fraction` of the samples: sorted ``(training, validation)`` indices.

    Stratified by the given labels (each class's samples whose keys rank in
    its lowest `fraction`, :mod:`sklearn_plc._draws`; `ids`, the samples'
    identities for their keys, None: their positions), or by `groups` when
    given. Where no class is large enough to give one, the `fraction` of
    the samples with the lowest keys.
    """
    seed = draw_seed(rng)
    n_samples = encoded.shape[0]
    if groups is not None:
        splitter = GroupShuffleSplit(1, test_size=fraction, random_state=seed)
        try:
            train, validation = next(
                splitter.split(np.zeros((n_samples, 1)), encoded, groups)
            )
        except ValueError as error:  # e.g. one side would be empty
            raise _cannot_set_aside(fraction, n_samples, f" {error}") from error
        return np.sort(train), np.sort(validation)
    keys = sample_keys(seed, np.arange(n_samples) if ids is None else ids)
    set_aside = within_class_quantiles(keys, encoded) < fraction
    if not set_aside.any():  # classes too small to stratify
        n_validation = int(np.ceil(fraction * n_samples))
        set_aside[np.argsort(keys)[:n_validation]] = True
    if set_aside.all():
        raise _cannot_set_aside(fraction, n_samples, "")
    return np.flatnonzero(~set_aside), np.flatnonzero(set_aside)


def _cannot_set_aside(fraction, n_samples, reason):
    return ValueError(
        f"validation_fraction={fraction} cannot set samples aside from "
        f"{n_samples}:{reason} one side would be empty. Use a validation_fraction "
        f"that leaves samples on both sides, or validation_fraction=None."
    )


def choose_judged_samples(
    encoded, rng, groups, *, validation_fraction, can_set_aside, ids=None
):
    """The samples that judge, and those the correcting models train on.

    The validation samples are drawn whatever is verified (``trusted``, which
    this draw does not see): a verified sample that the draw sets aside judges
    with its verified label (and trains the final model), and the others
    train every correcting model, so that a refit after a review trains and
    judges on the samples the fit before it did (:mod:`sklearn_plc._draws`).

    Parameters
    ----------
    encoded : ndarray of int of shape (n_samples,)
        The given labels.
    rng : numpy.random.RandomState
        Draws the validation samples (one draw, only when there are any).
    groups : array-like or None
        Keeps a group on one side of the validation split.
    validation_fraction : float or None
        Share of the samples that judge; None: no samples are set aside.
    can_set_aside : bool
        False when the folds are given as index pairs, which cannot leave
        samples out: the judged samples are then judged in place.
    ids : ndarray of int or None, default=None
        The samples' identities for the draw (:mod:`sklearn_plc._draws`);
        None: their positions.

    Returns
    -------
    training : ndarray of int or None
        The samples the correcting models train on; None: all.
    validation : ndarray of int or None
        The samples no correcting model trains on; None: none.
    judged : ndarray of int or None
        The samples whose held-out predictions judge; None: all.
    """
    if not can_set_aside or validation_fraction is None:
        return None, None, None
    training, validation = split_validation(
        validation_fraction, encoded, rng, groups, ids
    )
    return training, validation, validation


def memorisation_evidence(
    encoded, held_out_proba, in_sample, left_out=None, sure_ratio=0.5
):
    """How much of the labels as given a model memorises, and how surely it disputes.

    Parameters
    ----------
    encoded : ndarray of int of shape (n_samples,)
        The given labels.
    held_out_proba : ndarray of shape (n_samples, n_classes)
        Out-of-fold (or out-of-bag) probabilities on the given labels.
    in_sample : ndarray of shape (n_samples, n_classes)
        Probabilities from models fitted on the given labels, each row from a
        model that trained on that sample (out of fold: the fold models'; out
        of bag: the ensemble's); NaN rows are not measured.
    left_out : ndarray of int or None
        Samples not measured (the validation samples, which no model saw).
    sure_ratio : float, default=0.5
        A held-out dispute is sure where the label's probability is at most
        this share of the top class's.

    Returns
    -------
    evidence : dict
        ``"in_sample_agreement"``, ``"out_of_fold_agreement"``, ``"rate"``
        (:func:`~sklearn_plc.evidence.memorisation_rate`) and its
        ``"standard_error"`` over samples; ``"sure_disputes"``, the share of
        samples whose held-out label probability is at most `sure_ratio` times
        the top class's; and ``"judge_margin"``, the out-of-fold agreement less
        that share, with its ``"judge_margin_standard_error"`` (paired over
        samples); ``"chance_agreement"``, the out-of-fold agreement held-out
        predictions independent of the labels would reach
        (:func:`chance_agreement`); ``"n_measured"``, the samples measured.
    """
    measured = ~np.isnan(in_sample).any(axis=1)
    if left_out is not None:
        measured[left_out] = False
    encoded = encoded[measured]
    held_out_proba = held_out_proba[measured]
    in_sample_agrees = in_sample[measured].argmax(axis=1) == encoded
    out_of_fold_agrees = held_out_proba.argmax(axis=1) == encoded
    surely_disputed = confidence_ratio(held_out_proba, encoded) <= sure_ratio
    _, gap_error = agreement_gain(in_sample_agrees, out_of_fold_agrees)
    contradicted = 1.0 - out_of_fold_agrees.mean()
    margin, margin_error = agreement_gain(out_of_fold_agrees, surely_disputed)
    return {
        "in_sample_agreement": float(in_sample_agrees.mean()),
        "out_of_fold_agreement": float(out_of_fold_agrees.mean()),
        "rate": memorisation_rate(in_sample_agrees, out_of_fold_agrees),
        "standard_error": float(gap_error / contradicted) if contradicted else 0.0,
        "sure_disputes": float(surely_disputed.mean()),
        "judge_margin": margin,
        "judge_margin_standard_error": margin_error,
        "chance_agreement": chance_agreement(encoded, held_out_proba.argmax(axis=1)),
        "n_measured": int(measured.sum()),
    }


def chance_agreement(labels, predictions):
    """The agreement of `predictions` with `labels` were the two independent.

    The share of samples two independent draws with these class shares would
    agree on: the sum over classes of the labels' share times the
    predictions'. A model whose held-out agreement with the given labels is
    no higher has learned nothing from them.
    """
    n_classes = max(int(labels.max()), int(predictions.max())) + 1
    label_share = np.bincount(labels, minlength=n_classes) / labels.size
    prediction_share = np.bincount(predictions, minlength=n_classes) / labels.size
    return float(label_share @ prediction_share)


def memorises(evidence, min_memorisation):
    """Whether the rate, less one standard error, reaches `min_memorisation`."""
    margin = EVIDENCE_STANDARD_ERRORS * evidence["standard_error"]
    return evidence["rate"] - margin >= min_memorisation


def can_judge(evidence):
    """Whether the model is not shown to dispute surely more labels than it confirms.

    Where the given label is right more often than not (PLC's premise), a model
    that can tell a wrong label from its own error agrees, held out, with most
    of the right labels and disputes surely only the wrong ones, so its
    agreements outnumber its sure disputes. A model that surely disputes more
    labels than it confirms is contradicting right labels wholesale: its sure
    disputes are its own errors as often as the labels'. It is refused when its
    ``"judge_margin"`` (agreements less sure disputes, as shares) is below zero
    by more than one standard error, the bar every other verdict here uses;
    under heavy noise even a good judge comes close to zero, and small samples
    leave the margin uncertain, so only clear evidence refuses.

    The exception is a model whose disputes mostly look drawn at random: its
    own errors land on the classes it confuses, a label drawn at random (as
    uniform noise draws it) does not, so where the ``"random_label_share"`` of
    its disputes exceeds ½ by more than its standard error
    (``"random_label_share_standard_error"``), most of its disputes are the
    labels' errors, not its own, and it is judged like any other model (the
    verdicts and the check on halves weigh its corrections). That needs a
    model that has learned something from the labels: one whose predictions
    follow the labels no better than chance (held-out agreement not above
    ``"chance_agreement"`` by more than its standard error) disputes labels
    at random because it predicts at random, and stays refused.
    """
    margin = EVIDENCE_STANDARD_ERRORS * evidence["judge_margin_standard_error"]
    if evidence["judge_margin"] >= -margin:
        return True
    return disputes_look_random(evidence)


def disputes_look_random(evidence):
    """Whether most of a model's disputes clearly look drawn at random.

    The ``"random_label_share"`` above ½ by more than its standard error, from
    a model whose held-out agreement is above chance by more than its own
    (:func:`can_judge`).
    """
    share = evidence.get("random_label_share")
    share_error = evidence.get("random_label_share_standard_error")
    if share is None or share_error is None or not evidence["n_measured"]:
        return False  # two classes, or no evidence
    agreement = evidence["out_of_fold_agreement"]
    agreement_error = np.sqrt(agreement * (1.0 - agreement) / evidence["n_measured"])
    above_chance = agreement - evidence["chance_agreement"]
    return (
        share - EVIDENCE_STANDARD_ERRORS * share_error > 0.5
        and above_chance > EVIDENCE_STANDARD_ERRORS * agreement_error
    )


def judge_sample_weight(estimator, classes, given_labels, sample_weight=None):
    """How the judge weighs each sample's agreement: as the estimator weighs it.

    A user who weighs the classes (``class_weight="balanced"``, or a dict, on
    the estimator or a Pipeline's last step) or the samples (``sample_weight``
    given to ``fit``) says what an error costs; the judge counts a judged
    sample's agreement at that weight, so that it never trades what the user
    weighs for what the user does not. Otherwise every sample weighs the same
    and the judge reads plain agreement (accuracy is not traded for balanced
    accuracy).

    Parameters
    ----------
    estimator : estimator object
        The wrapped classifier (not fitted).
    classes : ndarray of shape (n_classes,)
        The caller's labels, sorted.
    given_labels : ndarray of int of shape (n_samples,)
        The labels as given, as indices into `classes`.
    sample_weight : ndarray of shape (n_samples,) or None, default=None
        The weights given to ``fit``.

    Returns
    -------
    ndarray of shape (n_samples,) or None
        None where every sample weighs the same.
    """
    final = estimator[-1] if isinstance(estimator, Pipeline) else estimator
    try:
        class_weight = final.get_params(deep=False).get("class_weight")
    except AttributeError:  # not a scikit-learn estimator: no class weights
        class_weight = None
    weights = None
    if isinstance(class_weight, str):  # "balanced" or "balanced_subsample"
        weights = balanced_weights(given_labels)
    elif isinstance(class_weight, dict):
        per_class = np.array([float(class_weight.get(c, 1.0)) for c in classes])
        weights = per_class[given_labels]
    if sample_weight is not None:
        given = np.asarray(sample_weight, dtype=np.float64)
        weights = given if weights is None else weights * given
    return weights


class JudgedRefit(NamedTuple):
    """A judged refit: its round, whether each judged sample agrees, how fitted."""

    round: int
    agrees: np.ndarray
    weighed: bool = False


class HeldOutJudge:
    """Held-out agreement with the given labels, refit after refit.

    Where the given label is more often right than wrong at every x, a model
    trained on labels closer to the clean ones agrees more often with the given
    labels in expectation (:func:`~sklearn_plc.evidence.agreement_gain`), so
    corrections can be judged without a clean label; verified labels judge the
    same way, without that condition.

    Parameters
    ----------
    given_labels : ndarray of int of shape (n_samples,)
        The labels as given (or verified) that predictions are compared with.
    judged : ndarray of int or None, default=None
        The samples that judge; None: all of them.
    sample_weight : ndarray of shape (n_samples,) or None, default=None
        The weight of each sample's agreement (:func:`judge_sample_weight`);
        None: equal.

    Attributes
    ----------
    reference : JudgedRefit or None
        The first judged refit, trained on the labels as given.
    last : JudgedRefit or None
        The last judged refit.
    """

    def __init__(self, given_labels, judged=None, sample_weight=None):
        self.given_labels = given_labels
        self.judged = slice(None) if judged is None else judged
        self.weights = None if sample_weight is None else sample_weight[self.judged]
        self.reference = None
        self.last = None

    def agrees(self, proba):
        """Per judged sample, whether `proba`'s top class is its given label."""
        judged = self.judged
        return proba[judged].argmax(axis=1) == self.given_labels[judged]

    def judge(self, proba, round_index):
        """Record the held-out predictions of a refit; return their agreement.

        Parameters
        ----------
        proba : ndarray of shape (n_samples, n_classes)
            Held-out probabilities of the models trained in round `round_index`.
        round_index : int
            The round whose labels those models were trained on.

        Returns
        -------
        agreement : float
            Share of the judged samples predicted as their given label.
        """
        record = JudgedRefit(round_index, self.agrees(proba))
        if self.reference is None:
            self.reference = record
        self.last = record
        return float(record.agrees.mean())

    def shows_harm(self, standard_errors):
        """Whether the last judged refit agrees clearly worse than the first.

        That is, its paired gain over the labels as given is below
        ``-standard_errors`` standard errors, by one sample more
        (:func:`~sklearn_plc.evidence.agrees_clearly_worse`; False before a
        second refit).
        """
        selection = corrections_verdict(
            self.reference, self.last, standard_errors, self.weights
        )
        return selection is not None and selection["undone"]


def corrections_verdict(reference, last, standard_errors, weights=None):
    """The evidence for the last judged labels, and whether to undo them.

    Compares the agreement of the `last` judged refit with that of the
    `reference` (models trained on the labels as given).

    Parameters
    ----------
    reference, last : JudgedRefit or None
    standard_errors : float >= 0 or None
        Undo when the paired gain is below ``-standard_errors`` standard
        errors by one judged sample more
        (:func:`~sklearn_plc.evidence.agrees_clearly_worse`; 0: any loss);
        None only records the evidence.
    weights : ndarray of shape (n_judged,) or None, default=None
        The weight of each judged sample's agreement; None: equal.

    Returns
    -------
    selection : dict or None
        ``"compared": "corrections"``, ``"round"`` and ``"holdout_agreement"``
        of the last judged (corrected) labels, ``"given_labels_agreement"``,
        their paired ``"gain"`` over the labels as given with its
        ``"standard_error"``, ``"n_judged"``, ``"undone"`` (the given labels
        are returned), ``"chosen"`` (its opposite) and ``"weighed"`` (the last
        judged models weighed the relabels as the final fit does). None when
        nothing was judged after the first refit.
    """
    if last is None or last is reference:
        return None
    gain, standard_error = agreement_gain(
        last.agrees, reference.agrees, sample_weight=weights
    )
    n_judged = int(last.agrees.shape[0])
    undone = standard_errors is not None and agrees_clearly_worse(
        gain, standard_error, n_judged, standard_errors
    )
    return {
        "compared": "corrections",
        "chosen": not undone,
        "round": last.round,
        "holdout_agreement": _weighted_mean(last.agrees, weights),
        "given_labels_agreement": _weighted_mean(reference.agrees, weights),
        "gain": gain,
        "standard_error": standard_error,
        "n_judged": n_judged,
        "undone": undone,
        "weighed": last.weighed,
        "sample_weighted": weights is not None,
    }


def _weighted_mean(agrees, weights):
    """The share of judged samples that agree, each at its weight (None: equal)."""
    return float(np.average(agrees, weights=weights))


def leave_out_verdict(agrees, reference_agrees, standard_errors, weights=None):
    """Whether models fitted without some samples agree clearly better.

    For the samples a non-memorising model surely disputes: `agrees` is, per
    judged sample, whether fold models fitted without them agree with its
    given label, and `reference_agrees` the same for the first round's
    models. They are left out where the paired gain exceeds
    `standard_errors` standard errors, each judged sample at its `weights`
    (None: equal).

    Returns
    -------
    selection : dict
        As :func:`corrections_verdict` gives it, with ``"compared":
        "set_aside"``, ``"round"`` 0, ``"undone"`` and ``"weighed"`` False,
        ``"chosen"`` (whether those samples are left out) and
        ``"standard_errors"`` (the bar it cleared or missed).
    """
    gain, standard_error = agreement_gain(
        agrees, reference_agrees, sample_weight=weights
    )
    return {
        "compared": "set_aside",
        "chosen": bool(gain > standard_errors * standard_error),
        "standard_errors": standard_errors,
        "round": 0,
        "holdout_agreement": _weighted_mean(agrees, weights),
        "given_labels_agreement": _weighted_mean(reference_agrees, weights),
        "gain": gain,
        "standard_error": standard_error,
        "n_judged": int(agrees.shape[0]),
        "undone": False,
        "weighed": False,
        "sample_weighted": weights is not None,
    }


def balanced_weights(labels):
    """Per sample, ``1 / count`` of its class: every class weighs the same in a mean."""
    counts = np.bincount(labels)
    return 1.0 / counts[labels]


def removal_verdict(agrees, incumbent_agrees, weights, standard_errors):
    """Whether models fitted without the confident disputes agree clearly better.

    `agrees` is, per judged sample, whether fold models fitted without the
    samples confident learning disputes agree with its given label, and
    `incumbent_agrees` the same for the models of the labels the run would
    otherwise train on. Each judged sample counts at its `weights`, as the
    estimator weighs it (:func:`judge_sample_weight`: balanced over the
    classes under ``class_weight="balanced"``; None: plain agreement). The
    removal is chosen where the paired gain exceeds `standard_errors`
    standard errors by one judged sample's share more (McNemar's continuity
    correction, as for the undo:
    :func:`~sklearn_plc.evidence.agrees_clearly_worse` of the opposite gain).

    Returns
    -------
    selection : dict
        As :func:`corrections_verdict` gives it, with ``"compared":
        "removal"``, ``"round"`` 0, ``"undone"`` and ``"weighed"`` False,
        ``"sample_weighted"`` (whether the judged samples counted at the
        estimator's weights) and ``"chosen"`` (whether the removal is).
    """
    gain, standard_error = agreement_gain(
        agrees, incumbent_agrees, sample_weight=weights
    )
    n_judged = int(agrees.shape[0])
    better = agrees_clearly_worse(-gain, standard_error, n_judged, standard_errors)
    return {
        "compared": "removal",
        "chosen": bool(better),
        "round": 0,
        "holdout_agreement": _weighted_mean(agrees, weights),
        "given_labels_agreement": _weighted_mean(incumbent_agrees, weights),
        "gain": gain,
        "standard_error": standard_error,
        "n_judged": n_judged,
        "undone": False,
        "weighed": False,
        "sample_weighted": weights is not None,
    }
