"""What ``verbose`` prints: one line per round (``verbose >= 2``) and the outcome.

Pure functions of a history record or of a fitted ``PLCClassifier``, shared by
the refit path and the net path.
"""

import numpy as np

from ._thresholds import (
    LEAVE_OUT_STANDARD_ERRORS,
    REMOVAL_STANDARD_ERRORS,
)


def round_line(record, n_samples, *, refits=True):
    """One line for one history record: threshold, corrections, refit, agreement.

    `refits`: whether the run refits a model (scikit-learn) rather than
    training one net, whose every epoch gives new outputs.
    """
    if record["undo"]:
        return f"undo: {record['n_corrected']} labels set back to the labels as given"
    if record["warm_up"]:
        return f"round {record['round']}: warm-up, no correction pass"
    parts = [
        f"round {record['round']}",
        f"threshold {record['threshold']:.3g}",
        f"{record['n_corrected']} corrected",
        f"{record['n_changed']} of {n_samples} differ from y",
    ]
    if record["n_disputed"]:
        parts.append(f"{record['n_disputed']} still disputed")
    if refits:
        parts.append("refit" if record["refit"] else "no refit")
    if record["holdout_agreement"] is not None:
        parts.append(f"held-out agreement {record['holdout_agreement']:.3f}")
    return ", ".join(parts)


# How a checked ending is named in the verbose line of a result the halves undid
_ENDED = {
    "converged": "corrected labels",
    "max_iter": "corrected labels",
    "max_epochs": "corrected labels",
    "undone": "labels as given without the labels that look drawn at random",
    "too_weak_to_judge": "labels as given without the labels that look drawn at random",
    "corrections_contested": "labels as given without the disputed samples",
    "disputes_removed": "labels as given without the disputed samples",
    "not_memorising": "labels as given without the surely disputed samples",
}


def _judged(selection):
    if selection["compared"] == "halves":
        how = ", each half predicted by models fitted on the other"
    elif selection["compared"] != "corrections":
        how = ""
    elif selection.get("weighed"):
        how = ", on folds weighed as the final fit is"
    else:
        how = ", on models trained on the hard corrected labels"
    if selection.get("verified"):
        how += ", the trusted samples alone judging"
    if selection.get("sample_weighted"):
        how += ", each judged sample at the estimator's weight"
    return (
        f"held-out agreement {selection['holdout_agreement']:.3f} against "
        f"{selection['given_labels_agreement']:.3f} for the "
        f"{'corrected' if selection.get('against') == 'corrected' else 'given'} "
        f"labels, a "
        f"gain of {selection['gain']:+.3f} ± {selection['standard_error']:.3f} "
        f"on {selection['n_judged']} judged samples{how}"
    )


def _random_share(evidence):
    """The share of a refused model's disputes that look drawn at random."""
    share = evidence.get("random_label_share")
    error = evidence.get("random_label_share_standard_error")
    if share is None or error is None:  # two classes, or no evidence
        return ""
    return (
        f"; nor do its disputes clearly look drawn at random (random share "
        f"{share:.2f} ± {error:.2f} of them, needed above one half, from a model "
        f"agreeing with {evidence['out_of_fold_agreement']:.1%} of the labels "
        f"against {evidence['chance_agreement']:.1%} by chance, needed above it)"
    )


def _random_set_aside(plc):
    """Whether the labels given that look drawn at random were left out.

    Where the final fit trains on the labels as given (a model too weak to
    judge, an undo), every sample it leaves out is one of them.
    """
    n_aside = int(plc.set_aside_.sum())
    if not n_aside:
        return ""
    share = plc.memorisation_["random_label_share"]
    return (
        f". It left out of the final fit the {n_aside} disputed labels more "
        f"likely drawn at random than confused by the model (random share "
        f"{share:.2f} of its disputes), as it memorises each label it is given"
    )


def _set_aside_from_corrected(plc):
    """What a corrected run left out of its final fit, and why, as the ending said."""
    n_aside = int(plc.set_aside_.sum())
    evidence = plc.memorisation_ or {}
    n_random = evidence.get("random_labels_left_out", 0)
    if n_random:
        return (
            f", {n_aside} set aside from the final fit ({n_random} drawn at "
            f"random: random share {evidence['random_label_share']:.2f} of the "
            f"first round's disputes; the rest doubtful)"
        )
    return f", {n_aside} doubtful set aside from the final fit"


def _refused_set_aside(selection):
    """Whether a non-memorising model's sure disputes were left out, and why."""
    if selection is None:
        return ""
    n_aside = selection["n_set_aside"]
    bar = selection.get("standard_errors", LEAVE_OUT_STANDARD_ERRORS)
    bar_text = f"{bar:g} standard error{'s' if bar != 1 else ''}"
    if bar != LEAVE_OUT_STANDARD_ERRORS:
        bar_text += ", the bar of a model whose disputes look drawn at random"
    if selection["chosen"]:
        return (
            f"; its {n_aside} sure disputes were left out of the final fit, as "
            f"models trained without them did clearly better (by more than "
            f"{bar_text}) on the held-out samples: {_judged(selection)}"
        )
    return (
        f"; leaving its {n_aside} sure disputes out showed no clear gain, one "
        f"above {bar_text} ({_judged(selection)}), so every sample was fitted"
    )


def _removal_not_chosen(selection):
    """Why the removal of the confident disputes was not chosen, where compared."""
    if selection is not None and selection["compared"] != "removal":
        selection = selection.get("removal")
    if selection is None:
        return ""
    return (
        f"; leaving out the {selection['n_set_aside']} labels that confident "
        f"learning disputes showed no gain above {REMOVAL_STANDARD_ERRORS:g} "
        f"standard error ({_judged(selection)})"
    )


