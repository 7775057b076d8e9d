"""The label-correction rule of PLC and its threshold schedule, as pure functions.

Every entry point of the library (the scikit-learn meta-estimator and the neural
network path) calls these functions, so the rule lives in exactly one place.

The multi-class rule (Zhang et al., 2021, "Generalizing to the multi-class
scenario", with the "difference of logarithms" used in their experiments): a
sample with current label ``y`` and predicted probabilities ``f(x)`` is relabelled
to ``argmax_j f_j(x)`` when

.. math::

    \\frac{f_y(x)}{\\max_j f_j(x)} < \\delta
    \\quad\\Longleftrightarrow\\quad
    \\log \\max_j f_j(x) - \\log f_y(x) > -\\log \\delta ,

with the threshold ``δ`` in (0, 1]. ``δ`` is the paper's ``exp(θ0)`` at the start
and grows towards ``δ_end`` as the correction proceeds, so the rule starts with
the most confident disagreements and is relaxed step by step.
"""

from numbers import Integral, Real

import numpy as np

__all__ = [
    "align_class_distribution",
    "confidence_ratio",
    "correct_labels",
    "is_quiet_pass",
    "next_threshold",
    "relabel_weights",
]

SCHEDULES = ("additive", "multiplicative")
# Probabilities per block of rows in a correction pass (about 1 MB of float32).
PASS_BLOCK_VALUES = 1 << 18


def _check_proba_and_labels(proba, *label_arrays):
    """`proba` and each array of labels checked against it: ``(proba, *labels)``."""
    proba = np.asarray(proba)
    if proba.ndim != 2:
        raise ValueError(
            f"proba must be a 2-D array of shape (n_samples, n_classes); got an "
            f"array of shape {proba.shape}."
        )
    checked = [_check_labels(proba, np.asarray(labels)) for labels in label_arrays]
    # one reduction, no array of flags, unless something is not finite
    n_rows = 0
    if proba.dtype.kind in "fc":
        with np.errstate(over="ignore"):  # huge finite scores may overflow the sum
            total = proba.sum(dtype=np.float64)
        if not np.isfinite(total):
            n_rows = np.count_nonzero(~np.isfinite(proba).all(axis=1))
    if n_rows:
        raise ValueError(
            f"proba holds NaN or infinite values in {n_rows} rows, where no label "
            f"confidence can be compared. Fix the model's probabilities first (a "
            f"net whose loss went to NaN diverged: lower its learning rate)."
        )
    return (proba, *checked)


def _check_labels(proba, labels):
    """`labels` as class indices into the columns of `proba`, one per row."""
    if labels.shape != (proba.shape[0],):
        raise ValueError(
            f"labels must be a 1-D array with one entry per row of proba "
            f"({proba.shape[0]}); got shape {labels.shape}."
        )
    if labels.dtype.kind not in "iu":
        raise ValueError(
            f"labels must be integer class indices into the columns of proba; got "
            f"dtype {labels.dtype}. Encode them first, e.g. with "
            f"np.unique(y, return_inverse=True)."
        )
    if labels.size and (labels.min() < 0 or labels.max() >= proba.shape[1]):
        raise ValueError(
            f"labels must lie in [0, {proba.shape[1] - 1}] (one column of proba per "
            f"class); got values in [{labels.min()}, {labels.max()}]."
        )
    return labels


def _label_and_top_proba(proba, labels):
    """Return ``(f_y, f_max, argmax)``, the first two as float64 vectors."""
    top_class = proba.argmax(axis=1)
    rows = np.arange(proba.shape[0])
    # Gather the two needed entries in the input dtype (exact), then compare in
    # float64 so that float32 and float64 inputs holding the same values decide
    # identically.
    top_proba = proba[rows, top_class].astype(np.float64, copy=False)
    label_proba = proba[rows, labels].astype(np.float64, copy=False)
    return label_proba, top_proba, top_class


