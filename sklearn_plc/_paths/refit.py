"""PLC around a scikit-learn estimator: a refit (or fold refits) every round.

:meth:`RefitPath.run` reads top to bottom: choose the samples that judge and
the folds; run the rounds (:meth:`RefitPath._loop`: each fits the estimator on
the current labels, records its probabilities, in sample, out of fold or out
of bag, with the run's :class:`~sklearn_plc._label_state.LabelCorrector`, and
runs a correction pass; the first round takes the memorisation test); collect
the evidence and let :func:`~sklearn_plc._ending.end_of_run` decide the end,
fitting what it asks for; fit the final model on what it decided.
"""

import functools
import warnings
from dataclasses import dataclass, replace
from numbers import Integral

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils.metadata_routing import process_routing
from tqdm.auto import tqdm

from .._ending import (
    LABELS_KEPT,
    EndingSettings,
    FitRequest,
    RunEvidence,
    doubtful_samples,
    end_of_run,
    keep_every_class,
    undone_on_halves,
)
from .._final_fit import (
    fit_final_model,
    warn_fitted_on_every_sample,
    weighed_out_of_fold_proba,
)
from .._held_out import (
    fit_fold,
    make_splits,
    out_of_bag_proba,
    out_of_fold_proba,
    per_sample_params,
    proba_per_class,
    round_proba,
    splits_without,
    with_sample_weight,
)
from .._judge import (
    HeldOutJudge,
    JudgedRefit,
    can_judge,
    choose_judged_samples,
    halves_verdict,
    judge_sample_weight,
    memorisation_evidence,
    memorises,
    split_halves,
)
from .._label_state import LabelCorrector
from .._parallel import data_sent_once
from .._report import round_line
from .._thresholds import (
    EARLY_UNDO_STANDARD_ERRORS,
    EVIDENCE_STANDARD_ERRORS,
    REFIT_MIN_CORRECTION_RATE,
    sure_ratio_for,
    sure_theta_end,
)
from .._validation import (
    HELD_OUT_CONFIDENCES,
    check_cv_against_classes,
    check_cv_is_reusable,
    check_finite_proba,
    check_groups,
    check_sample_weight,
    sample_weight_key,
    seed_unset_random_states,
    sets_warm_start,
)
from .interface import RunResult


def _rows(values, rows):
    """`values` at `rows` (None stays None)."""
    return None if values is None else _safe_indexing(values, rows)


@dataclass
class _Round:
    """What one round's fit gives the loop."""

    agreement: float | None  # held-out agreement with the given labels
    refusal: str | None  # "not_memorising", "too_weak_to_judge" or None
    model: object  # the in-sample or out-of-bag model; None out of fold
    model_labels: np.ndarray | None  # the labels `model` was fitted on
    memorisation: dict | None = None  # the first round's test
    first_proba: np.ndarray | None = None  # the first round's, as recorded


@dataclass
class _Loop:
    """What the loop leaves for the end of the run."""

    stopped: str
    validation: np.ndarray | None = None  # the samples no correcting model trained on
    model: object = None
    model_labels: np.ndarray | None = None
    memorisation: dict | None = None
    first_proba: np.ndarray | None = None
    # what the last pass read; neither the ending nor an undo changes it
    pass_proba: np.ndarray | None = None


