"""The held-out evidence PLC acts on, as pure functions.

Where the refit path decides whether to correct at all, to keep or undo the
corrections, or to leave samples out, it reads held-out predictions against the
labels as given. These functions turn those predictions into the figures it
decides on: the paired gain in agreement with the given labels and whether a
loss is clear (:func:`agreement_gain`, :func:`agrees_clearly_worse`), the
share of the contradicted labels a model fits in sample
(:func:`memorisation_rate`), and the labels that confident learning disputes
(:func:`confident_label_issues`). The correction rule itself is in
:mod:`sklearn_plc.correction`.
"""

import numpy as np

from .correction import _check_proba_and_labels

__all__ = [
    "agreement_gain",
    "agrees_clearly_worse",
    "confident_label_issues",
    "memorisation_rate",
]


def _paired_agreements(first, second, names):
    """Both agreement vectors as float64, checked to pair one value per sample."""
    arrays = [np.asarray(values, dtype=np.float64) for values in (first, second)]
    for array, name in zip(arrays, names, strict=True):
        if array.ndim != 1:
            raise ValueError(
                f"{name} must be a 1-D array with one entry per sample; got an "
                f"array of shape {array.shape}."
            )
    if arrays[0].shape != arrays[1].shape:
        raise ValueError(
            f"{names[0]} and {names[1]} must pair one entry per sample; got "
            f"{arrays[0].shape[0]} and {arrays[1].shape[0]} entries."
        )
    if arrays[0].shape[0] == 0:
        raise ValueError(
            f"{names[0]} and {names[1]} are empty; the evidence needs at least "
            f"one sample."
        )
    return arrays


def agreement_gain(agrees, reference_agrees, sample_weight=None):
    """Paired gain in held-out agreement with the given labels, and its error.

    Each candidate set of training labels is judged by the out-of-fold
    predictions of models trained on it: the share of samples whose prediction
    equals the sample's *given* (noisy) label. Where the noise leaves the given
    label more often right than wrong at every x, the classifier with the
    higher expected agreement is the one that agrees more with the clean labels
    (for two classes, agreement is ``E[ρ] + E[(1 − 2ρ(x)) 1{h(x) = y}]`` with
    flip probability ``ρ < ½``), so no clean label is needed to compare.

    Parameters
    ----------
    agrees : array-like of bool of shape (n_samples,)
        Whether the candidate's out-of-fold prediction equals the given label.
    reference_agrees : array-like of bool of shape (n_samples,)
        The same for the reference (e.g. the labels as given).
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Weights of the samples in both means (None: equal).

    Returns
    -------
    gain : float
        ``mean(agrees) − mean(reference_agrees)``, weighted.
    standard_error : float
        Standard error of `gain` over samples (the comparison is paired: only
        samples on which the two disagree contribute).

    Raises
    ------
    ValueError
        If `agrees` and `reference_agrees` do not pair one entry per sample
        (1-D, of one length, not empty).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.evidence import agreement_gain
    >>> gain, se = agreement_gain(np.array([1, 1, 1, 0]), np.array([1, 0, 1, 0]))
    >>> round(gain, 3), round(se, 3)
    (0.25, 0.217)
    """
    agrees, reference_agrees = _paired_agreements(
        agrees, reference_agrees, ("agrees", "reference_agrees")
    )
    difference = agrees - reference_agrees
    n_samples = difference.shape[0]
    if sample_weight is None:
        return float(difference.mean()), float(difference.std() / np.sqrt(n_samples))
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.shape != difference.shape or np.any(weights < 0) or weights.sum() <= 0:
        raise ValueError(
            f"sample_weight must hold one non-negative weight per sample "
            f"({n_samples}), not all 0; got shape {weights.shape}."
        )
    weights = weights / weights.sum()
    gain = float(weights @ difference)
    return gain, float(np.sqrt(np.sum(weights**2 * (difference - gain) ** 2)))


def agrees_clearly_worse(gain, standard_error, n_samples, standard_errors):
    """Whether a paired agreement gain is below ``-standard_errors`` standard errors.

    The gain of :func:`agreement_gain` is ``(c − b) / n`` for ``b`` samples that
    only the reference agrees with and ``c`` that only the candidate does. Its
    normal approximation is poor when few samples differ: one sample that only
    the reference agrees with gives ``z ≈ −1`` on any number of samples, while
    a sign test on one discordant sample has a one-sided p of ½. The comparison
    therefore takes the continuity correction of McNemar's test (Edwards):
    the loss must clear the bar by one sample, ``gain + 1 / n < −k · SE``.
    With many discordant samples this is the plain comparison; with one or two
    it never says "worse" at a bar of one standard error or more. A bar of 0
    (any loss) is a plain comparison of the counts, which needs no correction.

    Parameters
    ----------
    gain, standard_error : float
        From :func:`agreement_gain`.
    n_samples : int
        The number of samples compared.
    standard_errors : float >= 0
        The bar ``k``.

    Returns
    -------
    bool

    Examples
    --------
    >>> from sklearn_plc.evidence import agrees_clearly_worse
    >>> agrees_clearly_worse(-1 / 25, 0.0392, 25, 1.0)  # one sample of 25
    False
    >>> agrees_clearly_worse(-3 / 25, 0.065, 25, 1.0)  # three, none the other way
    True
    """
    if standard_errors == 0:
        return gain < 0
    return gain + 1 / n_samples < -standard_errors * standard_error