def confidence_ratio(proba, labels):
    """Ratio of the probability of the current label to the top probability.

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        Predicted class probabilities.
    labels : array-like of int of shape (n_samples,)
        Current labels, as column indices into ``proba``.

    Returns
    -------
    ratio : ndarray of float64 of shape (n_samples,)
        ``proba[i, labels[i]] / proba[i].max()``, in [0, 1]; 1 where the label is
        the predicted class. A row of all zeros gives 1 (no evidence against the
        label). A sample is corrected at threshold ``δ`` exactly when its ratio is
        below ``δ``.

    Raises
    ------
    ValueError
        If `proba` is not 2-D or holds NaN or infinite values, `labels` has
        another length, or `labels` are not integer column indices of `proba`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.correction import confidence_ratio
    >>> confidence_ratio(np.array([[0.8, 0.2], [0.5, 0.5]]), np.array([1, 0]))
    array([0.25, 1.  ])
    """
    proba, labels = _check_proba_and_labels(proba, labels)
    label_proba, top_proba, _ = _label_and_top_proba(proba, labels)
    ratio = np.ones_like(top_proba)
    np.divide(label_proba, top_proba, out=ratio, where=top_proba > 0)
    return ratio


def relabel_weights(proba, given_labels, labels):
    """Weight of each relabel against the given label, from the probabilities.

    Where the label was changed, the final model can train on both classes: the
    new one at weight ``w = f_new(x) / (f_new(x) + f_given(x))`` and the given
    one at ``1 − w``. A sure relabel (``f_given`` near 0) keeps nearly all the
    weight; a coin toss between the two (``w`` near ½) leaves the sample
    neutral, as if set aside, without dropping its features.

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        Held-out class probabilities (the ones the last pass read).
    given_labels : array-like of int of shape (n_samples,)
        The labels as given, as column indices into `proba`.
    labels : array-like of int of shape (n_samples,)
        The corrected labels, as column indices into `proba`.

    Returns
    -------
    weights : ndarray of float64 of shape (n_samples,)
        ``w`` where the label changed, 1 elsewhere; ½ where both probabilities
        are 0.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.correction import relabel_weights
    >>> proba = np.array([[0.1, 0.9], [0.4, 0.6], [0.7, 0.3]])
    >>> relabel_weights(proba, np.array([0, 0, 0]), np.array([1, 1, 0]))
    array([0.9, 0.6, 1. ])
    """
    proba, labels, given_labels = _check_proba_and_labels(proba, labels, given_labels)
    rows = np.arange(proba.shape[0])
    new = proba[rows, labels].astype(np.float64)
    given = proba[rows, given_labels].astype(np.float64)
    total = new + given
    weights = np.full(new.shape, 0.5)
    np.divide(new, total, out=weights, where=total > 0)
    weights[labels == given_labels] = 1.0
    return weights


def _floor_to_dtype(values, dtype):
    """The largest values of `dtype` at most `values` (float64), elementwise.

    For ``x`` of a narrower float dtype, ``x > values`` exactly when ``x >
    _floor_to_dtype(values, dtype)``, so the comparison runs in ``x``'s own
    dtype (no float64 copy) and decides as it would in float64.
    """
    if dtype.kind != "f" or dtype.itemsize >= 8:
        return values
    narrow = values.astype(dtype)
    rounded_up = narrow > values
    narrow[rounded_up] = np.nextafter(narrow[rounded_up], dtype.type(-np.inf))
    return narrow


def _correct_block(proba, labels, threshold, min_confidence, runner_up_ratio):
    """:func:`correct_labels` on a block of rows: ``(changed, top_class)``."""
    label_proba, top_proba, top_class = _label_and_top_proba(proba, labels)
    changed = label_proba < threshold * top_proba
    if min_confidence > 0:
        changed &= top_proba >= min_confidence
    if runner_up_ratio < 1 and changed.any():
        # Count the classes above the margin: the top class always is, the
        # label may be, a third class must not be. Only the candidates' rows
        # are read where they are few (most labels agree with the model).
        rows = np.flatnonzero(changed) if 2 * changed.sum() < changed.size else None
        if rows is not None:
            proba, top_proba, label_proba = (
                proba[rows],
                top_proba[rows],
                label_proba[rows],
            )
        margin = runner_up_ratio * top_proba
        above = np.count_nonzero(
            proba > _floor_to_dtype(margin, proba.dtype)[:, None], axis=1
        )
        clear = above - (top_proba > 0) - (label_proba > margin) == 0
        if rows is None:
            changed &= clear
        else:
            changed[rows] = clear
    return changed, top_class


