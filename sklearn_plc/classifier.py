"""`PLCClassifier`: progressive label correction around any probabilistic classifier."""

import sys
import warnings
from collections.abc import Iterator
from numbers import Integral, Real

import numpy as np
from sklearn import get_config
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
    clone,
)
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GroupShuffleSplit,
    ShuffleSplit,
    StratifiedKFold,
    StratifiedShuffleSplit,
    check_cv,
)
from sklearn.utils import check_random_state, get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metadata_routing import (
    UNUSED,
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _num_features,
    _num_samples,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    indexable,
    validate_data,
)
from tqdm.auto import tqdm

from ._corrector import LabelCorrector
from ._out_of_fold import (
    class_columns,
    in_sample_proba,
    out_of_bag_proba,
    out_of_fold_proba,
    supports_out_of_bag,
)
from ._parallel import data_sent_once
from ._params import CORRECTION_CONSTRAINTS, check_threshold_range
from .correction import (
    EVIDENCE_STANDARD_ERRORS,
    WORSE_STANDARD_ERRORS,
    agreement_gain,
    memorisation_rate,
)

__all__ = ["PLCClassifier"]


NET_CONFIDENCES = ("training_pass", "eval_pass")
# each sample predicted by models that did not see it
HELD_OUT_CONFIDENCES = ("cv", "oob")
# Fewer trusted samples than this judge poorly: on the development protocol a judge
# on 25 clean labels (wine) decided no better than one on noisy labels, and
# withholding them from the correcting models lost up to 21 points at 60-70%
# noise; 140-420 (hard-dev, synthetic-5-rf) kept more cells >= Standard - 0.5.
FEW_TRUSTED = 100


def _default_estimator():
    return LogisticRegression(max_iter=1000)


def _is_skorch_net(estimator):
    """Whether `estimator` is a skorch net; never imports torch or skorch."""
    skorch = sys.modules.get("skorch")  # a net can only exist once skorch is loaded
    return skorch is not None and isinstance(estimator, skorch.NeuralNet)


def _estimator_has(attr):
    """For `available_if`: the fitted model has `attr`, or else the given one."""

    def check(self):
        if hasattr(self, "estimator_"):
            return hasattr(self.estimator_, attr)
        return hasattr(self._get_estimator(), attr)

    return check


def _missing_label_mask(y):
    if y.dtype.kind == "f":
        return np.isnan(y)
    if y.dtype.kind == "O":
        return np.frompyfunc(lambda v: v is None or v != v, 1, 1)(y).astype(bool)
    return np.zeros(y.shape[0], dtype=bool)


def _encode_labels(y):
    """Validate the targets; return ``(classes, encoded labels)``."""
    if y is None:
        raise ValueError(
            "PLCClassifier requires y to be passed, but the target y is None."
        )
    y = column_or_1d(y, warn=True)
    missing = _missing_label_mask(y)
    if missing.any():
        where = np.flatnonzero(missing)
        raise ValueError(
            f"y has {where.size} missing labels (NaN or None), e.g. at positions "
            f"{where[:5].tolist()}. PLC needs a label for every training sample: "
            f"drop those rows of X and y before fitting."
        )
    if y.dtype.kind == "f" and np.isinf(y).any():
        where = np.flatnonzero(np.isinf(y))
        raise ValueError(
            f"y has {where.size} infinite labels, e.g. at positions "
            f"{where[:5].tolist()}; labels must be class names or integers."
        )
    check_classification_targets(y)
    classes, encoded = np.unique(y, return_inverse=True)
    if classes.shape[0] < 2:
        raise ValueError(
            f"y contains {classes.shape[0]} class(es) {classes.tolist()!r}, and PLC "
            "needs at least two classes to move labels between; a classifier "
            "cannot be trained on one class. Pass data with two or more classes."
        )
    return classes, encoded.astype(np.intp, copy=False)


def _is_dataframe(X):
    """Whether X is a dataframe (pandas, polars, ...), which estimators take as is."""
    return hasattr(X, "__dataframe__") or (
        hasattr(X, "columns") and hasattr(X, "shape") and len(X.shape) == 2
    )


def _check_not_empty(**data):
    """Name empty training data before anything else reads it."""
    for name, values in data.items():
        try:
            n_samples = _num_samples(values)
        except TypeError:
            continue  # not array-like: validated where it is used
        if n_samples == 0:
            raise ValueError(
                f"{name} is empty (0 samples); PLC needs training samples from at "
                f"least two classes. Check the data passed to fit."
            )


def _sets_warm_start(estimator):
    """Whether `estimator` (or a step of it) continues training on refit."""
    return any(
        value is True and (key == "warm_start" or key.endswith("__warm_start"))
        for key, value in estimator.get_params(deep=True).items()
    )


def _seed_unset_random_states(estimator, rng):
    """Give every ``random_state`` left at None in `estimator` a fixed seed."""
    unset = {
        key: rng.randint(np.iinfo(np.int32).max)
        for key, value in sorted(estimator.get_params(deep=True).items())
        if (key == "random_state" or key.endswith("__random_state")) and value is None
    }
    return estimator.set_params(**unset) if unset else estimator


def _check_trusted(trusted, n_samples):
    """`trusted` as a boolean mask of shape (n_samples,), or None."""
    if trusted is None:
        return None
    mask = column_or_1d(trusted)
    if mask.shape[0] != n_samples:
        raise ValueError(
            f"trusted has {mask.shape[0]} entries but y has {n_samples}; pass one "
            f"boolean per sample (True where the given label is verified)."
        )
    if mask.dtype != bool:
        if mask.dtype.kind not in "iuf" or not np.isin(mask, (0, 1)).all():
            raise ValueError(
                f"trusted must be a boolean mask (or 0/1 values), True where the "
                f"given label is verified; got values of dtype {mask.dtype}. For "
                f"indices, pass np.isin(np.arange(n_samples), indices)."
            )
        mask = mask.astype(bool)
    if not mask.any():
        raise ValueError(
            "trusted marks no sample; pass trusted=None (the default) to judge the "
            "corrections on set-aside samples of the given labels instead."
        )
    if mask.all():
        raise ValueError(
            "trusted marks every sample, so there is no label left to correct; fit "
            "the estimator on y directly."
        )
    return mask


def _check_finite_proba(proba, round_index):
    finite = np.isfinite(proba).all(axis=1)
    if not finite.all():
        raise ValueError(
            f"The estimator's predict_proba returned NaN or infinite values for "
            f"{np.count_nonzero(~finite)} samples in round {round_index}; PLC cannot "
            f"compare label confidences on them. Fix the estimator's probabilities, "
            f"e.g. scale the features, add regularisation, or impute missing values "
            f"in a Pipeline before it."
        )


class PLCClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Progressive Label Correction (PLC) around a probabilistic classifier.

    PLC (Zhang, Zheng, Wu, Goswami and Chen, ICLR 2021) trains a classifier on
    noisy labels and repeatedly relabels the training samples on which the
    model confidently disagrees with the given label: a sample with label ``y``
    becomes ``argmax_j f_j(x)`` when ``f_y(x) / max_j f_j(x) < δ``. The
    threshold ``δ`` starts strict (``theta``) so that only the most confident
    disagreements are corrected, and is relaxed by ``beta`` each time a pass
    corrects (almost) nothing, until it reaches ``theta_end``. A final model is
    then trained on the corrected labels. It suits label noise that is
    feature-dependent but rarer far from the class boundary (the paper's PMD
    noise), as well as i.i.d. noise.

    Parameters
    ----------
    estimator : estimator object, default=None
        A classifier with ``fit`` and ``predict_proba``; cloned, never modified.
        It is trained on integer-encoded labels (indices into ``classes_``).
        ``None`` means ``LogisticRegression(max_iter=1000)``. A skorch
        ``NeuralNetClassifier`` (or ``NeuralNetBinaryClassifier``, for two
        classes) is run once for its ``max_epochs``, with a
        correction pass after every epoch (see ``confidence``); its module
        must return logits with ``criterion=torch.nn.CrossEntropyLoss``, or
        probabilities with the default ``NLLLoss``; give it
        ``iterator_train__shuffle=True`` (skorch does not shuffle by default,
        and PLC keeps the net's order, warning when it is fixed).

    theta : float in (0, 1), default=0.3
        Initial ratio threshold ``δ0``, the paper's ``exp(θ0)``: a label is
        corrected when its probability is below ``theta`` times the top
        probability. Smaller is stricter. The paper found accuracy moving less
        than one point over 0.2–0.5.

    beta : float > 0, default=0.1
        Step by which the threshold is relaxed after a quiet pass (see
        ``schedule``). The paper found 0.05–0.3 equally good.

    theta_end : float in (0, 1], default=0.9
        Largest threshold. Must be at least ``theta``.

    schedule : {"additive", "multiplicative"}, default="additive"
        ``"additive"``: ``δ ← min(δ + beta, theta_end)``, the rule of the
        authors' scripts. ``"multiplicative"``: ``δ ← min(δ (1 + beta),
        theta_end)``, the paper's Algorithm 1.

    min_correction_rate : float in [0, 1) or "auto", default="auto"
        A pass that changes at most this fraction of the labels is quiet: it
        relaxes the threshold and, at ``theta_end``, ends the run. ``0``
        means "no label changed", as in Algorithm 1. ``"auto"``: 0.001 for a
        skorch net, the authors' value for a pass after every epoch; 0.05 for
        an estimator refit every round, where each round costs a full fit (``cv``
        fits with out-of-fold confidence) and the refits' own churn moves a few
        labels at every pass. On the development protocol, 0.05 matched 0.001's
        accuracy at about half the fits (see the benchmarks page).
        A net's epochs may never be quiet in a short run (mnist1d, 30
        epochs): the threshold then stays at ``theta``, and ``beta`` and
        ``theta_end`` have no effect; ``history_`` shows the thresholds.

    warm_up : int >= 0 or "auto", default="auto"
        Rounds (epochs, for a skorch net) of training before the first
        correction pass. ``"auto"``: 0 for scikit-learn estimators; for a net,
        chosen from the data: correction starts once the net's agreement with
        the labels levels off, before it memorises them (see
        :class:`sklearn_plc.skorch.PLCCallback`), at the latest at half of
        ``max_epochs``; the chosen epoch is ``warm_up_``. With a scikit-learn
        estimator it matters only if it continues training on each fit
        (``warm_start`` set, with ``confidence="in_sample"``), where a round
        is a short stretch of training; an estimator refit to convergence
        gives the same model every round until labels change, so warm-up
        rounds are skipped at no cost.

    max_iter : int >= 1, default=30
        Maximum number of rounds (correction passes). Not used for a skorch
        net with ``"training_pass"`` or ``"eval_pass"`` confidence, which runs
        one pass per epoch for the net's ``max_epochs``.

    confidence : {"auto", "in_sample", "cv", "oob", "training_pass", \
            "eval_pass"}, default="auto"
        Where the probabilities ``f(x)`` of each round come from.

        - ``"in_sample"``: fit on all samples, predict on the same samples.
          Cheapest (one fit a round); fine for regularised models whose
          training predictions are not memorised (linear models, shallow
          boosting), useless for models that memorise their training labels
          (deep trees, random forests, k-NN with one neighbour): they agree
          with every label and correct nothing.
        - ``"cv"``: out-of-fold probabilities from
          :func:`~sklearn.model_selection.cross_val_predict` with ``cv``, each
          sample predicted by a model that did not see its label; ``cv`` fits a
          round, run in parallel with ``n_jobs``. The same folds are used in
          every round.
        - ``"oob"`` (bagging ensembles only: an ``oob_score`` parameter and
          ``bootstrap=True``, e.g. :class:`~sklearn.ensemble.RandomForestClassifier`
          or :class:`~sklearn.ensemble.BaggingClassifier`): out-of-bag
          probabilities, each sample predicted by the members whose bootstrap
          sample left it out. Held out like ``"cv"``, at the cost of one fit a
          round (with ``oob_score=True``) instead of ``cv``, but each sample
          is judged by only the members that left it out (about 37% of them),
          so its probabilities are coarser than those of ``cv`` fold models
          with every member. In ``benchmarks/`` it halved the cost of random
          forests and bagged trees; their gains rose on the development
          protocol and fell by about a point on data the benchmark never uses
          (see ``docs/benchmarks.md``), so it is not the default. A sample that
          no member left out (rare with tens of members) gets uniform
          probabilities, so it is not corrected. The ensemble's own ``n_jobs``
          parallelises its fits.
        - ``"training_pass"`` (skorch nets only): the net's outputs recorded
          during each epoch's training forward passes, so correction costs no
          extra pass; one training run in all. See
          :class:`sklearn_plc.skorch.PLCCallback`.
        - ``"eval_pass"`` (skorch nets only): ``predict_proba`` on the
          training samples at the end of each epoch that feeds a pass (eval
          mode, one extra inference pass per such epoch).
        - ``"auto"``: ``"training_pass"`` for a skorch net, else ``"cv"``,
          which is sound for every estimator (``confidence_`` records the
          choice). Choose ``"in_sample"`` yourself for speed when the model
          does not memorise, and ``"oob"`` for speed with a large bagging
          ensemble.

    cv : int, cross-validation generator or iterable, default=3
        Folds for ``confidence="cv"``. An int means
        :class:`~sklearn.model_selection.StratifiedKFold` with shuffling
        seeded by ``random_state``; it must not exceed the number of samples
        of the smallest class. Each refit costs ``cv`` fits on
        ``(cv - 1) / cv`` of the data, so 3 folds cost about half of 5. PLC
        needs held-out probabilities, not the best possible held-out model:
        on the development protocol of ``benchmarks/``, 3 folds gave the same
        memorisation decisions and at least the same gains as 5 (see
        ``docs/benchmarks.md``). On small data, fewer folds raise the measured
        memorisation rate a little (each held-out model trains on less data).

    window : int >= 1, default=5
        Number of most recent models (epochs, for a net) whose probabilities
        are averaged for each pass, as the authors' scripts average the last 5
        epochs. For a scikit-learn estimator a round's model is its refit on
        the labels of that round, so a label is corrected only when the models
        of several rounds agree: this damps the drift in which each refit moves
        the boundary and the next pass follows it (in ``benchmarks/``, window
        1 lost 2.3 points to Standard training on average where 5 lost none).
        A quiet round adds no new model.

    min_confidence : float in [0, 1], default=0.0
        Correct a label only where the model gives its new class at least this
        probability (averaged over ``window``), beside the ratio rule. At 0.5
        the new class must be more likely than all the others together. 0 (the
        default) is the paper's rule. It helps a model that spreads its belief
        over similar classes, and hurts under heavy noise, where the noisy
        posterior's top class is below one half even where it is right (60%
        uniform noise over 10 classes leaves the true class 0.46): on the
        development protocol, 0.5 turned a small CNN on mnist1d from 2.9
        points below plain training to 2.3 above, but cut PLC's gains on
        digits, wine and the random-forest rows (digits +11.9 → +7.2 points
        on average, +26.8 → +3.8 at 60% uniform noise); see the benchmarks
        page. Has no effect with two classes.

    runner_up_ratio : float in (0, 1], default=0.5
        Correct a label only where every third class (neither the current
        label nor the new one) has at most this fraction of the new class's
        probability (averaged over ``window``). The ratio rule weighs the
        evidence against the current label; this asks whether the new label
        is the right alternative, so that a label is not moved to one of two
        classes the model cannot tell apart. 0.5 (the default): the new class
        must be twice as likely as every other alternative. 1 turns it off
        (the paper's rule). Has no effect with two classes. On the development
        protocol it kept 62 of 68 cells within 0.5 points of Standard training
        against 52 with the ratio rule alone (a small CNN on mnist1d: −2.5 →
        +0.9 points on average), for smaller gains under 60% uniform noise on
        digits (+25.7 → +18.3 at worst) and on wine with a random forest; see
        the benchmarks page.

    distribution_alignment : bool, default=True
        Before each pass, rescale the averaged probabilities so that their
        mean over the samples follows the class frequencies of the labels as
        given (:func:`~sklearn_plc.correction.align_class_distribution`), so
        that a pass weighs each class's evidence against how often the model
        predicts that class. Without it, a model that over-predicts a class
        moves labels to it, the next fit over-predicts it more, and that class
        can absorb its neighbours while label purity still rises (wine with
        logistic regression at about 50% noise: purity 49% → 62% while one
        class grew from 54 to 76 of 124 labels and accuracy fell). False is the
        paper's rule. See the benchmarks page for the development figures.

    min_memorisation : float in [0, 1), default=0.1
        Correct only a model that memorises its labels. PLC's premise is a
        model that fits its noisy training labels; a model that does not (a
        regularised linear model with many samples per parameter) already
        averages the noise out, and relabelling its training samples to its own
        predictions only entrenches its own errors (in ``benchmarks/``, even an
        oracle keeping only PLC's right corrections gained nothing there, while
        PLC lost 2 to 20 points). With ``confidence="cv"`` or ``"oob"``, the
        first round also fits the model on the labels as given and measures the
        share of the labels its held-out (out-of-fold or out-of-bag)
        predictions contradict that it fits in sample
        (:func:`~sklearn_plc.correction.memorisation_rate`, reported in
        ``memorisation_``). Unless the rate, less one standard error, reaches
        ``min_memorisation``, the labels are left as given, that model is the
        final one, and ``termination_condition_`` is ``"labels_kept"``. 0
        corrects whatever the model (the paper). Not used with other
        confidences, which have no held-out predictions.

    early_stopping : bool, default=False
        Choose among rounds by held-out agreement (``confidence="cv"`` or
        ``"oob"``). Each refit judges the labels it was trained on by how often
        the held-out predictions of its models equal the *given* labels
        (:func:`~sklearn_plc.correction.agreement_gain`; recorded in
        ``history_`` whatever this setting). Where the given label is more often
        right than wrong at every x, a classifier closer to the clean labels has
        higher expected agreement, so no clean label is needed. A round's
        labels replace the best so far only if their gain exceeds one standard
        error of the paired difference; the run stops after
        ``n_iter_no_change`` refits without a new best, and ends on the best
        labels (``selection_``). Off by default: on the development protocol it
        stopped too early on small data (wine: 124 samples, where one standard
        error is several points) and lost most of PLC's gains, and where the
        flip probability exceeds ½ the criterion rewards following the noise.
        It saves refits on large data. ``True`` with another confidence
        raises.

    revert_if_worse : bool, default=True
        Undo every correction when its models agree clearly worse with the
        given labels than models trained on the labels as given
        (``confidence="cv"`` or ``"oob"``). The last refit's predictions on the
        validation samples (see ``validation_fraction``) are compared with
        those of the first on how often they equal the *given* labels; where
        the given label is more often right than wrong at every x, labels
        closer to the clean ones train models with higher expected agreement.
        If the paired gain is more than one standard error below zero, the
        labels are returned as given, the final model is trained on them,
        ``termination_condition_`` is ``"labels_kept"`` and
        ``selection_["undone"]`` is True. Unlike ``early_stopping``, the burden
        of proof is on harm: the corrections stay unless they are worse by more
        than one standard error. It cannot catch noise whose majority is the
        wrong class, where following the noise also raises the agreement.

    validation_fraction : float in (0, 1) or None, default=0.2
        Share of the samples set aside to judge the corrections
        (``revert_if_worse``, ``early_stopping``; only used with either, with
        ``confidence="cv"`` or ``"oob"``, and with ``cv`` an int or a splitter:
        folds given as a list of (train, test) index pairs are used as they
        are, judged on every sample): no model of the correction loop
        trains on them, so their given labels cannot reach the labels that the
        judging models train on. They are still corrected, by the mean
        probabilities of the fold models (with ``"oob"``, of the whole
        ensemble), and the final model trains on every sample. Stratified by
        the given labels where every class has two samples (by group with a
        group-aware ``cv``). The folds are made from the other samples, so each
        fold's model trains on ``(1 - validation_fraction) (cv - 1) / cv`` of
        the data. ``None`` judges on every sample's held-out prediction, which
        leaks: a sample's corrected label was set by models that trained on the
        given labels of the samples that later judge it, so the agreement of a
        memorising model seems to rise even on labels unrelated to X (by 3 to 6
        standard errors for a random forest or 5-NN on 600 samples, where set-
        aside samples measure no gain). 0.2 was chosen on the development
        protocol (``docs/benchmarks.md``). Not used when ``fit`` gets
        ``trusted`` samples: they judge instead.

    n_iter_no_change : int >= 1, default=2
        Judged rounds (refits) without a new best before early stopping ends
        the run.

    final_fit : bool, default=True
        Whether to fit ``estimator_`` on the corrected labels after the loop.
        Not used for a net with per-epoch correction: its one training run
        already ends on the corrected labels.
        With ``confidence="in_sample"`` or ``"oob"`` the model of the last
        round is reused when it was already trained on exactly the final labels
        (with ``"oob"`` it keeps ``oob_score=True``). Set to False
        when only ``labels_`` is needed (e.g. to train another model on them):
        with ``"in_sample"``, ``estimator_`` is then the last round's model
        (trained on the labels before the last pass), as with ``"oob"``; with
        ``"cv"`` no model is kept and the prediction methods raise
        ``NotFittedError``.

    n_jobs : int, default=None
        Parallel jobs for the folds of ``confidence="cv"`` (with ``"oob"``,
        set the ensemble's own ``n_jobs``). ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, which may also
        send the folds to a cluster (``backend="dask"`` with a
        ``dask.distributed.Client``, or Ray's joblib backend): see the
        "Scaling out" page. On Dask, X is sent to each worker once per fit.

    random_state : int, RandomState instance or None, default=None
        Seeds the fold shuffling and every ``random_state`` of the estimator
        (and its steps) that is left at None, so a fixed value makes
        ``labels_`` reproducible. None leaves the estimator's own seeds as
        they are.

    verbose : int, default=0
        If > 0, show a progress bar over rounds with the threshold and the
        number of corrections.

    Attributes
    ----------
    estimator_ : estimator object
        The model fitted on the corrected labels (see ``final_fit``).

    classes_ : ndarray of shape (n_classes,)
        The classes seen in ``y``, in the caller's label space.

    labels_ : ndarray of shape (n_samples,)
        The corrected training labels, in the caller's label space and dtype.

    corrected_iter_ : ndarray of int of shape (n_samples,)
        Round (index into ``history_``) of each sample's last change, -1 if its
        label was never changed.

    corrections_ : dict of ndarray
        Every label change in order, as parallel arrays: ``"round"`` (index
        into ``history_``), ``"sample"`` (row of X), ``"from"`` and ``"to"``
        (in the caller's label space). With clean labels at hand, the
        precision of round ``r`` is ``mean(to[round == r] ==
        y_clean[sample[round == r]])``; ``pandas.DataFrame(corrections_)``
        gives a table.

    n_iter_ : int
        Number of rounds run (epochs, for a net with per-epoch correction).

    theta_ : float
        The threshold after the last round.

    history_ : list of dict
        One dict per round with keys ``"round"``, ``"threshold"`` (used in the
        pass), ``"n_corrected"`` (labels changed by the pass), ``"n_changed"``
        (labels differing from ``y`` after the pass), ``"refit"`` (whether
        the round trained a new model; False when no label had changed since
        the last fit, so the same probabilities were re-examined at the raised
        threshold) and ``"holdout_agreement"`` (with ``confidence="cv"`` or
        ``"oob"``, the held-out agreement with the given labels of the models
        trained on
        the labels before the pass; None in rounds without a refit and with
        other confidences).
        ``pandas.DataFrame(history_)`` gives a table. One round without a
        pass (``n_corrected`` 0) when the labels were kept for want of
        memorisation. With early stopping it also holds the rounds after the
        chosen one.

    termination_condition_ : {"converged", "max_iter", "no_improvement", \
            "labels_kept", "max_epochs", "interrupted"}
        ``"converged"``: a pass at ``theta_end`` was quiet (see
        ``min_correction_rate``); ``"max_iter"``: ``max_iter`` rounds ran first
        (with a ``ConvergenceWarning``); ``"no_improvement"``: early stopping
        saw ``n_iter_no_change`` rounds without a better held-out agreement;
        ``"labels_kept"``: the labels were left as given, because the model
        does not memorise them (``memorisation_``) or no round's labels beat
        them on held-out agreement (``selection_``); ``"max_epochs"``: a net's
        training ran its ``max_epochs`` without a quiet pass at ``theta_end``;
        ``"interrupted"``: a net's training ended before ``max_epochs``
        (skorch's ``EarlyStopping``), its last epoch corrected.

    confidence_ : str
        The confidence used: ``confidence``, or what ``"auto"`` chose.

    memorisation_ : dict or None
        With ``confidence="cv"`` or ``"oob"`` and ``min_memorisation > 0``: the
        evidence for correcting at all, measured on the labels as given:
        ``"in_sample_agreement"`` and ``"out_of_fold_agreement"`` (share of
        samples whose prediction equals the given label, by a model trained on
        all samples and by one that did not see the sample: out-of-fold, or
        out-of-bag with ``"oob"``), ``"rate"``
        (:func:`~sklearn_plc.correction.memorisation_rate`) and its
        ``"standard_error"`` over samples. None otherwise.

    validation_indices_ : ndarray of int or None
        The samples that judge the corrections: those set aside (see
        ``validation_fraction``), or the ``trusted`` samples passed to ``fit``;
        None when every sample judged or none did.

    selection_ : dict or None
        The held-out evidence for the returned labels (``confidence="cv"`` or
        ``"oob"``,
        when the labels were corrected and judged again): ``"round"`` (whose
        refit judged the returned labels; 0 for the labels as given),
        ``"holdout_agreement"``, ``"given_labels_agreement"``, and the paired
        ``"gain"`` over the labels as given with its ``"standard_error"``, and
        ``"n_judged"``, the number of samples they were measured on. The
        labels, ``corrections_`` and ``corrected_iter_`` are those of that
        round. Without early stopping it also has ``"undone"``: whether
        ``revert_if_worse`` undid the corrections, in which case ``"gain"``
        and ``"standard_error"`` are those of the labels undone. None when no
        corrected labels were judged (e.g. ``"labels_kept"`` by
        ``min_memorisation``, in-sample confidence, nets).

    recorded_bytes_ : int
        For a net with per-epoch correction only: the largest memory held by
        the recorded outputs (``window × n_train × n_classes`` floats, on the
        net's device; on several processes, this process's share).

    warm_up_ : int or None
        For a net with per-epoch correction only: the number of epochs trained
        before the first correction pass (None if none ran).

    n_features_in_ : int
        Number of features seen during fit (not set for a skorch net, whose
        inputs may be images, dicts or a ``SliceDataset``).

    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when X has string column names.

    Raises
    ------
    ValueError
        From ``fit``: an estimator without ``predict_proba``; labels that are
        missing, infinite or of one class; X and y of different lengths;
        ``theta_end < theta``; ``cv`` above the smallest class; non-finite
        probabilities. Out-of-range parameters raise
        ``sklearn.utils._param_validation.InvalidParameterError`` (a
        ``ValueError``).

    See Also
    --------
    sklearn_plc.correction.correct_labels : One correction pass on arrays.
    sklearn.semi_supervised.SelfTrainingClassifier : Pseudo-labels unlabeled data.

    References
    ----------
    Y. Zhang, S. Zheng, P. Wu, M. Goswami and C. Chen. "Learning with
    feature-dependent label noise: a progressive approach." ICLR 2021.

    Examples
    --------
    A random forest memorises its noisy labels, so PLC corrects them:

    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_plc import PLCClassifier
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> y_noisy = y.copy()
    >>> y_noisy[:60] = 1 - y_noisy[:60]
    >>> forest = RandomForestClassifier(n_estimators=20, random_state=0)
    >>> plc = PLCClassifier(forest, random_state=0).fit(X, y_noisy)
    >>> bool((plc.labels_ == y).mean() > (y_noisy == y).mean())
    True

    A logistic regression on 1,000 samples averages the noise out instead: it
    fits in sample only 7% (± 3%) of the labels its out-of-fold predictions
    contradict, not clearly above ``min_memorisation``, so its labels are
    left as given:

    >>> X, y = make_classification(n_samples=1000, random_state=0)
    >>> y_noisy = y.copy()
    >>> y_noisy[:200] = 1 - y_noisy[:200]
    >>> plc = PLCClassifier(LogisticRegression(), random_state=0).fit(X, y_noisy)
    >>> plc.termination_condition_
    'labels_kept'
    >>> evidence = plc.memorisation_
    >>> round(evidence["rate"], 2), round(evidence["standard_error"], 2)
    (0.07, 0.03)
    """

    # fit's sample_weight goes to the estimator (see get_metadata_routing); PLC
    # itself consumes only trusted
    __metadata_request__fit = {"sample_weight": UNUSED}

    _parameter_constraints: dict = {
        **CORRECTION_CONSTRAINTS,
        "estimator": [HasMethods(["fit"]), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "confidence": [
            StrOptions({"auto", "in_sample", *HELD_OUT_CONFIDENCES, *NET_CONFIDENCES})
        ],
        "cv": ["cv_object"],
        "min_memorisation": [Interval(Real, 0, 1, closed="left")],
        "early_stopping": ["boolean"],
        "revert_if_worse": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "final_fit": ["boolean"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        estimator=None,
        *,
        theta=0.3,
        beta=0.1,
        theta_end=0.9,
        schedule="additive",
        min_correction_rate="auto",
        warm_up="auto",
        max_iter=30,
        confidence="auto",
        cv=3,
        window=5,
        min_confidence=0.0,
        runner_up_ratio=0.5,
        distribution_alignment=True,
        min_memorisation=0.1,
        early_stopping=False,
        revert_if_worse=True,
        validation_fraction=0.2,
        n_iter_no_change=2,
        final_fit=True,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.theta = theta
        self.beta = beta
        self.theta_end = theta_end
        self.schedule = schedule
        self.min_correction_rate = min_correction_rate
        self.warm_up = warm_up
        self.max_iter = max_iter
        self.confidence = confidence
        self.cv = cv
        self.window = window
        self.min_confidence = min_confidence
        self.runner_up_ratio = runner_up_ratio
        self.distribution_alignment = distribution_alignment
        self.min_memorisation = min_memorisation
        self.early_stopping = early_stopping
        self.revert_if_worse = revert_if_worse
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.final_fit = final_fit
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def set_params(self, **params):
        """Set the parameters of this estimator, as scikit-learn does.

        ``estimator__<name>`` with the default ``estimator=None`` sets that
        parameter of the default ``LogisticRegression(max_iter=1000)``, which
        then becomes ``estimator`` (so GridSearchCV can tune it).

        Parameters
        ----------
        **params : dict
            Estimator parameters.

        Returns
        -------
        self : PLCClassifier
        """
        nested = any(key.startswith("estimator__") for key in params)
        if nested and self.estimator is None and "estimator" not in params:
            params = {"estimator": _default_estimator(), **params}
        return super().set_params(**params)

    def _get_estimator(self):
        return _default_estimator() if self.estimator is None else self.estimator

    def _resolve_confidence(self):
        """The confidence that ``"auto"`` stands for (see ``confidence``)."""
        if self.confidence != "auto":
            return self.confidence
        return "training_pass" if _is_skorch_net(self._get_estimator()) else "cv"

    def _resolve_min_correction_rate(self):
        """For refits; a net's callback resolves "auto" itself (per epoch)."""
        if self.min_correction_rate != "auto":
            return self.min_correction_rate
        return 0.05

    def _check_early_stopping(self, confidence):
        if self.early_stopping and confidence not in HELD_OUT_CONFIDENCES:
            raise ValueError(
                f"early_stopping=True judges each round's labels by held-out "
                f"(out-of-fold or out-of-bag) predictions, which "
                f"confidence={confidence!r} does not make. Use confidence='cv', or "
                f"early_stopping=False."
            )
        return self.early_stopping

    def _resolve_warm_up(self, net=None):
        if self.warm_up != "auto":
            return self.warm_up
        return 0 if net is None else "auto"  # nets: chosen from the data

    def _check_params_against_data(self, estimator, confidence, classes, encoded):
        if not hasattr(estimator, "predict_proba"):
            raise ValueError(
                f"The estimator {estimator!r} has no predict_proba; PLC compares "
                "class probabilities to decide which labels to correct. Use a "
                "classifier with predict_proba, or "
                "wrap it in sklearn.calibration.CalibratedClassifierCV."
            )
        if confidence in NET_CONFIDENCES and not _is_skorch_net(estimator):
            raise ValueError(
                f"confidence={confidence!r} records a neural network's outputs during "
                f"its training, so it needs a skorch NeuralNet; "
                f"{type(estimator).__name__} is not one. Use confidence='cv' or "
                f"'in_sample'."
            )
        if confidence == "oob" and not supports_out_of_bag(estimator):
            raise ValueError(
                f"confidence='oob' needs a bagging ensemble that predicts each sample "
                f"with the members that did not train on it: an oob_score parameter "
                f"and bootstrap=True (e.g. RandomForestClassifier, or "
                f"BaggingClassifier). {type(estimator).__name__} is not one, or has "
                f"bootstrap=False. Use confidence='cv'."
            )
        check_threshold_range(self.theta, self.theta_end)
        if confidence == "cv":
            self._check_cv_against_classes(classes, encoded)

    def _check_cv_against_classes(self, classes, encoded):
        """Raise when the folds cannot be made; below that, follow scikit-learn.

        A class with fewer samples than folds is what StratifiedKFold warns
        about and proceeds with (a training fold without that class gives it
        probability 0 there); only folds that cannot be made at all raise.
        """
        n_splits = self.cv if isinstance(self.cv, Integral) else None
        if isinstance(self.cv, StratifiedKFold):
            n_splits = self.cv.get_n_splits()
        counts = np.bincount(encoded, minlength=classes.shape[0])
        largest = int(counts.max())
        if n_splits is None or largest >= n_splits:
            return
        if largest < 2:
            raise ValueError(
                f"Every class has a single sample, so cv={n_splits} folds cannot "
                "be made and no model can predict a sample's class without "
                "seeing it. Use confidence='in_sample', or more samples per class."
            )
        raise ValueError(
            f"cv={n_splits} folds, but no class has {n_splits} samples (the "
            f"largest has {largest}), so the folds cannot be stratified. Use cv <= "
            f"{largest}, or confidence='in_sample'."
        )

    def _check_cv_is_reusable(self):
        if isinstance(self.cv, Iterator):
            raise ValueError(
                f"cv is an iterator ({type(self.cv).__name__}, e.g. the generator "
                "that splitter.split(X, y) returns): it can be read only once, so "
                "a second fit (a clone in GridSearchCV or cross_val_score) would "
                "find it empty, and it cannot be pickled. Pass list(cv), or the "
                "splitter itself (e.g. cv=GroupKFold(5) and groups=... in fit)."
            )

    def _make_splits(self, X, encoded, rng, groups, train=None):
        """The folds; with `train`, folds of those samples only (global indices)."""
        if isinstance(self.cv, Integral):
            if groups is not None:
                raise ValueError(
                    f"groups were passed to fit, but cv={self.cv} makes "
                    "StratifiedKFold folds, which ignore groups. Pass a group-aware "
                    "splitter, e.g. cv=GroupKFold(5) or StratifiedGroupKFold(5)."
                )
            splitter = StratifiedKFold(
                n_splits=self.cv, shuffle=True, random_state=rng.randint(2**31 - 1)
            )
        else:
            splitter = check_cv(self.cv, encoded, classifier=True)
        if train is None:
            return list(splitter.split(X, encoded, groups))
        # splitters read only the number of rows from X
        folds = splitter.split(
            np.zeros((train.shape[0], 1)),
            encoded[train],
            None if groups is None else np.asarray(groups)[train],
        )
        return [(train[fit], train[test]) for fit, test in folds]

    def _split_validation(self, X, encoded, rng, groups):
        """Set aside ``validation_fraction`` of the samples: (training, validation).

        Stratified by the given labels where every class can have a sample on
        both sides, by groups with a group-aware ``cv``, otherwise at random.
        """
        fraction = self.validation_fraction
        seed = rng.randint(2**31 - 1)
        n_samples = encoded.shape[0]
        counts = np.bincount(encoded)  # every class is present
        n_validation = int(np.ceil(fraction * n_samples))
        if groups is not None:
            splitter = GroupShuffleSplit(1, test_size=fraction, random_state=seed)
        elif counts.min() >= 2 and (
            counts.shape[0] <= n_validation <= n_samples - counts.shape[0]
        ):
            splitter = StratifiedShuffleSplit(1, test_size=fraction, random_state=seed)
        else:
            splitter = ShuffleSplit(1, test_size=fraction, random_state=seed)
        try:
            train, validation = next(
                splitter.split(np.zeros((n_samples, 1)), encoded, groups)
            )
        except ValueError as error:  # e.g. one side would be empty
            raise ValueError(
                f"validation_fraction={fraction} cannot set samples aside from "
                f"{n_samples}: {error} Use a validation_fraction that leaves "
                f"samples on both sides, or validation_fraction=None."
            ) from error
        return np.sort(train), np.sort(validation)

    def _round_proba(
        self,
        model,
        X,
        labels,
        n_classes,
        splits,
        fit_params,
        fit_on_all=False,
        out_of_bag=False,
        validation=None,
    ):
        """Fit for one round; return probabilities with one column per class.

        With ``splits`` the probabilities are out-of-fold (`model` is cloned per
        fold and left unfitted), and with `fit_on_all` a model fitted on all
        samples, with its in-sample probabilities, comes back too (fitted beside
        the folds). With `out_of_bag` they are out-of-bag, from a clone of
        `model` fitted on all samples, which comes back (with its in-sample
        probabilities if `fit_on_all`). Otherwise `model` is fitted on all
        samples and predicts them. `validation` samples are predicted by
        models that did not train on them (see :meth:`_correct`).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        on_all : (model, in-sample proba or None) or None
        """
        if out_of_bag:
            return out_of_bag_proba(
                model,
                X,
                labels,
                n_classes,
                fit_params=fit_params,
                in_sample=fit_on_all,
                validation=validation,
            )
        if splits is not None:
            return out_of_fold_proba(
                model,
                X,
                labels,
                splits,
                n_classes,
                fit_params=fit_params,
                n_jobs=self.n_jobs,
                fit_on_all=fit_on_all,
                validation=validation,
            )
        model.fit(X, labels, **fit_params)
        return in_sample_proba(model, X, n_classes), None

    def _validate_X(self, X, *, reset):
        """Check X as scikit-learn does; return what the estimator receives.

        Input that is not a table of features (a list of documents, a Series
        of text, a list of dicts: the input of a vectorizer pipeline), for a
        model not fitted on a table, is passed on untouched for the estimator
        to validate, rows indexed with ``_safe_indexing``. A table is checked:
        a DataFrame (pandas, polars) is then passed on as it is, so column
        names and dtypes reach a ColumnTransformer; sparse input as CSR
        (row-indexable for the folds); anything else as the validated array.
        """
        if reset or not hasattr(self, "n_features_in_"):
            try:
                _num_features(X)
            except TypeError:
                validate_data(self, X, reset=reset, skip_check_array=True)
                return indexable(X)[0]
        checked = validate_data(
            self,
            X,
            reset=reset,
            accept_sparse="csr",
            ensure_all_finite=False,
            dtype=None,
        )
        return X if _is_dataframe(X) else checked

    @_fit_context(
        # PLCClassifier.estimator is not validated yet
        prefer_skip_nested_validation=False
    )
    def fit(self, X, y, sample_weight=None, trusted=None, **fit_params):
        """Correct the labels of `X` progressively, then fit the final model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, passed to the estimator as given (a DataFrame stays a
            DataFrame), so any input the estimator accepts works. For a skorch
            net: a float32 array of any shape (e.g. images ``(n, C, H, W)``), a
            dict of arrays, or a ``skorch.helper.SliceDataset`` over a torch
            Dataset; not a torch Dataset that holds its own targets, since PLC
            must change the labels.

        y : array-like of shape (n_samples,)
            The given, possibly noisy, labels. Not modified.

        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights, passed to the estimator's ``fit`` in every round
            (indexed per fold with ``confidence="cv"``) and in the final fit.

        trusted : array-like of bool of shape (n_samples,), default=None
            True where the given label is verified (e.g. a gold set checked by
            an expert). Those labels are never corrected. With
            ``confidence="cv"`` or ``"oob"`` and ``revert_if_worse`` or
            ``early_stopping``, they also judge the corrections in place of the
            ``validation_fraction`` set-aside: no model of the correction loop
            trains on them (the final model does), and since their labels are
            right, the held-out agreement with them estimates clean accuracy
            even where the noise is majority-wrong, which the given labels
            cannot. The judge being unbiased, ``revert_if_worse`` then undoes
            the corrections at any measured loss rather than at one standard
            error. It needs a few hundred trusted samples to decide well; it
            warns below 100 (see the user guide). With other confidences (and
            nets) they are only kept as given. In a Pipeline, pass
            ``plcclassifier__trusted``; with metadata routing, request it with
            ``set_fit_request(trusted=True)``.

        **fit_params : dict
            Further parameters for the estimator's ``fit``, passed like
            ``sample_weight``; for a Pipeline, name the step
            (``logisticregression__sample_weight=w``). With
            ``sklearn.set_config(enable_metadata_routing=True)``, ``sample_weight``
            and these are routed instead, following the estimator's requests
            (e.g. ``LogisticRegression().set_fit_request(sample_weight=True)``
            inside a Pipeline). ``groups`` (array-like of shape (n_samples,))
            goes to the ``split`` of a group-aware ``cv`` such as
            ``GroupKFold``, never to the estimator, so that a group's samples
            are never predicted by a model trained on that group; routed the
            same way when routing is enabled.

        Returns
        -------
        self : PLCClassifier
            The fitted estimator.

        Raises
        ------
        ValueError
            If the estimator has no ``predict_proba``, y has missing labels or
            fewer than two classes, X and y differ in length, ``theta_end <
            theta``, ``cv`` exceeds the smallest class, or the estimator returns
            non-finite probabilities.
        """
        estimator = self._get_estimator()
        confidence = self._resolve_confidence()
        self.confidence_ = confidence
        _check_not_empty(X=X, y=y)
        classes, encoded = _encode_labels(y)
        trusted = _check_trusted(trusted, encoded.shape[0])
        if confidence in NET_CONFIDENCES:
            self._check_params_against_data(estimator, confidence, classes, encoded)
            return self._fit_net(
                estimator,
                confidence,
                X,
                classes,
                encoded,
                sample_weight,
                fit_params,
                trusted,
            )
        self._check_cv_is_reusable()
        X = self._validate_X(X, reset=True)
        try:
            check_consistent_length(X, encoded)
        except ValueError as error:
            raise ValueError(
                f"X and y must have one label per row of X. {error}"
            ) from error
        self._check_params_against_data(estimator, confidence, classes, encoded)
        if sample_weight is not None:
            sample_weight = column_or_1d(sample_weight).astype(np.float64)
            if sample_weight.shape[0] != encoded.shape[0]:
                raise ValueError(
                    f"sample_weight has {sample_weight.shape[0]} entries but y has "
                    f"{encoded.shape[0]}; pass one weight per sample."
                )
            fit_params = {"sample_weight": sample_weight, **fit_params}
        if get_config()["enable_metadata_routing"]:
            routed = process_routing(self, "fit", **fit_params)
            fit_params = routed.estimator.fit
            splitter = routed.get("splitter")
            groups = None if splitter is None else splitter.split.get("groups")
        else:
            groups = fit_params.pop("groups", None)
        if groups is not None and confidence != "cv":
            raise ValueError(
                f"groups were passed to fit, but they only shape the folds of "
                f"confidence='cv', and confidence={self.confidence!r} makes none. "
                f"Use confidence='cv' with a group-aware cv (e.g. GroupKFold(5)), or "
                f"drop groups."
            )

        rng = check_random_state(self.random_state)
        if self.random_state is not None:
            estimator = _seed_unset_random_states(clone(estimator), rng)
        training = validation = judged = None
        judges = self.revert_if_worse or self.early_stopping
        folds_given = not (isinstance(self.cv, Integral) or hasattr(self.cv, "split"))
        held_out_judge = confidence in HELD_OUT_CONFIDENCES and judges
        can_set_aside = not (confidence == "cv" and folds_given)
        if held_out_judge and trusted is not None:
            judged = np.flatnonzero(trusted)
            if judged.shape[0] < FEW_TRUSTED:
                warnings.warn(
                    f"Only {judged.shape[0]} trusted samples judge the corrections, "
                    f"and no correcting model trains on them: one standard error of "
                    f"their agreement is several points, and on small noisy data "
                    f"withholding them cost accuracy (user guide, 'Verified "
                    f"labels'). With fewer than {FEW_TRUSTED}, consider fitting "
                    f"without trusted.",
                    UserWarning,
                    stacklevel=2,
                )
            if can_set_aside:
                training, validation = np.flatnonzero(~trusted), judged
        elif held_out_judge and can_set_aside and self.validation_fraction is not None:
            training, validation = self._split_validation(X, encoded, rng, groups)
            judged = validation
        self.validation_indices_ = judged
        splits = None
        if confidence == "cv":
            splits = self._make_splits(X, encoded, rng, groups, train=training)
        continuing = confidence == "in_sample" and _sets_warm_start(estimator)

        self._check_early_stopping(confidence)
        self.memorisation_ = None
        fold_indices = [part for fold in splits or () for part in fold]
        with data_sent_once(X, *fold_indices):
            corrector, model, model_labels, stopped = self._correct(
                estimator,
                X,
                encoded,
                classes.shape[0],
                splits,
                fit_params,
                continuing,
                out_of_bag=confidence == "oob",
                validation=validation,
                judged=judged,
                trusted=trusted,
                sample_weight=sample_weight,
            )
        self.termination_condition_ = stopped
        if stopped == "max_iter":
            warnings.warn(
                f"PLC stopped at max_iter={self.max_iter} rounds before a quiet pass "
                f"at theta_end={self.theta_end}; the labels may still be moving. "
                f"Increase max_iter, or raise min_correction_rate.",
                ConvergenceWarning,
                stacklevel=2,
            )
        corrector.select_best()
        # a judge on verified labels is unbiased, so any measured loss undoes
        worse_bar = 0.0 if trusted is not None else WORSE_STANDARD_ERRORS
        corrector.undo_if_worse(worse_bar if self.revert_if_worse else None)
        self._set_correction_results(classes, encoded, corrector)
        if self.selection_ is not None and self.selection_["round"] == 0:
            self.termination_condition_ = "labels_kept"

        model_is_current = model is not None and np.array_equal(
            model_labels, corrector.labels
        )
        if hasattr(self, "estimator_"):
            del self.estimator_
        if self.final_fit and not model_is_current:
            final = model if continuing else clone(estimator)
            self.estimator_ = final.fit(X, corrector.labels, **fit_params)
        elif model_is_current or splits is None:
            self.estimator_ = model
        return self

    def _memorisation(self, encoded, out_of_fold_proba, in_sample, validation=None):
        """Measure how much of the labels as given a model memorises.

        `in_sample` holds the probabilities of a model fitted on all samples with
        the labels as given (but the `validation` samples, with ``"oob"``), on
        those samples. It is measured outside `validation`. Sets
        ``memorisation_``.
        """
        measured = slice(None)
        if validation is not None:
            measured = np.ones(encoded.shape[0], dtype=bool)
            measured[validation] = False
        encoded = encoded[measured]
        in_sample_agrees = in_sample[measured].argmax(axis=1) == encoded
        out_of_fold_agrees = out_of_fold_proba[measured].argmax(axis=1) == encoded
        _, gap_error = agreement_gain(in_sample_agrees, out_of_fold_agrees)
        contradicted = 1.0 - out_of_fold_agrees.mean()
        self.memorisation_ = {
            "in_sample_agreement": float(in_sample_agrees.mean()),
            "out_of_fold_agreement": float(out_of_fold_agrees.mean()),
            "rate": memorisation_rate(in_sample_agrees, out_of_fold_agrees),
            "standard_error": float(gap_error / contradicted) if contradicted else 0.0,
        }

    def _correct(
        self,
        estimator,
        X,
        encoded,
        n_classes,
        splits,
        fit_params,
        continuing,
        out_of_bag=False,
        validation=None,
        judged=None,
        trusted=None,
        sample_weight=None,
    ):
        """The correction loop: one model (or set of fold models) per round.

        A round refits only when the labels changed since the last fit (or the
        estimator continues training on each fit); otherwise the previous
        probabilities are examined again at the raised threshold, which is what
        a refit of a deterministic estimator on the same labels would give.

        With held-out confidence and ``min_memorisation > 0``, the first round
        also fits the model on the labels as given (beside the folds, in the
        same parallel batch; out-of-bag, it is the round's own model) and
        measures how much of them it memorises (``memorisation_``); below
        ``min_memorisation`` the run ends there, with the labels as given and
        that model. Out-of-bag, every round's model is fitted on all samples
        and is kept as the last model.

        With `validation` (indices), no model of the loop trains on those
        samples (out-of-fold, every fold's model predicts them; out-of-bag,
        every member does). Only the `judged` samples (indices; None: all)
        judge the labels (``selection_``). `trusted` (a mask) labels are never
        changed. `sample_weight` weighs the samples in the class-distribution
        alignment.

        Returns
        -------
        corrector : LabelCorrector
        model : estimator or None
            A model fitted on all samples: the last in-sample or out-of-bag model,
            or the model on the labels as given (out-of-fold confidence); None if
            there is none.
        model_labels : ndarray or None
            The labels `model` was fitted on.
        stopped : str
            Why the loop ended (see ``termination_condition_``).
        """
        corrector = LabelCorrector(
            encoded,
            theta=self.theta,
            beta=self.beta,
            theta_end=self.theta_end,
            schedule=self.schedule,
            min_correction_rate=self._resolve_min_correction_rate(),
            warm_up=self._resolve_warm_up(),
            window=self.window,
            min_confidence=self.min_confidence,
            runner_up_ratio=self.runner_up_ratio,
            distribution_alignment=self.distribution_alignment,
            sample_weight=sample_weight,
            n_iter_no_change=self.n_iter_no_change if self.early_stopping else None,
            judged=judged,
            fixed=trusted,
        )
        held_out = splits is not None or out_of_bag
        refits_one_model = not held_out  # in-sample: the model that predicts itself
        # out-of-bag, the round's ensemble ("on all") leaves the validation samples out
        left_out_of_all = validation if out_of_bag else None
        on_all_sees_all = left_out_of_all is None
        model = clone(estimator) if refits_one_model else None
        fitted_labels = model_labels = None
        stopped = "max_iter"
        with tqdm(
            total=self.max_iter, desc="PLC", unit="round", disable=not self.verbose
        ) as progress:
            for round_index in range(self.max_iter):
                refit = (
                    continuing
                    or fitted_labels is None
                    or not np.array_equal(fitted_labels, corrector.labels)
                )
                if refit:
                    if refits_one_model and not continuing:
                        model = clone(estimator)
                    measure_memorisation = (
                        held_out and round_index == 0 and self.min_memorisation > 0
                    )
                    proba, on_all = self._round_proba(
                        model if refits_one_model else estimator,
                        X,
                        corrector.labels,
                        n_classes,
                        splits,
                        fit_params,
                        fit_on_all=measure_memorisation,
                        out_of_bag=out_of_bag,
                        validation=validation,
                    )
                    _check_finite_proba(proba, round_index)
                    corrector.add_proba(proba, held_out=held_out)
                    fitted_labels = corrector.labels.copy()
                    if refits_one_model:
                        model_labels = fitted_labels
                    elif measure_memorisation:
                        model, in_sample = on_all
                        self._memorisation(encoded, proba, in_sample, left_out_of_all)
                        model_labels = encoded if on_all_sees_all else None
                        evidence = self.memorisation_
                        margin = EVIDENCE_STANDARD_ERRORS * evidence["standard_error"]
                        if evidence["rate"] - margin < self.min_memorisation:
                            corrector.run_round(correct=False)
                            stopped = "labels_kept"
                            break
                    elif out_of_bag:  # every out-of-bag round fits on all samples
                        model = on_all[0]
                        model_labels = fitted_labels if on_all_sees_all else None
                corrector.run_round(refit=refit)
                last = corrector.history[-1]
                progress.set_postfix(
                    theta=f"{last['threshold']:.3g}",
                    corrected=last["n_corrected"],
                    changed=last["n_changed"],
                )
                progress.update()
                if corrector.converged or corrector.stalled:
                    stopped = "converged" if corrector.converged else "no_improvement"
                    break
            progress.total = corrector.n_rounds  # a run that ended early
            progress.refresh()
        return corrector, model, model_labels, stopped

    def _fit_net(
        self, net, confidence, X, classes, encoded, sample_weight, fit_params, trusted
    ):
        """PLC inside one training run of a skorch net (see :class:`PLCCallback`)."""
        import torch

        from .skorch import (
            PLCCallback,
            check_supported_input,
            check_supported_net,
            float64_hint,
            label_dtype,
            with_callback,
        )

        check_supported_net(net, len(classes))
        check_supported_input(X)
        if sample_weight is not None:
            raise ValueError(
                "sample_weight is not supported for skorch nets, whose fit passes "
                "extra arguments to the module's forward; weight the loss in the "
                "module or criterion instead."
            )
        arrays = list(X.values()) if isinstance(X, dict) else [X]
        try:
            check_consistent_length(*arrays, encoded)
        except (TypeError, ValueError) as error:
            raise ValueError(
                f"X and y must have one label per sample. {error}"
            ) from error
        callback = PLCCallback(
            theta=self.theta,
            beta=self.beta,
            theta_end=self.theta_end,
            schedule=self.schedule,
            min_correction_rate=self.min_correction_rate,
            warm_up=self._resolve_warm_up(net),
            window=self.window,
            min_confidence=self.min_confidence,
            runner_up_ratio=self.runner_up_ratio,
            distribution_alignment=self.distribution_alignment,
            proba_source=confidence,
            verbose=self.verbose,
        )
        callback.kept_as_given = trusted  # read when training starts
        net, name = with_callback(clone(net), callback)
        labels = encoded.astype(label_dtype(net))  # PLC edits a copy
        with float64_hint(X):
            if self.random_state is None:
                net.fit(X, labels, **fit_params)
            else:
                seed = check_random_state(self.random_state).randint(2**31 - 1)
                with torch.random.fork_rng():  # seeds torch, leaves its state
                    torch.manual_seed(seed)
                    net.fit(X, labels, **fit_params)

        callback = dict(net.callbacks_)[name]
        corrector = callback.corrector_
        self._set_correction_results(
            classes, encoded, corrector, callback.training_positions_
        )
        if corrector.converged:
            self.termination_condition_ = "converged"
        elif callback.interrupted_:
            self.termination_condition_ = "interrupted"
        else:
            self.termination_condition_ = "max_epochs"
        self.recorded_bytes_ = callback.recorded_bytes_
        self.warm_up_ = callback.warm_up_
        self.memorisation_ = None  # no out-of-fold predictions in one training run
        self.validation_indices_ = None
        self.estimator_ = net
        return self

    def _set_correction_results(self, classes, encoded, corrector, positions=None):
        """Set the fitted attributes that describe the run, for every entry point.

        `positions` are the rows of X whose labels the corrector saw (all rows
        when None; a net's training split otherwise); other rows keep `encoded`.
        """
        n_samples = encoded.shape[0]
        positions = np.arange(n_samples) if positions is None else positions
        labels = encoded.copy()
        labels[positions] = corrector.labels
        corrected_iter = np.full(n_samples, -1, dtype=np.intp)
        corrected_iter[positions] = corrector.corrected_iter
        changes = corrector.corrections
        self.classes_ = classes
        self.labels_ = classes[labels]
        self.corrected_iter_ = corrected_iter
        self.corrections_ = {
            "round": changes["round"],
            "sample": positions[changes["sample"]],
            "from": classes[changes["from"]],
            "to": classes[changes["to"]],
        }
        self.history_ = corrector.history
        self.selection_ = corrector.selection
        self.n_iter_ = corrector.n_rounds
        self.theta_ = corrector.threshold

    def _check_model(self):
        if not hasattr(self, "estimator_") and hasattr(self, "labels_"):
            raise NotFittedError(
                "This PLCClassifier was fitted with final_fit=False and out-of-fold "
                "confidence, so it holds the corrected labels (labels_) but no "
                "model. Refit with final_fit=True to predict."
            )
        check_is_fitted(self, "estimator_")

    def _validate_for_predict(self, X):
        self._check_model()
        if _is_skorch_net(self.estimator_):
            return X  # images, dicts, SliceDatasets: the net validates its input
        return self._validate_X(X, reset=False)

    def _delegate(self, method, X):
        """Call the fitted model's `method` on X, validated by `_validate_for_predict`.

        Where PLC itself checked X's feature names (and warned about them), the
        model's own warning about the same names is not repeated.
        """
        with warnings.catch_warnings():
            if hasattr(self, "n_features_in_"):
                warnings.filterwarnings(
                    "ignore",
                    message="X (does not have valid|has) feature names",
                    category=UserWarning,
                )
            return getattr(self.estimator_, method)(X)

    def predict(self, X):
        """Predict classes with the model trained on the corrected labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted classes, in the label space of ``classes_``.
        """
        X = self._validate_for_predict(X)
        encoded = np.asarray(self._delegate("predict", X)).astype(np.intp, copy=False)
        return self.classes_.take(encoded)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities, one column per class of ``classes_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities.
        """
        X = self._validate_for_predict(X)
        proba = self._delegate("predict_proba", X)
        return class_columns(proba, self.estimator_.classes_, self.classes_.shape[0])

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """Log of the class probabilities, one column per class of ``classes_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probabilities.
        """
        X = self._validate_for_predict(X)
        return self._delegate("predict_log_proba", X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the model trained on the corrected labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            As returned by ``estimator_.decision_function``, whose classes are
            those of ``classes_`` (correction never empties a class).
        """
        X = self._validate_for_predict(X)
        return self._delegate("decision_function", X)

    def get_metadata_routing(self):
        """Get the metadata routing of this object.

        Returns
        -------
        routing : MetadataRouter
            ``fit`` metadata (e.g. ``sample_weight``) goes to the estimator's
            ``fit`` in every round and in the final fit; ``groups`` to the
            ``split`` of ``cv`` (e.g. ``GroupKFold``); ``trusted`` to PLC itself
            (``set_fit_request(trusted=True)``).
        """
        router = MetadataRouter(owner=self).add_self_request(self)
        router.add(
            estimator=self._get_estimator(),
            method_mapping=MethodMapping().add(caller="fit", callee="fit"),
        )
        if not isinstance(self.cv, Iterator):  # reading it would consume it
            router.add(
                splitter=check_cv(self.cv, classifier=True),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        return router

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        estimator_tags = get_tags(self._get_estimator())
        tags.input_tags.sparse = estimator_tags.input_tags.sparse
        tags.input_tags.allow_nan = estimator_tags.input_tags.allow_nan
        return tags
