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
"""

import numpy as np
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.utils import _safe_indexing, check_random_state
from tqdm.auto import tqdm

from .._held_out import per_sample_params, proba_per_class
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
    incremental_learner,
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
        """Validate the fit parameters; return ``(X, fit_params)``."""
        self.sample_weight = check_sample_weight(sample_weight, encoded.shape[0])
        if self.sample_weight is not None:
            fit_params = {"sample_weight": self.sample_weight, **fit_params}
        return X, fit_params

    def run(self, X, encoded, classes, fit_params, trusted):
        """Train once, correcting after every epoch; return a :class:`RunResult`."""
        rng = check_random_state(self.settings.random_state)
        model = clone(self.estimator)
        if self.settings.random_state is not None:
            model = seed_unset_random_states(model, rng)
        learner = incremental_learner(model)
        transformer_params, fit_params = split_fit_params(model, fit_params)
        if learner is not model:  # the steps before the learner, fitted once
            X = model[:-1].fit_transform(X, classes[encoded], **transformer_params)
        corrector = self._corrector(encoded, classes.shape[0], trusted)
        termination = self._epochs(learner, X, classes, corrector, fit_params, rng)
        return RunResult(
            corrector=corrector,
            termination=termination,
            estimator=model,
            label_evidence=corrector.label_evidence(),
            attributes={"warm_up_": corrector.warm_up},
        )

    def _corrector(self, encoded, n_classes, trusted):
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
            sample_weight=self.sample_weight,
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
                losses.append(log_loss_on(proba, corrector.labels, self.sample_weight))
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
