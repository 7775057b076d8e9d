"""PLC inside one skorch training run: a correction pass after every epoch.

The official scripts train one network for the whole run and, after a warm-up,
correct labels after every epoch from the softmax outputs averaged over the last
few epochs, recorded during the training forward passes themselves (no extra
inference pass). :class:`PLCCallback` does the same in skorch, driving the
library's one :class:`~sklearn_plc._label_state.LabelCorrector`;
:class:`~sklearn_plc.PLCClassifier` uses it when it wraps a skorch net.

How outputs are matched to samples without a loop over samples: the callback
gives the training DataLoader a sampler that remembers each epoch's order, so
batch ``b`` of an epoch holds the samples
``order[b * batch_size : (b + 1) * batch_size]``. The order is the one the net
would use with ``iterator_train__shuffle=True``: a fresh permutation every
epoch. A net that sets ``iterator_train__shuffle=False`` keeps the data's order
(and PLC warns); one that leaves it unset is shuffled, since outputs recorded in
a fixed order make poorer corrections.

This module imports torch and skorch; import it only when they are installed.
"""

import warnings

import numpy as np
import torch
from sklearn.utils._param_validation import StrOptions
from skorch.callbacks import Callback
from skorch.dataset import Dataset as SkorchDataset
from tqdm.auto import tqdm

from ._label_state import LabelCorrector
from ._params import (
    CALLBACK_PASS_CONSTRAINTS,
    CORRECTION_CONSTRAINTS,
    validate_correction_params,
)
from ._paths.epochs import (
    LossSinceLabelsMoved,
    balanced_agreement,
    epoch_settings,
    max_warm_up,
    plateau_epoch,
    warm_up_over,
)
from ._report import round_line
from ._skorch_batches import (
    EpochOrderSampler,
    ProcessShard,
    TrainableOnlyAccelerateMixin,
)
from ._thresholds import DISTRIBUTION_TOLERANCE

__all__ = [
    "EpochOrderSampler",
    "PLCCallback",
    "TrainableOnlyAccelerateMixin",
    "plateau_epoch",
    "training_order_shuffled",
]

PROBA_SOURCES = ("training_pass", "eval_pass")
# The net's settings the recording sampler stands in for during a run.
ITERATOR_PARAMS = ("iterator_train__sampler", "iterator_train__shuffle")
CALLBACK_CONSTRAINTS = {
    **CORRECTION_CONSTRAINTS,
    **CALLBACK_PASS_CONSTRAINTS,
    "proba_source": [StrOptions(set(PROBA_SOURCES))],
    "trusted": ["array-like", None],
    "verbose": ["verbose"],
}


def _training_label_store(dataset_train):
    """Return ``(dataset holding y, positions of the training samples in it)``."""
    if isinstance(dataset_train, torch.utils.data.Subset):
        base, positions = dataset_train.dataset, np.asarray(dataset_train.indices)
    else:
        base, positions = dataset_train, np.arange(len(dataset_train))
    if not isinstance(base, SkorchDataset) or base.y is None:
        raise TypeError(
            "PLC corrects the labels y that skorch reads from its Dataset, but the "
            f"training data is a {type(base).__name__} that holds its own targets. "
            "Pass the inputs and the labels separately, e.g. "
            "net.fit(SliceDataset(dataset, idx=0), y) with skorch.helper."
            "SliceDataset, or X as an array."
        )
    return base, positions


def _tensor_to_numpy(proba):
    return proba.detach().float().cpu().numpy()


def _as_int_array(y):
    """The labels skorch trains on as class indices; explain what cannot be."""
    if isinstance(y, torch.Tensor):
        y = y.detach().cpu().numpy()
    y = np.asarray(y)
    integral = y.dtype.kind in "iub" or (
        y.dtype.kind == "f" and np.array_equal(y, np.round(y)) and (y >= 0).all()
    )
    if not integral:
        raise TypeError(
            f"PLCCallback corrects class indices 0..k-1, the labels a skorch "
            f"classifier trains on, but y has dtype {y.dtype} (e.g. "
            f"{y.ravel()[:3].tolist()!r}). Encode the labels first with "
            f"sklearn.preprocessing.LabelEncoder, or use PLCClassifier(net), which "
            f"encodes them and returns labels_ in your label space."
        )
    return y.astype(np.int64)