def could_call_worse(differ, standard_errors, sample_weight=None):
    """Whether a paired comparison in which `differ` disagree could say "worse".

    :func:`agrees_clearly_worse` needs the loss to clear its bar by one
    sample. Where so few samples are predicted differently that the candidate
    would not be called worse even were every one of them against it (one or
    two samples at a bar of one standard error, equally weighted), the
    comparison holds no evidence about the candidate either way: its verdict
    was never at stake.

    Parameters
    ----------
    differ : array-like of bool of shape (n_samples,)
        Whether the two predictions of each sample differ.
    standard_errors : float >= 0
        The bar ``k`` of :func:`agrees_clearly_worse`.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        The comparison's weights (:func:`agreement_gain`).

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.evidence import could_call_worse
    >>> differ = np.zeros(124, dtype=bool)
    >>> differ[:2] = True
    >>> could_call_worse(differ, 1.0)
    False
    >>> differ[2] = True
    >>> could_call_worse(differ, 1.0)
    True
    """
    differ = np.asarray(differ, dtype=bool)
    reference = np.ones(differ.shape[0], dtype=bool)
    gain, standard_error = agreement_gain(~differ, reference, sample_weight)
    return agrees_clearly_worse(gain, standard_error, differ.shape[0], standard_errors)


def memorisation_rate(in_sample_agrees, out_of_fold_agrees):
    """Share of the labels a model contradicts out of fold that it fits in sample.

    PLC's premise is a model that fits (memorises) its noisy labels: its
    training predictions follow the given labels, while predictions on samples
    it did not train on follow the classes. Where a model does not memorise
    (a regularised linear model with many samples per parameter), it already
    averages the noise out, and relabelling its training samples to its own
    predictions only entrenches its own errors. This measures which regime a
    model is in, from the given labels alone.

    Parameters
    ----------
    in_sample_agrees : array-like of bool of shape (n_samples,)
        Whether a model trained on all samples predicts each sample's given
        label.
    out_of_fold_agrees : array-like of bool of shape (n_samples,)
        Whether the out-of-fold prediction (a model that did not train on the
        sample) equals its given label.

    Returns
    -------
    rate : float
        ``(in-sample agreement − out-of-fold agreement) / (1 − out-of-fold
        agreement)``: 0 when training on a sample does not change its
        prediction, 1 when the model fits every label it would otherwise
        contradict. 0 when the out-of-fold predictions agree with every label
        (there is nothing to memorise).

    Raises
    ------
    ValueError
        If `in_sample_agrees` and `out_of_fold_agrees` do not pair one entry
        per sample (1-D, of one length, not empty).

    Examples
    --------
    >>> from sklearn_plc.evidence import memorisation_rate
    >>> memorisation_rate([1, 1, 1, 1], [1, 1, 0, 0])  # fits both it missed
    1.0
    >>> memorisation_rate([1, 1, 0, 0], [1, 1, 0, 0])
    0.0
    """
    in_sample, out_of_fold = (
        values.mean()
        for values in _paired_agreements(
            in_sample_agrees,
            out_of_fold_agrees,
            ("in_sample_agrees", "out_of_fold_agrees"),
        )
    )
    if out_of_fold >= 1.0:
        return 0.0
    return float((in_sample - out_of_fold) / (1.0 - out_of_fold))


def confident_label_issues(proba, labels):
    """The labels that held-out `proba` disputes with confidence (confident learning).

    Confident learning (Northcutt, Jiang and Chuang, 2021) counts, for each
    given class ``i`` and each other class ``j``, how many samples labelled
    ``i`` are confidently of class ``j``: a sample is confidently of the most
    likely class whose probability reaches that class's threshold, the mean
    probability of the class over the samples labelled with it. Each given
    class's counts are scaled to the number of samples it labels (the
    calibrated confident joint). Then, for each pair ``(i, j)``, the samples
    labelled ``i`` with the largest margin ``p_j − p_i`` are flagged, as many as
    the pair's count ("prune by noise rate"). A sample whose most likely class
    is its given label is never flagged.

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        Held-out class probabilities (out of fold).
    labels : array-like of int of shape (n_samples,)
        Given labels, as class indices.

    Returns
    -------
    issues : ndarray of bool of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.evidence import confident_label_issues
    >>> proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.1, 0.9], [0.2, 0.8]])
    >>> confident_label_issues(proba, np.array([0, 0, 0, 1, 1])).tolist()
    [False, False, True, False, False]
    """
    proba, labels = _check_proba_and_labels(proba, labels)
    n_samples, n_classes = proba.shape
    rows = np.arange(n_samples)
    scaled = _calibrated_confident_joint(proba, labels)
    counts = _round_preserving_row_totals(scaled)
    issues = np.zeros(n_samples, dtype=bool)
    for label in range(n_classes):
        members = np.flatnonzero(labels == label)
        for other in range(n_classes):
            count = counts[label, other]
            if other == label or count <= 0:
                continue
            margin = proba[members, other] - proba[members, label]
            issues[members[np.argsort(-margin, kind="stable")[:count]]] = True
    top = proba.argmax(axis=1)
    issues &= proba[rows, top] > proba[rows, labels]
    return issues


