"""PLC around a scikit-learn estimator: a refit (or fold refits) every round.

:meth:`RefitPath.run` reads top to bottom: choose the samples that judge and
the folds, and freeze them with the data in one
:class:`~sklearn_plc._paths.refit_fits.RefitContext`; run the rounds
(:func:`_loop`: each fits the estimator on the current labels, records its
probabilities, in sample, out of fold or out of bag, with the run's
:class:`~sklearn_plc._label_state.LabelCorrector`, and runs a correction pass;
the first round takes the memorisation test); collect the evidence and let
:func:`~sklearn_plc._ending.end_of_run` decide the end, fitting what it asks
for; check a result that differs from a plain fit on halves; fit the final
model on what was decided. Every fit is a function of the context
(:mod:`sklearn_plc._paths.refit_fits`); the path object keeps no state between
calls.
"""

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
    KEPT_CORRECTIONS,
    LABELS_GIVEN,
    EndingSettings,
    FitRequest,
    RunEvidence,
    end_of_run,
    undone_on_halves,
)
from .._halves import check_on_halves
from .._held_out import (
    fit_fold,
    make_splits,
    per_sample_params,
)
from .._judge import (
    HeldOutJudge,
    choose_judged_samples,
    judge_sample_weight,
)
from .._label_state import LabelCorrector
from .._parallel import one_pool_per_fit
from .._report import round_line
from .._thresholds import (
    EARLY_UNDO_STANDARD_ERRORS,
    REFIT_MIN_CORRECTION_RATE,
    sure_ratio_for,
    sure_theta_end,
)
from .._validation import (
    check_cv_against_classes,
    check_cv_is_reusable,
    check_groups,
    check_sample_weight,
    sample_weight_key,
    seed_unset_random_states,
    sets_warm_start,
)
from .interface import RunResult
from .refit_fits import RefitContext, final_model, fit_requested, fit_round


def _rows(values, rows):
    """`values` at `rows` (None stays None)."""
    return None if values is None else _safe_indexing(values, rows)