def check_distributions(proba):
    """Raise unless every row of `proba` is a probability distribution.

    A module that returns logits with skorch's default ``NLLLoss``, or
    log-probabilities, trains but gives outputs PLC cannot compare as
    probabilities; corrections made from them would be nonsense.
    """
    lowest = float(proba.min())
    worst_sum = float((proba.sum(dim=1) - 1).abs().max())
    if lowest < -DISTRIBUTION_TOLERANCE or worst_sum > DISTRIBUTION_TOLERANCE:
        raise ValueError(
            f"The net's outputs are not probabilities (smallest value {lowest:.3g}, "
            f"rows summing to 1 ± {worst_sum:.3g}), so PLC cannot compare label "
            f"confidences. A module that returns logits needs "
            f"criterion=torch.nn.CrossEntropyLoss (skorch then applies the softmax); "
            f"with the default NLLLoss the module must end in a softmax, not a "
            f"log-softmax."
        )


def _corrector_attribute(name, attribute, doc):
    """A fitted attribute `name` of PLCCallback: its corrector's `attribute`."""

    def get(callback):
        return getattr(callback._fitted_corrector(name), attribute)

    return property(get, doc=doc)


def training_order_shuffled(net_params):
    """Whether PLC's recording sampler draws a fresh order every epoch.

    The net's ``iterator_train__shuffle`` where it is set; True where it is
    not. skorch's own default keeps the data's order, and outputs recorded in
    one order every epoch depend on it (the last batches of an epoch are seen
    by a model that has trained further), which makes poorer corrections; so
    PLC shuffles unless the user asked for the fixed order.

    Parameters
    ----------
    net_params : dict
        The net's attributes (``vars(net)``), where skorch keeps the
        parameters it was given.
    """
    return bool(net_params.get("iterator_train__shuffle", True))


