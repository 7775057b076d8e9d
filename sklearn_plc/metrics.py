"""How well a label correction recovered the clean labels."""

import numpy as np
from sklearn.utils.validation import check_consistent_length, column_or_1d

__all__ = ["label_recovery_report", "precision_at_k"]


def _ratio(numerator, denominator):
    return float(numerator / denominator) if denominator else float("nan")


def _corrected_by(y_corrected, set_aside, relabel_weight):
    """The labels, set-aside and weights of `y_corrected`, labels or a fitted PLC.

    A fitted ``PLCClassifier`` gives its ``labels_``, and its ``set_aside_``
    and ``relabel_weight_`` where those are not given.
    """
    if not hasattr(y_corrected, "get_params"):  # labels, not an estimator
        return y_corrected, set_aside, relabel_weight
    if not hasattr(y_corrected, "labels_"):
        raise ValueError(
            f"y_corrected is a {type(y_corrected).__name__} without labels_: pass "
            f"the corrected labels (a fitted PLCClassifier's labels_) or the fitted "
            f"PLCClassifier itself (in a Pipeline, its last step: pipe[-1]). If it "
            f"is a PLCClassifier, fit it first."
        )
    if set_aside is None:
        set_aside = getattr(y_corrected, "set_aside_", None)
    if relabel_weight is None:
        relabel_weight = getattr(y_corrected, "relabel_weight_", None)
    return y_corrected.labels_, set_aside, relabel_weight


