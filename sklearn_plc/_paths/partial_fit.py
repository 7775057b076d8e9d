"""PLC inside one training run of a ``partial_fit`` learner: a pass after every epoch.

An epoch is one ``partial_fit`` call on the training samples in a new random
order (the learner's own mini-batches); every sample is then predicted by the
model as it stands, and a correction pass reads those probabilities, averaged
over the last ``window`` epochs, as for a net's ``eval_pass``. The next epoch
trains on the corrected labels. One model is trained, so the run costs about
one fit plus a prediction an epoch. The threshold is relaxed after a quiet pass
only once the learner's loss on the current labels has stopped improving (its
own stopping rule): while it still learns, a pass is quiet because the model is
unsure, and a relaxed threshold would relabel at that ratio every epoch after.
In a Pipeline, the steps before the learner are fitted once, on the labels as
given, and the learner trains on their output.

The run ends as the learner's own ``fit`` would, once the labels have settled:
when a pass at ``theta_end`` is quiet and the loss on the current labels has not
improved by the learner's ``tol`` for its ``n_iter_no_change`` epochs; at the
latest after its ``max_iter`` epochs.

One run has no held-out judge of its own. Where its labels differ from those
given (and ``validation_fraction`` is a float), the run is made again on each
half of the samples, and each half's model and a plain ``fit`` on that half
predict the other half, as the refit path's result is checked; where the run's
models agree clearly worse with the given labels, the corrections are undone
and the final model is a plain ``fit``. The check costs about one more run and
one more plain fit (two where it undoes).
"""

from dataclasses import replace

import numpy as np
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.utils import _safe_indexing, check_random_state
from tqdm.auto import tqdm

from .._halves import check_on_halves
from .._held_out import fit_fold, fit_on_indices, per_sample_params, proba_per_class
from .._judge import judge_sample_weight
from .._label_state import LabelCorrector
from .._report import round_line
from .._thresholds import (
    BINARY_SURE_RATIO,
    DEFAULT_N_ITER_NO_CHANGE,
    DEFAULT_TOL,
    sure_theta_end,
)
from .._validation import (
    check_finite_proba,
    check_sample_weight,
    last_step,
    seed_unset_random_states,
)
from .epochs import (
    LossSinceLabelsMoved,
    balanced_agreement,
    epoch_settings,
    max_warm_up,
    warm_up_over,
)
from .interface import RunResult


def n_epochs(learner):
    """The epochs of the run: the learner's own ``max_iter`` (checked present)."""
    return int(learner.get_params(deep=False)["max_iter"])


def stopping_rule(learner):
    """The learner's ``(tol, n_iter_no_change)``; tol None: no early stop."""
    params = learner.get_params(deep=False)
    return (
        params.get("tol", DEFAULT_TOL),
        int(params.get("n_iter_no_change", DEFAULT_N_ITER_NO_CHANGE)),
    )


def log_loss_on(proba, labels, sample_weight=None):
    """Mean log loss of `proba` on the class indices `labels`."""
    likelihood = np.clip(proba[np.arange(labels.shape[0]), labels], 1e-15, None)
    return float(np.average(-np.log(likelihood), weights=sample_weight))


def epoch_agreement(proba, labels, n_classes):
    """`proba`'s agreement with the class indices `labels`, balanced over classes."""
    agreeing = labels[proba.argmax(axis=1) == labels]
    return balanced_agreement(
        np.bincount(agreeing, minlength=n_classes),
        np.bincount(labels, minlength=n_classes),
    )


def split_fit_params(estimator, fit_params):
    """``(transformer params, learner params)``: a Pipeline's are ``step__param``.

    The learner's are those of the last step (prefix removed) and any without
    a step prefix (``sample_weight``); the others go to the steps before it.
    """
    if not isinstance(estimator, Pipeline):
        return {}, dict(fit_params)
    last = estimator.steps[-1][0]
    step_names = {name for name, _ in estimator.steps}
    transformers, learner = {}, {}
    for key, value in fit_params.items():
        step, _, param = key.partition("__")
        if step == last and param:
            learner[param] = value
        elif step in step_names and param:
            transformers[key] = value
        else:
            learner[key] = value
    return transformers, learner


