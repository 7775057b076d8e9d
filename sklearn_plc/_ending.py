"""How a refit run ends: a pure function of the run's evidence and its settings.

Once the refit loop has stopped, :func:`end_of_run` reads the held-out evidence
(:class:`RunEvidence`) and decides what the final fit trains on:

- **kept** (``"converged"``, ``"max_iter"``): the corrected labels, each
  relabel weighed against its given label (``relabel_weight``) where the
  estimator takes sample weights, or the doubtful samples left out where it
  cannot (``doubtful="auto"``), or the still-disputed ones with
  ``doubtful="set_aside"``;
- **undone** (``"undone"``): the corrections trained clearly worse models, so
  the labels go back to those given; where the final fit would weigh the
  relabels, fold models fitted as it is fitted are judged once more first;
  corrections that no refit trained on (every pass after the first round was
  quiet) are judged on such fold models before anything else;
- **contested** (``"corrections_contested"``): they trained worse models, but
  not clearly; the labels go back to those given, and the samples that
  confident learning disputes on new held-out models (averaged with the first
  round's) are left out;
- a model that does not memorise (``"not_memorising"``) keeps the labels, and
  its sure disputes are left out where fold models refitted without them agree
  clearly better with the judged labels;
- a model too weak to judge (``"too_weak_to_judge"``) keeps the labels;
- **removed** (``"disputes_removed"``): where a kept or undone run's model
  memorises, the labels as given without confident learning's disputes on the
  first round's held-out probabilities (each class weighed back to its share)
  replace the labels the run would train on, where fold models trained so
  agree clearly better (each judged sample at the weight the estimator gives
  it: balanced over the classes only under ``class_weight="balanced"``).

Where the model memorises nearly every label it disputes and the final fit
trains on every sample, the first round's disputes more likely drawn at random
than confused by the model are left out of it.

Four of these need models the loop did not fit. :func:`end_of_run` then
returns a :class:`FitRequest` instead of an :class:`Ending`; the run path fits
what it names, records the result in ``RunEvidence.fitted`` and calls it again.
So every decision can be tested with plain arrays, and the path owns every fit.
"""

from dataclasses import dataclass, field, replace

import numpy as np

from ._judge import (
    JudgedRefit,
    corrections_verdict,
    leave_out_verdict,
    removal_verdict,
)
from ._left_out import (
    confident_disputes,
    doubtful_left_out,
    keep_every_class,
    leave_out_standard_errors,
    random_labels_left_out,
    removal_of_disputes,
)
from ._thresholds import (
    REMOVAL_STANDARD_ERRORS,
    UNDO_STANDARD_ERRORS,
    sure_ratio_for,
)
from .correction import confidence_ratio, relabel_weights

# The outcomes of a run that returns the labels as given...
LABELS_KEPT = ("not_memorising", "too_weak_to_judge", "undone")
# ... and every outcome whose final fit trains on the labels as given
LABELS_GIVEN = (*LABELS_KEPT, "corrections_contested")
# The outcomes whose final fit trains on the corrected labels
KEPT_CORRECTIONS = ("converged", "max_iter")
# The outcomes whose final fit trains on every sample, less the random labels
RANDOM_LABELS_ENDINGS = ("too_weak_to_judge", "undone", "converged", "max_iter")
# The values of ``doubtful`` that leave samples out on the held-out evidence
LEAVES_OUT = ("auto", "set_aside")


@dataclass(frozen=True)
class EndingSettings:
    """The settings the end of a run reads.

    Attributes
    ----------
    doubtful : {"auto", "weigh", "keep", "set_aside"}
        ``PLCClassifier``'s parameter.
    judge_acts : bool
        The judge may undo and contest (``validation_fraction`` is not None);
        otherwise it only records its evidence.
    held_out : bool
        The probabilities are held out (``"cv"`` or ``"oob"``): there is a judge.
    weighable : bool
        The final fit weighs each relabel against its given label.
    refits_folds : bool
        The run has folds (``"cv"``) that can be fitted again.
    leaves_out : bool, default=False
        A half's run in the check on halves of a run that left a
        non-memorising model's sure disputes out: it leaves its own out,
        with no verdict of its own, so that the check judges that act.
    """

    doubtful: str
    judge_acts: bool
    held_out: bool
    weighable: bool
    refits_folds: bool
    leaves_out: bool = False