def label_recovery_report(
    y_clean, y_noisy, y_corrected, set_aside=None, relabel_weight=None
):
    """Compare corrected labels with the noisy labels they came from and the truth.

    Parameters
    ----------
    y_clean : array-like of shape (n_samples,)
        The true labels (known in experiments, e.g. before injecting noise).
    y_noisy : array-like of shape (n_samples,)
        The labels given to the correction method.
    y_corrected : array-like of shape (n_samples,) or fitted PLCClassifier
        The labels after correction (``PLCClassifier.labels_``), or the fitted
        ``PLCClassifier`` itself: its ``labels_``, and its ``set_aside_`` and
        ``relabel_weight_`` unless `set_aside` or `relabel_weight` is given.
        Pass the estimator to count what its final fit trained on.
    set_aside : array-like of bool of shape (n_samples,) or None, default=None
        Samples left out of the final fit (``PLCClassifier.set_aside_``);
        None: none, or the estimator's given as `y_corrected`.
    relabel_weight : array-like of float of shape (n_samples,) or None, default=None
        The weight of each corrected label in the final fit, the noisy label
        having the rest (``PLCClassifier.relabel_weight_``); None: all 1, or
        the estimator's given as `y_corrected`.

    Returns
    -------
    report : dict
        - ``n_samples``; ``n_noisy``: labels wrong before correction;
          ``n_changed``: labels the correction changed.
        - ``purity_before``, ``purity_after``: fraction of labels equal to the
          clean ones, before and after.
        - ``n_fixed``: wrong labels made right; ``n_damaged``: right labels made
          wrong; ``n_wrong_to_wrong``: wrong labels changed to another wrong one.
        - ``precision``: of the changed labels, the share now right
          (``n_fixed / n_changed``).
        - ``recall``: of the wrong labels, the share fixed
          (``n_fixed / n_noisy``).
        - ``damage``: of the right labels, the share made wrong
          (``n_damaged / (n_samples - n_noisy)``).
        - ``n_set_aside``: samples left out of the final fit;
          ``set_aside_precision``: of those, the share whose corrected label
          is wrong (what removing them spared the model); ``purity_trained``:
          fraction of right labels among the samples the final fit trained on.
        - ``n_weighed``: changed labels the final fit trained on both ways
          (``relabel_weight`` below 1, not set aside); ``weighted_purity``:
          the share of the final fit's weight on right labels
          (``purity_trained`` when nothing was weighed).

        A ratio whose denominator is 0 is NaN.

    Raises
    ------
    ValueError
        If the three arrays differ in length, `y_noisy` or `y_corrected`
        shares no label with `y_clean` (e.g. integers against strings), or
        `y_corrected` is an estimator without ``labels_`` (not fitted, or not
        a ``PLCClassifier``).

    Examples
    --------
    >>> from sklearn_plc.metrics import label_recovery_report
    >>> report = label_recovery_report(
    ...     y_clean=[0, 0, 1, 1], y_noisy=[0, 1, 0, 1], y_corrected=[0, 0, 1, 0])
    >>> report["n_fixed"], report["n_damaged"], report["precision"]
    (2, 1, 0.6666666666666666)

    With a fitted ``PLCClassifier`` ``plc``, ``label_recovery_report(y_clean,
    y_noisy, plc)`` also counts the samples its final fit left out and the
    relabels it weighed.
    """
    y_corrected, set_aside, relabel_weight = _corrected_by(
        y_corrected, set_aside, relabel_weight
    )
    y_clean, y_noisy, y_corrected = (
        column_or_1d(np.asarray(y)) for y in (y_clean, y_noisy, y_corrected)
    )
    check_consistent_length(y_clean, y_noisy, y_corrected)
    for name, labels in (("y_noisy", y_noisy), ("y_corrected", y_corrected)):
        if labels.size and not np.isin(labels, y_clean).any():
            raise ValueError(
                f"{name} shares no label with y_clean (e.g. {labels[:3].tolist()!r} "
                f"vs {y_clean[:3].tolist()!r}), so every label would count as wrong. "
                f"Pass all three in the same label space (e.g. plc.labels_, whose "
                f"labels are those of the y given to fit)."
            )
    n_samples = y_clean.shape[0]
    if set_aside is None:
        set_aside = np.zeros(n_samples, dtype=bool)
    else:
        set_aside = column_or_1d(np.asarray(set_aside))
        check_consistent_length(y_clean, set_aside)
        if set_aside.dtype != bool:
            raise ValueError(
                f"set_aside must be a boolean mask with one entry per sample (e.g. "
                f"plc.set_aside_); got dtype {set_aside.dtype}."
            )
    if relabel_weight is None:
        relabel_weight = np.ones(n_samples)
    else:
        relabel_weight = column_or_1d(np.asarray(relabel_weight, dtype=np.float64))
        check_consistent_length(y_clean, relabel_weight)
    right_before = y_noisy == y_clean
    right_after = y_corrected == y_clean
    trained = ~set_aside
    right_weight = relabel_weight * right_after + (1 - relabel_weight) * right_before
    changed = y_corrected != y_noisy
    n_noisy = int(np.count_nonzero(~right_before))
    n_changed = int(np.count_nonzero(changed))
    n_fixed = int(np.count_nonzero(changed & ~right_before & right_after))
    n_damaged = int(np.count_nonzero(changed & right_before))
    return {
        "n_samples": n_samples,
        "n_noisy": n_noisy,
        "n_changed": n_changed,
        "purity_before": _ratio(np.count_nonzero(right_before), n_samples),
        "purity_after": _ratio(np.count_nonzero(right_after), n_samples),
        "n_fixed": n_fixed,
        "n_damaged": n_damaged,
        "n_wrong_to_wrong": n_changed - n_fixed - n_damaged,
        "precision": _ratio(n_fixed, n_changed),
        "recall": _ratio(n_fixed, n_noisy),
        "damage": _ratio(n_damaged, n_samples - n_noisy),
        "n_set_aside": int(np.count_nonzero(set_aside)),
        "set_aside_precision": _ratio(
            np.count_nonzero(set_aside & ~right_after), np.count_nonzero(set_aside)
        ),
        "purity_trained": _ratio(
            np.count_nonzero(right_after & trained), np.count_nonzero(trained)
        ),
        "n_weighed": int(np.count_nonzero((relabel_weight < 1) & changed & trained)),
        "weighted_purity": _ratio(
            right_weight[trained].sum(), np.count_nonzero(trained)
        ),
    }


def precision_at_k(ranking, y_noisy, y_clean, k):
    """Share of wrong labels among the first `k` samples of a review ranking.

    Parameters
    ----------
    ranking : array-like of int
        Sample indices, the most suspect first (e.g. ``review_list()["sample"]``,
        or cleanlab's label-quality order). Shorter than `k`: the missing places
        count as reviews that found nothing.
    y_noisy, y_clean : array-like of shape (n_samples,)
        The labels as given, and the true ones (known in an experiment).
    k : int >= 1
        How many samples a reviewer checks; at most the number of samples.

    Returns
    -------
    precision : float

    Examples
    --------
    >>> from sklearn_plc.metrics import precision_at_k
    >>> precision_at_k([2, 0, 1], [0, 1, 1], [0, 1, 0], k=2)
    0.5
    """
    y_noisy, y_clean = column_or_1d(y_noisy), column_or_1d(y_clean)
    check_consistent_length(y_noisy, y_clean)
    k = min(int(k), y_noisy.shape[0])
    if k < 1:
        raise ValueError(f"k must be at least 1; got {k}.")
    top = np.asarray(ranking, dtype=np.intp)[:k]
    return float(np.count_nonzero(y_noisy[top] != y_clean[top]) / k)
