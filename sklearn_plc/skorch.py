"""PLC inside one skorch training run: a correction pass after every epoch.

The official scripts train one network for the whole run and, after a warm-up,
correct labels after every epoch from the softmax outputs averaged over the last
few epochs, recorded during the training forward passes themselves (no extra
inference pass). :class:`PLCCallback` does the same in skorch, driving the
library's one :class:`~sklearn_plc._corrector.LabelCorrector`;
:class:`~sklearn_plc.PLCClassifier` uses it when it wraps a skorch net.

How outputs are matched to samples without a loop over samples: the callback
gives the training DataLoader a sampler that remembers each epoch's order, so
batch ``b`` of an epoch holds the samples
``order[b * batch_size : (b + 1) * batch_size]``. The order is the one the net
would use anyway: a fresh permutation every epoch when the net shuffles
(``iterator_train__shuffle=True``), the data's order otherwise (skorch's
default), so adding PLC does not change how the net is trained.

This module imports torch and skorch; import it only when they are installed.
"""

import warnings

import numpy as np
import torch
from skorch.callbacks import Callback
from skorch.dataset import Dataset as SkorchDataset
from skorch.utils import is_dataset

from ._corrector import LabelCorrector

__all__ = ["PLCCallback"]

PROBA_SOURCES = ("training_pass", "eval_pass")
# The net's settings the recording sampler stands in for during a run.
ITERATOR_PARAMS = ("iterator_train__sampler", "iterator_train__shuffle")
AUTO_WARM_UP_MIN_EPOCHS = 3
AUTO_WARM_UP_PLATEAU = 0.005  # gain in agreement per epoch, over the last two epochs
AUTO_WARM_UP_MAX_FRACTION = 0.5


def plateau_epoch(
    agreement, *, min_epochs=AUTO_WARM_UP_MIN_EPOCHS, tolerance=AUTO_WARM_UP_PLATEAU
):
    """Whether the agreement curve has levelled off at its last epoch.

    Parameters
    ----------
    agreement : sequence of float
        Per epoch, the fraction of training samples whose predicted class is
        their current label.
    min_epochs : int
        Never before this many epochs.
    tolerance : float
        The curve has levelled off when it rose by less than this per epoch,
        on average over the last two epochs.

    Returns
    -------
    bool

    Examples
    --------
    >>> from sklearn_plc.skorch import plateau_epoch
    >>> plateau_epoch([0.2, 0.4, 0.5, 0.6]), plateau_epoch([0.5, 0.6, 0.603, 0.606])
    (False, True)
    """
    if len(agreement) < max(min_epochs, 3):
        return False
    return (agreement[-1] - agreement[-3]) / 2 < tolerance