def correct_labels(proba, labels, threshold, min_confidence=0.0, runner_up_ratio=1.0):
    r"""Run one correction pass: relabel samples whose label is much less likely.

    With :math:`f` the row ``proba[i]``, :math:`y` its label ``labels[i]`` and
    :math:`\delta` the ``threshold``, the paper's rule is

    .. math::

        \frac{f_y}{\max_j f_j} < \delta
        \quad\Longrightarrow\quad
        y \leftarrow \operatorname*{arg\,max}_j f_j .

    That is, a sample is corrected when ``proba[i, labels[i]] < threshold * max_j
    proba[i, j]``, i.e. when its :func:`confidence_ratio` is below ``threshold``,
    and ``max_j proba[i, j] >= min_confidence`` and every class other than
    the current label and the top class has at most ``runner_up_ratio *
    max_j proba[i, j]``; its new label is ``argmax_j proba[i, j]``. The
    comparison is multiplied out, so zero probabilities and ties need no
    division: a label tied with the top class is never corrected, a label of
    probability zero is corrected whenever another class has positive
    probability.

    Parameters
    ----------
    proba : array-like of float of shape (n_samples, n_classes)
        Predicted class probabilities (float32 or float64). Rows need not sum to 1;
        only ratios within a row matter.
    labels : array-like of int of shape (n_samples,)
        Current labels, as column indices into ``proba``. Not modified.
    threshold : float in (0, 1]
        The ratio threshold ``δ``. Larger values correct more samples.
    min_confidence : float in [0, 1], default=0.0
        The least probability of the new class. ``0.5`` corrects only where
        the model finds the new class more likely than all others together;
        ``0`` is the paper's rule (the ratio alone). Unlike the ratio, this
        floor reads the probabilities themselves, so rows should sum to 1.
    runner_up_ratio : float in (0, 1], default=1.0
        The largest ratio to the top class's probability of any third class
        (neither the current label nor the top class) at which a sample may
        still be relabelled. The ratio ``threshold`` weighs the evidence
        against the current label; this one asks whether the new label is the
        right alternative: ``0.5`` corrects only where the new class is at
        least twice as likely as every other alternative, so a label is not
        moved to one of two classes the model cannot tell apart. ``1`` turns
        it off (the paper's rule); it has no effect with two classes.
        ``PLCClassifier`` and ``PLCCallback`` use 0.5 by default. Like
        the threshold, it compares probabilities within a row.

    Returns
    -------
    new_labels : ndarray of shape (n_samples,)
        The corrected labels, same dtype as ``labels``.
    changed : ndarray of bool of shape (n_samples,)
        Which samples were relabelled. Since ``δ <= 1``, every corrected sample
        changes its label.

    Raises
    ------
    ValueError
        If the shapes disagree, ``proba`` holds NaN or infinite values,
        ``labels`` are not valid column indices, or ``threshold`` is outside
        (0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.correction import correct_labels
    >>> proba = np.array([[0.9, 0.1], [0.6, 0.4], [0.2, 0.8]])
    >>> correct_labels(proba, np.array([1, 1, 1]), threshold=0.3)
    (array([0, 1, 1]), array([ True, False, False]))
    """
    if not isinstance(threshold, Real) or not 0 < threshold <= 1:
        raise ValueError(f"threshold must be a number in (0, 1]; got {threshold!r}.")
    if not isinstance(min_confidence, Real) or not 0 <= min_confidence <= 1:
        raise ValueError(
            f"min_confidence must be a number in [0, 1]; got {min_confidence!r}."
        )
    if not isinstance(runner_up_ratio, Real) or not 0 < runner_up_ratio <= 1:
        raise ValueError(
            f"runner_up_ratio must be a number in (0, 1]; got {runner_up_ratio!r}."
        )
    proba, labels = _check_proba_and_labels(proba, labels)
    n_samples, n_classes = proba.shape
    changed = np.empty(n_samples, dtype=bool)
    top_class = np.empty(n_samples, dtype=np.intp)
    # Blocks of about a megabyte stay in cache for the few passes over them.
    block_rows = max(1, PASS_BLOCK_VALUES // max(1, n_classes))
    for start in range(0, n_samples, block_rows):
        rows = slice(start, start + block_rows)
        changed[rows], top_class[rows] = _correct_block(
            proba[rows],
            labels[rows],
            float(threshold),
            float(min_confidence),
            float(runner_up_ratio),
        )
    new_labels = np.where(changed, top_class.astype(labels.dtype, copy=False), labels)
    return new_labels, changed


def cap_moves_out_of_classes(proba, given_labels, labels, new_labels, caps):
    """`new_labels` with the moves that take a class past its cap undone.

    Per given class ``k``, at most ``caps[k]`` samples given ``k`` may carry
    another label; where `new_labels` has more, this pass's moves out of
    ``k`` (the samples whose label changes from `labels`) go back, those
    whose given label is likeliest against the new one first.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        The probabilities the pass read.
    given_labels, labels, new_labels : ndarray of int of shape (n_samples,)
        The labels as given, before the pass, and after it.
    caps : ndarray of shape (n_classes,)
        Per class, the most samples given it that may be relabelled (``inf``:
        no cap; see :func:`~sklearn_plc.evidence.drained_class_caps`).

    Returns
    -------
    new_labels : ndarray of int of shape (n_samples,)
        A new array.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.correction import cap_moves_out_of_classes
    >>> proba = np.array([[0.9, 0.1], [0.6, 0.4], [0.7, 0.3], [0.1, 0.9]])
    >>> given = np.array([1, 1, 1, 0])
    >>> new = np.array([0, 0, 0, 1])
    >>> cap_moves_out_of_classes(proba, given, given, new, np.array([np.inf, 1]))
    array([0, 1, 1, 1])
    """
    new_labels = np.array(new_labels, copy=True)
    moved = new_labels != given_labels
    fresh = np.flatnonzero(new_labels != labels)
    for k in np.flatnonzero(np.isfinite(caps)):
        excess = int(np.count_nonzero(moved & (given_labels == k)) - caps[k])
        if excess <= 0:
            continue
        leaving = fresh[given_labels[fresh] == k]
        given_odds = proba[leaving, k] / np.maximum(
            proba[leaving, new_labels[leaving]], np.finfo(float).tiny
        )
        back = leaving[np.argsort(-given_odds, kind="stable")[:excess]]
        new_labels[back] = labels[back]
    return new_labels


def align_class_distribution(proba, class_prior, sample_weight=None):
    """Rescale predicted probabilities so that their mean follows a class prior.

    Distribution alignment (as in ReMixMatch, Berthelot et al., 2020): each
    class's column is multiplied by ``class_prior[c] / mean_i proba[i, c]`` and
    every row is renormalised. A model trained on labels it relabels itself
    drifts: where it over-predicts a class, a pass moves labels to that class,
    the next fit over-predicts it more, and a class can absorb its neighbours
    while label purity still rises. Aligned, a pass reads each class's evidence
    relative to how often the model predicts it, so a class no longer grows by
    the model's own bias.

    Parameters
    ----------
    proba : array-like of float of shape (n_samples, n_classes)
        Predicted class probabilities (rows summing to 1). Not modified.
    class_prior : array-like of float of shape (n_classes,)
        The class frequencies the mean prediction should have (PLC: those of
        the labels as given). Non-negative, summing to 1.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Weights of the samples in the mean prediction (None: equal), so that
        a sample of weight 2 counts as two copies of it.

    Returns
    -------
    aligned : ndarray of shape (n_samples, n_classes)
        The rescaled probabilities, in `proba`'s floating dtype. A class the
        model never predicts (mean 0) stays at 0; a row whose rescaled
        probabilities are all 0 is left as it was.

    Raises
    ------
    ValueError
        If `class_prior` does not have one non-negative entry per column of
        `proba`, or `sample_weight` one entry per row.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.correction import align_class_distribution
    >>> proba = np.array([[0.9, 0.1], [0.6, 0.4], [0.5, 0.5]])
    >>> aligned = align_class_distribution(proba, np.array([0.5, 0.5]))
    >>> aligned.argmax(axis=1)  # the model's excess of class 0 is taken out
    array([0, 1, 1])
    >>> aligned.mean(axis=0).round(2)
    array([0.53, 0.47])
    """
    proba = np.asarray(proba)
    if not np.issubdtype(proba.dtype, np.floating):
        proba = proba.astype(np.float64)
    prior = np.asarray(class_prior, dtype=np.float64)
    if proba.ndim != 2 or prior.shape != (proba.shape[1],) or np.any(prior < 0):
        raise ValueError(
            f"class_prior must hold one non-negative frequency per class, "
            f"{proba.shape[-1]} here; got {prior!r}."
        )
    if sample_weight is not None and np.shape(sample_weight) != proba.shape[:1]:
        raise ValueError(
            f"sample_weight must hold one weight per row of proba ({proba.shape[0]}); "
            f"got shape {np.shape(sample_weight)}."
        )
    mean = np.average(
        proba.astype(np.float64, copy=False), axis=0, weights=sample_weight
    )
    weights = np.divide(prior, mean, out=np.ones_like(mean), where=mean > 0)
    aligned = proba * weights.astype(proba.dtype)
    total = aligned.sum(axis=1, keepdims=True)
    return np.divide(aligned, total, out=proba.copy(), where=total > 0)


def is_quiet_pass(n_corrected, n_samples, min_correction_rate):
    """Whether a pass changed few enough labels for the threshold to be relaxed.

    Parameters
    ----------
    n_corrected : int
        How many labels the pass changed.
    n_samples : int
        How many samples the pass examined.
    min_correction_rate : float in [0, 1)
        A pass is quiet when it changed at most ``min_correction_rate *
        n_samples`` labels; ``0`` means "changed nothing" (Algorithm 1).

    Returns
    -------
    quiet : bool

    Examples
    --------
    >>> from sklearn_plc.correction import is_quiet_pass
    >>> is_quiet_pass(1, 1000, 0.001), is_quiet_pass(2, 1000, 0.001)
    (True, False)
    """
    return n_corrected <= min_correction_rate * n_samples


def next_threshold(
    threshold,
    n_corrected,
    n_samples,
    *,
    step,
    end,
    schedule="additive",
    min_correction_rate=0.001,
):
    r"""Relax the threshold after a correction pass that changed few labels.

    The threshold is raised only after a quiet pass (:func:`is_quiet_pass`: at
    most ``min_correction_rate * n_samples`` labels changed, so the data has
    settled at the current level); otherwise the next pass uses the same level.
    With :math:`\beta` the ``step`` and :math:`\delta_{\mathrm{end}}` the ``end``:

    .. math::

        \delta \leftarrow \min(\delta + \beta,\ \delta_{\mathrm{end}})
        \ \text{(additive)}, \qquad
        \delta \leftarrow \min\bigl(\delta\,(1 + \beta),\ \delta_{\mathrm{end}}\bigr)
        \ \text{(multiplicative)}.

    Parameters
    ----------
    threshold : float
        The threshold ``δ`` used in the pass.
    n_corrected : int
        How many labels the pass changed.
    n_samples : int
        How many samples the pass examined.
    step : float > 0
        The paper's ``β``.
    end : float in (0, 1]
        The largest threshold, ``δ_end``; the result never exceeds it.
    schedule : {"additive", "multiplicative"}, default="additive"
        ``"additive"``: ``δ ← min(δ + β, δ_end)``, the rule of the authors' public
        scripts. ``"multiplicative"``: ``δ ← min(δ (1 + β), δ_end)``, Algorithm 1's
        ``T ← min(T(1 + β), T_end)`` with ``T`` played by ``δ`` (both are the
        quantity that grows as the rule is relaxed).
    min_correction_rate : float in [0, 1), default=0.001
        The fraction of samples below which a pass counts as quiet. The scripts
        use 0.001; ``0`` reproduces Algorithm 1 (raise only after a pass that
        changed no label). This function's default is the scripts' rule, not
        ``PLCClassifier``'s ``"auto"`` (0.1 for a refit estimator, 0.001 for an
        epoch run): pass the rate your run uses.

    Returns
    -------
    threshold : float
        The threshold for the next pass.

    Raises
    ------
    ValueError
        If `schedule` is unknown, `n_corrected` is not a non-negative int, or
        `step` is not positive.

    Examples
    --------
    >>> from sklearn_plc.correction import next_threshold
    >>> round(next_threshold(0.3, 0, 1000, step=0.1, end=0.9), 6)
    0.4
    >>> next_threshold(0.3, 50, 1000, step=0.1, end=0.9)  # too many: stay
    0.3
    >>> round(next_threshold(0.5, 0, 1000, step=0.1, end=0.9,
    ...                      schedule="multiplicative"), 6)
    0.55
    """
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}; got {schedule!r}.")
    if not isinstance(n_corrected, Integral) or n_corrected < 0:
        raise ValueError(
            f"n_corrected must be a non-negative int; got {n_corrected!r}."
        )
    if not isinstance(step, Real) or not step > 0:
        raise ValueError(
            f"step must be a positive number (the paper's beta); got {step!r}. A "
            f"threshold is only ever relaxed."
        )
    if not is_quiet_pass(n_corrected, n_samples, min_correction_rate):
        return threshold
    if schedule == "additive":
        raised = threshold + step
    else:
        raised = threshold * (1.0 + step)
    # Rounding removes float drift, so that 0.3 + 6 * 0.1 reaches 0.9 exactly.
    return min(round(raised, 12), end)
