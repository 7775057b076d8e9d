"""`PLCClassifier`: progressive label correction around any probabilistic classifier.

This module holds the estimator: its parameters, ``fit`` as an orchestration of
the pieces beside it, and the prediction methods. Input checks are in
:mod:`sklearn_plc._validation`; the run paths in :mod:`sklearn_plc._paths`
(``refit`` for scikit-learn estimators, ``partial_fit`` for incremental
learners trained once, ``net`` for skorch nets), each given the resolved
:class:`~sklearn_plc._paths.interface.RunSettings`; the end of a refit run in
:mod:`sklearn_plc._ending`; one run's labels in :mod:`sklearn_plc._label_state`
and the correction rule in :mod:`sklearn_plc.correction`.
"""

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
)
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import check_cv
from sklearn.utils import get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metadata_routing import (
    UNUSED,
    MetadataRouter,
    MethodMapping,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._held_out import class_columns, model_columns
from ._params import CORRECTION_CONSTRAINTS, check_threshold_range, pass_settings
from ._paths import NetPath, RefitPath, choose_path
from ._paths.interface import RunSettings
from ._paths.net import check_supported_input
from ._report import outcome_line
from ._review import given_labels, review_rows
from ._thresholds import VALIDATION_FRACTION
from ._validation import (
    HELD_OUT_CONFIDENCES,
    NET_CONFIDENCES,
    check_estimator_for_confidence,
    check_not_empty,
    check_trusted,
    encode_labels,
    is_skorch_net,
    row_index,
    validate_rows,
    validate_X,
)

__all__ = ["PLCClassifier"]


def _default_estimator():
    return RandomForestClassifier()


def _estimator_has(attr):
    """For `available_if`: the fitted model has `attr`, or else the given one."""

    def check(self):
        if hasattr(self, "estimator_"):
            return hasattr(self.estimator_, attr)
        return hasattr(self._get_estimator(), attr)

    return check


DEFAULT_CV = 3


class PLCClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Progressive Label Correction (PLC) around a probabilistic classifier.

    PLC (Zhang, Zheng, Wu, Goswami and Chen, ICLR 2021) trains a classifier on
    noisy labels and repeatedly relabels the training samples on which the
    model confidently disagrees with the given label: a sample with label ``y``
    becomes ``argmax_j f_j(x)`` when ``f_y(x) / max_j f_j(x) < δ``. The
    threshold ``δ`` starts strict (``theta``) and is relaxed by ``beta`` each
    time a pass corrects (almost) nothing, until it reaches ``theta_end``. A
    final model is then trained on the corrected labels. Before correcting, PLC
    checks that the model memorises its labels (``min_memorisation``), and
    afterwards, on held-out samples, that the corrections did not train worse
    models (``validation_fraction``); otherwise the labels are returned as
    given. The paper's rule, without these guards, is ``min_memorisation=0,
    validation_fraction=None, doubtful="keep", runner_up_ratio=1,
    distribution_alignment=False, min_correction_rate=0.001``.

    Read more in the user guide, "How PLC works". Why each default is what it
    is, with its figures: the "Why the defaults are what they are" page.

    Parameters
    ----------
    estimator : estimator object, default=None
        A classifier with ``fit`` and ``predict_proba``; cloned, never
        modified, and trained on labels from y's own label space. ``None``:
        ``RandomForestClassifier()``, which memorises its labels, as PLC needs,
        and judges each sample out of bag. A skorch ``NeuralNetClassifier`` or
        an ``MLPClassifier`` is trained once, with a pass after every epoch; a
        skorch net trains on class indices (positions in ``classes_``), and a
        module that returns logits needs
        ``criterion=torch.nn.CrossEntropyLoss`` (user guide, "Neural
        networks").

    theta : float in (0, 1), default=0.3
        Initial threshold ``δ0`` (the paper's ``exp(θ0)``): a label is
        corrected when its probability is below ``theta`` times the top one.
        Smaller is stricter. 0.3 is the paper's value; tune it with ``beta``
        in a grid search.

    beta : float > 0, default=0.1
        Step by which the threshold is relaxed after a quiet pass (``δ ←
        min(δ + beta, theta_end)``, the authors' scripts, whose results the
        paper reports); the paper found 0.05–0.3 equally good. A net or a
        ``partial_fit`` run relaxes it only once its loss on the current
        labels has also stopped improving.

    theta_end : float in (0, 1], default=0.9
        Largest threshold, the authors' cap; at least ``theta``. Lower it to
        stop before the loosest corrections. With ``doubtful="set_aside"``
        the threshold stops at 1/2 (1/3 in two classes).

    min_correction_rate : float in [0, 1) or "auto", default="auto"
        A pass that changes at most this fraction of the labels is quiet: it
        relaxes the threshold, and at ``theta_end`` ends the run; a refit
        estimator is refit only once more labels changed since its last fit.
        ``"auto"``: 0.001 for a net or a ``partial_fit`` run (one pass an
        epoch), 0.1 for a refit estimator, where each refit costs ``cv``
        fits. 0 is Algorithm 1 ("no label changed"). Raise it for fewer
        refits; on a hundred or so samples, where every relabel moves the next
        model, 0.05 can be worth its cost.

    warm_up : int >= 0 or "auto", default="auto"
        Rounds (epochs, for a net) of training before the first pass.
        ``"auto"``: for a net or a ``partial_fit`` run, the epoch at which its
        agreement with the labels, balanced over the classes, levels off above
        chance, before it memorises them, or its loss on them stops improving
        by its own stopping rule (``warm_up_``); 0 for a refit estimator. Set
        it for an estimator that continues training on each fit
        (``warm_start``, ``"in_sample"``), or for a net whose confidences beat
        its labels only after a known number of epochs.

    max_iter : int >= 1, default=30
        Most rounds for a refit estimator (a warning says when a run reaches
        it; they end well before). A net runs its ``max_epochs``, a
        ``partial_fit`` run at most the learner's own ``max_iter``.

    confidence : {"auto", "in_sample", "cv", "oob", "training_pass", \
"eval_pass"}, default="auto"
        Where each round's probabilities come from: ``"cv"`` out of fold
        (``cv`` fits a round, sound for every estimator); ``"oob"`` a bagging
        ensemble's out-of-bag votes (one fit a round); ``"in_sample"`` a model
        predicting its own training samples (only for models that do not
        memorise); ``"training_pass"`` a skorch net's training passes;
        ``"eval_pass"`` one training run of a net or a ``partial_fit`` learner,
        predicting every sample after each epoch (about two plain fits, no
        held-out judge). ``"auto"``: ``"training_pass"`` for a skorch net
        (alone or last in a Pipeline, whose steps before it are fitted once),
        ``"eval_pass"`` for an ``MLPClassifier``, ``"oob"`` for a bagging
        ensemble of 100 members or more, else ``"cv"`` (always where you chose
        folds: ``cv`` other than 3, or ``groups``); ``confidence_`` says which.
        User guide: "Where the confidence comes from".

    cv : int, cross-validation generator or iterable, default=3
        Folds for ``confidence="cv"``; an int means shuffled stratified folds
        seeded by ``random_state``, drawn so that a few labels changed or
        verified move only a few samples to other folds (user guide,
        "Verified labels"). 3 because PLC needs held-out probabilities, not the
        best held-out model, and 3 folds cost half of 5. Pass a group-aware
        splitter (with ``groups`` in ``fit``) when samples come in groups.

    runner_up_ratio : float in (0, 1], default=0.5
        Correct only where every third class has at most this fraction of the
        new class's probability, so that a label is not moved to one of two
        classes the model cannot tell apart. 1 is the paper's rule, better
        under heavy uniform noise. No effect with two classes.

    distribution_alignment : bool, default=True
        Before each pass, rescale the probabilities so that their mean follows
        the class frequencies of the labels as given
        (:func:`~sklearn_plc.correction.align_class_distribution`), so that a
        model that over-predicts a class cannot pull labels into it pass after
        pass; and where confident learning finds a class drained by the noise
        (one-sided noise), move no more of its labels away than it counts
        wrong. False is the paper's rule.

    min_memorisation : float in [0, 1), default=0.1
        Correct only a model that memorises its labels (``"cv"`` or
        ``"oob"``): unless the first round's memorisation rate, less one
        standard error, reaches this (``memorisation_``), the labels are kept
        as given (``"not_memorising"``), since a model that averages the noise
        out only entrenches its own errors by relabelling. The same round
        keeps the labels of a model too weak to judge, which surely disputes
        more of them than it confirms (``"too_weak_to_judge"``), unless it
        predicts the labels clearly better than chance and most of its
        disputes clearly look drawn at random, as uniform noise draws them
        (then they are the labels' errors, not its own). 0 skips both
        tests and corrects whatever the model, as the paper does. User guide:
        "Whether to correct at all".

    validation_fraction : float in (0, 1), "trusted" or None, default=0.2
        Share of the samples, stratified, that no correcting model trains on,
        so that they can judge the corrections (``"cv"`` or ``"oob"``); they
        are still corrected, and the final model trains on every sample. Every
        correction is undone when models trained on the corrected labels
        agree with their given labels clearly worse (by one standard error and
        one sample) than models trained on the labels as given (``"undone"``,
        evidence in ``selection_``; corrections that no refit trained on are
        judged on the folds fitted on them as the final fit would be); a loss
        too small to undo contests the corrections instead (see
        ``doubtful``); and, for a model that memorises, the removal of the
        confident disputes replaces the labels it would otherwise train on
        (corrected, or as given) where its models agree clearly better. The
        judge weighs each judged sample as the estimator weighs it
        (``class_weight``, ``sample_weight``), plainly otherwise. 0.2
        leaves enough to judge and most to correct with. The validation
        samples are drawn whatever is ``trusted`` (``fit``), so that a refit
        after a review judges on the samples the fit before it did: a
        verified label the draw sets aside judges with its verified label,
        the others train every correcting model; none is ever changed.
        ``"trusted"``: the run is judged as with 0.2, and the check on halves
        below is judged by the trusted samples alone, each predicted by the
        half that did not train on it (the trusted samples of the other half
        train every correcting model as anchors); only for a random sample of
        the data (a gold set), never for labels reviewed from the top of
        ``review_list()``, which are no random sample. Their labels are right
        where the noisy majority is wrong, but a few hundred of them hear
        less than every sample on clean labels. ``None``: no
        judge, the corrections stand whatever the evidence (the paper's rule;
        ``selection_`` still records it). With a float, the run's result is
        also checked on every sample: where it differs from a
        plain fit on the labels as given, the run is made again on each half
        of the samples and each half's final model predicts the other half,
        whose labels it never saw, directly or through a correction (each
        half's run takes the act the run took: it keeps its corrections, with
        no validation samples or memorisation test to stop them, contests
        them, or leaves its sure disputes out); where those models agree
        clearly worse with the given labels than plain fits on the halves (one
        standard error and one sample), or predict so few samples differently
        (one or two, equally weighted) that no verdict could call them worse,
        the result is undone (``halves_check_``): a result with no evidence
        for it is not kept. For a ``partial_fit`` learner in one run
        (``"eval_pass"``), which sets no samples aside, this check is the
        judge; ``None`` turns it off there too. The judge cannot see noise
        whose majority is the wrong class. User guide: "Undoing corrections
        that did harm".

    doubtful : {"auto", "weigh", "keep", "set_aside"}, default="auto"
        What the final fit does with doubtful labels (``"cv"`` and ``"oob"``).
        ``"weigh"``: a relabel is fitted on its new label at weight ``p_new /
        (p_new + p_given)`` and on its given label at the rest
        (``relabel_weight_``). ``"auto"``: weigh where ``fit`` takes
        ``sample_weight``, else leave the relabelled and disputed samples out
        (``set_aside_``); also contest corrections judged at a loss too small to
        undo, leave out labels that look drawn at random or that a
        non-memorising model surely disputes, each on clear held-out evidence,
        and, for a model that memorises, let the judge choose confident
        learning's removal of the first round's disputes where it trains
        clearly better models (``"disputes_removed"``).
        ``"keep"``: the hard corrected labels (the paper's rule).
        ``"set_aside"``: relabel only sure flips, leave the other disputed
        samples out. User guide: "Doubtful relabels in the final fit".

    random_state : int, RandomState instance or None, default=None
        Seeds the folds, the validation samples and every ``random_state`` of the
        estimator (and its steps) left at None, so a fixed value makes
        ``labels_`` reproducible. None leaves the estimator's own seeds.

    verbose : int, default=0
        1: a progress bar over the rounds, then one line that says what
        happened and why. 2: also one line per round (threshold, corrections,
        refit, held-out agreement).

    Attributes
    ----------
    estimator_ : estimator object
        The model fitted on the corrected labels.

    classes_ : ndarray of shape (n_classes,)
        The classes seen in ``y``, in the caller's label space.

    labels_ : ndarray of shape (n_samples,)
        The corrected training labels, in the caller's label space and dtype.

    corrected_iter_ : ndarray of int of shape (n_samples,)
        Round (index into ``history_``) of each sample's last change, -1 where
        ``labels_`` keeps the label as given.

    corrections_ : dict of ndarray
        Every label change in order, as parallel arrays ``"round"``,
        ``"sample"`` (the row's label in X's index where X is a pandas
        DataFrame or Series, so ``X.loc[corrections_["sample"]]`` finds the
        rows; else its position), ``"position"`` (the row's position in X),
        ``"from"`` and ``"to"``, an undo's changes last, so replaying them on
        y gives ``labels_``; ``pandas.DataFrame(corrections_)`` gives a table.

    n_iter_ : int
        Number of rounds run (epochs, for a net with per-epoch correction).

    theta_ : float
        The threshold after the last round.

    history_ : list of dict
        One dict per round: ``"round"``, ``"threshold"``, ``"n_corrected"``
        (labels the pass changed), ``"n_changed"`` (labels differing from
        ``y`` after it), ``"refit"``, ``"holdout_agreement"`` (the refit's
        held-out agreement with the given labels, or None), ``"n_disputed"``,
        ``"warm_up"`` and ``"undo"``. Where the labels go back to those given,
        a last record with ``"undo": True`` (not a round) says so.
        ``pandas.DataFrame(history_)`` gives a table.

    termination_condition_ : {"converged", "max_iter", "not_memorising", \
"too_weak_to_judge", "undone", "corrections_contested", "disputes_removed", \
"max_epochs", "interrupted"}
        Why the run ended: a quiet pass at ``theta_end``; ``max_iter`` rounds
        (with a ``ConvergenceWarning``); the labels kept as given for a model
        that does not memorise them or is too weak to judge them, or because
        the corrections, or the whole result made again on each half of the
        samples, trained clearly worse models (``"undone"``), or a
        little worse (``"corrections_contested"``: confident learning's
        disputes left out instead); the labels as given without the first
        round's confident disputes, which the judge found clearly better
        (``"disputes_removed"``); an epoch run that ran all its epochs, or a
        net stopped early. User guide: "Relabel, remove or keep".

    confidence_ : str
        The confidence used: ``confidence``, or what ``"auto"`` chose.

    memorisation_ : dict or None
        The first round's evidence (``"cv"`` or ``"oob"``, with
        ``min_memorisation > 0``): the in-sample and out-of-fold agreements,
        the memorisation ``"rate"`` with its ``"standard_error"``, the
        ``"judge_margin"`` behind ``"too_weak_to_judge"``, the
        ``"chance_agreement"`` (held out, were predictions independent of the
        labels) on the ``"n_measured"`` samples, the
        ``"random_label_share"`` of the disputes (None in two classes) with
        its ``"random_label_share_standard_error"``, and where read the number
        of them left out of the final fit (``"random_labels_left_out"``).
        None otherwise.

    trusted_ : ndarray of bool of shape (n_samples,) or None
        The ``trusted`` mask the fit was given (the reviewed labels), or None.
        ``review_list()`` marks these rows and lists them last.

    row_index_ : ndarray of shape (n_samples,) or None
        X's index where X is a pandas DataFrame or Series, else None: the
        labels in which ``corrections_`` and ``review_list()`` name samples.

    validation_indices_ : ndarray of int or None
        The samples that judged the run's own verdicts: the validation samples
        (see ``validation_fraction``); None when every sample judged or none
        did.

    set_aside_ : ndarray of bool of shape (n_samples,)
        The samples left out of the final fit as doubtful (see ``doubtful``);
        all False when none were.

    label_evidence_ : dict of ndarray of shape (n_samples,)
        What the last averaged probabilities say of each given label:
        ``"suggested"`` (the top class), ``"given_ratio"``, ``"top_proba"``,
        ``"label_proba"`` (of the sample's label in ``labels_``) and
        ``"first_disputed"`` (round); ``review_list()`` ranks them.

    relabel_weight_ : ndarray of float of shape (n_samples,)
        The weight of each sample's label (``labels_``) in the final fit, the
        given label fitted at the rest (see ``doubtful``); 1 where not weighed.

    selection_ : dict or None
        The held-out comparison behind the final labels: what was
        ``"compared"`` (``"corrections"``, ``"removal"`` or ``"halves"``), the
        ``"round"``,
        both agreements, the paired ``"gain"`` with its ``"standard_error"``,
        ``"n_judged"``, ``"chosen"``, ``"undone"``, ``"weighed"`` and any
        ``"n_set_aside"``; a non-memorising model's leave-out
        (``"set_aside"``) also the ``"standard_errors"`` its gain had to
        clear; a removal's also ``"against"``, ``"class_weight"``
        and the ``"corrections"`` verdict it displaced, and a removal not
        chosen is kept under ``"removal"``; None when nothing was compared
        (user guide, "Reading the results").

    halves_check_ : dict or None
        The check of the run's result on halves (see ``validation_fraction``):
        as ``selection_``, with ``"compared": "halves"``, the ``"ending"`` it
        checked, ``"undone"``, ``"n_differ"`` (the samples the two sets of
        models predicted differently), ``"too_few_differ"`` (undone for
        that alone) and ``"verified"``; the evidence is the held-out agreement
        of every sample (of the ``trusted`` ones alone where ``"verified"``:
        ``validation_fraction="trusted"``).
        Where it undid the result, ``selection_`` is this dict, with the
        verdict it replaced under ``"replaced"``. None where it did not
        run: the result was a plain fit's labels, the judge does not act
        (``validation_fraction=None``, ``confidence="in_sample"``,
        a skorch net), the folds are given as index pairs, or a half could
        not be run (a class too small for its folds, or too few groups for
        a group-aware ``cv``), which a ``UserWarning`` says.

    recorded_bytes_ : int
        Nets only: the largest memory held by the recorded outputs
        (5 recent epochs × ``n_train × n_classes`` floats, on the net's device).

    warm_up_ : int or None
        One-run paths only (a net, or ``eval_pass`` with ``partial_fit``): the
        epochs trained before the first pass (None if none ran).

    n_features_in_ : int
        Number of features seen during fit (not set for a skorch net).

    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when X has string column names.

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
    >>> from sklearn_plc import PLCClassifier
    >>> X, y = make_classification(n_samples=600, random_state=0)
    >>> y_noisy = y.copy()
    >>> y_noisy[:120] = 1 - y_noisy[:120]
    >>> forest = RandomForestClassifier(n_estimators=20, random_state=0)
    >>> plc = PLCClassifier(forest, random_state=0).fit(X, y_noisy)
    >>> plc.termination_condition_
    'converged'
    >>> bool((plc.labels_ == y).mean() > (y_noisy == y).mean())
    True
    """

    # fit's sample_weight goes to the estimator (see get_metadata_routing); PLC
    # itself consumes only trusted
    __metadata_request__fit = {"sample_weight": UNUSED}

    _parameter_constraints = {
        **CORRECTION_CONSTRAINTS,
        "estimator": [HasMethods(["fit"]), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "confidence": [
            StrOptions({"auto", "in_sample", *HELD_OUT_CONFIDENCES, *NET_CONFIDENCES})
        ],
        "cv": ["cv_object"],
        "min_memorisation": [Interval(Real, 0, 1, closed="left")],
        "doubtful": [StrOptions({"auto", "weigh", "keep", "set_aside"})],
        "validation_fraction": [
            Interval(Real, 0, 1, closed="neither"),
            StrOptions({"trusted"}),
            None,
        ],
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
        min_correction_rate="auto",
        warm_up="auto",
        max_iter=30,
        confidence="auto",
        cv=DEFAULT_CV,
        runner_up_ratio=0.5,
        distribution_alignment=True,
        min_memorisation=0.1,
        validation_fraction=VALIDATION_FRACTION,
        doubtful="auto",
        random_state=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.theta = theta
        self.beta = beta
        self.theta_end = theta_end
        self.min_correction_rate = min_correction_rate
        self.warm_up = warm_up
        self.max_iter = max_iter
        self.confidence = confidence
        self.cv = cv
        self.runner_up_ratio = runner_up_ratio
        self.distribution_alignment = distribution_alignment
        self.min_memorisation = min_memorisation
        self.validation_fraction = validation_fraction
        self.doubtful = doubtful
        self.random_state = random_state
        self.verbose = verbose

    def set_params(self, **params):
        """Set the parameters of this estimator, as scikit-learn does.

        ``estimator__<name>`` with the default ``estimator=None`` sets that
        parameter of the default ``RandomForestClassifier()``, which then
        becomes ``estimator`` (so GridSearchCV can tune it).

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

    def _run_settings(self):
        """The parameters as the run paths read them (see ``RunSettings``)."""
        return RunSettings(
            correction=pass_settings(self),
            min_correction_rate=self.min_correction_rate,
            warm_up=self.warm_up,
            max_iter=self.max_iter,
            confidence=self.confidence_,
            given_confidence=self.confidence,
            cv=self.cv,
            min_memorisation=self.min_memorisation,
            validation_fraction=(
                VALIDATION_FRACTION
                if self.validation_fraction == "trusted"
                else self.validation_fraction
            ),
            doubtful=self.doubtful,
            random_state=self.random_state,
            verbose=self.verbose,
            verified_judge=self.validation_fraction == "trusted",
        )

    @_fit_context(
        # PLCClassifier.estimator is not validated yet
        prefer_skip_nested_validation=False
    )
    def fit(self, X, y=None, sample_weight=None, trusted=None, **fit_params):
        """Correct the labels of `X` progressively, then fit the final model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, passed to the estimator as given (a DataFrame stays a
            DataFrame). For a skorch net: a float32 array of any shape, a dict of
            arrays, or a ``skorch.helper.SliceDataset`` (not a torch Dataset
            holding its own targets: PLC must change the labels).

        y : array-like of shape (n_samples,)
            The given, possibly noisy, labels. Not modified. Required (the
            default None raises an error that says what to pass).

        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights for the estimator's ``fit``, in every round and
            in the final fit.

        trusted : array-like of bool of shape (n_samples,), default=None
            True where the given label is verified (reviewed): never
            corrected or left out. The validation samples are drawn as
            without it, so that a refit after a review trains and judges on
            the samples the fit before it did: a verified sample the draw
            sets aside judges with its verified label, the others train
            every correcting model. Any number, 1 to all; with every label
            trusted the final model is the plain fit.
            With ``validation_fraction="trusted"`` the trusted samples alone
            judge the check on halves (see there). In a Pipeline, pass
            ``plcclassifier__trusted``.

        **fit_params : dict
            Further parameters for the estimator's ``fit`` (routed when
            metadata routing is enabled); ``groups`` goes to the ``split`` of
            a group-aware ``cv``, never to the estimator.

        Returns
        -------
        self : PLCClassifier
            The fitted estimator.

        Raises
        ------
        ValueError
            If the estimator has no ``predict_proba``, y has missing labels or
            fewer than two classes, X and y differ in length, ``theta_end <
            theta``, ``cv`` folds cannot be made (a group-aware ``cv`` with too
            few groups: the message counts those left), the estimator cannot
            be fitted on a fold (the message says how many samples a fold's
            model trains on), or the estimator returns non-finite probabilities.
        """
        estimator = self._get_estimator()
        folds_given = not (isinstance(self.cv, Integral) and self.cv == DEFAULT_CV)
        self.confidence_, path_class = choose_path(
            estimator, self.confidence, folds_given or "groups" in fit_params
        )
        bare_net = is_skorch_net(estimator)  # not in a Pipeline
        if y is None and bare_net:
            check_supported_input(X)  # a Dataset holding its targets: say what to pass
        check_not_empty(X=X, y=y)
        classes, encoded = encode_labels(y)
        trusted = check_trusted(
            trusted, encoded.shape[0], self.validation_fraction == "trusted"
        )
        index = row_index(X)
        settings = self._run_settings()
        if path_class is RefitPath:
            routing = get_config()["enable_metadata_routing"]
            path = RefitPath(
                settings, estimator, self.get_metadata_routing() if routing else None
            )
        else:
            path = path_class(settings, estimator)
        if not bare_net:  # a net validates its own input
            X = validate_rows(self, X, encoded)
        check_estimator_for_confidence(estimator, self.confidence_)
        check_threshold_range(self.theta, self.theta_end)
        X, fit_params = path.check_input(X, encoded, classes, sample_weight, fit_params)
        result = path.run(X, encoded, classes, fit_params, trusted)
        # a net trains on class indices; a scikit-learn model on the labels as given
        self._estimator_on_indices = path_class is NetPath

        for name, value in result.fitted_attributes(classes, encoded, index).items():
            setattr(self, name, value)
        self.trusted_ = trusted
        self.row_index_ = index
        self.estimator_ = result.estimator
        if self.verbose:
            print(
                outcome_line(
                    self, int(np.count_nonzero(self.labels_ != classes[encoded]))
                )
            )
        return self

    def review_list(self, rank="uncertainty"):
        """Every training sample, one row each, the most worth a review first.

        A row per sample: its given and suggested label, whether PLC disputes
        it (the last averaged probabilities put another class above its given
        label, PLC changed it, or the final fit left it out), what PLC did and
        why, and the evidence. Check the top rows, then fit again with the
        labels you verified marked ``trusted``: those rows are then marked
        ``"reviewed"`` and listed last, and the rest are ranked by what the
        reviewed labels taught the models. ``"sample"`` is the row's label in
        X's index where X is a pandas DataFrame or Series
        (``X.loc[rows["sample"]]``), else its position; ``"position"`` is
        always its position. User guide: "Reviewing labels".

        Parameters
        ----------
        rank : {"uncertainty", "likelihood"}, default="uncertainty"
            ``"uncertainty"``: by ``top_proba``, lowest first, disputed or not:
            the samples where a reviewer's answer is most likely to differ
            from what the models predict, and so to move them. A label PLC
            relabelled with strong evidence comes late, as a review would only
            confirm it; an undisputed one the models are unsure of comes
            early, since under feature-dependent noise the models agree with
            wrong labels where those are the majority, and a list of disputes
            never reaches them. It spends a review budget where the answers
            raise accuracy most. ``"likelihood"``: the disputed rows first, by
            ``given_ratio`` (the given label's probability over the top
            class's), lowest first, the labels most likely wrong as given
            whatever PLC did: for an audit of the labels themselves
            (``rows[rows["disputed"]]``).

        Returns
        -------
        rows : pandas.DataFrame or dict of ndarray
            A DataFrame where pandas is installed, else its columns by name
            (see :func:`sklearn_plc._review.review_rows`).
        """
        check_is_fitted(self, "labels_")
        rows = review_rows(
            labels=self.labels_,
            given=given_labels(self.labels_, self.corrections_),
            trusted=self.trusted_,
            row_index=self.row_index_,
            set_aside=self.set_aside_,
            relabel_weight=self.relabel_weight_,
            evidence=self.label_evidence_,
            termination=self.termination_condition_,
            held_out=self.confidence_ in HELD_OUT_CONFIDENCES,
            rank=rank,
        )
        try:
            import pandas as pd
        except ImportError:
            return rows
        return pd.DataFrame(rows)

    def _validate_for_predict(self, X):
        check_is_fitted(self, "estimator_")
        if is_skorch_net(self.estimator_):
            return X  # images, dicts, SliceDatasets: the net validates its input
        return validate_X(self, X, reset=False)

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
        predicted = np.asarray(self._delegate("predict", X))
        if self._estimator_on_indices:
            return self.classes_.take(predicted.astype(np.intp, copy=False))
        return predicted

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
        columns = (
            self.estimator_.classes_
            if self._estimator_on_indices
            else model_columns(self.estimator_, self.classes_)
        )
        return class_columns(proba, columns, self.classes_.shape[0])

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
