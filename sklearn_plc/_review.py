"""The review list: every sample, the most worth a person's review first.

A pure function of a fitted run's attributes (:func:`review_rows`);
``PLCClassifier.review_list`` turns its columns into a DataFrame where pandas is
installed. Two rankings (:func:`review_order`): where a reviewer's answer would
move the models most, the least sure first (the default), or by how likely the
given label is wrong (``given_ratio``, for an audit of the labels as given).
"""

import numpy as np

# The endings that return the labels as given: why a disputed label was kept
KEPT_BECAUSE = {
    "not_memorising": "kept: the model does not memorise, so its disputes are "
    "not evidence",
    "too_weak_to_judge": "kept: the model is too weak to judge the labels",
    "undone": "kept: the corrections trained worse models and were undone",
    "corrections_contested": "kept: the corrections were contested",
    "disputes_removed": "kept: not disputed with confidence",
}
# Why the final fit left a sample out, by ending
LEFT_OUT_BECAUSE = {
    "not_memorising": "left out: the model surely disputes it, and models "
    "trained without such samples did clearly better",
    "disputes_removed": "left out: confident learning disputes it, and models "
    "trained without such samples did clearly better",
    "too_weak_to_judge": "left out: it looks drawn at random",
    "undone": "left out: it looks drawn at random",
    "corrections_contested": "left out: confident learning disputes it",
}


def given_labels(labels, corrections):
    """The labels as given: `labels` with `corrections` replayed backwards."""
    given = np.array(labels, copy=True)
    for position, old in zip(
        corrections["position"][::-1], corrections["from"][::-1], strict=True
    ):
        given[position] = old
    return given


RANKS = ("uncertainty", "likelihood")
# Why a label nobody disputes was kept
AGREED = "kept: the models agree with it"


def change_proba(*, labels, given, set_aside, relabel_weight, evidence):
    """The chance that a reviewer's answer differs from what the final fit used.

    A label the final fit trained on at full weight is wrong with the
    probability the last averaged probabilities leave to other classes,
    ``1 - label_proba``; a relabel weighed against its given label (weight
    ``w``) mixes the two, ``w (1 - p_new) + (1 - w) (1 - p_given)``; a sample
    left out of the final fit takes whatever answer the reviewer gives, which
    differs from the model's own best guess with probability ``1 - top_proba``.
    So a label PLC relabelled with strong evidence scores low (a review would
    confirm it), and one it kept against its models, or relabelled on thin
    evidence, scores high.

    Returns
    -------
    change : ndarray of float of shape (n_samples,)
        NaN where the probabilities do not cover the sample.
    """
    top = evidence["top_proba"].astype(np.float64)
    label_proba = evidence["label_proba"].astype(np.float64)
    given_proba = evidence["given_ratio"] * top
    change = 1.0 - label_proba
    weighed = (relabel_weight < 1) & (labels != given)
    change[weighed] = relabel_weight[weighed] * (1.0 - label_proba[weighed]) + (
        1.0 - relabel_weight[weighed]
    ) * (1.0 - given_proba[weighed])
    change[set_aside] = 1.0 - top[set_aside]
    return change


def review_order(*, rank, top_proba, given_ratio, disputed, reviewed):
    """Every sample's place in the review, the most worth a review first.

    ``rank="uncertainty"``: the least sure top class first (``top_proba``
    lowest), whatever the label: the samples where a reviewer's answer is most
    likely to differ from what the models predict, and so to move them; ties
    go to the more disputed label (``given_ratio`` lowest).
    ``rank="likelihood"``: the disputed samples first, their given labels
    least likely first (``given_ratio`` lowest), ties to the surer top class;
    then the rest, the least sure first. The reviewed samples come last, and
    within each group the samples the probabilities do not cover (NaN).

    Returns
    -------
    order : ndarray of int of shape (n_samples,)
    """
    top = top_proba.astype(np.float64)
    ratio = np.nan_to_num(given_ratio.astype(np.float64), nan=np.inf)
    if rank == "uncertainty":
        keys = (ratio, np.nan_to_num(top, nan=np.inf))
    else:  # ties: the surer top class among disputes, the less sure after them
        ties = np.where(disputed, -top, top)
        keys = (np.nan_to_num(ties, nan=np.inf), ratio, ~disputed)
    return np.lexsort((*keys, reviewed))  # the last key sorts first