def _removal_chosen(plc):
    """What a run that chose the removal left out, and why."""
    selection = plc.selection_
    weights = selection["class_weight"]
    weighed = (
        ""
        if weights is None
        else ", each class weighed by 1 / its estimated share of right labels ("
        + ", ".join(f"{weight:.2f}" for weight in weights)
        + ")"
    )
    against = {
        "corrected": "the corrected labels",
        "given": "the labels as given",
    }[selection["against"]]
    return (
        f"PLC trained on the labels as given without the "
        f"{int(plc.set_aside_.sum())} that confident learning disputes on the "
        f"first round's held-out models{weighed}: models trained so agreed "
        f"better than those of {against} on the held-out samples, by more than "
        f"{REMOVAL_STANDARD_ERRORS:g} standard error: {_judged(selection)}."
    )


def outcome_line(plc, n_changed):
    """What a fit did and why, in one line, with the check on halves where it ran.

    See :func:`_outcome` for the parameters.
    """
    line = _outcome(plc, n_changed)
    check = getattr(plc, "halves_check_", None)
    if check is None or check["undone"]:
        return line
    return (
        f"{line.rstrip('.')}. Made again on each half of the samples, it did not "
        f"agree clearly worse with the other half's labels than a plain fit: "
        f"{_judged(check)}."
    )


def _outcome(plc, n_changed):
    """What a fit did and why, in one line.

    Parameters
    ----------
    plc : PLCClassifier
        Fitted.
    n_changed : int
        Labels of ``labels_`` that differ from y.
    """
    unit = "epoch" if hasattr(plc, "warm_up_") else "round"
    rounds = f"{plc.n_iter_} {unit}{'s' if plc.n_iter_ != 1 else ''}"
    n_samples = plc.labels_.shape[0]
    condition = plc.termination_condition_
    selection = plc.selection_
    if condition == "not_memorising":
        evidence = plc.memorisation_
        return (
            f"PLC kept the labels as given: the model does not memorise them "
            f"(memorisation rate {evidence['rate']:.3f} ± "
            f"{evidence['standard_error']:.3f}, below min_memorisation="
            f"{plc.min_memorisation}), so its disagreements with a label are not "
            f"evidence that the label is wrong{_refused_set_aside(selection)}."
        )
    if condition == "too_weak_to_judge":
        evidence = plc.memorisation_
        return (
            f"PLC kept the labels as given: held out, the model surely disputes "
            f"{evidence['sure_disputes']:.1%} of them and agrees with only "
            f"{evidence['out_of_fold_agreement']:.1%} (margin "
            f"{evidence['judge_margin']:+.3f} ± "
            f"{evidence['judge_margin_standard_error']:.3f}){_random_share(evidence)}"
            f", so its disputes are its own errors as often as the labels'; a "
            f"stronger model can judge{_random_set_aside(plc)}."
        )
    if condition == "undone" and selection["compared"] == "halves":
        if selection.get("too_few_differ"):
            why = (
                f"its models, each predicting the other half, predicted "
                f"{selection['n_differ']} of the {selection['n_judged']} samples "
                f"differently from models trained on the labels as given, too few "
                f"for any verdict to call it worse, so nothing shows that it helps"
            )
        else:
            why = (
                f"it trained models that agreed worse with the other half's labels "
                f"than models trained on them as given: {_judged(selection)}"
            )
        return (
            f"PLC set its result ({_ENDED[selection['ending']]}) aside and kept "
            f"the labels as given: made again on each half of the samples, {why}."
        )
    if condition == "undone":
        return (
            f"PLC undid its corrections after {rounds} and kept the labels as "
            f"given: models trained on the corrected labels did worse on the "
            f"held-out samples: {_judged(selection)}{_random_set_aside(plc)}"
            f"{_removal_not_chosen(selection)}."
        )
    if condition == "disputes_removed":
        return _removal_chosen(plc)
    if condition == "corrections_contested":
        return (
            f"PLC set its corrections aside after {rounds} and kept the labels as "
            f"given, leaving out of the final fit the "
            f"{int(plc.set_aside_.sum())} that confident learning disputes on "
            f"new held-out models and the first round's: models trained on the "
            f"corrected labels did a little worse on the held-out samples, not "
            f"clearly: "
            f"{_judged(selection)}."
        )
    changed = f"{n_changed} of {n_samples} labels changed"
    if plc.set_aside_.any():
        changed += _set_aside_from_corrected(plc)
    n_weighed = int(np.count_nonzero((plc.relabel_weight_ < 1) & ~plc.set_aside_))
    if n_weighed:
        changed += f", {n_weighed} relabels fitted on both labels by weight"
    why = {
        "converged": f"converged after {rounds}: a pass at threshold "
        f"{plc.theta_:.3g} changed almost nothing",
        "max_iter": f"stopped at max_iter={plc.max_iter} rounds with the labels "
        f"still moving (threshold {plc.theta_:.3g})",
        "max_epochs": f"ran all its epochs ({rounds}, threshold {plc.theta_:.3g})",
        "interrupted": f"the net stopped early after {rounds} (threshold "
        f"{plc.theta_:.3g})",
    }[condition]
    line = f"PLC {why}; {changed}"
    if selection is not None:
        if selection["compared"] == "corrections":
            line += f"; {_judged(selection)}"
        line += _removal_not_chosen(selection)
    return line + "."