@dataclass(frozen=True)
class RunEvidence:
    """What the end of a refit run reads, as plain arrays.

    Attributes
    ----------
    stopped : str
        Why the loop ended (``"converged"``, ``"max_iter"``,
        ``"not_memorising"``, ``"too_weak_to_judge"``, ``"undone"`` where a
        refit agreed so much worse that the loop stopped early, or
        ``"corrections_contested"`` where a half's run in the check on halves
        was made to contest: it contests without a verdict).
    given_labels, labels : ndarray of int of shape (n_samples,)
        The labels as given, and as the loop left them.
    reference, last : JudgedRefit or None
        The first and the last judged refits (None without a judge).
    first_proba : ndarray of shape (n_samples, n_classes) or None
        The first round's held-out probabilities, where it took the
        memorisation test.
    memorisation : dict or None
        The memorisation test's evidence.
    pass_proba : ndarray of shape (n_samples, n_classes) or None
        What the last pass read (the window average, aligned); None in sample.
    disputed : ndarray of bool of shape (n_samples,) or None
        Labels the last pass's probabilities still dispute, or that went back
        and forth (``LabelCorrector.disputed``); None in sample.
    trusted : ndarray of bool or None
        Verified labels, never left out.
    validation : ndarray of int or None
        The samples no correcting model trained on.
    judged : ndarray of int or None
        The samples whose held-out predictions judge (the ``agrees`` of
        `reference` and `last`, in order); None: every sample.
    judged_weight : ndarray of shape (n_judged,) or None
        The weight of each judged sample's agreement, in the order of
        `judged`, as the estimator weighs it
        (:func:`~sklearn_plc._judge.judge_sample_weight`); None: equal.
    fitted : dict
        What the path fitted at a :class:`FitRequest`, by its name; None where
        it could not be fitted.
    """

    stopped: str
    given_labels: np.ndarray
    labels: np.ndarray
    reference: JudgedRefit | None = None
    last: JudgedRefit | None = None
    first_proba: np.ndarray | None = None
    memorisation: dict | None = None
    pass_proba: np.ndarray | None = None
    disputed: np.ndarray | None = None
    trusted: np.ndarray | None = None
    validation: np.ndarray | None = None
    judged: np.ndarray | None = None
    judged_weight: np.ndarray | None = None
    fitted: dict = field(default_factory=dict)

    def with_fitted(self, name, value):
        """A copy with `value` recorded as the fit `name`."""
        return replace(self, fitted={**self.fitted, name: value})


@dataclass(frozen=True)
class FitRequest:
    """Models the end of a run needs before it can decide.

    ``name`` is one of:

    - ``"weighed_folds"``: the run's folds fitted on ``labels`` with each
      relabel weighed by ``weights`` against its given label, as the final fit
      would be; the path records their :class:`JudgedRefit` (``weighed=True``)
      (asked for an undo, and for corrections no refit trained on);
    - ``"contest"``: new held-out probabilities of every sample on the labels
      as given (new folds of ``cv``, or one new out-of-bag ensemble); the path
      records them;
    - ``"removal"``: the run's folds (out of bag: one ensemble) on the labels
      as given, without the samples in ``left_out``, each sample fitted at
      its ``weights`` (None: 1); the path records, per judged sample, whether
      they agree with its given label;
    - ``"left_out"``: the same, unweighed, for a non-memorising model's sure
      disputes (folds only).
    """

    name: str
    weights: np.ndarray | None = None
    left_out: np.ndarray | None = None