def review_rows(
    *,
    labels,
    given,
    set_aside,
    relabel_weight,
    evidence,
    termination,
    held_out,
    trusted=None,
    row_index=None,
    rank="uncertainty",
):
    """One row per sample, the review's most useful first.

    A sample is disputed where the last averaged probabilities put another
    class above its given label (``given_ratio < 1``), where its label was
    changed, or where the final fit left it out. ``rank="uncertainty"`` ranks
    the rows by ``top_proba``, lowest first, disputed or not
    (:func:`review_order`): an answer moves the models most where they are
    least sure, and where feature-dependent noise made the labels' majority
    wrong the models agree with wrong labels, which only such an order
    reaches. ``rank="likelihood"`` ranks the disputed rows by ``given_ratio``
    (the given label's probability over the top one), lowest first, then the
    rest: the labels most likely wrong as given, whatever PLC did with them.
    The samples already reviewed (``trusted``) come after every other row,
    marked, so that a reviewer is not asked for them again.

    Parameters
    ----------
    labels, given : ndarray of shape (n_samples,)
        The final and the given labels, in the caller's label space.
    set_aside : ndarray of bool of shape (n_samples,)
        The samples the final fit left out.
    relabel_weight : ndarray of float of shape (n_samples,)
        The weight of each final label in the final fit.
    evidence : dict of ndarray
        ``label_evidence_``: ``"suggested"``, ``"given_ratio"``,
        ``"top_proba"``, ``"label_proba"``, ``"first_disputed"``.
    termination : str
        ``termination_condition_``.
    held_out : bool
        Whether the probabilities were held out (``"cv"`` or ``"oob"``).
    trusted : ndarray of bool of shape (n_samples,) or None, default=None
        The labels verified at the fit (``trusted_``).
    row_index : ndarray of shape (n_samples,) or None, default=None
        X's row labels (``row_index_``); None: positions.
    rank : {"uncertainty", "likelihood"}, default="uncertainty"
        The ranking (above).

    Returns
    -------
    rows : dict of ndarray
        ``"sample"`` (X's index label of the row where X had an index, else
        its position), ``"position"`` (the row's position in X), ``"reviewed"``
        (its label was ``trusted``), ``"disputed"``, ``"given"``,
        ``"suggested"``, ``"action"`` (``"relabelled"``, ``"left out"`` or
        ``"kept"``), ``"reason"``, ``"change_proba"`` (:func:`change_proba`),
        ``"given_ratio"``, ``"top_proba"``, ``"first_disputed_round"``,
        ``"weight"`` (of the final label) and ``"held_out"``.
    """
    if rank not in RANKS:
        raise ValueError(
            f"rank must be one of {', '.join(map(repr, RANKS))}; got {rank!r}. "
            f"'uncertainty' ranks by where an answer would move the models "
            f"most (the least sure first), 'likelihood' by how likely the given "
            f"label is wrong."
        )
    ratio = evidence["given_ratio"]
    changed = labels != given
    disputed = (np.nan_to_num(ratio, nan=1.0) < 1) | changed | set_aside
    reviewed = np.zeros(labels.shape[0], dtype=bool) if trusted is None else trusted
    samples = review_order(
        rank=rank,
        top_proba=evidence["top_proba"],
        given_ratio=ratio,
        disputed=disputed,
        reviewed=reviewed,
    )
    change = change_proba(
        labels=labels,
        given=given,
        set_aside=set_aside,
        relabel_weight=relabel_weight,
        evidence=evidence,
    )
    action = np.where(
        set_aside[samples], "left out", np.where(changed[samples], "relabelled", "kept")
    )
    reason = np.array([_reason(a, termination) for a in action], dtype=object)
    weighed = (relabel_weight[samples] < 1) & (action == "relabelled")
    reason[weighed] = "relabelled, the final fit weighing it against the given label"
    reason[~disputed[samples]] = AGREED
    reason[reviewed[samples]] = "kept: reviewed (trusted)"
    return {
        "sample": samples if row_index is None else row_index[samples],
        "position": samples,
        "reviewed": reviewed[samples],
        "disputed": disputed[samples],
        "given": given[samples],
        "suggested": evidence["suggested"][samples],
        "action": action,
        "reason": reason,
        "change_proba": change[samples],
        "given_ratio": ratio[samples],
        "top_proba": evidence["top_proba"][samples],
        "first_disputed_round": evidence["first_disputed"][samples],
        "weight": relabel_weight[samples],
        "held_out": np.full(samples.shape[0], held_out),
    }


def _reason(action, termination):
    if action == "relabelled":
        return "relabelled: the given label is below the threshold"
    if action == "left out":
        return LEFT_OUT_BECAUSE.get(
            termination,
            "left out: doubtful (still disputed, drawn at random, or a "
            "relabel the estimator cannot weigh)",
        )
    return KEPT_BECAUSE.get(termination, "kept: not sure enough to relabel")