def plain_fit(estimator, X, labels, rows, classes, fit_params):
    """A clone of `estimator` fitted by its own ``fit`` on `rows` (None: all).

    `fit_params` are the path's (a learner's own without a step prefix); a
    Pipeline gets them with its last step's prefix.
    """
    transformer_params, learner_params = split_fit_params(estimator, fit_params)
    if isinstance(estimator, Pipeline):
        last = estimator.steps[-1][0]
        learner_params = {f"{last}__{key}": v for key, v in learner_params.items()}
    params = {**transformer_params, **learner_params}
    if rows is None:
        return fit_on_indices(clone(estimator), X, labels, classes, params)
    return fit_fold(clone(estimator), X, labels, rows, classes, params)


class PartialFitPath:
    """The one-run path of ``PLCClassifier`` for estimators with ``partial_fit``.

    See :mod:`sklearn_plc._paths.interface` for the interface of the paths.

    Parameters
    ----------
    settings : RunSettings
        The resolved parameters.
    estimator : estimator object
        A classifier with ``partial_fit`` and ``predict_proba`` (alone or last
        in a Pipeline); cloned.
    """

    def __init__(self, settings, estimator):
        self.settings = settings
        self.estimator = estimator

    def check_input(self, X, encoded, classes, sample_weight, fit_params):
        """Validate the fit parameters; return ``(X, fit_params)``.

        The checked ``sample_weight`` joins `fit_params`.
        """
        sample_weight = check_sample_weight(sample_weight, encoded.shape[0])
        if sample_weight is not None:
            fit_params = {"sample_weight": sample_weight, **fit_params}
        return X, fit_params

    def run(self, X, encoded, classes, fit_params, trusted):
        """Train once, correcting after every epoch; return a :class:`RunResult`.

        A result that differs from the labels as given is checked on halves
        (:meth:`_check_on_halves`) and undone where it trains clearly worse:
        the final model is then a plain ``fit`` on the labels as given.
        """
        settings = self.settings
        rng = check_random_state(settings.random_state)
        estimator = self.estimator
        if settings.random_state is not None:
            estimator = seed_unset_random_states(clone(estimator), rng)
        model, corrector, termination = self._train(
            estimator, X, encoded, classes, fit_params, trusted, rng
        )
        selection = halves = None
        given = corrector.initial_labels
        if self._checks(corrector):
            halves = self._check_on_halves(
                estimator, X, given, classes, fit_params, trusted, rng, termination
            )
            if halves is not None and halves["undone"]:
                corrector.restore_given_labels()
                if settings.verbose >= 2:
                    tqdm.write(
                        round_line(corrector.history[-1], given.shape[0], refits=False)
                    )
                termination, selection = "undone", {**halves, "replaced": None}
                model = plain_fit(estimator, X, given, None, classes, fit_params)
        return RunResult(
            corrector=corrector,
            termination=termination,
            estimator=model,
            selection=selection,
            label_evidence=corrector.label_evidence(),
            attributes={"warm_up_": corrector.warm_up, "halves_check_": halves},
        )

    def _train(self, estimator, X, encoded, classes, fit_params, trusted, rng):
        """The one training run: ``(fitted model, corrector, termination)``."""
        model = clone(estimator)
        learner = last_step(model)
        transformer_params, learner_params = split_fit_params(model, fit_params)
        if learner is not model:  # the steps before the learner, fitted once
            X = model[:-1].fit_transform(X, classes[encoded], **transformer_params)
        corrector = self._corrector(
            encoded, classes.shape[0], trusted, fit_params.get("sample_weight")
        )
        termination = self._epochs(learner, X, classes, corrector, learner_params, rng)
        return model, corrector, termination

    def _checks(self, corrector):
        """Whether the run's result is checked on halves (:meth:`_check_on_halves`).

        Where the judge acts (``validation_fraction`` a float) and some label
        changed: the check is this path's only held-out judge.
        """
        settings = self.settings
        return settings.judge_acts and bool(
            np.any(corrector.labels != corrector.initial_labels)
        )

    def _check_on_halves(
        self, estimator, X, given, classes, fit_params, trusted, rng, termination
    ):
        """The run made again on each half, judged on the other (``halves_check_``).

        Each half's run and a plain ``fit`` on that half's labels as given
        predict the other half (:func:`~sklearn_plc._halves.check_on_halves`),
        each sample weighed as the estimator weighs it; where
        ``verified_judge``, the ``trusted`` samples alone judge. A half's run
        keeps its ``trusted`` labels.
        """
        n_samples = given.shape[0]
        half_seed = rng.randint(2**31 - 1)  # each half's run draws as the other
        weight = judge_sample_weight(
            estimator, classes, given, fit_params.get("sample_weight")
        )

        quiet = PartialFitPath(replace(self.settings, verbose=0), estimator)

        def fit_halves(part):
            half, _, _ = quiet._train(
                estimator,
                _safe_indexing(X, part),
                given[part],
                classes,
                per_sample_params(fit_params, part, n_samples),
                None if trusted is None else trusted[part],
                check_random_state(half_seed),
            )
            plain = plain_fit(estimator, X, given, part, classes, fit_params)
            return half, plain

        return check_on_halves(
            X,
            given,
            classes,
            rng,
            None,
            fit_halves,
            termination,
            weight,
            judged=trusted if self.settings.verified_judge else None,
        )

    def _corrector(self, encoded, n_classes, trusted, sample_weight):
        """The run's :class:`LabelCorrector`, with the epoch paths' ``"auto"`` values.

        In two classes the threshold stops at the sure ratio: near the boundary
        a two-class flip is a coin toss.
        """
        settings = self.settings
        correction = dict(settings.correction)
        if n_classes == 2:
            correction["theta_end"] = sure_theta_end(
                correction["theta"], correction["theta_end"], BINARY_SURE_RATIO
            )
        return LabelCorrector(
            encoded,
            **correction,
            **epoch_settings(settings.min_correction_rate, settings.warm_up),
            sample_weight=sample_weight,
            trusted=trusted,
        )

    def _epochs(self, learner, X, classes, corrector, fit_params, rng):
        """Train `learner` epoch by epoch with a pass after each; return why it ended.

        ``"converged"`` once a pass at ``theta_end`` is quiet and the loss on
        the current labels has settled, else ``"max_epochs"``.
        """
        epochs = n_epochs(learner)
        n_samples = corrector.labels.shape[0]
        latest_warm_up = max_warm_up(epochs)
        agreement = []
        losses = LossSinceLabelsMoved(*stopping_rule(learner))
        verbose = self.settings.verbose
        with tqdm(total=epochs, desc="PLC", unit="epoch", disable=not verbose) as bar:
            for _ in range(epochs):
                order = rng.permutation(n_samples)
                learner.partial_fit(
                    _safe_indexing(X, order),
                    classes.take(corrector.labels[order]),
                    classes=classes,
                    **per_sample_params(fit_params, order, n_samples),
                )
                proba = proba_per_class(learner, X, classes)
                check_finite_proba(proba, corrector.n_rounds)
                corrector.add_proba(proba)
                agreement.append(
                    epoch_agreement(proba, corrector.labels, classes.shape[0])
                )
                losses.append(
                    log_loss_on(proba, corrector.labels, corrector.sample_weight)
                )
                if corrector.warm_up is None and warm_up_over(
                    agreement,
                    losses.settled(),
                    labels=corrector.labels,
                    epochs_run=corrector.n_rounds + 1,
                    latest=latest_warm_up,
                ):
                    corrector.end_warm_up()
                corrector.run_round(may_raise=losses.settled())
                losses.after_pass(corrector)
                last = corrector.history[-1]
                if verbose >= 2:
                    bar.write(round_line(last, n_samples, refits=False))
                bar.set_postfix(
                    theta=f"{last['threshold']:.3g}",
                    corrected=last["n_corrected"],
                    changed=last["n_changed"],
                )
                bar.update()
                if corrector.converged and losses.settled():
                    bar.total = bar.n  # ended early: the bar ends full
                    bar.refresh()
                    return "converged"
        return "max_epochs"
