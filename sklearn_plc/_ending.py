"""How a refit run ends: the verdict on its corrections, and what is left out.

Once the loop of :class:`~sklearn_plc._refit_run.RefitRun` has stopped, the
held-out judge's end verdict decides what the final fit trains on:

- **kept**: the corrected labels (``RefitRun``'s final fit may still weigh
  the relabels or leave the doubtful samples out);
- **undone** (``"undone"``): the corrections trained clearly worse models, so
  the labels go back to those given; where the final fit would weigh the
  relabels, fold models fitted as it is fitted are judged once more first
  (:func:`judge_weighed`);
- **contested** (``"corrections_contested"``): they trained worse models, but
  not clearly; the labels go back to those given, and the samples that
  confident learning disputes on new held-out models (averaged with the first
  round's) are left out (:func:`contested_set_aside`);
- a model that does not memorise (``"not_memorising"``) keeps the labels, and
  its sure disputes are left out where fold models refitted without them agree
  clearly better with the judged labels (:func:`judged_set_aside`);
- a model too weak to judge (``"too_weak_to_judge"``) keeps the labels.

Where the model memorises nearly every label it disputes, and the final fit
trains on every sample (the kept corrections, the labels as given after an
undo, or those of a model too weak to judge), the first round's disputes more
likely drawn at random than confused by the model are left out of it
(:func:`random_label_set_aside`).

Each function reads the run's settings from ``run`` (a ``RefitRun``: its
``plc``, ``confidence``, ``classes``, ``groups`` and ``weight_key``).
"""

from numbers import Integral

import numpy as np
from tqdm.auto import tqdm

from ._final_fit import keep_every_class, weighed_out_of_fold_proba
from ._judge import sure_ratio_for
from ._out_of_fold import (
    make_splits,
    out_of_bag_proba,
    out_of_fold_proba,
    splits_without,
)
from ._random_labels import random_labels
from ._report import round_line
from .correction import confidence_ratio, relabel_weights
from .evidence import WORSE_STANDARD_ERRORS, confident_label_issues

# The outcomes of a run that returns the labels as given
LABELS_KEPT = ("not_memorising", "too_weak_to_judge", "undone")
# ... and every outcome whose final fit trains on the labels as given
LABELS_GIVEN = (*LABELS_KEPT, "corrections_contested")
# Where the end verdict would undo and the final fit weighs the relabels, judge
# once more with fold models fitted as the final fit is (weighed), and undo only
# if those also agree clearly worse: the judged refits trained on hard labels.
REJUDGE_WEIGHED = True
# Where the model does not memorise, its first round's sure disputes are still
# left out of the final fit if fold models refitted without them agree with the
# judged samples' given labels better than the first round's by this many
# standard errors (paired). Leaving a model's own errors out makes it agree
# more with itself, which under feature-dependent noise can look like a gain of
# a standard error or two; three times the undo's bar asks for a gain that
# chance and that bias do not give. A model too weak to judge is not asked:
# its sure disputes are its own errors as often as the labels'.
SET_ASIDE_STANDARD_ERRORS = 3.0
# Where the judged corrections agree with the held-out given labels less than
# the labels as given do, but not clearly less (no undo), the corrections as a
# whole are contested: the labels are kept as given, and the samples that
# confident learning disputes on out-of-fold probabilities of new folds of
# every sample are left out of the final fit instead. False: keep them.
CONTEST_CORRECTIONS = True
# Leave out of the final fit the first round's disputes that are more likely
# labels drawn at random than the model's own confusions (``_random_labels``),
# if the model memorises nearly every label it disputes
# (``memorisation_["rate"]`` at least this): such a model (a tree ensemble,
# boosting) gives each random label a region of its own, while a smoother one
# (a linear model, naive Bayes, k-NN) fits only some and averages the rest
# out, so that leaving them out loses more samples than noise. A random label
# carries no trace of its right class, so a relabel of it is the model's guess,
# and leaving it out asks only that it be wrong. None: fit every sample.
RANDOM_LABELS_MIN_MEMORISATION = 0.8
# The run endings whose final fit trains on every sample, and so may leave
# the random labels out
RANDOM_LABELS_ENDINGS = ("too_weak_to_judge", "undone", "converged", "max_iter")
# How many new folds: None, as many as ``cv`` (five, as cleanlab, did no better
# on the studies' sets and cost two more fits)
CONTESTED_FOLDS = None
# Average the new folds' probabilities with the first round's (fold models on
# the labels as given too, on another partition) before confident learning
# reads them: two independent held-out estimates at no fit more. The first
# round's alone chose the corrections that were contested, and its disputes
# alone did worse than the new folds'. False: the new folds' only.
CONTEST_WITH_FIRST_ROUND = True