@dataclass(frozen=True)
class Ending:
    """What a refit run ends with.

    Attributes
    ----------
    termination : str
        ``termination_condition_``.
    labels : ndarray of int
        The labels the final fit trains on.
    restore_given_labels : bool
        The corrections are set back (undone or contested), to be logged.
    selection : dict or None
        The held-out comparison behind the ending (``selection_``).
    set_aside : ndarray of bool or None
        The samples the final fit leaves out; None: none.
    relabel_weight : ndarray of float or None
        The weight of each label in the final fit, the given label having the
        rest; None: every label at weight 1.
    memorisation : dict or None
        The memorisation evidence, with ``"random_label_share"`` where read.
    label_weight : ndarray of float or None
        A weight per sample in the final fit (the removal's class weights),
        times any the caller gave; None: 1.
    """

    termination: str
    labels: np.ndarray
    restore_given_labels: bool = False
    selection: dict | None = None
    set_aside: np.ndarray | None = None
    relabel_weight: np.ndarray | None = None
    memorisation: dict | None = None
    label_weight: np.ndarray | None = None


def end_of_run(evidence, settings):
    """The end of a refit run, or the fit it needs first.

    Parameters
    ----------
    evidence : RunEvidence
    settings : EndingSettings

    Returns
    -------
    Ending or FitRequest
    """
    stopped = evidence.stopped
    given = evidence.given_labels
    selection = set_aside = None
    restore = False
    contests = stopped == "corrections_contested"  # a half made to contest
    if settings.held_out and not contests:
        selection, request = _undo_verdict(evidence, settings)
        if request is not None:
            return request
        if selection is not None and selection["undone"]:
            restore, stopped = True, "undone"
    if contests or _contests(selection, stopped, settings):
        if "contest" not in evidence.fitted:
            return FitRequest("contest")
        proba = evidence.fitted["contest"]
        if proba is not None:  # None: the new models could not be fitted
            if evidence.first_proba is not None:
                proba = (proba + evidence.first_proba) / 2
            set_aside = confident_disputes(proba, given, evidence.trusted)
            restore, stopped = True, "corrections_contested"
            selection = {
                **(selection or {}),
                "chosen": False,
                "n_set_aside": int(set_aside.sum()),
            }
    if (
        stopped == "not_memorising"
        and settings.doubtful in LEAVES_OUT
        and settings.refits_folds
        and evidence.validation is not None
    ):
        outcome = _sure_disputes_left_out(evidence, settings.leaves_out)
        if isinstance(outcome, FitRequest):
            return outcome
        set_aside, selection = outcome
    if _removal_is_a_candidate(evidence, settings, stopped):
        outcome = _removal_candidate(evidence, settings, selection, restore)
        if isinstance(outcome, FitRequest):
            return outcome
        if outcome is not None:
            selection, removal = outcome
            if removal is not None:
                left_out, weights = removal
                return Ending(
                    termination="disputes_removed",
                    labels=given,
                    restore_given_labels=bool(np.any(evidence.labels != given)),
                    selection=selection,
                    set_aside=left_out,
                    memorisation=evidence.memorisation,
                    label_weight=weights,
                )
    memorisation = evidence.memorisation
    if (
        stopped in RANDOM_LABELS_ENDINGS
        and settings.doubtful in LEAVES_OUT
        and evidence.first_proba is not None
    ):
        set_aside, memorisation = random_labels_left_out(evidence)
    labels = given if restore else evidence.labels
    relabel_weight = None
    if stopped not in LABELS_GIVEN and settings.held_out:
        set_aside = doubtful_left_out(set_aside, evidence, settings)
        if settings.weighable:
            relabel_weight = relabel_weights(evidence.pass_proba, given, labels)
    return Ending(
        termination=stopped,
        labels=labels,
        restore_given_labels=restore,
        selection=selection,
        set_aside=set_aside,
        relabel_weight=relabel_weight,
        memorisation=memorisation,
    )