class EpochOrderSampler(torch.utils.data.Sampler):
    """Yield the samples in a DataLoader's order and remember that order.

    Parameters
    ----------
    n_samples : int
        Size of the dataset (set again at every epoch).
    shuffle : bool
        As ``DataLoader(shuffle=...)``: a fresh permutation every epoch, drawn
        from torch's global generator (so ``torch.manual_seed`` makes runs
        repeatable), or the data's own order.
    """

    def __init__(self, n_samples=0, shuffle=False):
        self.n_samples = n_samples
        self.shuffle = shuffle
        self.order = torch.arange(0)
        self.replaced_params = {}  # the net's iterator settings it stands in for

    def __len__(self):
        return self.n_samples

    def __iter__(self):
        if self.shuffle:
            self.order = torch.randperm(self.n_samples)
        else:
            self.order = torch.arange(self.n_samples)
        return iter(self.order.tolist())


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
    if isinstance(y, torch.Tensor):
        return y.detach().cpu().numpy().astype(np.int64)
    return np.asarray(y).astype(np.int64)


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
    theta, beta, theta_end, schedule, min_correction_rate
        As in :class:`~sklearn_plc.PLCClassifier`.
    warm_up : int >= 0 or "auto", default="auto"
        Epochs of plain training before the first correction pass. ``"auto"``
        starts correcting once the net's training-pass agreement with the
        labels levels off (:func:`plateau_epoch`: it rose by less than 0.5
        points per epoch over the last two epochs, and at least 3 epochs have
        run), and at the latest at half of ``max_epochs``. A net first learns
        the patterns the labels share and only later memorises the wrong
        ones, so the end of that first phase is when its confidence is most
        worth trusting. The chosen epoch is ``warm_up_``.
    window : int >= 1, default=5
        Number of most recent epochs whose probabilities are averaged.
    proba_source : {"training_pass", "eval_pass"}, default="training_pass"
        ``"training_pass"``: the module's outputs recorded during each
        training batch (train mode, before that batch's optimiser step; no
        extra forward pass; what the authors' scripts do). The net's training
        iterator is given a recording sampler for the run, so a
        user-defined ``iterator_train__sampler`` is not supported.
        ``"eval_pass"``: ``net.predict_proba`` on the training samples at the
        end of each epoch that feeds a pass (eval mode, one extra inference
        pass per such epoch).

    Attributes
    ----------
    corrector_ : LabelCorrector
        The state of the run: ``labels``, ``corrected_iter``, ``history`` (one
        record per epoch), ``threshold``.
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
        Per recorded epoch, the fraction of training samples whose predicted
        class was their label at that time.

    Raises
    ------
    ValueError
        At the start of training: ``proba_source="training_pass"`` with a
        user-defined ``iterator_train__sampler``; an invalid ``warm_up`` or
        ``proba_source``.
    TypeError
        When the training data is a torch Dataset that holds its own targets
        (pass a ``SliceDataset`` and ``y`` instead).

    Notes
    -----
    Each epoch's corrections are also logged in ``net.history`` under
    ``plc_threshold``, ``plc_corrected`` and ``plc_changed``.

    Examples
    --------
    >>> from skorch import NeuralNetClassifier
    >>> from sklearn_plc.skorch import PLCCallback
    >>> net = NeuralNetClassifier(  # doctest: +SKIP
    ...     MyModule, criterion=torch.nn.CrossEntropyLoss, max_epochs=30,
    ...     callbacks=[("plc", PLCCallback(warm_up=10))])
    >>> net.fit(X, y_noisy)  # doctest: +SKIP
    >>> dict(net.callbacks_)["plc"].corrector_.labels  # doctest: +SKIP
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
        proba_source="training_pass",
    ):
        self.theta = theta
        self.beta = beta
        self.theta_end = theta_end
        self.schedule = schedule
        self.min_correction_rate = min_correction_rate
        self.warm_up = warm_up
        self.window = window
        self.proba_source = proba_source

    def initialize(self):
        if self.proba_source not in PROBA_SOURCES:
            raise ValueError(
                f"proba_source must be one of {PROBA_SOURCES}; got "
                f"{self.proba_source!r}."
            )
        if self.warm_up != "auto" and (
            not isinstance(self.warm_up, int) or self.warm_up < 0
        ):
            raise ValueError(
                f"warm_up must be a non-negative int or 'auto'; got {self.warm_up!r}."
            )
        self.corrector_ = None
        self._sampler = None
        return self

    # --- set-up and tear-down ---------------------------------------------------

    def on_train_begin(self, net, X=None, y=None, **kwargs):
        self.corrector_ = None
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
        # The net's own choice; skorch's DataLoader does not shuffle by default.
        shuffle = bool(params.get("iterator_train__shuffle", False))
        if not shuffle:
            warnings.warn(
                "PLC records each sample's output during the training pass, and this "
                "net visits the training data in the same order every epoch "
                "(skorch's default), so the recorded outputs depend on the batch "
                "order and the corrections are less precise (on mnist1d they "
                "lowered label purity). Set iterator_train__shuffle=True on the "
                "net.",
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
        if self._sampler is not None:  # only a training_pass run replaced them
            self._restore_iterator_params(vars(net), self._sampler.replaced_params)
        # Keep the results, not the run's working state: the training Dataset,
        # the sampler and the recorded outputs (window × n × k on the device).
        if self.corrector_ is not None:
            recorded = self.corrector_.recorded
            self.recorded_device_ = str(recorded[-1].device) if recorded else None
            self.corrector_.release_recorded()
        self._store = self._sampler = self._epoch_proba = None

    def _start(self, net, dataset_train):
        store, positions = _training_label_store(dataset_train)
        # Work on our own copy: skorch's Dataset holds a reference to the
        # caller's y, which must not change.
        y = store.y
        store.y = y.clone() if isinstance(y, torch.Tensor) else np.array(y, copy=True)
        self._store = store
        self.training_positions_ = positions
        self.corrector_ = LabelCorrector(
            _as_int_array(store.y)[positions],
            theta=self.theta,
            beta=self.beta,
            theta_end=self.theta_end,
            schedule=self.schedule,
            min_correction_rate=self.min_correction_rate,
            # with "auto", the callback ends the warm-up (see on_epoch_end)
            warm_up=None if self.warm_up == "auto" else self.warm_up,
            window=self.window,
            to_numpy=_tensor_to_numpy,
        )
        self._epoch_proba = None
        self.recorded_bytes_ = 0
        self.warm_up_ = None if self.warm_up == "auto" else self.warm_up
        self.agreement_ = []
        self._max_warm_up = max(1, int(net.max_epochs * AUTO_WARM_UP_MAX_FRACTION))

    # --- the per-epoch loop ------------------------------------------------------

    def _records_this_epoch(self):
        """Only the epochs whose outputs can reach a pass are recorded."""
        if self.warm_up == "auto":
            return True  # the warm-up's end is read from the recorded outputs
        return self.corrector_.n_rounds >= self.warm_up - self.window

    def on_epoch_begin(self, net, dataset_train=None, dataset_valid=None, **kwargs):
        if self.corrector_ is None:
            self._start(net, dataset_train)
        if self._sampler is not None:
            self._sampler.n_samples = len(dataset_train)
        self._cursor = 0
        self._recording = (
            self.proba_source == "training_pass" and self._records_this_epoch()
        )

    def on_batch_end(self, net, batch=None, training=None, **kwargs):
        if not (training and self._recording):
            return
        y_pred = kwargs["y_pred"].detach()
        batch_positions = self._sampler.order[self._cursor : self._cursor + len(y_pred)]
        self._cursor += len(y_pred)
        # skorch's own rule for turning module outputs into probabilities
        # (softmax for CrossEntropyLoss, identity for NLLLoss modules).
        proba = net._get_predict_nonlinearity()(y_pred)
        if self._epoch_proba is None:
            self._epoch_proba = torch.zeros(
                (self.corrector_.labels.shape[0], proba.shape[1]),
                dtype=proba.dtype,
                device=proba.device,
            )
        self._epoch_proba[batch_positions.to(proba.device)] = proba

    def on_epoch_end(self, net, dataset_train=None, dataset_valid=None, **kwargs):
        corrector = self.corrector_
        latest = None
        if self.proba_source == "eval_pass" and self._records_this_epoch():
            latest = torch.as_tensor(net.predict_proba(dataset_train))
        elif self._recording and self._epoch_proba is not None:
            latest = self._epoch_proba.clone()
        if latest is not None:
            corrector.add_proba(latest)
            labels = torch.as_tensor(corrector.labels, device=latest.device)
            self.agreement_.append(
                float((latest.argmax(dim=1) == labels).float().mean())
            )
        if corrector.warm_up is None and (
            plateau_epoch(self.agreement_)
            or corrector.n_rounds + 1 >= self._max_warm_up
        ):
            corrector.end_warm_up()
            self.warm_up_ = corrector.warm_up
        changed = corrector.run_round()
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

    def _write_labels(self):
        labels = self.corrector_.labels
        if isinstance(self._store.y, torch.Tensor):
            self._store.y[torch.as_tensor(self.training_positions_)] = torch.as_tensor(
                labels, dtype=self._store.y.dtype
            )
        else:
            self._store.y[self.training_positions_] = labels


def check_supported_input(X):
    """Reject inputs whose labels PLC cannot reach."""
    if is_dataset(X):
        raise TypeError(
            "PLCClassifier needs the labels separately from the inputs: X is a "
            "torch Dataset that holds its own targets. Pass "
            "X=skorch.helper.SliceDataset(dataset, idx=0) and y as an array."
        )