@dataclass
class _Loop:
    """What the loop leaves for the end of the run."""

    stopped: str
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
    checks_on_halves : bool, default=True
        Whether a result that differs from a plain fit is checked on halves
        (False for the runs the check makes on each half).
    """

    def __init__(self, settings, estimator, router=None, *, checks_on_halves=True):
        self.settings = settings
        self.estimator = estimator
        self.router = router
        self.checks_on_halves = checks_on_halves

    def check_input(self, X, encoded, classes, sample_weight, fit_params):
        """Validate the fit parameters against the data; return ``(X, fit_params)``.

        The checked ``sample_weight`` joins `fit_params`; :meth:`run` routes them.
        """
        settings = self.settings
        check_cv_is_reusable(settings.cv)
        sample_weight = check_sample_weight(sample_weight, encoded.shape[0])
        if sample_weight is not None:
            fit_params = {"sample_weight": sample_weight, **fit_params}
        _, groups = self._route(fit_params)
        check_groups(groups, settings.confidence, settings.given_confidence)
        relabel_weight_key(settings, self.estimator)
        return X, fit_params

    def _route(self, fit_params):
        """``(estimator's fit parameters, groups)`` of `fit_params`."""
        if self.router is not None:
            routed = process_routing(self.router, "fit", **fit_params)
            splitter = routed.get("splitter")
            groups = None if splitter is None else splitter.split.get("groups")
            return routed.estimator.fit, groups
        fit_params = dict(fit_params)
        groups = fit_params.pop("groups", None)
        return fit_params, groups

    def run(self, X, encoded, classes, fit_params, trusted):
        """Correct the labels round by round; return a :class:`RunResult`.

        Every model is fitted on the caller's own labels (``classes[labels]``),
        so per-class parameters such as ``class_weight`` apply as given.
        """
        sample_weight = fit_params.get("sample_weight")
        estimator_params, groups = self._route(fit_params)
        return self._run(
            X, encoded, classes, estimator_params, trusted, groups, sample_weight
        )

    def _run(
        self, X, encoded, classes, fit_params, trusted, groups, sample_weight, ids=None
    ):
        """:meth:`run` on fit parameters already routed to the estimator.

        `ids`: the samples' identities for the run's random splits (a half's
        run keeps the rows of the whole run's data, so that its splits move
        with the whole run's, :mod:`sklearn_plc._draws`); None: positions.
        """
        settings = self.settings
        ids = np.arange(encoded.shape[0]) if ids is None else ids
        rng = check_random_state(settings.random_state)
        estimator = self.estimator
        if settings.random_state is not None:
            estimator = seed_unset_random_states(clone(estimator), rng)
        validation, judged, splits = _judged_samples_and_folds(
            settings, X, encoded, classes, rng, groups, ids
        )
        context = RefitContext(
            settings=settings,
            estimator=estimator,
            X=X,
            classes=classes,
            fit_params=fit_params,
            groups=groups,
            sample_weight=sample_weight,
            weight_key=relabel_weight_key(settings, self.estimator),
            rng=rng,
            validation=validation,
            splits=splits,
            ids=ids,
            continuing=settings.confidence == "in_sample"
            and sets_warm_start(estimator),
        )
        corrector = _corrector(
            settings, encoded, classes.shape[0], trusted, sample_weight
        )
        judge = weight = None
        if settings.held_out:
            weight = judge_sample_weight(estimator, classes, encoded, sample_weight)
            judge = HeldOutJudge(encoded, judged, weight)
        fold_indices = [part for fold in splits or () for part in fold]
        halves = None
        given = corrector.initial_labels
        with one_pool_per_fit(X, *fold_indices):
            loop = _loop(context, corrector, judge)
            ending = _end(context, loop, corrector, judge)
            if self._checks(context, ending, given):
                halves = self._check_on_halves(context, ending, given, weight, trusted)
                if halves is not None and halves["undone"]:
                    ending = undone_on_halves(ending, halves, corrector)
        if ending.restore_given_labels:
            corrector.restore_given_labels()
            if settings.verbose >= 2:
                tqdm.write(round_line(corrector.history[-1], encoded.shape[0]))
        model, set_aside = final_model(
            context, loop.model, loop.model_labels, ending, given
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

    def _checks(self, context, ending, given):
        """Whether the run's result is checked on halves (:meth:`_check_on_halves`).

        Where the judge acts (held-out probabilities, ``validation_fraction``
        a float), the folds can be made on a half (``cv`` an int or a
        splitter), and the result differs from a plain fit on the labels as
        given: some label changed, some sample is left out, or some is weighed.
        """
        settings = context.settings
        cv = settings.cv
        if not (
            self.checks_on_halves
            and settings.held_out
            and settings.judge_acts
            and (isinstance(cv, Integral) or hasattr(cv, "split"))
        ):
            return False
        return bool(
            np.any(ending.labels != given)
            or (ending.set_aside is not None and ending.set_aside.any())
            or ending.label_weight is not None
        )

    def _check_on_halves(self, context, ending, given, weight, trusted):
        """The run made again on each half, judged on the other (``halves_check_``).

        Each half's run (its own folds, verdicts and final fit, not checked
        again) and a plain fit on that half's labels as given predict the other
        half; :func:`~sklearn_plc._halves.halves_verdict` compares them with
        the given labels over every sample (over the ``trusted`` ones alone
        where ``verified_judge``), each at `weight` (the judge's,
        :func:`~sklearn_plc._judge.judge_sample_weight`). Returns None where a
        half cannot be run (a class too small for its folds, too few groups). A
        half's run keeps its ``trusted`` labels.

        Each half's run takes the act the run took (``forced_act``): where
        the run kept its corrections
        (:data:`~sklearn_plc._ending.KEPT_CORRECTIONS`), each half's run keeps
        its own, past the memorisation and weak-model tests, and sets no
        validation samples aside, so no verdict of its own undoes or contests
        them; where the run contested, each half's run contests; where a
        model that does not memorise left its sure disputes out, each half's
        run leaves its own out, whatever its verdict. A half whose
        own verdict or gate chose the labels as given would fit the plain
        model, and the check would see no difference at all.
        """
        X, classes, fit_params = context.X, context.classes, context.fit_params
        n_samples = given.shape[0]
        settings = replace(
            context.settings, random_state=context.rng.randint(2**31 - 1), verbose=0
        )
        if ending.termination in KEPT_CORRECTIONS:  # the halves keep theirs too
            settings = replace(settings, validation_fraction=None, forced_act="relabel")
        elif ending.termination == "corrections_contested":
            settings = replace(settings, forced_act="contest")
        elif ending.termination == "not_memorising":  # its sure disputes left out
            settings = replace(settings, forced_act="leave_out")

        def fit_halves(part):
            half = RefitPath(settings, context.estimator, checks_on_halves=False)
            result = half._run(
                _safe_indexing(X, part),
                given[part],
                classes,
                per_sample_params(fit_params, part, n_samples),
                _rows(trusted, part),
                _rows(context.groups, part),
                _rows(context.sample_weight, part),
                context.ids[part],
            )
            plain = fit_fold(
                clone(context.estimator), X, given, part, classes, fit_params
            )
            return result.estimator, plain

        return check_on_halves(
            X,
            given,
            classes,
            context.rng,
            context.groups,
            fit_halves,
            ending.termination,
            weight,
            context.ids,
            judged=trusted if context.settings.verified_judge else None,
        )


def relabel_weight_key(settings, estimator):
    """The fit keyword for the final fit's relabel weights, or None (hard labels).

    ``doubtful="weigh"`` and ``"auto"`` weigh with held-out probabilities
    only (in-sample ones are too sure to weigh by); ``"weigh"`` raises where
    the estimator takes no per-sample weights, and ``"auto"`` then leaves
    the doubtful samples out (:func:`~sklearn_plc._left_out.doubtful_samples`).
    """
    doubtful = settings.doubtful
    if doubtful not in ("auto", "weigh") or not settings.held_out:
        return None
    key = sample_weight_key(estimator)
    if key is None and doubtful == "weigh":
        raise ValueError(
            f"doubtful='weigh' fits the final model with sample weights, but "
            f"{type(estimator).__name__}.fit takes no sample_weight (for a "
            f"Pipeline: its last step's, or one requested by metadata "
            f"routing). Use doubtful='auto', which then leaves the relabelled "
            f"and the disputed samples out of the final fit, or "
            f"doubtful='keep' (the hard corrected labels)."
        )
    return key


def _judged_samples_and_folds(settings, X, encoded, classes, rng, groups, ids):
    """``(validation, judged, splits)``: who judges, and the loop's folds.

    ``validation``: the samples no correcting model trains on (the
    validation samples); ``judged``: those whose held-out
    predictions judge; ``splits``: the folds (``"cv"`` only), made from the
    rest. Each None where there is none.
    """
    training = validation = judged = None
    if settings.held_out and settings.judge_acts:
        cv = settings.cv
        folds_given = not (isinstance(cv, Integral) or hasattr(cv, "split"))
        training, validation, judged = choose_judged_samples(
            encoded,
            rng,
            groups,
            validation_fraction=settings.validation_fraction,
            can_set_aside=not (settings.confidence == "cv" and folds_given),
            ids=ids,
        )
    if settings.confidence != "cv":
        return validation, judged, None
    # checked once, on the samples the folds are made of, so that the
    # largest cv it suggests can be made
    if training is not None:
        check_cv_against_classes(
            settings.cv,
            classes.shape[0],
            encoded[training],
            set_aside=f" once validation_fraction="
            f"{settings.validation_fraction!r} has set "
            f"{encoded.shape[0] - training.shape[0]} aside",
        )
    else:
        check_cv_against_classes(settings.cv, classes.shape[0], encoded)
    splits = make_splits(settings.cv, X, encoded, rng, groups, train=training, ids=ids)
    return validation, judged, splits


def _corrector(settings, encoded, n_classes, trusted, sample_weight):
    """The run's :class:`LabelCorrector`, with the refit path's ``"auto"`` values.

    ``min_correction_rate="auto"``: a tenth of the labels, as each refit
    costs a round of fits; ``warm_up="auto"``: none. With
    ``doubtful="set_aside"`` the threshold stops at the sure ratio.
    """
    correction = dict(settings.correction)
    if settings.held_out and settings.doubtful == "set_aside":
        correction["theta_end"] = sure_theta_end(
            correction["theta"], correction["theta_end"], sure_ratio_for(n_classes)
        )
    rate = settings.min_correction_rate
    return LabelCorrector(
        encoded,
        **correction,
        min_correction_rate=REFIT_MIN_CORRECTION_RATE if rate == "auto" else rate,
        warm_up=0 if settings.warm_up == "auto" else settings.warm_up,
        sample_weight=sample_weight,
        trusted=trusted,
    )


def _end(context, loop, corrector, judge):
    """The run's :class:`~sklearn_plc._ending.Ending`, with what it asks fitted."""
    settings = context.settings
    ending_settings = EndingSettings(
        doubtful=settings.doubtful,
        judge_acts=settings.judge_acts,
        held_out=settings.held_out,
        weighable=context.weight_key is not None,
        refits_folds=context.splits is not None,
        leaves_out=settings.forced_act == "leave_out",
    )
    evidence = _evidence(context, loop, corrector, judge)
    ending = end_of_run(evidence, ending_settings)
    while isinstance(ending, FitRequest):
        fitted = fit_requested(context, ending, corrector, judge)
        evidence = evidence.with_fitted(ending.name, fitted)
        ending = end_of_run(evidence, ending_settings)
    return ending


def _evidence(context, loop, corrector, judge):
    """What the end of the run reads (:class:`~sklearn_plc._ending.RunEvidence`)."""
    held_out = context.settings.held_out
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
        validation=context.validation,
        judged=None
        if judge is None or isinstance(judge.judged, slice)
        else judge.judged,
        judged_weight=None if judge is None else judge.weights,
    )


def _loop(context, corrector, judge):
    """The rounds: one model (or set of fold models) per round.

    A round refits only when more labels changed since the last fit than a
    quiet pass may change (or the estimator continues training on each
    fit); otherwise the previous probabilities are examined again at the
    raised threshold, which is what a refit of a deterministic estimator on
    the same labels would give. With held-out judging, a refit that agrees
    worse than the labels as given by ``EARLY_UNDO_STANDARD_ERRORS``
    standard errors ends the loop (the corrections are then undone).
    """
    settings = context.settings
    loop = _Loop("max_iter", model=clone(context.estimator) if judge is None else None)
    fitted_labels = None
    n_samples = corrector.labels.shape[0]
    quiet_changes = corrector.min_correction_rate * n_samples
    stops_early = judge is not None and settings.judge_acts
    with tqdm(  # no total: the rounds are counted as they run
        desc="PLC", unit="round", disable=not settings.verbose
    ) as progress:
        for round_index in range(settings.max_iter):
            refit = (
                context.continuing
                or fitted_labels is None
                or np.count_nonzero(fitted_labels != corrector.labels) > quiet_changes
            )
            agreement = None
            if refit:
                progress.set_postfix_str(f"round {round_index}: fitting")
                fitted_labels = corrector.labels.copy()
                fitted = fit_round(
                    context, corrector, round_index, fitted_labels, loop.model, judge
                )
                agreement = fitted.agreement
                loop.model, loop.model_labels = fitted.model, fitted.model_labels
                if round_index == 0:
                    loop.memorisation = fitted.memorisation
                    loop.first_proba = fitted.first_proba
                if fitted.refusal is not None:
                    loop.stopped = fitted.refusal
                elif settings.forced_act == "contest":  # needs the first round only
                    loop.stopped = "corrections_contested"
                elif settings.forced_act == "leave_out":  # the same
                    loop.stopped = "not_memorising"
                elif stops_early and judge.shows_harm(EARLY_UNDO_STANDARD_ERRORS):
                    loop.stopped = "undone"  # the end of the run undoes
            correct = loop.stopped not in LABELS_GIVEN
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
            stacklevel=6,  # the caller of fit, past scikit-learn's fit wrapper
        )
    return loop