def _undo_verdict(evidence, settings):
    """``(selection, request)``: the held-out verdict on the corrections.

    Where the verdict undoes and the final fit would weigh the relabels, the
    folds fitted as it is (weighed) judge once more, and decide. Corrections no
    refit trained on (:func:`_corrections_unjudged`) are judged on those
    folds from the start.
    """
    last = evidence.last
    if _corrections_unjudged(evidence, settings):
        if "weighed_folds" not in evidence.fitted:
            weights = relabel_weights(
                evidence.pass_proba, evidence.given_labels, evidence.labels
            )
            return None, FitRequest("weighed_folds", weights=weights)
        last = evidence.fitted["weighed_folds"]
    selection = corrections_verdict(
        evidence.reference,
        last,
        UNDO_STANDARD_ERRORS if settings.judge_acts else None,
        evidence.judged_weight,
    )
    if (
        selection is not None
        and not selection["weighed"]
        and selection["undone"]
        and evidence.stopped != "undone"  # not stopped early
        and settings.refits_folds
        and settings.weighable
    ):
        weights = relabel_weights(
            evidence.pass_proba, evidence.given_labels, evidence.labels
        )
        if (weights < 1).any():
            if "weighed_folds" not in evidence.fitted:
                return None, FitRequest("weighed_folds", weights=weights)
            selection = corrections_verdict(
                evidence.reference,
                evidence.fitted["weighed_folds"],
                UNDO_STANDARD_ERRORS,
                evidence.judged_weight,
            )
    return selection, None


def _corrections_unjudged(evidence, settings):
    """Whether the final fit would train on corrections no judged refit trained on.

    The loop refits only after a round changed more labels than a quiet pass
    may (a tenth of them); where every pass after the first round was quiet,
    the corrections it made were read on the first round's probabilities
    alone, and its last judged models are the first round's. Where the judge
    acts and the final fit would weigh the relabels on the run's folds, those
    folds are fitted as it would be, and judge the corrections.
    """
    return (
        settings.judge_acts
        and settings.refits_folds
        and settings.weighable
        and evidence.stopped in KEPT_CORRECTIONS
        and evidence.reference is not None
        and (evidence.last is None or evidence.last is evidence.reference)
        and bool(np.any(evidence.labels != evidence.given_labels))
    )


def _contests(selection, stopped, settings):
    """Whether corrections judged at a loss too small to undo are contested."""
    return (
        selection is not None
        and not selection["undone"]
        and selection["gain"] < 0
        and stopped not in LABELS_KEPT
        and settings.doubtful == "auto"
        and settings.judge_acts
    )


def _removal_is_a_candidate(evidence, settings, stopped):
    """Whether removing the first round's confident disputes is a candidate.

    It is where a judge acts on held-out evidence, the final fit may leave
    samples out (``doubtful``), the first round's held-out probabilities were
    read, and the model memorises its labels and can judge them: the run kept
    its corrections or undid them (``"converged"``, ``"max_iter"``,
    ``"undone"``). A model that does not memorise has its own, stricter test
    (:func:`_sure_disputes_left_out`): its refits agree more with its own
    smooth boundary once its disputes are gone, whatever the labels, so a
    gain of a standard error or two is no evidence. A model too weak to judge
    disputes right labels as surely as wrong ones, and a contested run already
    left confident learning's disputes out.
    """
    return (
        settings.held_out
        and settings.judge_acts
        and settings.doubtful in LEAVES_OUT
        and evidence.first_proba is not None
        and evidence.reference is not None
        and stopped in ("converged", "max_iter", "undone")
    )


