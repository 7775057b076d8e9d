"""PLC around a scikit-learn estimator: a refit (or fold refits) every round.

Each round fits the estimator on the current labels, records its probabilities
(in sample, out of fold or out of bag) with the run's
:class:`~sklearn_plc._corrector.LabelCorrector`, and runs a correction pass.
With held-out probabilities the first round also takes the memorisation test,
and every refit is judged by :class:`~sklearn_plc._judge.HeldOutJudge`. What
the run ends with once the loop stops (the corrections kept, undone or
contested) is decided in :mod:`sklearn_plc._ending`.
"""

import functools
import warnings
from numbers import Integral

import numpy as np
from sklearn import get_config
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.metadata_routing import process_routing
from tqdm.auto import tqdm

from ._corrector import LabelCorrector
from ._ending import LABELS_GIVEN, LABELS_KEPT, end_run
from ._final_fit import (
    fit_final_model,
    keep_every_class,
    unweighed_set_aside,
    warn_fitted_on_every_sample,
)
from ._judge import (
    HeldOutJudge,
    can_judge,
    choose_judged_samples,
    memorisation_evidence,
    memorises,
    sure_ratio_for,
)
from ._out_of_fold import (
    fit_on_indices,
    make_splits,
    out_of_bag_proba,
    out_of_fold_proba,
    proba_per_class,
    splits_without,
)
from ._parallel import data_sent_once
from ._params import pass_params
from ._report import round_line
from ._run import RunPath, RunResult
from ._validation import (
    HELD_OUT_CONFIDENCES,
    check_cv_against_classes,
    check_cv_is_reusable,
    check_finite_proba,
    check_groups,
    check_sample_weight,
    sample_weight_key,
    seed_unset_random_states,
    sets_warm_start,
    validate_rows,
)
from .correction import (
    relabel_weights,
)

# Keep the labels of a model whose held-out sure disputes outnumber its
# agreements with the labels as given (``can_judge``); False: only record them.
REFUSE_WEAK_JUDGE = True
# "auto" min_correction_rate when each round costs a refit (cv fold fits): a
# pass changing at most a tenth of the labels is quiet, and a refit waits for
# more changes than that since the last one
REFIT_MIN_CORRECTION_RATE = 0.1
# A round refits only when more labels changed since the last fit than a quiet
# pass may change (``min_correction_rate``); fewer are examined again, with the
# threshold raised, on the same probabilities, which so few changes barely move.
REFIT_AFTER_QUIET_CHANGES = False
# A judged refit that agrees worse than the labels as given by this many
# standard errors (twice the undo's bar) stops the run at once, and the labels
# are kept, instead of running on and undoing at the end; None: judge at the end.
DECIDE_EARLY = 2.0


def sure_theta_end(theta, theta_end, sure_ratio):
    """``theta_end`` capped at `sure_ratio`, never below ``theta``."""
    return max(theta, min(theta_end, sure_ratio))