def end_run(
    run,
    stopped,
    *,
    corrector,
    judge,
    estimator,
    X,
    splits,
    fit_params,
    validation,
    trusted,
    rng,
):
    """The verdict on a stopped loop: undo, contest, or keep the corrections.

    Sets the labels back to those given where the run ends with them.

    Parameters
    ----------
    run : RefitRun
        The run (its settings; see the module docstring).
    stopped : str
        Why the loop ended.
    corrector : LabelCorrector
        The run's labels (the given ones: ``initial_labels``); set back to the
        given ones where undone or contested.
    judge : HeldOutJudge or None
        None without held-out confidence (nothing to judge).
    estimator : estimator object
        The (seeded) estimator the run fits.
    X, splits, fit_params, validation
        As the loop had them.
    trusted : ndarray or None
        The verified samples, if any (a judge on them undoes any loss).
    rng : RandomState
        Draws the new folds of a contest.

    Returns
    -------
    stopped : str
        The run's ``termination_condition_``.
    selection : dict or None
        The end verdict (``selection_``); None without a judge.
    set_aside : ndarray of bool of shape (n_samples,) or None
        The samples the final fit leaves out: where the labels stay as given,
        the contested ones or a non-memorising model's clear set-aside; where
        a model that memorises fits every sample, the labels that look drawn
        at random; None otherwise.
    """
    plc = run.plc
    selection = set_aside = None
    if judge is not None:
        # a judge on verified labels is unbiased, so any measured loss undoes
        worse_bar = 0.0 if trusted is not None else WORSE_STANDARD_ERRORS
        selection = judge.verdict(worse_bar if plc.revert_if_worse else None)
        if (
            REJUDGE_WEIGHED
            and selection is not None
            and selection["undone"]
            and stopped != "undone"  # not stopped early
            and splits is not None
            and run.weight_key is not None
        ):
            judge_weighed(
                run, judge, corrector, estimator, X, splits, fit_params, validation
            )
            selection = judge.verdict(worse_bar)
        if selection is not None and selection["undone"]:
            set_back(run, corrector)
            stopped = "undone"
    # a selection needs the held-out judge; a trusted judge undoes any loss
    if (
        CONTEST_CORRECTIONS
        and selection is not None
        and not selection["undone"]
        and selection["gain"] < 0
        and stopped not in LABELS_KEPT
        and plc.contested == "auto"
        and plc.revert_if_worse
    ):
        set_aside = contested_set_aside(
            run, estimator, X, corrector.initial_labels, fit_params, rng
        )
        if set_aside is not None:
            set_back(run, corrector)
            stopped = "corrections_contested"
            selection = {
                **selection,
                "chosen": False,
                "n_set_aside": int(set_aside.sum()),
            }
    if (
        stopped == "not_memorising"
        and plc.contested in ("auto", "set_aside")
        and splits is not None
        and validation is not None
        and trusted is None
    ):
        set_aside, selection = judged_set_aside(
            run, corrector, judge, estimator, X, splits, fit_params, validation
        )
    if (
        RANDOM_LABELS_MIN_MEMORISATION is not None
        and stopped in RANDOM_LABELS_ENDINGS
        and plc.contested in ("auto", "set_aside")
        and run.first_proba is not None
    ):
        set_aside = random_label_set_aside(run, corrector)
    return stopped, selection, set_aside


def set_back(run, corrector):
    """Set every label back to the given one (logged); say so at verbose 2."""
    corrector.restore_given_labels()
    if run.plc.verbose >= 2:
        tqdm.write(round_line(corrector.history[-1], corrector.labels.shape[0]))


def judge_weighed(run, judge, corrector, estimator, X, splits, fit_params, validation):
    """Judge fold models fitted on the current labels as the final fit is.

    Nothing is judged where no relabel would be weighed.
    """
    weight = relabel_weights(
        corrector.pass_proba(), corrector.initial_labels, corrector.labels
    )
    if not (weight < 1).any():
        return
    proba = weighed_out_of_fold_proba(
        estimator,
        X,
        corrector.labels,
        corrector.initial_labels,
        weight,
        splits,
        classes=run.classes,
        params=fit_params,
        key=run.weight_key,
        validation=validation,
        n_jobs=run.plc.n_jobs,
    )
    judge.judge(proba, corrector.n_rounds, weighed=True)