def _calibrated_confident_joint(proba, labels):
    """Confident learning's joint count of (given, true) classes, scaled to the labels.

    A sample is counted as confidently of the most likely class whose
    probability reaches that class's threshold, the mean probability of the
    class over the samples labelled with it; each given class's counts are
    then scaled to the number of samples it labels.
    """
    n_samples, n_classes = proba.shape
    rows = np.arange(n_samples)
    given = np.bincount(labels, minlength=n_classes)
    own = np.bincount(labels, weights=proba[rows, labels], minlength=n_classes)
    thresholds = np.divide(own, given, out=np.full(n_classes, np.inf), where=given > 0)
    above = proba >= thresholds - 1e-6
    confident = above.any(axis=1)
    assigned = np.where(above, proba, -np.inf).argmax(axis=1)
    joint = np.zeros((n_classes, n_classes))
    np.add.at(joint, (labels[confident], assigned[confident]), 1.0)
    counted = joint.sum(axis=1)
    return np.divide(
        joint * given[:, None],
        counted[:, None],
        out=np.zeros_like(joint),
        where=counted[:, None] > 0,
    )


def kept_label_rates(proba, labels):
    """Per class, the estimated share of its samples whose given label is right.

    Confident learning's estimate of ``P(given = k | true = k)``: the diagonal
    of the calibrated confident joint over its column totals. Where a class
    loses more of its samples to other labels than it receives (one-sided
    noise: a share of the positives labelled negative), its rate is the lower
    one, and ``1 / rate`` is the weight that restores its share among the
    samples a removal keeps (``CleanLearning``'s final fit weighs so).

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        Held-out class probabilities.
    labels : array-like of int of shape (n_samples,)
        Given labels, as class indices.

    Returns
    -------
    rates : ndarray of shape (n_classes,)
        In (0, 1]; 1 for a class no sample is counted into.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.evidence import kept_label_rates
    >>> proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.8], [0.1, 0.9]])
    >>> kept_label_rates(proba, np.array([0, 0, 0, 1, 1])).round(2).tolist()
    [1.0, 0.67]
    """
    proba, labels = _check_proba_and_labels(proba, labels)
    joint = _calibrated_confident_joint(proba, labels)
    true_totals = joint.sum(axis=0)
    diagonal = np.diag(joint)
    rates = np.divide(
        diagonal, true_totals, out=np.ones_like(diagonal), where=true_totals > 0
    )
    return np.clip(rates, 1e-3, 1.0)


def drained_class_caps(proba, labels, standard_errors):
    """Per class, the most of its given labels a correction may move to another class.

    Where confident learning counts clearly fewer of a class's given labels
    wrong (its outflow) than of its true members labelled otherwise (its
    inflow), the noise drains the class (one-sided noise: a share of the
    positives labelled negative). A model trained on such labels
    under-predicts the class, so its confident disagreements point away from
    it; a correction may then move at most confident learning's count of its
    given labels away. Elsewhere there is no cap.

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        Class probabilities (held out where the run has them).
    labels : array-like of int of shape (n_samples,)
        Given labels, as class indices.
    standard_errors : float
        "Clearly": the outflow plus this many of its Poisson standard errors
        is below the inflow less this many of its own.

    Returns
    -------
    caps : ndarray of shape (n_classes,)
        The outflow, rounded, for a drained class; ``inf`` for the others.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.evidence import drained_class_caps
    >>> labels = np.repeat([0, 1], [90, 10])
    >>> proba = np.tile([0.95, 0.05], (100, 1))
    >>> proba[70:] = [0.2, 0.8]  # 20 positives among the labels 0
    >>> drained_class_caps(proba, labels, 2.0).tolist()
    [inf, 0.0]
    """
    proba, labels = _check_proba_and_labels(proba, labels)
    joint = _calibrated_confident_joint(proba, labels)
    right = np.diag(joint)
    outflow = joint.sum(axis=1) - right  # given the class, truly another
    inflow = joint.sum(axis=0) - right  # truly the class, given another
    drained = outflow + standard_errors * np.sqrt(outflow) < (
        inflow - standard_errors * np.sqrt(inflow)
    )
    return np.where(drained, np.round(outflow), np.inf)


def _round_preserving_row_totals(values):
    """Round each row to integers with the row's (rounded) total kept."""
    floored = np.floor(values).astype(np.intp)
    short = np.round(values.sum(axis=1)).astype(np.intp) - floored.sum(axis=1)
    order = np.argsort(-(values - floored), axis=1, kind="stable")
    for row, missing in enumerate(short):
        floored[row, order[row, : max(missing, 0)]] += 1
    return floored