class PLCCallback(Callback):
    """Progressive label correction after every epoch of a skorch net's training.

    Add it to a ``NeuralNetClassifier`` to correct the training labels during
    one training run: after ``warm_up`` epochs, each epoch ends with a
    correction pass (:func:`~sklearn_plc.correction.correct_labels`) on the
    predicted probabilities averaged over the last ``window`` epochs, then the
    threshold schedule. The next epoch trains on the corrected labels. Only the
    training split's labels are corrected (with skorch's ``ValidSplit`` the
    validation labels stay as given). The caller's ``y`` is never modified:
    the callback works on a copy held by skorch's Dataset.

    Parameters
    ----------
    theta, beta, theta_end, schedule
        As in :class:`~sklearn_plc.PLCClassifier`, with the same constraints,
        checked when the net is initialised (before any epoch is spent). The
        threshold is relaxed after a quiet pass only once the log loss of the
        recorded probabilities on the current labels has stopped improving
        (by 1e-4 for 10 epochs, scikit-learn's ``MLPClassifier`` defaults): a
        pass is also quiet while the net is still unsure, and a threshold
        relaxed then would relabel at that ratio in every later epoch.
    min_correction_rate : float in [0, 1) or "auto", default=0.001
        As in :class:`~sklearn_plc.PLCClassifier`; ``"auto"`` is 0.001.
    warm_up : int >= 0 or "auto", default="auto"
        Epochs of plain training before the first correction pass. ``"auto"``
        starts correcting once the net's training-pass agreement with the
        labels, balanced over the classes, levels off (:func:`plateau_epoch`:
        it rose by less than 0.5 points per epoch over the last two epochs,
        after rising by at least that much per epoch since the first, or since
        chance where the first epoch is below it or clearly above it, and at
        least 3 epochs have run), and at the latest at half of ``max_epochs``.
        A net first learns the patterns the labels share and only later
        memorises the wrong ones, so the end of that first phase is when its
        confidence is most worth trusting. The chosen epoch is ``warm_up_``.
    window : int >= 1, default=5
        Number of most recent epochs whose probabilities are averaged.
    min_confidence : float in [0, 1], default=0.0
        As in :class:`~sklearn_plc.PLCClassifier`: the least averaged
        probability of a label's new class (0: the ratio rule alone).
    runner_up_ratio : float in (0, 1], default=0.5
        As in :class:`~sklearn_plc.PLCClassifier`: the largest ratio of any
        third class's probability to the new class's (1: the ratio rule
        alone).
    distribution_alignment : bool, default=True
        As in :class:`~sklearn_plc.PLCClassifier`: each pass reads the
        averaged probabilities rescaled so that their mean follows the class
        frequencies of the labels as given, and moves no more labels out of a
        class drained by the noise than confident learning counts wrong in it
        (False: the paper's rule).
    proba_source : {"training_pass", "eval_pass"}, default="training_pass"
        ``"training_pass"``: the module's outputs recorded during each
        training batch (train mode, before that batch's optimiser step; no
        extra forward pass; what the authors' scripts do). The net's training
        iterator is given a recording sampler for the run, so a
        user-defined ``iterator_train__sampler`` is not supported; it
        shuffles every epoch unless the net sets
        ``iterator_train__shuffle=False`` (:func:`training_order_shuffled`).
        ``"eval_pass"``: ``net.predict_proba`` on the training samples at the
        end of each epoch that feeds a pass (eval mode, one extra inference
        pass per such epoch).
    trusted : array-like of bool of shape (n_samples,), default=None
        True where the given label is verified: a pass never changes it. One
        entry per sample of the data passed to ``fit`` (the validation
        split's entries are ignored). ``PLCClassifier`` passes its ``fit``'s
        ``trusted`` here.
    verbose : int, default=0
        1: a progress bar over epochs with the threshold and the number of
        corrections; 2: also one line per epoch. Whatever the verbosity, every
        epoch records ``plc_threshold``, ``plc_corrected``, ``plc_changed`` and
        ``event_plc_warm_up`` (shown as "+" in skorch's table during the
        warm-up, when no pass runs) in ``net.history``.

    Attributes
    ----------
    labels_ : ndarray of int of shape (n_train,)
        The corrected training labels, as class indices, of the samples at
        ``training_positions_`` (as ``PLCClassifier.labels_``).
    corrected_iter_, corrections_, history_, n_iter_, theta_
        As in :class:`~sklearn_plc.PLCClassifier` (epochs for rounds; samples
        indexed within the training split).
    corrector_ : LabelCorrector
        The state of the run behind those attributes.
    label_evidence_ : dict of ndarray
        Per training sample, what the last averaged outputs say about its given
        label (``LabelCorrector.label_evidence``: the suggested class index,
        the given label's ratio to the top probability, the top probability,
        the first epoch that disputed it).
    training_positions_ : ndarray of int
        Positions, in the data passed to ``fit``, of the samples whose labels
        were corrected (all but the validation split).
    recorded_bytes_ : int
        Peak memory held by the recorded outputs during training:
        ``window × n_train × n_classes`` floats, on the net's device. They are
        released when training ends.
    recorded_device_ : str or None
        The device the recorded outputs were kept on (e.g. ``"cuda:0"``).
    warm_up_ : int or None
        The epoch count after which correction started (None if it never did).
    agreement_ : list of float
        Per recorded epoch, the agreement of the net's predicted classes with
        the training labels at that time, balanced over the classes: the mean
        of each class's share of samples predicted as labelled, so that a net
        that predicts the common class alone is at chance.
    interrupted_ : bool
        Whether the last training call ended before ``max_epochs`` (skorch's
        ``EarlyStopping``, or a ``KeyboardInterrupt``). The epoch it ended in
        still gets its correction pass.

    Raises
    ------
    ValueError
        When the net is initialised: a parameter out of its range (the same
        messages as ``PLCClassifier``), ``theta_end < theta``. At the start of
        training: ``proba_source="training_pass"`` with a user-defined
        ``iterator_train__sampler``. After an epoch: outputs that are not
        probabilities (a logits module with the default ``NLLLoss``).
        ``partial_fit`` with a different number of samples.
    TypeError
        When the training data is a torch Dataset that holds its own targets
        (pass a ``SliceDataset`` and ``y`` instead), or the labels are not
        class indices (e.g. strings: encode them, or use ``PLCClassifier``).

    Notes
    -----
    The fitted callback is ``dict(net.callbacks_)[name]``. Where the net was
    cloned (``clone``, ``GridSearchCV``, ``cross_val_score``) or given the
    class, skorch trains a copy, and the instance you built stays unfitted (its
    fitted attributes raise an error that says where to look).

    Each epoch's corrections are also logged in ``net.history`` under
    ``plc_threshold``, ``plc_corrected`` and ``plc_changed``.

    ``partial_fit`` (and ``fit`` with ``warm_start=True``) continues the run:
    the next call trains on the labels as corrected so far, at the threshold
    reached, and ``corrector_`` keeps the whole history. The window of recorded
    outputs is freed at the end of each call, so it refills in the next one.

    Examples
    --------
    >>> from skorch import NeuralNetClassifier
    >>> from sklearn_plc.skorch import PLCCallback
    >>> net = NeuralNetClassifier(  # doctest: +SKIP
    ...     MyModule, criterion=torch.nn.CrossEntropyLoss, max_epochs=30,
    ...     iterator_train__shuffle=True,
    ...     callbacks=[("plc", PLCCallback(warm_up=10))])
    >>> net.fit(X, y_noisy)  # doctest: +SKIP
    >>> dict(net.callbacks_)["plc"].labels_  # doctest: +SKIP
    """

    def __init__(
        self,
        theta=0.3,
        beta=0.1,
        theta_end=0.9,
        schedule="additive",
        min_correction_rate=0.001,
        warm_up="auto",
        window=5,
        min_confidence=0.0,
        runner_up_ratio=0.5,
        distribution_alignment=True,
        proba_source="training_pass",
        trusted=None,
        verbose=0,
    ):
        self.theta = theta
        self.beta = beta
        self.theta_end = theta_end
        self.schedule = schedule
        self.min_correction_rate = min_correction_rate
        self.warm_up = warm_up
        self.window = window
        self.min_confidence = min_confidence
        self.runner_up_ratio = runner_up_ratio
        self.distribution_alignment = distribution_alignment
        self.proba_source = proba_source
        self.trusted = trusted
        self.verbose = verbose

    def initialize(self):
        """Validate the parameters (before any epoch is spent) and reset the run."""
        validate_correction_params(self, CALLBACK_CONSTRAINTS)
        self.corrector_ = None
        self._sampler = None
        self._store = None
        self._progress = None
        self._shard = None
        return self

    # --- the run's results, named as PLCClassifier names them ------------------

    def _fitted_corrector(self, name):
        corrector = getattr(self, "corrector_", None)
        if corrector is None:
            raise AttributeError(
                f"This PLCCallback has no {name}: it was not trained. A net that "
                f"was cloned (by clone, GridSearchCV or cross_val_score) or given "
                f"the class trains its own copy; read the fitted one as "
                f"dict(net.callbacks_)[NAME].{name} on the fitted net, NAME being "
                f"the name the net gives it (its class name unless you named it)."
            )
        return corrector

    labels_ = _corrector_attribute("labels_", "labels", "The corrected labels.")
    corrected_iter_ = _corrector_attribute(
        "corrected_iter_", "corrected_iter", "Epoch of each label's last change."
    )
    corrections_ = _corrector_attribute(
        "corrections_", "corrections", "Every label change, as parallel arrays."
    )
    history_ = _corrector_attribute("history_", "history", "One record per epoch.")
    n_iter_ = _corrector_attribute("n_iter_", "n_rounds", "Epochs run.")
    theta_ = _corrector_attribute("theta_", "threshold", "The last threshold.")

    # --- set-up and tear-down ---------------------------------------------------

    def on_train_begin(self, net, X=None, y=None, **kwargs):
        # A run continues across partial_fit calls (and fit with warm_start);
        # skorch's initialize, at every fresh fit, starts a new one.
        self._epochs_this_call = 0
        self._epoch_pending = False
        accelerator = getattr(net, "accelerator", None)
        main_process = accelerator is None or accelerator.is_main_process
        if self.verbose and main_process:
            done = 0 if self.corrector_ is None else self.corrector_.n_rounds
            self._progress = tqdm(
                total=done + net.max_epochs, initial=done, desc="PLC", unit="epoch"
            )
        if self.proba_source != "training_pass":
            return
        params = vars(net)
        own = params.get("iterator_train__sampler")
        if isinstance(own, EpochOrderSampler):
            # Left by a run that raised before on_train_end: undo it first.
            self._restore_iterator_params(params, own.replaced_params)
            own = params.get("iterator_train__sampler")
        if own is not None:
            raise ValueError(
                "PLC with proba_source='training_pass' records outputs in the order "
                "of its own sampler, so it cannot use iterator_train__sampler="
                f"{own!r}. Remove that sampler, or use proba_source='eval_pass'."
            )
        # The net's own choice where it made one. Left unset, skorch would keep
        # the data's order, which biases the recorded outputs: PLC shuffles.
        shuffle = training_order_shuffled(params)
        if "iterator_train__shuffle" not in params and self._progress is not None:
            self._progress.write(
                "PLC shuffles the training data every epoch (the net leaves "
                "iterator_train__shuffle unset; set it to False to keep the "
                "data's order)."
            )
        if not shuffle:
            warnings.warn(
                "PLC records each sample's output during the training pass, and this "
                "net visits the training data in the same order every epoch "
                "(iterator_train__shuffle=False), so the recorded outputs depend on "
                "the batch order and the corrections are less precise (on mnist1d "
                "they lowered label purity). Set iterator_train__shuffle=True on the "
                "net, or leave it unset.",
                UserWarning,
                stacklevel=2,
            )
        self._sampler = EpochOrderSampler(shuffle=shuffle)
        self._sampler.replaced_params = {
            key: params[key] for key in ITERATOR_PARAMS if key in params
        }
        params["iterator_train__sampler"] = self._sampler
        params["iterator_train__shuffle"] = False

    @staticmethod
    def _restore_iterator_params(params, saved):
        for key in ITERATOR_PARAMS:
            params.pop(key, None)
        params.update(saved)

    def on_train_end(self, net, X=None, y=None, **kwargs):
        if self._epoch_pending:
            # A callback before this one (EarlyStopping) ended training in the
            # last epoch's on_epoch_end, before its correction pass ran here.
            self._end_epoch(net, self._dataset_train)
        self.interrupted_ = self._epochs_this_call < net.max_epochs
        if self._progress is not None:
            self._progress.total = self._progress.n
            self._progress.close()
            self._progress = None
        if self._sampler is not None:  # only a training_pass run replaced them
            self._restore_iterator_params(vars(net), self._sampler.replaced_params)
        # Keep the results, not the run's working state: the training Dataset,
        # the sampler and the recorded outputs (window × n × k on the device).
        if self.corrector_ is not None:
            recorded = self.corrector_.recorded
            self.recorded_device_ = str(recorded[-1].device) if recorded else None
            self.label_evidence_ = self.corrector_.label_evidence()
            self.corrector_.release_recorded()
        self._store = self._sampler = self._epoch_proba = self._dataset_train = None
        self._shard = None  # holds the accelerator; set again by a further call

    def _attach(self, dataset_train):
        """Train this call on our own copy of the labels; return it as ints.

        skorch's Dataset holds a reference to the caller's y, which must not
        change, so the labels PLC edits are a copy.
        """
        store, positions = _training_label_store(dataset_train)
        y = store.y
        store.y = y.clone() if isinstance(y, torch.Tensor) else np.array(y, copy=True)
        self._store = store
        self.training_positions_ = positions
        return _as_int_array(store.y)[positions]

    def _continue(self, net, dataset_train):
        """A further training call (partial_fit): carry the corrected labels on."""
        given = self._attach(dataset_train)
        expected = self.corrector_.labels.shape[0]
        if given.shape[0] != expected:
            raise ValueError(
                f"partial_fit continues correcting the labels of the same "
                f"{expected} training samples, but got {given.shape[0]}. Call fit "
                f"to start a new run on new data."
            )
        self._shard = ProcessShard.of(net, expected)
        self._write_labels()

    def _start(self, net, dataset_train):
        labels = self._attach(dataset_train)
        self._shard = ProcessShard.of(net, labels.shape[0])
        trusted = None if self.trusted is None else np.asarray(self.trusted, dtype=bool)
        self.corrector_ = LabelCorrector(
            labels,
            theta=self.theta,
            beta=self.beta,
            theta_end=self.theta_end,
            schedule=self.schedule,
            # with warm_up="auto", the callback ends the warm-up (on_epoch_end)
            **epoch_settings(self.min_correction_rate, self.warm_up),
            window=self.window,
            min_confidence=self.min_confidence,
            runner_up_ratio=self.runner_up_ratio,
            distribution_alignment=self.distribution_alignment,
            trusted=None if trusted is None else trusted[self.training_positions_],
            rows=slice(None) if self._shard is None else self._shard.rows,
            gather_labels=None if self._shard is None else self._gather_labels,
            to_numpy=_tensor_to_numpy,
        )
        self._epoch_proba = None
        self.recorded_bytes_ = 0
        self.warm_up_ = None if self.warm_up == "auto" else self.warm_up
        self.agreement_ = []
        self._losses = LossSinceLabelsMoved()
        self._max_warm_up = max_warm_up(net.max_epochs)

    # --- the per-epoch loop ------------------------------------------------------

    def _records_this_epoch(self):
        """Only the epochs whose outputs can reach a pass are recorded."""
        if self.warm_up == "auto":
            return True  # the warm-up's end is read from the recorded outputs
        return self.corrector_.n_rounds >= self.warm_up - self.window

    def on_epoch_begin(self, net, dataset_train=None, dataset_valid=None, **kwargs):
        if self.corrector_ is None:
            self._start(net, dataset_train)
        elif self._store is None:
            self._continue(net, dataset_train)
        self._epochs_this_call += 1
        self._epoch_pending = True
        self._dataset_train = dataset_train
        if self._sampler is not None:
            self._sampler.n_samples = len(dataset_train)
        self._cursor = 0
        self._batches = None  # this process's batches, with several processes
        self._recording = (
            self.proba_source == "training_pass" and self._records_this_epoch()
        )

    def on_batch_end(self, net, batch=None, training=None, **kwargs):
        if not (training and self._recording):
            return
        y_pred = kwargs["y_pred"].detach()
        batch_positions = self._batch_positions(net, len(y_pred)).to(y_pred.device)
        # skorch's own rule for turning module outputs into probabilities
        # (softmax for CrossEntropyLoss, identity for NLLLoss modules).
        proba = net._get_predict_nonlinearity()(y_pred)
        n_samples = self.corrector_.labels.shape[0]
        if self._epoch_proba is None:
            self._epoch_proba = torch.zeros(
                (n_samples, proba.shape[1]), dtype=proba.dtype, device=proba.device
            )
            if self._shard is not None:
                self._epoch_visits = torch.zeros(n_samples, device=proba.device)
        self._epoch_proba[batch_positions] = proba
        if self._shard is not None:
            self._epoch_visits[batch_positions] += 1

    def _batch_positions(self, net, batch_size):
        """Positions in the training data of the samples of this batch."""
        order = self._sampler.order
        if self._shard is None:
            positions = order[self._cursor : self._cursor + batch_size]
            self._cursor += batch_size
            return positions
        if self._batches is None:
            # accelerate deals out the batches of the epoch's order; replay it
            params = net.get_params_for("iterator_train")
            size = params.get("batch_size", net.batch_size)
            self._batches = self._shard.batches(
                order,
                len(order) if size == -1 else size,
                params.get("drop_last", False),
            )
        if self._cursor >= len(self._batches) or (
            len(self._batches[self._cursor]) != batch_size
        ):
            raise RuntimeError(
                "PLC could not match this process's training batches to samples: "
                "the net's training DataLoader does not deal out batches the way "
                "accelerate's BatchSamplerShard does. Use proba_source='eval_pass'."
            )
        self._cursor += 1
        return self._batches[self._cursor - 1]

    def _gather_labels(self, block_labels):
        return self._shard.gather_labels(block_labels)

    def _sum_over_processes(self, epoch_proba):
        """This process's block of the epoch's outputs, recorded by all processes."""
        shard = self._shard
        shard.sum(epoch_proba)
        visits = shard.sum(self._epoch_visits)[shard.rows]
        self._epoch_visits = None
        block = epoch_proba[shard.rows].clone()
        # a sample seen twice (accelerate evens out the last batches) is averaged
        block /= visits.clamp(min=1).unsqueeze(1).to(block.dtype)
        return block

    def on_epoch_end(self, net, dataset_train=None, dataset_valid=None, **kwargs):
        self._end_epoch(net, dataset_train)

    def _end_epoch(self, net, dataset_train):
        """Record the epoch's outputs, run its correction pass, log it."""
        self._epoch_pending = False
        corrector = self.corrector_
        latest = None
        if self.proba_source == "eval_pass" and self._records_this_epoch():
            latest = torch.as_tensor(net.predict_proba(dataset_train))
            latest = latest[corrector.rows]  # with accelerate, gathered on each
        elif self._recording and self._epoch_proba is not None:
            # The epoch's buffer joins the window; the next epoch fills a new one.
            latest, self._epoch_proba = self._epoch_proba, None
            if self._shard is not None:
                latest = self._sum_over_processes(latest)
        if latest is not None:
            check_distributions(latest)
            corrector.add_proba(latest)
            labels = torch.as_tensor(corrector.labels[corrector.rows]).to(latest.device)
            n_classes = latest.shape[1]
            agreeing = torch.bincount(
                labels[latest.argmax(dim=1) == labels], minlength=n_classes
            )
            if self._shard is not None:
                agreeing = self._shard.sum(agreeing)
            self.agreement_.append(
                balanced_agreement(
                    agreeing.cpu().numpy(),
                    np.bincount(corrector.labels, minlength=n_classes),
                )
            )
            self._losses.append(self._log_loss(latest, labels))
        if corrector.warm_up is None and warm_up_over(
            self.agreement_,
            self._losses.settled(),
            labels=corrector.labels,
            epochs_run=corrector.n_rounds + 1,
            latest=self._max_warm_up,
        ):
            corrector.end_warm_up()
            self.warm_up_ = corrector.warm_up
        changed = corrector.run_round(may_raise=self._losses.settled())
        self._losses.after_pass(corrector)
        if changed.any():
            self._write_labels()
        self.recorded_bytes_ = max(
            self.recorded_bytes_,
            sum(p.element_size() * p.nelement() for p in corrector.recorded),
        )
        last = corrector.history[-1]
        net.history.record("plc_threshold", last["threshold"])
        net.history.record("plc_corrected", last["n_corrected"])
        net.history.record("plc_changed", last["n_changed"])
        # skorch's table shows an event_ key as "+": a warm-up epoch, no pass
        net.history.record("event_plc_warm_up", last["warm_up"])
        if self._progress is not None and self.verbose >= 2:
            self._progress.write(
                round_line(last, corrector.labels.shape[0], refits=False)
            )
        if self._progress is not None:
            self._progress.set_postfix(
                theta=f"{last['threshold']:.3g}",
                corrected=last["n_corrected"],
                changed=last["n_changed"],
            )
            self._progress.update()

    def _log_loss(self, proba, labels):
        """Mean log loss of this epoch's outputs on the current labels, all processes.

        A net's threshold is relaxed only once this stops improving: a pass is
        also quiet while the net is still unsure, and a threshold relaxed then
        would relabel at that ratio in every later epoch.
        """
        likelihood = proba.gather(1, labels.long().unsqueeze(1)).clamp_min(1e-15)
        total = -torch.log(likelihood.to(torch.float64)).sum()
        if self._shard is not None:
            total = self._shard.sum(total)
        return float(total) / self.corrector_.labels.shape[0]

    def _write_labels(self):
        labels = self.corrector_.labels
        if isinstance(self._store.y, torch.Tensor):
            self._store.y[torch.as_tensor(self.training_positions_)] = torch.as_tensor(
                labels, dtype=self._store.y.dtype
            )
        else:
            self._store.y[self.training_positions_] = labels