class RefitPath:
    """The refit path of ``PLCClassifier`` (see :mod:`sklearn_plc._paths.interface`).

    Parameters
    ----------
    settings : RunSettings
        The resolved parameters.
    estimator : estimator object
        The classifier to refit; cloned, never fitted itself.
    router : MetadataRouter or None, default=None
        Where metadata routing is enabled, ``PLCClassifier``'s routing: it
        sends the fit parameters to the estimator and ``groups`` to ``cv``.
    """

    def __init__(self, settings, estimator, router=None, *, checks_on_halves=True):
        self.settings = settings
        self.estimator = estimator
        self.router = router
        self.held_out = settings.confidence in HELD_OUT_CONFIDENCES
        # the runs made on each half for the check are not checked themselves
        self.checks_on_halves = checks_on_halves
        # set by check_input, read by run
        self.groups = self.sample_weight = self.weight_key = None

    def check_input(self, X, encoded, classes, sample_weight, fit_params):
        """Validate the fit parameters against the data; return ``(X, fit_params)``."""
        settings = self.settings
        check_cv_is_reusable(settings.cv)
        self.sample_weight = check_sample_weight(sample_weight, encoded.shape[0])
        if self.sample_weight is not None:
            fit_params = {"sample_weight": self.sample_weight, **fit_params}
        if self.router is not None:
            routed = process_routing(self.router, "fit", **fit_params)
            fit_params = routed.estimator.fit
            splitter = routed.get("splitter")
            self.groups = None if splitter is None else splitter.split.get("groups")
        else:
            fit_params = dict(fit_params)
            self.groups = fit_params.pop("groups", None)
        check_groups(self.groups, settings.confidence, settings.given_confidence)
        self.weight_key = self._relabel_weight_key()
        return X, fit_params

    def _relabel_weight_key(self):
        """The fit keyword for the final fit's relabel weights, or None (hard labels).

        ``doubtful="weigh"`` and ``"auto"`` weigh with held-out probabilities
        only (in-sample ones are too sure to weigh by); ``"weigh"`` raises where
        the estimator takes no per-sample weights, and ``"auto"`` then leaves
        the doubtful samples out (:func:`~sklearn_plc._ending.doubtful_samples`).
        """
        doubtful = self.settings.doubtful
        if doubtful not in ("auto", "weigh") or not self.held_out:
            return None
        key = sample_weight_key(self.estimator)
        if key is None and doubtful == "weigh":
            raise ValueError(
                f"doubtful='weigh' fits the final model with sample weights, but "
                f"{type(self.estimator).__name__}.fit takes no sample_weight (for a "
                f"Pipeline: its last step's, or one requested by metadata "
                f"routing). Use doubtful='auto', which then leaves the relabelled "
                f"and the disputed samples out of the final fit, or "
                f"doubtful='keep' (the hard corrected labels)."
            )
        return key

    @property
    def _leaves_out_doubtful(self):
        """``doubtful="auto"`` with held-out probabilities and no sample weights.

        The final fit, and every round's fold fits after the first, then leave
        the doubtful samples out.
        """
        return (
            self.settings.doubtful == "auto"
            and self.held_out
            and self.weight_key is None
        )

    def run(self, X, encoded, classes, fit_params, trusted):
        """Correct the labels round by round; return a :class:`RunResult`.

        Every model is fitted on the caller's own labels (``classes[labels]``),
        so per-class parameters such as ``class_weight`` apply as given.
        """
        settings = self.settings
        self.classes = classes
        rng = check_random_state(settings.random_state)
        estimator = self.estimator
        if settings.random_state is not None:
            estimator = seed_unset_random_states(clone(estimator), rng)
        validation, judged, splits = self._judged_samples_and_folds(
            X, encoded, trusted, rng
        )
        self.continuing = settings.confidence == "in_sample" and sets_warm_start(
            estimator
        )
        corrector = self._corrector(encoded, classes.shape[0], trusted)
        judge = weight = None
        if self.held_out:
            weight = judge_sample_weight(
                estimator, classes, encoded, self.sample_weight
            )
            judge = HeldOutJudge(encoded, judged, weight)
        fold_indices = [part for fold in splits or () for part in fold]
        with data_sent_once(X, *fold_indices):
            loop = self._loop(
                corrector, judge, estimator, X, splits, fit_params, validation
            )
            ending = self._end(
                loop, corrector, judge, trusted, estimator, X, splits, fit_params, rng
            )
        halves = None
        if self._checks(ending, corrector.initial_labels):
            halves = self._check_on_halves(
                ending,
                estimator,
                X,
                corrector.initial_labels,
                fit_params,
                rng,
                weight,
                trusted,
            )
            if halves is not None and halves["undone"]:
                ending = undone_on_halves(ending, halves, corrector)
        if ending.restore_given_labels:
            corrector.restore_given_labels()
            if settings.verbose >= 2:
                tqdm.write(round_line(corrector.history[-1], encoded.shape[0]))
        model, set_aside = self._final_model(
            estimator, loop, ending, corrector.initial_labels, X, fit_params
        )
        return RunResult(
            corrector=corrector,
            termination=ending.termination,
            estimator=model,
            selection=ending.selection,
            memorisation=ending.memorisation,
            validation_indices=judged,
            set_aside=set_aside,
            relabel_weight=ending.relabel_weight,
            label_evidence=corrector.label_evidence(loop.pass_proba),
            attributes={"halves_check_": halves},
        )

    def _checks(self, ending, given):
        """Whether the run's result is checked on halves (:meth:`_check_on_halves`).

        Where the judge acts (held-out probabilities, ``validation_fraction``
        a float), the folds can be made on a
        half (``cv`` an int or a splitter), and the result differs from a
        plain fit on the labels as given: some label changed, some sample is
        left out, or some is weighed.
        """
        settings = self.settings
        cv = settings.cv
        if not (
            self.checks_on_halves
            and self.held_out
            and settings.judge_acts
            and settings.validation_fraction != "trusted"
            and (isinstance(cv, Integral) or hasattr(cv, "split"))
        ):
            return False
        return bool(
            np.any(ending.labels != given)
            or (ending.set_aside is not None and ending.set_aside.any())
            or ending.label_weight is not None
        )

    def _check_on_halves(
        self, ending, estimator, X, given, fit_params, rng, weight, trusted
    ):
        """The run made again on each half, judged on the other (``halves_check_``).

        Each half's run (its own folds, verdicts and final fit, not checked
        again) and a plain fit on that half's labels as given predict the other
        half; :func:`~sklearn_plc._judge.halves_verdict` compares them with
        the given labels over every sample, each at `weight` (the judge's,
        :func:`~sklearn_plc._judge.judge_sample_weight`). Returns None where a
        half cannot be run (a class too small for the folds of a half). A
        half's run keeps its ``trusted`` labels.
        """
        n_samples = given.shape[0]
        settings = replace(
            self.settings, random_state=rng.randint(2**31 - 1), verbose=0
        )
        predicted = np.empty(n_samples, dtype=np.intp)
        plain_predicted = np.empty(n_samples, dtype=np.intp)
        with warnings.catch_warnings():
            # a half's run warns as the run itself did (max_iter, a small fold)
            warnings.simplefilter("ignore")
            for part, other in split_halves(given, rng, self.groups):
                half = RefitPath(settings, estimator, checks_on_halves=False)
                half.groups = _rows(self.groups, part)
                half.sample_weight = _rows(self.sample_weight, part)
                half.weight_key = self.weight_key
                X_other = _safe_indexing(X, other)
                try:
                    result = half.run(
                        _safe_indexing(X, part),
                        given[part],
                        self.classes,
                        per_sample_params(fit_params, part, n_samples),
                        _rows(trusted, part),
                    )
                    plain = fit_fold(
                        clone(estimator), X, given, part, self.classes, fit_params
                    )
                except ValueError:
                    return None
                predicted[other] = proba_per_class(
                    result.estimator, X_other, self.classes
                ).argmax(axis=1)
                plain_predicted[other] = proba_per_class(
                    plain, X_other, self.classes
                ).argmax(axis=1)
        return halves_verdict(
            predicted == given,
            plain_predicted == given,
            ending.termination,
            EVIDENCE_STANDARD_ERRORS,
            weight,
        )

    def _end(
        self, loop, corrector, judge, trusted, estimator, X, splits, fit_params, rng
    ):
        """The run's :class:`~sklearn_plc._ending.Ending`, with what it asks fitted."""
        settings = EndingSettings(
            doubtful=self.settings.doubtful,
            judge_acts=self.settings.judge_acts,
            held_out=self.held_out,
            weighable=self.weight_key is not None,
            refits_folds=splits is not None,
            trusted=self.settings.validation_fraction == "trusted",
        )
        fit = functools.partial(
            self._fit_requested,
            corrector=corrector,
            judge=judge,
            estimator=estimator,
            X=X,
            splits=splits,
            fit_params=fit_params,
            validation=loop.validation,
            rng=rng,
        )
        evidence = self._evidence(loop, corrector, judge)
        ending = end_of_run(evidence, settings)
        while isinstance(ending, FitRequest):
            evidence = evidence.with_fitted(ending.name, fit(ending))
            ending = end_of_run(evidence, settings)
        return ending

    def _judged_samples_and_folds(self, X, encoded, trusted, rng):
        """``(validation, judged, splits)``: who judges, and the loop's folds.

        ``validation``: the samples no correcting model trains on (the
        validation samples or the ``trusted`` ones); ``judged``: those whose held-out
        predictions judge; ``splits``: the folds (``"cv"`` only), made from the
        rest. Each None where there is none.
        """
        settings = self.settings
        training = validation = judged = None
        if self.held_out and settings.judge_acts:
            cv = settings.cv
            folds_given = not (isinstance(cv, Integral) or hasattr(cv, "split"))
            training, validation, judged = choose_judged_samples(
                encoded,
                rng,
                self.groups,
                trusted=trusted,
                validation_fraction=settings.validation_fraction,
                can_set_aside=not (settings.confidence == "cv" and folds_given),
            )
        if settings.confidence != "cv":
            return validation, judged, None
        # checked once, on the samples the folds are made of, so that the
        # largest cv it suggests can be made
        if training is not None:
            check_cv_against_classes(
                settings.cv,
                self.classes.shape[0],
                encoded[training],
                set_aside=f" once validation_fraction="
                f"{settings.validation_fraction!r} has set "
                f"{encoded.shape[0] - training.shape[0]} aside",
            )
        else:
            check_cv_against_classes(settings.cv, self.classes.shape[0], encoded)
        splits = make_splits(settings.cv, X, encoded, rng, self.groups, train=training)
        return validation, judged, splits

    def _corrector(self, encoded, n_classes, trusted):
        """The run's :class:`LabelCorrector`, with the refit path's ``"auto"`` values.

        ``min_correction_rate="auto"``: a tenth of the labels, as each refit
        costs a round of fits; ``warm_up="auto"``: none. With
        ``doubtful="set_aside"`` the threshold stops at the sure ratio.
        """
        settings = self.settings
        correction = dict(settings.correction)
        if self.held_out and settings.doubtful == "set_aside":
            correction["theta_end"] = sure_theta_end(
                correction["theta"], correction["theta_end"], sure_ratio_for(n_classes)
            )
        rate = settings.min_correction_rate
        return LabelCorrector(
            encoded,
            **correction,
            min_correction_rate=REFIT_MIN_CORRECTION_RATE if rate == "auto" else rate,
            warm_up=0 if settings.warm_up == "auto" else settings.warm_up,
            sample_weight=self.sample_weight,
            trusted=trusted,
        )

    def _evidence(self, loop, corrector, judge):
        """What the end of the run reads (:class:`~sklearn_plc._ending.RunEvidence`)."""
        held_out = self.held_out
        return RunEvidence(
            stopped=loop.stopped,
            given_labels=corrector.initial_labels,
            labels=corrector.labels,
            reference=None if judge is None else judge.reference,
            last=None if judge is None else judge.last,
            first_proba=loop.first_proba,
            memorisation=loop.memorisation,
            pass_proba=loop.pass_proba if held_out else None,
            disputed=corrector.disputed(loop.pass_proba) if held_out else None,
            trusted=corrector.trusted,
            validation=loop.validation,
            judged=None
            if judge is None or isinstance(judge.judged, slice)
            else judge.judged,
            judged_weight=None if judge is None else judge.weights,
        )

    def _fit_requested(
        self,
        request,
        *,
        corrector,
        judge,
        estimator,
        X,
        splits,
        fit_params,
        validation,
        rng,
    ):
        """Fit what the end of the run asks (:class:`~sklearn_plc._ending.FitRequest`).

        Returns None where the models cannot be fitted (a fold too small for
        the estimator).
        """
        settings = self.settings
        labels = corrector.initial_labels
        if request.name == "weighed_folds":
            proba = weighed_out_of_fold_proba(
                estimator,
                X,
                corrector.labels,
                labels,
                request.weights,
                splits,
                classes=self.classes,
                params=fit_params,
                key=self.weight_key,
                validation=validation,
            )
            return JudgedRefit(corrector.n_rounds, judge.agrees(proba), weighed=True)
        try:
            if request.name in ("removal", "left_out"):
                params = with_sample_weight(
                    fit_params, self.weight_key, request.weights
                )
                if splits is None:  # out of bag: one ensemble without them
                    left_out = np.flatnonzero(request.left_out)
                    if validation is not None:
                        left_out = np.union1d(left_out, validation)
                    proba, _ = out_of_bag_proba(
                        estimator,
                        X,
                        labels,
                        self.classes,
                        fit_params=params,
                        in_sample=False,
                        validation=left_out,
                    )
                else:
                    proba, _ = out_of_fold_proba(
                        estimator,
                        X,
                        labels,
                        splits_without(splits, request.left_out),
                        self.classes,
                        fit_params=params,
                        validation=validation,
                    )
                return judge.agrees(proba)
            # "contest": new held-out probabilities of every sample
            if settings.confidence == "oob":
                proba, _ = out_of_bag_proba(
                    estimator,
                    X,
                    labels,
                    self.classes,
                    fit_params=fit_params,
                    in_sample=False,
                )
            else:
                proba, _ = out_of_fold_proba(
                    estimator,
                    X,
                    labels,
                    make_splits(settings.cv, X, labels, rng, self.groups),
                    self.classes,
                    fit_params=fit_params,
                )
            return proba
        except ValueError:
            return None

    def _final_model(self, estimator, loop, ending, given_labels, X, fit_params):
        """``(model, set_aside)``: the model the run ends with, and what it left out.

        Reuses the loop's last model when it was fitted on exactly the final
        labels, no sample is left out and no relabel is weighed.
        """
        labels, set_aside = ending.labels, ending.set_aside
        relabel_weight = ending.relabel_weight
        weighed = relabel_weight is not None and (relabel_weight < 1).any()
        fit_params = with_sample_weight(
            fit_params, self.weight_key, ending.label_weight
        )
        model = loop.model
        model_is_current = (
            model is not None
            and np.array_equal(loop.model_labels, labels)
            and (set_aside is None or not set_aside.any())
            and not weighed
            and ending.label_weight is None
        )
        if not model_is_current:
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
                doubtful=self.settings.doubtful,
            )
        return model, set_aside

    def _loop(self, corrector, judge, estimator, X, splits, fit_params, validation):
        """The rounds: one model (or set of fold models) per round.

        A round refits only when more labels changed since the last fit than a
        quiet pass may change (or the estimator continues training on each
        fit); otherwise the previous probabilities are examined again at the
        raised threshold, which is what a refit of a deterministic estimator on
        the same labels would give. With held-out judging, a refit that agrees
        worse than the labels as given by ``EARLY_UNDO_STANDARD_ERRORS``
        standard errors ends the loop (the corrections are then undone).
        """
        settings = self.settings
        loop = _Loop(
            "max_iter",
            validation=validation,
            model=clone(estimator) if judge is None else None,
        )
        fitted_labels = None
        n_samples = corrector.labels.shape[0]
        quiet_changes = corrector.min_correction_rate * n_samples
        stops_early = judge is not None and settings.judge_acts
        with tqdm(  # no total: the rounds are counted as they run
            desc="PLC", unit="round", disable=not settings.verbose
        ) as progress:
            for round_index in range(settings.max_iter):
                refit = (
                    self.continuing
                    or fitted_labels is None
                    or np.count_nonzero(fitted_labels != corrector.labels)
                    > quiet_changes
                )
                agreement = None
                if refit:
                    progress.set_postfix_str(f"round {round_index}: fitting")
                    fitted_labels = corrector.labels.copy()
                    fitted = self._fit_round(
                        corrector,
                        round_index,
                        fitted_labels,
                        loop.model,
                        judge=judge,
                        estimator=estimator,
                        X=X,
                        splits=splits,
                        fit_params=fit_params,
                        validation=validation,
                    )
                    agreement = fitted.agreement
                    loop.model, loop.model_labels = fitted.model, fitted.model_labels
                    if round_index == 0:
                        loop.memorisation = fitted.memorisation
                        loop.first_proba = fitted.first_proba
                    if fitted.refusal is not None:
                        loop.stopped = fitted.refusal
                    elif stops_early and judge.shows_harm(EARLY_UNDO_STANDARD_ERRORS):
                        loop.stopped = "undone"  # the end of the run undoes
                correct = loop.stopped not in LABELS_KEPT
                corrector.run_round(
                    correct=correct, refit=refit, holdout_agreement=agreement
                )
                last = corrector.history[-1]
                if settings.verbose >= 2:
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
                    loop.stopped = "converged"
                    break
            progress.set_postfix_str(loop.stopped)
        loop.pass_proba = corrector.pass_proba()
        if loop.stopped == "max_iter":
            warnings.warn(
                f"PLC stopped at max_iter={settings.max_iter} rounds before a quiet "
                f"pass at theta_end={settings.correction['theta_end']}; the labels "
                f"may still be moving. Increase max_iter, or raise "
                f"min_correction_rate.",
                ConvergenceWarning,
                stacklevel=5,  # the caller of fit, past scikit-learn's fit wrapper
            )
        return loop

    def _fit_round(
        self,
        corrector,
        round_index,
        labels,
        model,
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
        (:func:`~sklearn_plc._judge.can_judge`). Out of bag, every round's
        model is fitted on all samples and is kept as the last model; in
        sample, the round's model (`model`, continued, or a fresh clone) is.
        """
        in_sample = judge is None
        if in_sample and not self.continuing:
            model = clone(estimator)
        measure = (
            not in_sample and round_index == 0 and self.settings.min_memorisation > 0
        )
        round_splits = splits
        if splits is not None and self._leaves_out_doubtful and corrector.recorded:
            # an unweighted fold model would take a doubtful label at full weight,
            # and its next predictions would confirm it (k-NN: it votes)
            left_out = keep_every_class(
                doubtful_samples(
                    corrector.disputed(), corrector.labels, corrector.initial_labels
                ),
                labels,
            )
            round_splits = splits_without(splits, left_out)
        fit_proba = functools.partial(
            round_proba,
            self.settings.confidence,
            model if in_sample else estimator,
            X,
            labels,
            self.classes,
            fit_params=fit_params,
            in_sample=measure,
            validation=validation,
        )
        try:
            proba, in_sample_proba, model_on_all = fit_proba(round_splits)
        except ValueError as error:
            if round_splits is splits:
                raise
            # too few samples left in a fold for the estimator (k-NN: n_neighbors)
            warn_fitted_on_every_sample(
                estimator, int(left_out.sum()), self.settings.doubtful, error
            )
            proba, in_sample_proba, model_on_all = fit_proba(splits)
        check_finite_proba(proba, round_index)
        agreement = None if in_sample else judge.judge(proba, corrector.n_rounds)
        corrector.add_proba(proba)
        if in_sample:
            fitted = _Round(agreement, None, model, labels)
        elif self.settings.confidence == "oob":
            # the round's ensemble leaves the validation samples out
            fitted = _Round(
                agreement, None, model_on_all, labels if validation is None else None
            )
        else:
            fitted = _Round(agreement, None, None, None)
        if measure:
            fitted.first_proba = corrector.recorded[-1]  # as the corrector keeps it
            fitted.memorisation = memorisation_evidence(
                corrector.initial_labels,
                proba,
                in_sample_proba,
                validation,
                sure_ratio=sure_ratio_for(proba.shape[1]),
            )
            if not memorises(fitted.memorisation, self.settings.min_memorisation):
                fitted.refusal = "not_memorising"
            elif not can_judge(fitted.memorisation):
                fitted.refusal = "too_weak_to_judge"
        return fitted
