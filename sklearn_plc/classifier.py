"""`PLCClassifier`: progressive label correction around any probabilistic classifier.

This module holds the estimator: its parameters, ``fit`` as an orchestration of
the pieces beside it, and the prediction methods. Input checks are in
:mod:`sklearn_plc._validation`, the run paths in :mod:`sklearn_plc._refit_run`
(scikit-learn estimators) and :mod:`sklearn_plc._net_run` (skorch nets), the
held-out judge in :mod:`sklearn_plc._judge`, one run's state in
:mod:`sklearn_plc._corrector` and the math in :mod:`sklearn_plc.correction`.
"""

import warnings
from collections.abc import Iterator
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
)
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
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

from ._net_run import NetRun
from ._out_of_fold import class_columns, judges_out_of_bag, model_columns
from ._params import CORRECTION_CONSTRAINTS
from ._partial_fit_run import PartialFitRun
from ._refit_run import RefitRun
from ._report import outcome_line
from ._validation import (
    HELD_OUT_CONFIDENCES,
    NET_CONFIDENCES,
    check_not_empty,
    check_trusted,
    encode_labels,
    is_incremental_net,
    is_skorch_net,
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
    afterwards that the corrections did not train worse models
    (``revert_if_worse``); otherwise the labels are returned as given.

    Read more in the user guide, "How PLC works". How each default was chosen,
    with its figures: the "Development record" page of the documentation.

    Parameters
    ----------
    estimator : estimator object, default=None
        A classifier with ``fit`` and ``predict_proba``; cloned, never
        modified. It is trained on labels from y's own label space, so
        per-class parameters such as a ``class_weight`` dict are given in your
        labels. ``None`` means ``RandomForestClassifier()``: a forest fits raw
        features without scaling or convergence settings and memorises its
        training labels, which PLC needs to tell the wrong ones, and its 100
        trees judge each sample out of bag (one fit a round). An ``MLPClassifier``
        (alone or last in a Pipeline) is trained once, with a correction pass
        after every epoch; another estimator with ``partial_fit`` can be, with
        ``confidence="eval_pass"``. A
        skorch ``NeuralNetClassifier`` (or ``NeuralNetBinaryClassifier``) is
        trained once, with a correction pass after every epoch, on class
        indices (positions in ``classes_``; a per-class ``criterion__weight``
        follows that order); its module must return logits with
        ``criterion=torch.nn.CrossEntropyLoss``, and it should have
        ``iterator_train__shuffle=True``.

    theta : float in (0, 1), default=0.3
        Initial threshold ``δ0`` (the paper's ``exp(θ0)``): a label is
        corrected when its probability is below ``theta`` times the top one.
        Smaller is stricter. 0.3 is the paper's value, and accuracy moved by
        less than a point over 0.2–0.5 there; tune it with ``beta`` in a grid
        search.

    beta : float > 0, default=0.1
        Step by which the threshold is relaxed after a quiet pass (see
        ``schedule``). The paper found 0.05–0.3 equally good. A net or a
        ``partial_fit`` run relaxes it only once the loss on the current
        labels has also stopped improving (the learner's ``tol`` for its
        ``n_iter_no_change`` epochs; for a net 1e-4 for 10 epochs): a pass is
        quiet too while the model is still unsure, and a threshold relaxed
        then relabels at that ratio for every epoch after.

    theta_end : float in (0, 1], default=0.9
        Largest threshold, the authors' cap. Must be at least ``theta``.
        Lower it to stop before the loosest corrections. With
        ``contested="set_aside"`` the threshold stops at 1/2 (1/3 in two
        classes) whatever its value above that.

    schedule : {"additive", "multiplicative"}, default="additive"
        ``"additive"``: ``δ ← min(δ + beta, theta_end)``, the authors'
        scripts, whose results the paper reports. ``"multiplicative"``:
        ``δ ← min(δ (1 + beta), theta_end)``, the paper's Algorithm 1, for
        comparing with it.

    min_correction_rate : float in [0, 1) or "auto", default="auto"
        A pass that changes at most this fraction of the labels is quiet: it
        relaxes the threshold and, at ``theta_end``, ends the run. ``"auto"``:
        0.001 for a net or a ``partial_fit`` run (the authors' value for a
        pass per epoch), 0.1 for a refit estimator, where each round costs
        ``cv`` fits: refits after fewer changes cost a third more time for
        about the same accuracy, more only on very small data. A refit
        estimator is refit only once more labels have changed since its last
        fit than a quiet pass may change. 0 is Algorithm 1 ("no label
        changed"). Raise it to make fewer refits; on a hundred or so samples,
        where every relabel moves the next model, 0.05 or less can be worth
        its cost.

    warm_up : int >= 0 or "auto", default="auto"
        Rounds (epochs, for a net) of training before the first pass.
        ``"auto"``: for a net or a ``partial_fit`` run, the epoch at which its
        agreement with the labels levels off, before it memorises them (at
        most half of the epochs; ``warm_up_``); 0 for a refit estimator,
        which is refit to convergence each round. Set it for an estimator
        that continues training on each fit (``warm_start``,
        ``confidence="in_sample"``).

    max_iter : int >= 1, default=30
        Most rounds (passes) for a refit estimator; a net runs one pass per
        epoch for its ``max_epochs``, a ``partial_fit`` run for at most the
        estimator's own ``max_iter``. Refit runs end
        well before 30 (a warning says when one does not).

    confidence : {"auto", "in_sample", "cv", "oob", "training_pass", \
"eval_pass"}, default="auto"
        Where each round's probabilities come from. ``"cv"``: out-of-fold,
        each sample predicted by a model that did not see its label (``cv``
        fits a round). ``"oob"``: the out-of-bag predictions of a bagging
        ensemble (``oob_score`` and ``bootstrap=True``): one fit a round, with
        coarser probabilities. ``"in_sample"``: one fit a round, predicting its
        own training samples; only for models that do not memorise.
        ``"training_pass"`` (nets): the outputs recorded during each epoch's
        training passes, at no extra cost. ``"eval_pass"``: one training run
        with a prediction of every sample after each epoch; for a net, or for
        an iteratively trained estimator with ``partial_fit`` and ``max_iter``,
        alone or last in a Pipeline (an epoch is one ``partial_fit`` call on
        the samples in a new order; the run ends as the learner's ``fit``
        would once the labels settle, at most after its ``max_iter`` epochs;
        in two classes it relabels only at a margin of 1/2). About two plain
        fits instead of a refit a round; for learners that memorise their
        labels (``MLPClassifier``), not linear ones. ``"auto"``:
        ``"training_pass"`` for a skorch net, ``"eval_pass"`` for an
        ``MLPClassifier`` that ``partial_fit`` can train (a net learns the
        common pattern before it memorises its wrong labels, which a run
        corrected every epoch relies on), ``"oob"`` for a bagging ensemble of
        at least 100 members (about 37 of them leave out each sample, a vote
        fine enough to relabel by, at one fit a round instead of ``cv``),
        else ``"cv"``, sound for every estimator (``confidence_``). It keeps folds
        wherever you chose them: ``cv`` other than 3, or ``groups``. Choose
        ``"cv"`` for an ``MLPClassifier`` to have the memorisation test and
        the undo judge its corrections, at about four times the cost, and
        ``"oob"`` for a smaller bagging ensemble only where the cost matters
        more than the gain: its out-of-bag vote (11 of 30 members) is coarse.

    cv : int, cross-validation generator or iterable, default=3
        Folds for ``confidence="cv"``. An int means a shuffled
        :class:`~sklearn.model_selection.StratifiedKFold` seeded by
        ``random_state``. 3 because PLC needs held-out probabilities, not the
        best held-out model, and 3 folds cost half of 5. Pass a group-aware
        splitter (with ``groups`` in ``fit``) when samples come in groups.
        Any other value makes ``confidence="auto"`` use folds.

    window : int >= 1, default=5
        Number of recent models (refits, or epochs for a net) whose
        probabilities are averaged for each pass, as the authors average the
        last 5 epochs; a label then changes only where several rounds agree,
        which damps refit-to-refit drift. A quiet round adds no model.

    min_confidence : float in [0, 1], default=0.0
        Correct only where the new class has at least this (averaged)
        probability. 0 is the paper's rule, because heavy noise rightly leaves
        the true class below a floor. Try 0.5 when the corrections move labels
        between classes the model confuses. No effect with two classes.

    runner_up_ratio : float in (0, 1], default=0.5
        Correct only where every third class has at most this fraction of the
        new class's probability, so that a label is not moved to one of two
        classes the model cannot tell apart. 0.5 (twice as likely) kept more
        cells close to plain training at the same mean gain; 1 is the paper's
        rule, better under heavy uniform noise. No effect with two classes.

    distribution_alignment : bool, default=True
        Before each pass, rescale the probabilities so that their mean follows
        the class frequencies of the labels as given
        (:func:`~sklearn_plc.correction.align_class_distribution`), so that a
        model that over-predicts a class cannot pull labels into it pass after
        pass. False is the paper's rule.

    min_memorisation : float in [0, 1), default=0.1
        Correct only a model that memorises its labels (``"cv"`` or ``"oob"``).
        The first round measures the share of the labels its held-out
        predictions contradict that it fits in sample (``memorisation_``);
        unless that rate, less one standard error, reaches
        ``min_memorisation``, the labels are kept as given
        (``termination_condition_ == "not_memorising"``). A model that averages
        the noise out only entrenches its own errors by relabelling. The same
        round also refuses a model too weak to judge: one that, held out,
        surely disputes more labels than it confirms (the label at most half
        the top class's probability, a third in two classes; more by over one
        standard error, ``memorisation_["judge_margin"]``), whose disputes are
        its own errors as often as the labels'
        (``termination_condition_ == "too_weak_to_judge"``); it relabels
        nothing (see ``contested`` for the labels it may still leave out). A
        model that does not memorise relabels nothing, but with ``"cv"`` and
        ``contested="auto"`` or ``"set_aside"`` its sure disputes are left out
        of the final fit when fold models fitted without them agree clearly
        better (three standard errors) with held-out given labels
        (``selection_``, ``set_aside_``): removal needs only that a label is
        doubtful, not that the model knows the right class. 0 skips both tests
        and corrects whatever the model, as the paper does.

    revert_if_worse : bool, default=True
        Undo every correction when the models trained on the corrected labels
        agree with the given labels clearly worse (by more than one standard
        error and one judged sample, so that one sample never decides; any
        loss on ``trusted`` samples) than the models trained on the
        labels as given, on samples none of them trained on (see
        ``validation_fraction``; ``"cv"`` or ``"oob"`` only; evidence in
        ``selection_``). The judged refits train on the hard corrected
        labels; with ``"cv"``, where the final fit weighs the relabels
        (``contested``), an undo is confirmed on the same folds fitted once
        more as the final fit is, and undone only if those models also agree
        clearly worse. A refit that agrees worse by two standard errors stops
        the run there. A loss too small to undo contests the corrections
        instead (``contested="auto"``). It cannot see noise whose majority is
        the wrong class. False keeps the corrections whatever the evidence.

    validation_fraction : float in (0, 1) or None, default=0.2
        Share of the samples, stratified, that no correcting model trains on,
        so that they can judge the corrections (``revert_if_worse``); they are
        still corrected, and the final model trains on every sample. 0.2
        leaves enough to judge and most to correct with. ``None`` judges on
        every sample's held-out prediction, which leaks (a memorising model
        then seems to gain), so the undo rarely fires. Not used with
        ``trusted`` samples, which judge instead, nor with folds given as
        index pairs.

    contested : {"auto", "weigh", "keep", "set_aside"}, default="auto"
        What the final fit does with doubtful relabels. ``"weigh"``: each
        relabelled sample is fitted with its new label at weight
        ``p_new / (p_new + p_given)`` of the held-out probabilities and with its
        given label at the rest (``relabel_weight_``): a sure relabel counts
        fully, a coin toss counts for neither class, and a wrong flip no longer
        counts as a whole wrong label. ``"auto"`` (the default) weighs where the
        estimator's ``fit`` takes ``sample_weight`` (for a Pipeline, its last
        step's); where it takes none (k-NN), a label cannot count in part, so
        the relabelled samples and those the model still disputes are left out
        of the final fit instead (``set_aside_``), and of the fold fits after
        the first round. ``"keep"``: the hard corrected labels, the paper's
        rule; use it to compare with the paper, or to train an unweighted
        model on every sample. ``"set_aside"``:
        relabel only where the new class is at least twice as likely as the
        label (in two classes, at a margin of one half) and leave the other
        disputed samples out of the final fit (``set_aside_``); it costs on
        very small data and with many classes. ``"cv"`` and ``"oob"`` only.
        Where the model does not memorise (``min_memorisation``), ``"auto"``
        and ``"set_aside"`` may still leave its sure disputes out of the final
        fit, on clear held-out evidence; ``"keep"`` and ``"weigh"`` then fit
        every sample. Where models trained on the corrected labels agree with
        the held-out samples' labels less than models trained on the labels as
        given, but not clearly enough to undo (``revert_if_worse``), the
        corrections as a whole are contested, and ``"auto"`` keeps the labels
        as given and leaves out of the final fit the samples that confident
        learning (:func:`~sklearn_plc.correction.confident_label_issues`)
        disputes on new held-out models of every sample, averaged with the
        first round's (``termination_condition_ == "corrections_contested"``):
        a wrong flip trains a wrong label, a sample left out costs one sample.
        This takes ``cv`` more fold fits (one more ensemble fit with
        ``"oob"``). Where the model memorises nearly every label it disputes
        (memorisation rate 0.8 or more: tree ensembles, boosting) and the
        final fit trains on every sample (the corrections kept, undone, or a
        model too weak to judge), ``"auto"`` and ``"set_aside"`` also leave
        out of it the first
        round's disputed labels more likely drawn at random than confused by
        the model (``memorisation_["random_label_share"]``; three or more
        classes): such a model gives each of them a region of its own, and a
        label drawn at random carries no trace of the right class, so
        relabelling it is a guess where leaving it out is not. Noise that
        follows the features lands where the model is confused, so there
        nothing is left out.

    final_fit : bool, default=True
        Fit ``estimator_`` on the corrected labels after the loop (a net's run
        already ends on them). False saves that fit when only ``labels_`` is
        needed, e.g. to train another model on them; with ``"cv"`` no model is
        then kept and the prediction methods raise ``NotFittedError``.

    n_jobs : int, default=None
        Parallel jobs for the folds of ``confidence="cv"``; with ``"oob"``,
        for the ensemble's fits where its own ``n_jobs`` is None. ``None``
        means 1 unless in a :func:`joblib.parallel_config` context, which may
        also send the folds to a Dask or Ray cluster (the "Scaling out" page).

    random_state : int, RandomState instance or None, default=None
        Seeds the folds, the set-aside and every ``random_state`` of the
        estimator (and its steps) left at None, so a fixed value makes
        ``labels_`` reproducible. None leaves the estimator's own seeds.

    verbose : int, default=0
        1: a progress bar over the rounds as they run (threshold, corrections),
        then one line that says what happened and why (corrected, converged,
        labels kept because the model does not memorise them, corrections
        undone). 2: also one line per round (threshold, corrections, refit,
        held-out agreement).

    Attributes
    ----------
    estimator_ : estimator object
        The model fitted on the corrected labels (see ``final_fit``).

    classes_ : ndarray of shape (n_classes,)
        The classes seen in ``y``, in the caller's label space.

    labels_ : ndarray of shape (n_samples,)
        The corrected training labels, in the caller's label space and dtype.

    corrected_iter_ : ndarray of int of shape (n_samples,)
        Round (index into ``history_``) of each sample's last change, -1 where
        ``labels_`` keeps the label as given.

    corrections_ : dict of ndarray
        Every label change in order, as parallel arrays: ``"round"`` (index
        into ``history_``), ``"sample"`` (row of X), ``"from"`` and ``"to"``
        (in the caller's label space), an undo's changes last, so replaying
        them on y gives ``labels_``; ``pandas.DataFrame(corrections_)`` gives
        a table.

    n_iter_ : int
        Number of rounds run (epochs, for a net with per-epoch correction).

    theta_ : float
        The threshold after the last round.

    history_ : list of dict
        One dict per round: ``"round"``, ``"threshold"`` (used in the pass),
        ``"n_corrected"`` (labels the pass changed), ``"n_changed"`` (labels
        differing from ``y`` after it), ``"refit"`` (whether the round trained
        a new model; False when no label had changed since the last fit) and
        ``"holdout_agreement"`` (``"cv"`` or ``"oob"``: the held-out agreement
        with the given labels of that refit's models; else None) and
        ``"n_contested"`` (labels contested after the pass, see ``contested``;
        None in a round without a pass), ``"warm_up"`` (a net's warm-up
        epoch: no pass) and ``"undo"``. When the corrections are undone (or
        contested, ``"corrections_contested"``), a last record with
        ``"undo": True`` sets them back (``"n_corrected"`` labels,
        ``"n_changed"`` 0), so the last record always describes ``labels_``;
        it is not a round (``n_iter_`` does not count it).
        ``pandas.DataFrame(history_)`` gives a table.

    termination_condition_ : {"converged", "max_iter", "not_memorising", \
"too_weak_to_judge", "undone", "corrections_contested", "max_epochs", \
"interrupted"}
        ``"converged"``: a pass at ``theta_end`` was quiet (a ``partial_fit``
        run: and its loss stopped improving); ``"max_iter"``:
        ``max_iter`` rounds ran first (with a ``ConvergenceWarning``);
        ``"not_memorising"``: the labels are returned as given because the
        model does not memorise them (``memorisation_``);
        ``"too_weak_to_judge"``: the labels are returned as given because the
        model surely disputes more of them than it confirms
        (``memorisation_["judge_margin"]``), its disputed labels that look
        drawn at random possibly left out of the final fit (``set_aside_``,
        see ``contested``); after ``"not_memorising"`` the
        sure disputes may be left out of the final fit
        (``selection_["chosen"]``, ``set_aside_``); ``"undone"``: the
        corrections trained worse models on held-out samples and were undone
        (``selection_["undone"]``); ``"corrections_contested"``: they trained
        models that did worse on the held-out samples, though not clearly, and
        the labels are returned as given with the samples that confident
        learning disputes left out of the final fit (``set_aside_``, see
        ``contested``); ``"max_epochs"``: a net ran its
        ``max_epochs``, a ``partial_fit`` run its learner's ``max_iter``;
        ``"interrupted"``: a net stopped early (skorch's
        ``EarlyStopping``), its last epoch corrected.

    confidence_ : str
        The confidence used: ``confidence``, or what ``"auto"`` chose.

    memorisation_ : dict or None
        The memorisation test's evidence (``"cv"`` or ``"oob"``, with
        ``min_memorisation > 0``): ``"in_sample_agreement"`` and
        ``"out_of_fold_agreement"`` (share of the given labels predicted by
        models that trained on the sample, and by models that did not: the
        fold models, or the ensemble out of bag), ``"rate"``
        (:func:`~sklearn_plc.correction.memorisation_rate`) and its
        ``"standard_error"``; ``"sure_disputes"`` (share of the labels whose
        held-out probability is at most half the top class's, a third in two
        classes) and ``"judge_margin"`` (out-of-fold agreement less
        ``"sure_disputes"``) with its ``"judge_margin_standard_error"``: below
        zero by more than one standard error, the model is too weak to judge.
        With ``contested="auto"`` or ``"set_aside"``, a run that ends
        ``"converged"``, ``"max_iter"``, ``"undone"`` or
        ``"too_weak_to_judge"`` also gets ``"random_label_share"``: the
        share of the first round's held-out disputes that look like labels
        drawn at random rather than the model's own confusions (a mixture
        fitted to the given labels' probabilities; near 0 under noise that
        follows the features; NaN where the probabilities carry no evidence,
        None in two classes). None otherwise.

    validation_indices_ : ndarray of int or None
        The samples that judged the corrections: the set-aside (see
        ``validation_fraction``) or the ``trusted`` ones; None when every
        sample judged or none did.

    set_aside_ : ndarray of bool of shape (n_samples,)
        The samples left out of the final fit as doubtful (see ``contested``:
        ``"set_aside"``, or ``"auto"`` with an estimator that takes no sample
        weights; where the model does not memorise, the sure disputes that
        ``selection_`` chose to leave out; where the corrections were contested,
        the labels that confident learning disputes; where a model that
        memorises fits every sample, the disputed labels that look drawn at
        random, see ``contested``); all False when none were.

    relabel_weight_ : ndarray of float of shape (n_samples,)
        The weight of each sample's label (``labels_``) in the final fit; where
        below 1, the given label was also fitted, at the rest (see
        ``contested="weigh"``). All 1 when no relabel was weighed. A sample in
        ``set_aside_`` was not fitted at all; its entry is the weight its
        relabel was given before it was left out.

    selection_ : dict or None
        The held-out comparison that chose what the final fit trained on
        (``"cv"`` or ``"oob"``). ``"compared"``: ``"corrections"`` (the
        corrected labels against the labels as given) or, where the model does
        not memorise, ``"set_aside"`` (the labels as given without the first
        round's sure disputes, against every sample; ``"cv"`` only: the fold
        fits leave out the fold-trained ones, and where chosen the final fit
        all ``"n_set_aside"`` of them, the judging samples' too).
        ``"round"`` and ``"holdout_agreement"`` of the compared labels'
        models, ``"given_labels_agreement"``, the paired ``"gain"`` of the
        first over the second with its ``"standard_error"``, ``"n_judged"``,
        ``"chosen"`` (whether the final fit trained on the compared labels),
        ``"undone"`` (whether ``revert_if_worse`` undid the corrections for
        this evidence, returning the labels as given; where they were
        contested instead, ``"chosen"`` and ``"undone"`` are both False and
        ``"n_set_aside"`` counts the samples left out), and ``"weighed"`` (the
        evidence comes from fold models that weighed the relabels as the final
        fit does; see ``revert_if_worse``). None when nothing was compared.

    recorded_bytes_ : int
        Nets only: the largest memory held by the recorded outputs
        (``window × n_train × n_classes`` floats, on the net's device).

    warm_up_ : int or None
        One-run paths only (a net, or ``eval_pass`` with ``partial_fit``): the
        epochs trained before the first pass (None if none ran).

    n_features_in_ : int
        Number of features seen during fit (not set for a skorch net).

    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when X has string column names.

    Raises
    ------
    ValueError
        From ``fit``: an estimator without ``predict_proba``; labels that are
        missing, infinite or of one class; X and y of different lengths;
        ``theta_end < theta``; ``cv`` folds that cannot be made (a warning,
        not an error, where only some classes are smaller than ``cv``);
        non-finite probabilities. Out-of-range parameters raise
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
    >>> X, y = make_classification(n_samples=600, random_state=0)
    >>> y_noisy = y.copy()
    >>> y_noisy[:120] = 1 - y_noisy[:120]
    >>> forest = RandomForestClassifier(n_estimators=20, random_state=0)
    >>> plc = PLCClassifier(forest, random_state=0).fit(X, y_noisy)
    >>> plc.termination_condition_
    'converged'
    >>> bool((plc.labels_ == y).mean() > (y_noisy == y).mean())
    True

    A model that does not memorise its labels (a regularised linear model on
    many samples) is left with them as given; see ``memorisation_``. Where
    models trained on the corrections do worse on the held-out samples, the
    labels are kept as given too (``"undone"``), or, with a loss too small to
    be sure of, the samples that confident learning disputes are left out
    instead (``"corrections_contested"``, ``set_aside_``).
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
        "revert_if_worse": ["boolean"],
        "contested": [StrOptions({"auto", "weigh", "keep", "set_aside"})],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
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
        cv=DEFAULT_CV,
        window=5,
        min_confidence=0.0,
        runner_up_ratio=0.5,
        distribution_alignment=True,
        min_memorisation=0.1,
        revert_if_worse=True,
        validation_fraction=0.2,
        contested="auto",
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
        self.revert_if_worse = revert_if_worse
        self.validation_fraction = validation_fraction
        self.contested = contested
        self.final_fit = final_fit
        self.n_jobs = n_jobs
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

    def _resolve_confidence(self, fit_params):
        """The confidence that ``"auto"`` stands for (see ``confidence``).

        Folds wherever the caller chose them: ``cv`` other than its default,
        or ``groups``.
        """
        if self.confidence != "auto":
            return self.confidence
        estimator = self._get_estimator()
        if is_skorch_net(estimator):
            return "training_pass"
        if is_incremental_net(estimator):
            return "eval_pass"
        folds_given = not (isinstance(self.cv, Integral) and self.cv == DEFAULT_CV) or (
            "groups" in fit_params
        )
        return "oob" if judges_out_of_bag(estimator) and not folds_given else "cv"

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
            True where the given label is verified (e.g. a gold set). Those
            labels are never corrected, and with ``"cv"`` or ``"oob"`` they
            judge the corrections in place of the ``validation_fraction``
            set-aside (no correcting model trains on them; any measured loss
            undoes). Give a few hundred; it warns below 100 (user guide,
            "Verified labels"). In a Pipeline, pass ``plcclassifier__trusted``.

        **fit_params : dict
            Further parameters for the estimator's ``fit`` (for a Pipeline,
            ``stepname__param``), routed instead when metadata routing is
            enabled. ``groups`` goes to the ``split`` of a group-aware ``cv``
            (e.g. ``GroupKFold``), never to the estimator.

        Returns
        -------
        self : PLCClassifier
            The fitted estimator.

        Raises
        ------
        ValueError
            If the estimator has no ``predict_proba``, y has missing labels or
            fewer than two classes, X and y differ in length, ``theta_end <
            theta``, ``cv`` folds cannot be made, or the estimator returns
            non-finite probabilities.
        """
        estimator = self._get_estimator()
        self.confidence_ = self._resolve_confidence(fit_params)
        check_not_empty(X=X, y=y)
        classes, encoded = encode_labels(y)
        trusted = check_trusted(trusted, encoded.shape[0])
        if self.confidence_ not in NET_CONFIDENCES:
            run_path = RefitRun
        elif is_skorch_net(estimator):
            run_path = NetRun
        else:  # eval_pass with a partial_fit learner
            run_path = PartialFitRun
        run = run_path(self, estimator, self.confidence_)
        X, fit_params = run.check_input(X, encoded, classes, sample_weight, fit_params)
        result = run.run(X, encoded, classes, fit_params, trusted)
        # a net trains on class indices; a scikit-learn model on the labels as given
        self._estimator_on_indices = run_path is NetRun

        for name, value in result.fitted_attributes(classes, encoded).items():
            setattr(self, name, value)
        if hasattr(self, "estimator_"):
            del self.estimator_
        if result.estimator is not None:
            self.estimator_ = result.estimator
        if self.verbose:
            print(
                outcome_line(
                    self, int(np.count_nonzero(self.labels_ != classes[encoded]))
                )
            )
        return self

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
