"""What the epoch paths share (a net's epochs, a ``partial_fit`` learner's epochs).

An epoch path trains one model and runs a correction pass after every epoch.
It starts correcting once the model's agreement with its labels, balanced over
the classes (:func:`balanced_agreement`), levels off (:func:`plateau_epoch`),
and a pass counts as quiet at the authors' 0.1%.
"""

import numpy as np

from .._thresholds import (
    DEFAULT_N_ITER_NO_CHANGE,
    DEFAULT_TOL,
    EPOCH_MIN_CORRECTION_RATE,
    LEARNED_STANDARD_ERRORS,
    WARM_UP_MAX_FRACTION,
    WARM_UP_MIN_EPOCHS,
    WARM_UP_PLATEAU,
)
from ..correction import is_quiet_pass


def balanced_agreement(agreeing_per_class, labels_per_class):
    """The mean over the labelled classes of the share of each predicted as labelled.

    A model that predicts the common class alone agrees with most labels of
    an imbalanced set, but with none of the rare class's: balanced, its
    agreement is chance (``1 / n_classes``), as it is on balanced labels.

    Parameters
    ----------
    agreeing_per_class : array-like of shape (n_classes,)
        Per class, the samples labelled so whose predicted class is their label.
    labels_per_class : array-like of shape (n_classes,)
        Per class, the samples labelled so; classes without any are skipped.

    Returns
    -------
    float

    Examples
    --------
    >>> from sklearn_plc._paths.epochs import balanced_agreement
    >>> balanced_agreement([90, 0], [90, 10])  # the common class alone
    0.5
    """
    agreeing = np.asarray(agreeing_per_class, dtype=float)
    labelled = np.asarray(labels_per_class, dtype=float)
    present = labelled > 0
    return float(np.mean(agreeing[present] / labelled[present]))


def chance_agreement(labels):
    """A model that has learned nothing: balanced agreement 1 / classes labelled."""
    return 1 / np.count_nonzero(np.bincount(labels))


def learned_margin(labels):
    """How far above chance a first epoch's agreement shows the model learned.

    ``LEARNED_STANDARD_ERRORS`` standard errors of the balanced agreement at
    its widest (each labelled class's share at one half): a first epoch this
    far above chance did not get there by luck, however few samples its
    rarest class has.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc._paths.epochs import learned_margin
    >>> round(learned_margin(np.repeat([0, 1], [1000, 100])), 3)
    0.052
    """
    counts = np.bincount(labels)
    counts = counts[counts > 0]
    standard_error = np.sqrt(np.sum(1 / (4 * counts))) / counts.shape[0]
    return LEARNED_STANDARD_ERRORS * float(standard_error)


def plateau_epoch(
    agreement,
    *,
    chance=0.0,
    margin=np.inf,
    min_epochs=WARM_UP_MIN_EPOCHS,
    tolerance=WARM_UP_PLATEAU,
):
    """Whether the agreement curve has levelled off at its last epoch.

    A model first learns the patterns its labels share, and its agreement with
    them climbs; it has levelled off when the climb stops. A curve that has not
    climbed above chance yet (a model before it starts learning, or one that
    predicts a single class) is not level but not started, and is not a
    plateau. A first epoch already well above chance (by more than `margin`)
    learned in that epoch: the climb counts from chance, so that a curve that
    then rises slowly (memorising) is level.

    Parameters
    ----------
    agreement : sequence of float
        Per epoch, the model's agreement with the current labels of its
        training samples, balanced over the classes
        (:func:`balanced_agreement`).
    chance : float, default=0.0
        The agreement of a model that has learned nothing (balanced: ``1 /
        n_classes``); the climb counts from it where the curve starts below.
    margin : float, default=inf
        The climb also counts from `chance` where the first epoch is above it
        by more than this (:func:`learned_margin`; inf: never).
    min_epochs : int
        Never before this many epochs.
    tolerance : float
        The curve has levelled off when it rose by less than this per epoch,
        on average over the last two epochs, after rising by at least this
        per epoch on average since the first epoch.

    Returns
    -------
    bool

    Examples
    --------
    >>> from sklearn_plc._paths.epochs import plateau_epoch
    >>> plateau_epoch([0.2, 0.4, 0.5, 0.6]), plateau_epoch([0.5, 0.6, 0.603, 0.606])
    (False, True)
    >>> plateau_epoch([0.36, 0.359, 0.363, 0.361])  # not started learning
    False
    >>> plateau_epoch([0.45, 0.49, 0.5, 0.5], chance=0.5)  # up to chance only
    False
    >>> plateau_epoch([0.63, 0.631, 0.632], chance=0.5, margin=0.05)  # learned at once
    True
    """
    if len(agreement) < max(min_epochs, 3):
        return False
    recent = (agreement[-1] - agreement[-3]) / 2
    start = agreement[0]
    if start < chance or start > chance + margin:
        start = chance
    climbed = (agreement[-1] - start) / (len(agreement) - 1)
    return recent < tolerance <= climbed