class RefitRun(RunPath):
    """The refit loop of ``PLCClassifier`` (see :mod:`sklearn_plc._run`).

    Parameters
    ----------
    plc : PLCClassifier
        Its parameters are read; it is changed only by ``check_input``, which
        validates X on it as scikit-learn does (``n_features_in_``).
    estimator : estimator object
        The classifier to refit; cloned, never fitted itself.
    confidence : {"in_sample", "cv", "oob"}
        Where each round's probabilities come from.
    """

    def __init__(self, plc, estimator, confidence):
        super().__init__(plc, estimator, confidence)
        # set by check_input, read by run
        self.groups = self.sample_weight = self.weight_key = None

    def check_input(self, X, encoded, classes, sample_weight, fit_params):
        """Validate X and the fit parameters; return ``(X, fit_params)``."""
        plc = self.plc
        check_cv_is_reusable(plc.cv)
        X = validate_rows(plc, X, encoded)
        self.check_estimator()
        if self.confidence == "cv":
            check_cv_against_classes(plc.cv, classes.shape[0], encoded)
        self.sample_weight = check_sample_weight(sample_weight, encoded.shape[0])
        if self.sample_weight is not None:
            fit_params = {"sample_weight": self.sample_weight, **fit_params}
        if get_config()["enable_metadata_routing"]:
            routed = process_routing(plc, "fit", **fit_params)
            fit_params = routed.estimator.fit
            splitter = routed.get("splitter")
            self.groups = None if splitter is None else splitter.split.get("groups")
        else:
            fit_params = dict(fit_params)
            self.groups = fit_params.pop("groups", None)
        check_groups(self.groups, self.confidence, plc.confidence)
        self.weight_key = self._relabel_weight_key()
        return X, fit_params

    def _relabel_weight_key(self):
        """The fit keyword for the final fit's relabel weights, or None (hard labels).

        ``contested="weigh"`` and ``"auto"`` weigh with held-out probabilities
        only (in-sample ones are too sure to weigh by); ``"weigh"`` raises where
        the estimator takes no per-sample weights, and ``"auto"`` then leaves
        the doubtful samples out (:func:`unweighed_set_aside`).
        """
        contested = self.plc.contested
        if contested not in ("auto", "weigh"):
            return None
        if self.confidence not in HELD_OUT_CONFIDENCES:
            return None
        key = sample_weight_key(self.estimator)
        if key is None and contested == "weigh":
            raise ValueError(
                f"contested='weigh' fits the final model with sample weights, but "
                f"{type(self.estimator).__name__}.fit takes no sample_weight (for a "
                f"Pipeline: its last step's, or one requested by metadata "
                f"routing). Use contested='auto', which then leaves the relabelled "
                f"and the disputed samples out of the final fit, or "
                f"contested='keep' (the hard corrected labels)."
            )
        return key

    def run(self, X, encoded, classes, fit_params, trusted):
        """Correct the labels round by round; return a :class:`RunResult`.

        Every model is fitted on the caller's own labels (``classes[labels]``),
        so per-class parameters such as ``class_weight`` apply as given.
        """
        plc = self.plc
        self.classes = classes
        n_classes = classes.shape[0]
        rng = check_random_state(plc.random_state)
        estimator = self.estimator
        if plc.random_state is not None:
            estimator = seed_unset_random_states(clone(estimator), rng)
        held_out = self.confidence in HELD_OUT_CONFIDENCES
        training = validation = judged = None
        if held_out and plc.revert_if_worse:
            folds_given = not (isinstance(plc.cv, Integral) or hasattr(plc.cv, "split"))
            training, validation, judged = choose_judged_samples(
                encoded,
                rng,
                self.groups,
                trusted=trusted,
                validation_fraction=plc.validation_fraction,
                can_set_aside=not (self.confidence == "cv" and folds_given),
            )
        splits = None
        if self.confidence == "cv":
            if training is not None and trusted is None:
                check_cv_against_classes(
                    plc.cv,
                    n_classes,
                    encoded[training],
                    set_aside=f" once validation_fraction={plc.validation_fraction} "
                    f"has set {encoded.shape[0] - training.shape[0]} aside",
                )
            splits = make_splits(plc.cv, X, encoded, rng, self.groups, train=training)
        self.continuing = self.confidence == "in_sample" and sets_warm_start(estimator)
        correction = pass_params(plc)
        if held_out and plc.contested == "set_aside":
            correction["theta_end"] = sure_theta_end(
                plc.theta, plc.theta_end, sure_ratio_for(n_classes)
            )
        corrector = LabelCorrector(
            encoded,
            **correction,
            min_correction_rate=(
                REFIT_MIN_CORRECTION_RATE
                if plc.min_correction_rate == "auto"
                else plc.min_correction_rate
            ),
            warm_up=0 if plc.warm_up == "auto" else plc.warm_up,
            sample_weight=self.sample_weight,
            fixed=trusted,
        )
        judge = HeldOutJudge(encoded, judged) if held_out else None
        fold_indices = [part for fold in splits or () for part in fold]
        with data_sent_once(X, *fold_indices):
            stopped = self._loop(
                corrector, judge, estimator, X, splits, fit_params, validation
            )
        if stopped == "max_iter":
            warnings.warn(
                f"PLC stopped at max_iter={plc.max_iter} rounds before a quiet pass "
                f"at theta_end={plc.theta_end}; the labels may still be moving. "
                f"Increase max_iter, or raise min_correction_rate.",
                ConvergenceWarning,
                stacklevel=3,
            )
        stopped, selection, set_aside = end_run(
            self,
            stopped,
            corrector=corrector,
            judge=judge,
            estimator=estimator,
            X=X,
            splits=splits,
            fit_params=fit_params,
            validation=validation,
            trusted=trusted,
            rng=rng,
        )
        relabel_weight = None
        if held_out and stopped not in LABELS_GIVEN:
            # end_run's set-aside here: the labels that look drawn at random
            left_out = [] if set_aside is None else [set_aside]
            if plc.contested == "set_aside":
                left_out.append(corrector.contested())
            elif self._leaves_out_doubtful():
                left_out.append(unweighed_set_aside(corrector))
            if left_out:
                set_aside = keep_every_class(
                    np.logical_or.reduce(left_out), corrector.labels
                )
        if self.weight_key is not None and stopped not in LABELS_GIVEN:
            relabel_weight = relabel_weights(
                corrector.pass_proba(), corrector.initial_labels, corrector.labels
            )
        return RunResult(
            corrector=corrector,
            termination=stopped,
            estimator=self._final_model(
                estimator,
                corrector.labels,
                X,
                fit_params,
                set_aside,
                relabel_weight,
                corrector.initial_labels,
            ),
            selection=selection,
            memorisation=self.memorisation,
            validation_indices=judged,
            set_aside=set_aside,
            relabel_weight=relabel_weight,
        )

    def _final_model(
        self,
        estimator,
        labels,
        X,
        fit_params,
        set_aside=None,
        relabel_weight=None,
        given_labels=None,
    ):
        """The model trained on the final labels (see ``final_fit``), or None.

        Reuses the loop's last model (``self.model``) when it was fitted on
        exactly `labels`, no sample is set aside and no relabel is weighed; the
        `set_aside` samples are left out of the final fit, and a relabel with a
        `relabel_weight` below 1 trains on both its labels (:func:`weighed_fit`).
        """
        model, model_labels = self.model, self.model_labels
        weighed = relabel_weight is not None and (relabel_weight < 1).any()
        model_is_current = (
            model is not None
            and np.array_equal(model_labels, labels)
            and (set_aside is None or not set_aside.any())
            and not weighed
        )
        if self.plc.final_fit and not model_is_current:
            return fit_final_model(
                model if self.continuing else clone(estimator),
                estimator,
                X,
                labels,
                self.classes,
                fit_params,
                set_aside=set_aside,
                relabel_weight=relabel_weight if weighed else None,
                given_labels=given_labels,
                key=self.weight_key,
                contested=self.plc.contested,
            )
        if model_is_current or self.confidence != "cv":
            return model
        return None

    def _round_proba(self, model, X, labels, splits, fit_params, in_sample, validation):
        """Fit for one round; return probabilities with one column per class.

        With ``splits`` the probabilities are out-of-fold (`model` is cloned per
        fold and left unfitted). Out of bag, they come from a clone of `model`
        fitted on all samples, which comes back. Otherwise `model` is fitted on
        all samples and predicts them. `validation` samples are predicted by
        models that did not train on them.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        in_sample_proba : ndarray of shape (n_samples, n_classes) or None
            With `in_sample`, each sample's probabilities from a model that
            trained on it (NaN where none did; see ``out_of_fold_proba``).
        model_on_all : estimator or None
            The out-of-bag ensemble, fitted on all samples but `validation`.
        """
        if self.confidence == "oob":
            proba, (ensemble, in_sample_proba) = out_of_bag_proba(
                model,
                X,
                labels,
                self.classes,
                fit_params=fit_params,
                in_sample=in_sample,
                validation=validation,
                n_jobs=self.plc.n_jobs,
            )
            return proba, in_sample_proba, ensemble
        if splits is not None:
            proba, in_sample_proba = out_of_fold_proba(
                model,
                X,
                labels,
                splits,
                self.classes,
                fit_params=fit_params,
                n_jobs=self.plc.n_jobs,
                in_sample=in_sample,
                validation=validation,
            )
            return proba, in_sample_proba, None
        fit_on_indices(model, X, labels, self.classes, fit_params)
        return proba_per_class(model, X, self.classes), None, None

    def _loop(self, corrector, judge, estimator, X, splits, fit_params, validation):
        """The rounds: one model (or set of fold models) per round.

        A round refits only when more labels changed since the last fit than a
        quiet pass may change (or the estimator continues training on each
        fit); otherwise the previous probabilities are examined again at the
        raised threshold, which is what a refit of a deterministic estimator on
        the same labels would give. With held-out judging, a refit that agrees
        worse than the labels as given by ``DECIDE_EARLY`` standard errors ends
        the loop (the corrections are then undone).

        Sets ``self.model`` (the last in-sample or out-of-bag model; None out
        of fold, where only fold models are fitted), ``self.model_labels`` (the
        labels it was fitted on), ``self.memorisation`` (the memorisation
        test's evidence) and ``self.first_proba`` (the first round's held-out
        probabilities, where it took the test).

        Returns
        -------
        stopped : str
            Why the loop ended.
        """
        plc = self.plc
        self.model = clone(estimator) if judge is None else None
        self.model_labels = self.memorisation = self.first_proba = None
        fit_round = functools.partial(
            self._fit_round,
            judge=judge,
            estimator=estimator,
            X=X,
            splits=splits,
            fit_params=fit_params,
            validation=validation,
        )
        fitted_labels = None
        stopped = "max_iter"
        n_samples = corrector.labels.shape[0]
        quiet_changes = (
            0
            if REFIT_AFTER_QUIET_CHANGES
            else corrector.min_correction_rate * n_samples
        )
        early_bar = DECIDE_EARLY if plc.revert_if_worse else None
        with tqdm(  # no total: the rounds are counted as they run
            desc="PLC", unit="round", disable=not plc.verbose
        ) as progress:
            for round_index in range(plc.max_iter):
                refit = (
                    self.continuing
                    or fitted_labels is None
                    or self._moved_since_fit(corrector, fitted_labels) > quiet_changes
                )
                agreement = None
                if refit:
                    progress.set_postfix_str(f"round {round_index}: fitting")
                    fitted_labels = corrector.labels.copy()
                    agreement, refusal = fit_round(
                        corrector, round_index, fitted_labels
                    )
                    if refusal is not None:
                        stopped = refusal
                    elif (
                        early_bar is not None
                        and judge is not None
                        and judge.shows_harm(early_bar)
                    ):
                        stopped = "undone"  # the verdict below undoes
                correct = stopped not in LABELS_KEPT
                corrector.run_round(
                    correct=correct, refit=refit, holdout_agreement=agreement
                )
                last = corrector.history[-1]
                if plc.verbose >= 2:
                    progress.write(round_line(last, n_samples))
                progress.set_postfix(
                    theta=f"{last['threshold']:.3g}",
                    corrected=last["n_corrected"],
                    changed=last["n_changed"],
                )
                progress.update()
                if not correct:
                    break
                if corrector.converged:
                    stopped = "converged"
                    break
            progress.set_postfix_str(stopped)
        return stopped

    def _leaves_out_doubtful(self):
        """Whether the doubtful samples stay out of the fits (``unweighed_set_aside``).

        With ``contested="auto"``, held-out probabilities and an estimator whose
        ``fit`` takes no sample weights: the final fit, and every round's fold
        fits after the first, leave them out.
        """
        return (
            self.plc.contested == "auto"
            and self.confidence in HELD_OUT_CONFIDENCES
            and self.weight_key is None
        )

    def _moved_since_fit(self, corrector, fitted_labels):
        """How many labels changed since the last fit (compared with the quiet bar)."""
        return np.count_nonzero(fitted_labels != corrector.labels)

    def _fit_round(
        self,
        corrector,
        round_index,
        labels,
        *,
        judge,
        estimator,
        X,
        splits,
        fit_params,
        validation,
    ):
        """Fit this round's model(s) on `labels` (a copy of the current labels).

        With held-out confidence and ``min_memorisation > 0``, the first round
        also takes the memorisation test, at no extra fit: each fold's model
        (out of bag, the ensemble) also predicts samples it trained on; and it
        asks whether the model confirms more labels than it surely disputes
        (:func:`~sklearn_plc._judge.can_judge`). Out of
        bag, every round's model is fitted on all samples and is kept as the
        last model; in sample, the round's model is.

        Returns
        -------
        agreement : float or None
            The held-out agreement with the given labels (None in sample).
        refusal : {"not_memorising", "too_weak_to_judge"} or None
            Why the run ends with the labels as given after the first round:
            the model does not memorise its labels, or it surely disputes more
            of them than it confirms; None: correct.
        """
        in_sample = judge is None
        if in_sample and not self.continuing:
            self.model = clone(estimator)
        measure = not in_sample and round_index == 0 and self.plc.min_memorisation > 0
        round_splits = splits
        if splits is not None and self._leaves_out_doubtful() and corrector.recorded:
            # an unweighted fold model would take a doubtful label at full weight,
            # and its next predictions would confirm it (k-NN: it votes)
            left_out = keep_every_class(unweighed_set_aside(corrector), labels)
            round_splits = splits_without(splits, left_out)
        round_proba = functools.partial(
            self._round_proba,
            self.model if in_sample else estimator,
            X,
            labels,
            fit_params=fit_params,
            in_sample=measure,
            validation=validation,
        )
        try:
            proba, in_sample_proba, model_on_all = round_proba(round_splits)
        except ValueError as error:
            if round_splits is splits:
                raise
            # too few samples left in a fold for the estimator (k-NN: n_neighbors)
            warn_fitted_on_every_sample(
                estimator, int(left_out.sum()), self.plc.contested, error
            )
            proba, in_sample_proba, model_on_all = round_proba(splits)
        check_finite_proba(proba, round_index)
        agreement = None if in_sample else judge.judge(proba, corrector.n_rounds)
        corrector.add_proba(proba)
        if in_sample:
            self.model_labels = labels
        elif self.confidence == "oob":
            # the round's ensemble leaves the validation samples out
            self.model = model_on_all
            self.model_labels = labels if validation is None else None
        if measure:
            self.first_proba = corrector.recorded[-1]  # as the corrector keeps it
            self.memorisation = memorisation_evidence(
                corrector.initial_labels,
                proba,
                in_sample_proba,
                validation,
                sure_ratio=sure_ratio_for(proba.shape[1]),
            )
            if not memorises(self.memorisation, self.plc.min_memorisation):
                return agreement, "not_memorising"
            if REFUSE_WEAK_JUDGE and not can_judge(self.memorisation):
                return agreement, "too_weak_to_judge"
        return agreement, None
