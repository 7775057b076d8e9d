"""What a refit run's final fit leaves out, and who may be left out at all.

Pure functions of a run's labels and held-out evidence, which the end of a run
(:mod:`sklearn_plc._ending`) and the loop's fold fits
(:mod:`sklearn_plc._paths.refit_fits`) read: a class is never emptied
(:func:`keep_every_class`); an estimator without sample weights leaves its
relabels and disputes out (:func:`doubtful_samples`, :func:`doubtful_left_out`);
the removal candidate is confident learning's disputes, each class weighed back
(:func:`confident_disputes`, :func:`removal_of_disputes`); a non-memorising
model's sure disputes need :func:`leave_out_standard_errors` to go; and a
memorising model's labels drawn at random go where it memorises them
(:func:`random_labels_left_out`). A verified (``trusted``) label is never left
out.
"""

import numpy as np

from ._judge import disputes_look_random
from ._random_label_detector import random_labels
from ._thresholds import (
    EVIDENCE_STANDARD_ERRORS,
    LEAVE_OUT_STANDARD_ERRORS,
    RANDOM_LABELS_MIN_MEMORISATION,
)
from .evidence import confident_label_issues, kept_label_rates


def keep_every_class(left_out, labels):
    """`left_out` without the samples whose class it would empty (a new array).

    Every class the labels hold keeps samples in a fit, as a correction pass
    never empties a class.
    """
    left_out = left_out.copy()
    n_classes = int(labels.max()) + 1
    kept = np.bincount(labels[~left_out], minlength=n_classes)
    emptied = (kept == 0) & (np.bincount(labels, minlength=n_classes) > 0)
    left_out[emptied[labels]] = False
    return left_out


def doubtful_samples(disputed, labels, given_labels):
    """What an estimator without sample weights leaves out: relabels and disputes.

    It cannot train a relabel at part weight, so it trains on neither of its
    labels; nor on a label the model still disputes (`disputed`), which at
    full weight its next predictions would confirm (a k-NN's neighbours vote).
    """
    return disputed | (labels != given_labels)


def confident_disputes(proba, given, trusted):
    """What confident learning disputes: never a `trusted` sample or a class's last."""
    issues = confident_label_issues(proba, given)
    if trusted is not None:
        issues &= ~trusted
    return keep_every_class(issues, given)


def removal_of_disputes(evidence, weighable):
    """``(left_out, class_weight)``: the removal candidate; None if it removes nothing.

    The samples confident learning disputes on the first round's held-out
    probabilities (every sample, the judged ones too; never a ``trusted``
    one, never a class's last), and, where the estimator takes sample
    weights, each class ``k``'s weight ``1 / P(given = k | true = k)``
    (:func:`~sklearn_plc.evidence.kept_label_rates`), which gives back to a
    class the share that its removed (and mislabelled) samples took; None
    where it cannot weigh.
    """
    given = evidence.given_labels
    proba = np.asarray(evidence.first_proba, dtype=np.float64)
    left_out = confident_disputes(proba, given, evidence.trusted)
    if not left_out.any():
        return None
    class_weight = 1.0 / kept_label_rates(proba, given) if weighable else None
    return left_out, class_weight


def leave_out_standard_errors(memorisation):
    """The bar a non-memorising model's leave-out must clear, in standard errors.

    Agreement with the given labels rewards a smooth model that drops its
    sure disputes wherever the noise follows its boundary (feature-dependent
    noise): it then agrees better with noisy labels that lie as its boundary
    does, worth a standard error or two whatever the clean labels say, so
    the bar is ``LEAVE_OUT_STANDARD_ERRORS`` (3). Where the model's disputes
    clearly look drawn at random
    (:func:`~sklearn_plc._judge.disputes_look_random`), the noise is
    independent of the features, and agreement with the given labels is an
    increasing affine function of agreement with the clean ones: a gain in
    it is a gain in accuracy, and the bar is every other verdict's,
    ``EVIDENCE_STANDARD_ERRORS`` (1).
    """
    if memorisation is not None and disputes_look_random(memorisation):
        return EVIDENCE_STANDARD_ERRORS
    return LEAVE_OUT_STANDARD_ERRORS


def random_labels_left_out(evidence):
    """``(set_aside, memorisation)``: the first round's random-looking disputes.

    Reads the first round's held-out probabilities with
    :func:`~sklearn_plc._random_label_detector.random_labels` and records the
    share of random labels among the disputes (``"random_label_share"``; None
    in two classes) and how many it leaves out (``"random_labels_left_out"``).
    They are left out only where the model memorises at least
    ``RANDOM_LABELS_MIN_MEMORISATION`` of the labels it disputes; verified
    labels never are.
    """
    labels = evidence.given_labels
    random, share = random_labels(np.asarray(evidence.first_proba, dtype=float), labels)
    if evidence.trusted is not None:
        random &= ~evidence.trusted
    memorisation = {
        **evidence.memorisation,
        "random_label_share": share,
        "random_labels_left_out": 0,
    }
    if memorisation["rate"] < RANDOM_LABELS_MIN_MEMORISATION:
        return None, memorisation
    random = keep_every_class(random, labels)
    memorisation["random_labels_left_out"] = int(random.sum())
    return (random if random.any() else None), memorisation


def doubtful_left_out(set_aside, evidence, settings):
    """What a kept run's final fit leaves out besides `set_aside`.

    ``doubtful="set_aside"``: the labels still disputed; ``"auto"`` where the
    estimator cannot weigh: every relabel and every dispute.
    """
    left_out = [] if set_aside is None else [set_aside]
    if settings.doubtful == "set_aside":
        left_out.append(evidence.disputed)
    elif settings.doubtful == "auto" and not settings.weighable:
        left_out.append(
            doubtful_samples(evidence.disputed, evidence.labels, evidence.given_labels)
        )
    if not left_out:
        return None
    return keep_every_class(np.logical_or.reduce(left_out), evidence.labels)