def warm_up_over(agreement, loss_settled, *, labels, epochs_run, latest):
    """Whether an automatic warm-up ends with the epoch that just ran.

    It ends once the model has learned what its labels share, before it
    memorises the wrong ones: once its agreement with them levels off
    (:func:`plateau_epoch`), or once its loss on them has stopped improving by
    its own stopping rule, where its own ``fit`` would stop (a linear learner
    fits its labels within a few epochs, and its curve has no climb to level
    off); at the latest after `latest` epochs.

    Parameters
    ----------
    agreement : sequence of float
        Per epoch, the balanced agreement with the labels
        (:func:`balanced_agreement`).
    loss_settled : bool
        Whether the loss on the labels has stopped improving
        (:meth:`LossSinceLabelsMoved.settled`).
    labels : ndarray of int
        The current labels, as class indices: they give the agreement of a
        model that has learned nothing (:func:`chance_agreement`) and how far
        above it a first epoch shows the model learned (:func:`learned_margin`).
    epochs_run : int
        Epochs run so far, the one that just ended included.
    latest : int
        The latest epoch at which the warm-up ends (:func:`max_warm_up`).

    Returns
    -------
    bool
    """
    return (
        loss_settled
        or epochs_run >= latest
        or plateau_epoch(
            agreement, chance=chance_agreement(labels), margin=learned_margin(labels)
        )
    )


def stopped_improving(losses, tol, n_iter_no_change):
    """Whether the last `n_iter_no_change` losses each failed to improve by `tol`.

    The rule of scikit-learn's iterative learners: an epoch improves when its
    loss is below the best loss before it less `tol`.

    Examples
    --------
    >>> stopped_improving([1.0, 0.5, 0.49999, 0.5], tol=1e-3, n_iter_no_change=2)
    True
    >>> stopped_improving([1.0, 0.5, 0.4, 0.39], tol=1e-3, n_iter_no_change=2)
    False
    """
    if tol is None or len(losses) <= n_iter_no_change:
        return False
    best = min(losses[:-n_iter_no_change])
    for loss in losses[-n_iter_no_change:]:
        if loss < best - tol:
            return False
        best = min(best, loss)
    return True


class LossSinceLabelsMoved:
    """A one run's loss on its current labels, epoch by epoch, since they last moved.

    The curve restarts after every pass that is not quiet. A quiet pass relaxes
    the threshold only once this curve has stopped improving (:meth:`settled`):
    while the model still learns, a pass is also quiet because the model is
    unsure, and a threshold relaxed then would relabel at that ratio in every
    later epoch.

    Parameters
    ----------
    tol : float or None
        An epoch improves when its loss is below the best before it less
        `tol`; None: the curve never settles.
    n_iter_no_change : int
        Epochs without improvement after which the curve has settled.
    """

    def __init__(self, tol=DEFAULT_TOL, n_iter_no_change=DEFAULT_N_ITER_NO_CHANGE):
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.losses = []

    def append(self, loss):
        """Record the loss of the epoch that just ended."""
        self.losses.append(loss)

    def settled(self):
        """Whether the loss has stopped improving (:func:`stopped_improving`)."""
        return stopped_improving(self.losses, self.tol, self.n_iter_no_change)

    def after_pass(self, corrector):
        """Restart the curve if the corrector's last pass moved the labels."""
        if not is_quiet_pass(
            corrector.history[-1]["n_corrected"],
            corrector.labels.shape[0],
            corrector.min_correction_rate,
        ):
            self.losses = []


def max_warm_up(epochs):
    """The latest epoch at which an automatic warm-up ends: half the epochs."""
    return max(1, int(epochs * WARM_UP_MAX_FRACTION))


def epoch_settings(min_correction_rate, warm_up):
    """The corrector's ``min_correction_rate`` and ``warm_up`` for an epoch path.

    ``"auto"`` means the authors' quiet pass for a pass per epoch, and a warm-up
    that the run ends itself when the agreement levels off (None).
    """
    return {
        "min_correction_rate": (
            EPOCH_MIN_CORRECTION_RATE
            if min_correction_rate == "auto"
            else min_correction_rate
        ),
        "warm_up": None if warm_up == "auto" else warm_up,
    }