def _removal_candidate(evidence, settings, selection, restore):
    """The judge's verdict on the removal against the labels the run would train on.

    The incumbent is the corrected labels where the run kept its corrections
    and they were judged (``weighed_folds`` where fitted, else the last
    judged refit), else the labels as given (the first round's models). The
    removal displaces it where its fold models agree with the judged labels
    better by more than ``REMOVAL_STANDARD_ERRORS`` standard errors, each
    judged sample at the weight the estimator gives it
    (:func:`~sklearn_plc._judge.judge_sample_weight`).

    Returns
    -------
    None, FitRequest, or (selection, removal)
        ``removal`` is ``(left_out, weights)`` where chosen, else None.
    """
    removal = removal_of_disputes(evidence, settings.weighable)
    if removal is None:
        return None
    left_out, class_weight = removal
    given = evidence.given_labels
    weights = None if class_weight is None else class_weight[given]
    if "removal" not in evidence.fitted:
        return FitRequest("removal", weights=weights, left_out=left_out)
    agrees = evidence.fitted["removal"]
    if agrees is None:  # too few samples left in a fold (k-NN: n_neighbors)
        return None
    incumbent, against = evidence.reference, "given"
    kept = not restore and evidence.stopped not in LABELS_KEPT
    if kept and selection is not None:  # corrections kept, and judged
        incumbent = evidence.fitted.get("weighed_folds") or evidence.last
        against = "corrected"
    verdict = removal_verdict(
        agrees, incumbent.agrees, evidence.judged_weight, REMOVAL_STANDARD_ERRORS
    )
    verdict.update(
        against=against,
        n_set_aside=int(left_out.sum()),
        class_weight=None if class_weight is None else class_weight.round(4).tolist(),
    )
    if verdict["chosen"]:
        return {**verdict, "corrections": selection}, (left_out, weights)
    if selection is None:
        return verdict, None
    return {**selection, "removal": verdict}, None


def _sure_disputes_left_out(evidence, forced=False):
    """A non-memorising model's sure disputes, where leaving them out is clearly better.

    Its sure disputes are the samples whose first-round held-out label
    probability was at most the sure ratio of the top class's. The same folds
    are fitted without the fold-trained ones, and where those models agree
    with the judged samples' given labels better than the first round's by
    more than :func:`~sklearn_plc._left_out.leave_out_standard_errors` standard
    errors, paired, every sure dispute is left out of the final fit: the
    judged ones too (the comparison tests the rule, not the particular
    samples). `forced` (a half's run in the check on halves of a run that
    left them out): they are left out with no fit and no verdict.

    Returns
    -------
    (set_aside, selection) or FitRequest
        ``set_aside`` None where nothing is left out; ``selection`` None where
        nothing was compared.
    """
    labels = evidence.given_labels
    proba = evidence.first_proba
    trained = np.ones(labels.shape[0], dtype=bool)
    trained[evidence.validation] = False
    sure = confidence_ratio(proba, labels) <= sure_ratio_for(proba.shape[1])
    if evidence.trusted is not None:
        sure &= ~evidence.trusted
    disputed = keep_every_class(trained & sure, labels)
    if not disputed.any():
        return None, None
    if forced:
        selection = {"compared": "set_aside", "chosen": True, "forced": True}
    elif "left_out" not in evidence.fitted:
        return FitRequest("left_out", left_out=disputed)
    elif evidence.fitted["left_out"] is None:  # a fold too small (k-NN)
        return None, None
    else:
        selection = leave_out_verdict(
            evidence.fitted["left_out"],
            evidence.reference.agrees,
            leave_out_standard_errors(evidence.memorisation),
            evidence.judged_weight,
        )
    set_aside = keep_every_class(sure, labels)
    selection["n_set_aside"] = int(set_aside.sum())
    return (set_aside if selection["chosen"] else None), selection


def undone_on_halves(ending, selection, corrector):
    """The labels as given, at weight 1: the check on halves undid `ending`.

    `selection` is the check's verdict
    (:func:`~sklearn_plc._halves.halves_verdict`); the ending it replaced is
    kept under ``"replaced"``.
    """
    given = corrector.initial_labels
    return Ending(
        termination="undone",
        labels=given,
        restore_given_labels=bool(np.any(corrector.labels != given)),
        selection={**selection, "replaced": ending.selection},
        memorisation=ending.memorisation,
    )