def contested_set_aside(run, estimator, X, encoded, fit_params, rng):
    """The given labels that confident learning disputes, on fresh models.

    Held-out probabilities of every sample on the labels as given: out of
    fold from new folds of ``cv`` (a new shuffle; a splitter as given), or
    out of bag from one new ensemble fitted on every sample, averaged with
    the first round's where it was kept (``CONTEST_WITH_FIRST_ROUND``). None
    where they cannot be fitted (a fold too small for the estimator).
    """
    plc = run.plc
    cv = plc.cv
    if CONTESTED_FOLDS is not None and isinstance(cv, Integral):
        cv = CONTESTED_FOLDS
    try:
        if run.confidence == "oob":
            proba, _ = out_of_bag_proba(
                estimator,
                X,
                encoded,
                run.classes,
                fit_params=fit_params,
                in_sample=False,
                n_jobs=plc.n_jobs,
            )
        else:
            proba, _ = out_of_fold_proba(
                estimator,
                X,
                encoded,
                make_splits(cv, X, encoded, rng, run.groups),
                run.classes,
                fit_params=fit_params,
                n_jobs=plc.n_jobs,
            )
    except ValueError:
        return None
    if CONTEST_WITH_FIRST_ROUND and run.first_proba is not None:
        proba = (proba + run.first_proba) / 2
    return keep_every_class(confident_label_issues(proba, encoded), encoded)


def judged_set_aside(
    run, corrector, judge, estimator, X, splits, fit_params, validation
):
    """The first round's sure disputes, where leaving them out is clearly better.

    A model that does not memorise keeps the labels as given. Its sure
    disputes are the samples whose held-out label probability in the first
    round was at most the sure ratio of the top class's
    (``sure_ratio_for``). The same folds are refitted without the
    fold-trained ones, and where those models agree with the judged
    samples' given labels better than the first round's by more than
    ``SET_ASIDE_STANDARD_ERRORS`` standard errors, paired, every sure
    dispute is left out of the final fit: the judged ones too, whose
    probabilities come from the same fold models, held out as well (the
    comparison tests the rule, not the particular samples).

    Returns
    -------
    set_aside : ndarray of bool of shape (n_samples,) or None
        The sure disputes where they are left out; None otherwise.
    selection : dict or None
        The comparison (``selection_``, with ``"compared": "set_aside"``);
        None where there was no candidate or the folds could not be
        refitted without them.
    """
    labels = corrector.initial_labels
    (proba,) = corrector.recorded  # the refusal ends the run after round 0
    trained = np.ones(labels.shape[0], dtype=bool)
    trained[validation] = False
    sure = confidence_ratio(proba, labels) <= sure_ratio_for(proba.shape[1])
    disputed = keep_every_class(trained & sure, labels)
    if not disputed.any():
        return None, None
    try:
        proba_without, _ = out_of_fold_proba(
            estimator,
            X,
            labels,
            splits_without(splits, disputed),
            run.classes,
            fit_params=fit_params,
            n_jobs=run.plc.n_jobs,
            validation=validation,
        )
    except ValueError:
        # too few samples left in a fold for the estimator (k-NN:
        # n_neighbors): nothing to compare, the labels stay as given
        return None, None
    selection = judge.compare_with_given(proba_without, SET_ASIDE_STANDARD_ERRORS)
    set_aside = keep_every_class(sure, labels)
    selection["n_set_aside"] = int(set_aside.sum())
    return (set_aside if selection["chosen"] else None), selection


def random_label_set_aside(run, corrector):
    """The first round's disputes that look drawn at random, or None.

    Reads the first round's held-out probabilities (``run.first_proba``, on
    the labels as given) with :func:`~sklearn_plc._random_labels.random_labels`
    and records the fitted share of random labels among the disputes in
    ``run.memorisation["random_label_share"]`` (None in two classes). They are
    left out only where the model memorises at least
    ``RANDOM_LABELS_MIN_MEMORISATION`` of the labels it disputes; verified
    (``trusted``) samples never are.
    """
    labels = corrector.initial_labels
    random, share = random_labels(np.asarray(run.first_proba, dtype=float), labels)
    if corrector.fixed is not None:
        random &= ~corrector.fixed  # verified labels are never left out
    evidence = run.memorisation
    evidence["random_label_share"] = share
    if evidence["rate"] < RANDOM_LABELS_MIN_MEMORISATION:
        return None
    random = keep_every_class(random, labels)
    return random if random.any() else None
