"""The state of one progressive-correction run, independent of any model.

`LabelCorrector` is fed one probability matrix per round (a refit of a
scikit-learn estimator, or an epoch of a network) and does everything else:
the window average, warm-up, the correction pass, the threshold schedule, the
per-sample and per-round records, and the stopping rule. Every entry point of
the library drives the same object, so the algorithm exists once.
"""

from collections import deque

import numpy as np

from ._thresholds import DRAINED_STANDARD_ERRORS
from .correction import (
    align_class_distribution,
    cap_moves_out_of_classes,
    confidence_ratio,
    correct_labels,
    is_quiet_pass,
    next_threshold,
)
from .evidence import drained_class_caps


class LabelCorrector:
    """Progressive label correction on a stream of predicted probabilities.

    Parameters
    ----------
    labels : ndarray of int of shape (n_samples,)
        The given (noisy) labels as class indices. Copied, never modified.
    theta, beta, theta_end, schedule, min_correction_rate, window
        As in :class:`~sklearn_plc.PLCClassifier`.
    min_confidence : float in [0, 1], default=0.0
        As in :class:`~sklearn_plc.PLCClassifier`; 0 is the paper's rule.
    runner_up_ratio : float in (0, 1], default=1.0
        As in :class:`~sklearn_plc.PLCClassifier`; 1 is the paper's rule.
    distribution_alignment : bool, default=False
        As in :class:`~sklearn_plc.PLCClassifier`: each pass reads the
        averaged probabilities aligned (:func:`~sklearn_plc.correction.\
align_class_distribution`) to the class frequencies of the labels as given,
        and no pass moves more of a drained class's given labels away than
        confident learning counts wrong in it (:meth:`_cap_drained_classes`).
        With ``rows``, the mean prediction is that of those rows. False is the
        paper's rule.
    warm_up : int >= 0 or None
        Rounds before the first correction pass; None to warm up until
        :meth:`end_warm_up` is called (a warm-up chosen from the data).
    trusted : ndarray of bool of shape (n_samples,) or None, default=None
        Samples whose label no pass may change (trusted labels); None: none.
    rows : slice, default=slice(None)
        The rows of ``labels`` that the recorded probabilities cover: all of
        them, or this process's share when a net trains on several processes.
    gather_labels : callable or None, default=None
        With ``rows``, turns the pass's new labels for those rows into the new
        labels of all samples (every process's share, in order), so that all
        processes continue from the same labels. None: the rows are all.
    to_numpy : callable, default=numpy.asarray
        Turns the averaged probabilities into a NumPy array for the pass. The
        recorded probabilities may be any array type supporting in-place
        ``+=``, ``/=`` and ``[...] =`` (e.g. torch tensors on a GPU): they are
        averaged where they live and only the average is converted, once per
        pass.

    Notes
    -----
    Memory: NumPy probabilities are stored as float32 (scikit-learn models
    return float64; the pass compares ratios, for which float32's 7 digits are
    ample), and the average is computed in place in one reused buffer. PLC's
    own peak is then about ``(window + 1) × n_samples × n_classes × 4`` bytes,
    plus what the caller holds (``python -m benchmarks speed`` measures it).

    Attributes
    ----------
    labels : ndarray of int of shape (n_samples,)
        The current labels.
    threshold : float
        The threshold the next pass will use.
    corrected_iter : ndarray of int of shape (n_samples,)
        Round of each sample's last change, -1 where the label is the one
        given (never changed, or changed back).
    history : list of dict
        One record per round (see ``PLCClassifier.history_``).
    corrections : dict of ndarray
        Every label change, in order: ``"round"``, ``"sample"`` (index into
        ``labels``), ``"from"`` and ``"to"`` (class indices); an undo's
        changes come last (see `restore_given_labels`).
    converged : bool
        Whether a pass at ``theta_end`` changed at most ``min_correction_rate``
        of the labels.

    Notes
    -----
    A pass never empties a class: when it would relabel every remaining sample
    of a class, those samples keep their label.
    """

    def __init__(
        self,
        labels,
        *,
        theta,
        beta,
        theta_end,
        schedule,
        min_correction_rate,
        warm_up,
        window,
        min_confidence=0.0,
        runner_up_ratio=1.0,
        distribution_alignment=False,
        sample_weight=None,
        trusted=None,
        rows=slice(None),
        gather_labels=None,
        to_numpy=np.asarray,
    ):
        self.rows = rows
        self.gather_labels = gather_labels
        self.min_confidence = min_confidence
        self.runner_up_ratio = runner_up_ratio
        self.distribution_alignment = distribution_alignment
        self._given_prior = None  # set by the first aligned pass
        self._class_caps = None  # set by the first aligned pass
        self.sample_weight = (
            None if sample_weight is None else np.asarray(sample_weight)
        )
        self.to_numpy = to_numpy
        self.trusted = None if trusted is None else np.asarray(trusted, dtype=bool)
        self.initial_labels = np.array(labels, copy=True)
        self.labels = self.initial_labels.copy()
        self.threshold = float(theta)
        self.beta = beta
        self.theta_end = theta_end
        self.schedule = schedule
        self.min_correction_rate = min_correction_rate
        self.warm_up = warm_up
        self.corrected_iter = np.full(self.labels.shape[0], -1, dtype=np.intp)
        self.first_disputed = np.full(self.labels.shape[0], -1, dtype=np.intp)
        self.history = []
        self._changes = []
        self.converged = False
        self._window = deque(maxlen=window)
        self._mean = None  # reused buffer for the window average

    def _keep_every_class(self, new_labels, changed):
        """Undo, in place, the corrections that would empty a class.

        When a pass would relabel every remaining sample of a class, those
        samples keep their label: a class the model never favours is kept
        rather than silently dropped, and every fit still sees every class.
        """
        n_classes = max(int(self.labels.max()), int(new_labels.max())) + 1
        before = np.bincount(self.labels, minlength=n_classes)
        after = np.bincount(new_labels, minlength=n_classes)
        emptied = (before > 0) & (after == 0)
        if emptied.any():
            undo = changed & emptied[self.labels]
            new_labels[undo] = self.labels[undo]
            changed[undo] = False

    def _cap_drained_classes(self, proba, block_labels, new_labels):
        """This block's `new_labels`, moved out of a drained class up to its cap.

        The caps are read once, on the first pass's probabilities
        (:func:`~sklearn_plc.evidence.drained_class_caps`); a process of a
        distributed net caps its own block.
        """
        given = self.initial_labels[self.rows]
        if self._class_caps is None:
            self._class_caps = drained_class_caps(proba, given, DRAINED_STANDARD_ERRORS)
        return cap_moves_out_of_classes(
            proba, given, block_labels, new_labels, self._class_caps
        )

    def end_warm_up(self):
        """End the warm-up now: the next round runs a correction pass."""
        self.warm_up = self.n_rounds

    @property
    def warming_up(self):
        """Whether the next round is still part of the warm-up."""
        return self.warm_up is None or self.n_rounds < self.warm_up

    @property
    def n_rounds(self):
        """How many rounds have been run (an undo record is not a round)."""
        return sum(not record["undo"] for record in self.history)

    @property
    def corrections(self):
        """Every label change so far, as parallel arrays (see class docstring)."""
        if not self._changes:
            empty = np.zeros(0, dtype=np.intp)
            return {"round": empty, "sample": empty, "from": empty, "to": empty}
        rounds, samples, old, new = zip(*self._changes, strict=True)
        return {
            "round": np.concatenate(
                [
                    np.full(len(s), r, dtype=np.intp)
                    for r, s in zip(rounds, samples, strict=True)
                ]
            ),
            "sample": np.concatenate(samples),
            "from": np.concatenate(old),
            "to": np.concatenate(new),
        }

    @property
    def n_changes(self):
        """How many times each sample's label was changed so far."""
        samples = [changed for _, changed, _, _ in self._changes]
        return np.bincount(
            np.concatenate(samples) if samples else np.zeros(0, dtype=np.intp),
            minlength=self.labels.shape[0],
        )

    @property
    def recorded(self):
        """The probabilities in the current window, oldest first."""
        return tuple(self._window)

    def release_recorded(self):
        """Drop the recorded probabilities (e.g. to free GPU memory after a run)."""
        self._window.clear()
        self._mean = None

    def add_proba(self, proba):
        """Record the probabilities of a new model (one fit or one epoch).

        Parameters
        ----------
        proba : array of shape (n_samples, n_classes)
            The new model's probabilities.
        """
        if len(self._window) == self._window.maxlen:
            self._window.popleft()  # free the oldest before the new one is kept
        if isinstance(proba, np.ndarray):
            proba = proba.astype(np.float32, copy=False)
        self._window.append(proba)

    def restore_given_labels(self):
        """Undo every correction: set each changed label back to the given one.

        The undo is logged like a pass: its changes join `corrections` (so the
        log still replays to `labels`), and `history` gets a last record with
        ``"undo": True`` (``n_corrected`` labels set back, ``n_changed`` 0). It
        is not a round (`n_rounds` does not count it). No label is then
        corrected, so `corrected_iter` is -1 everywhere.
        """
        changed = np.flatnonzero(self.labels != self.initial_labels)
        undo_round = self.n_rounds
        if changed.size:
            self._changes.append(
                (
                    undo_round,
                    changed,
                    self.labels[changed],
                    self.initial_labels[changed],
                )
            )
        self.labels = self.initial_labels.copy()
        self.corrected_iter = np.full(self.labels.shape[0], -1, dtype=np.intp)
        self.history.append(
            {
                "round": undo_round,
                "threshold": self.threshold,
                "n_corrected": int(changed.size),
                "n_changed": 0,
                "n_disputed": None,
                "refit": False,
                "holdout_agreement": None,
                "warm_up": False,
                "undo": True,
            }
        )

    def averaged_proba(self):
        """Mean of the probabilities recorded in the last ``window`` rounds."""
        if not self._window:
            raise RuntimeError(
                "No predictions were recorded before the first correction pass "
                "(add_proba was never called); check that the training data is not "
                "empty."
            )
        first, *rest = self._window
        if not rest:
            return first
        if self._mean is None or self._mean.shape != first.shape:
            self._mean = first * 0  # allocated once, where the outputs live
        self._mean[...] = first
        for proba in rest:
            self._mean += proba
        self._mean /= len(self._window)
        return self._mean

    def _given_class_prior(self, n_classes):
        """Class frequencies of the labels as given (sample-weighted), computed once."""
        if self._given_prior is None:
            counts = np.bincount(
                self.initial_labels, weights=self.sample_weight, minlength=n_classes
            )
            self._given_prior = counts / counts.sum()
        return self._given_prior

    def pass_proba(self):
        """The probabilities a pass reads: the window average, aligned if asked."""
        proba = self.to_numpy(self.averaged_proba())
        if self.distribution_alignment:  # towards the labels as given, all rows
            weights = self.sample_weight
            proba = align_class_distribution(
                proba,
                self._given_class_prior(proba.shape[1]),
                sample_weight=None if weights is None else weights[self.rows],
            )
        return proba

    def label_evidence(self, proba=None):
        """Per sample, what the probabilities a pass reads say about the given label.

        Parameters
        ----------
        proba : ndarray of shape (n_rows, n_classes) or None, default=None
            What a pass reads (:meth:`pass_proba`), if already at hand.

        Returns
        -------
        evidence : dict of ndarray of shape (n_samples,)
            ``"suggested"``: the top class; ``"given_ratio"``: the given label's
            probability over the top one (below 1: disputed); ``"top_proba"``:
            the top class's probability; ``"label_proba"``: the current label's
            probability; ``"first_disputed"``: the first round
            whose pass disputed or changed the label (-1: none). Rows the
            recorded probabilities do not cover (another process's, under
            ``rows``) hold -1 and NaN. All NaN before any probabilities.
        """
        n_samples = self.labels.shape[0]
        evidence = {
            "suggested": np.full(n_samples, -1, dtype=np.intp),
            "given_ratio": np.full(n_samples, np.nan, dtype=np.float32),
            "top_proba": np.full(n_samples, np.nan, dtype=np.float32),
            "label_proba": np.full(n_samples, np.nan, dtype=np.float32),
            "first_disputed": self.first_disputed.copy(),
        }
        if proba is None:
            if not self._window:
                return evidence
            proba = self.pass_proba()
        evidence["suggested"][self.rows] = proba.argmax(axis=1)
        evidence["given_ratio"][self.rows] = confidence_ratio(
            proba, self.initial_labels[self.rows]
        )
        evidence["top_proba"][self.rows] = proba.max(axis=1)
        labels = self.labels[self.rows]
        evidence["label_proba"][self.rows] = proba[np.arange(labels.shape[0]), labels]
        return evidence

    def disputed(self, proba=None):
        """Samples whose current label the model still disputes, unrelabelled.

        A label is disputed when the probabilities a pass reads put another
        class on top (the pass found that class not sure enough to relabel:
        below the threshold's confidence, stopped by ``runner_up_ratio`` or
        ``min_confidence``, or keeping a class alive), or when the label was
        changed more than once (it went back and forth between rounds).
        Verified (``trusted``) labels are never disputed.

        Parameters
        ----------
        proba : ndarray of shape (n_rows, n_classes) or None, default=None
            The probabilities a pass reads, if already at hand.

        Returns
        -------
        disputed : ndarray of bool of shape (n_samples,)
            Over all samples (the rows this process covers when ``rows`` is
            set); all False before any probabilities are recorded.
        """
        labels = self.labels[self.rows]
        if proba is None:
            if not self._window:
                return np.zeros(labels.shape[0], dtype=bool)
            proba = self.pass_proba()
        disputed = confidence_ratio(proba, labels) < 1.0
        disputed |= self.n_changes[self.rows] > 1
        if self.trusted is not None:
            disputed &= ~self.trusted[self.rows]
        return disputed

    def run_round(
        self, *, refit=True, correct=True, holdout_agreement=None, may_raise=True
    ):
        """Run one round: a correction pass (after warm-up) and a schedule update.

        Parameters
        ----------
        refit : bool, default=True
            Recorded in the history: whether this round's probabilities come
            from a new fit (False when the labels did not change since the last
            fit, so its probabilities were examined again at a new threshold).
        correct : bool, default=True
            False records a round without a pass, as in the warm-up (e.g. a
            run that ends after measuring, leaving the labels as given).
        holdout_agreement : float or None, default=None
            Recorded in the history: the held-out agreement with the given
            labels of this round's models (see :mod:`sklearn_plc._judge`).
        may_raise : bool, default=True
            False holds the threshold where it is after this pass, quiet or
            not (a run whose model is still learning from its labels).

        Returns
        -------
        changed : ndarray of bool of shape (n_samples,)
            Which labels this round changed.
        """
        round_index = self.n_rounds
        threshold = self.threshold
        n_samples = self.labels.shape[0]
        warming_up = self.warming_up
        if warming_up or not correct:
            changed = np.zeros(n_samples, dtype=bool)
            n_corrected = 0
            n_disputed = None
        else:
            proba = self.pass_proba()
            block_labels = self.labels[self.rows]
            new_labels, _ = correct_labels(
                proba,
                block_labels,
                threshold,
                min_confidence=self.min_confidence,
                runner_up_ratio=self.runner_up_ratio,
            )
            if self.trusted is not None:
                block_trusted = self.trusted[self.rows]
                new_labels[block_trusted] = block_labels[block_trusted]
            if self.distribution_alignment:
                new_labels = self._cap_drained_classes(proba, block_labels, new_labels)
            if self.gather_labels is not None:
                new_labels = self.gather_labels(new_labels)
            # a correction always changes the label (the threshold is <= 1)
            changed = new_labels != self.labels
            self._keep_every_class(new_labels, changed)
            samples = np.flatnonzero(changed)
            self._changes.append(
                (round_index, samples, self.labels[samples], new_labels[samples])
            )
            self.labels = new_labels
            self.corrected_iter[changed] = round_index
            # a label changed back to the one given is no longer a correction
            self.corrected_iter[changed & (new_labels == self.initial_labels)] = -1
            n_corrected = samples.shape[0]
            disputed = self.disputed(proba)
            n_disputed = int(np.count_nonzero(disputed))
            first = self.first_disputed[self.rows]  # a copy where rows is an array
            first[(first < 0) & (disputed | changed[self.rows])] = round_index
            self.first_disputed[self.rows] = first
            self.converged = threshold >= self.theta_end and is_quiet_pass(
                n_corrected, n_samples, self.min_correction_rate
            )
            if may_raise:
                self.threshold = next_threshold(
                    threshold,
                    n_corrected,
                    n_samples,
                    step=self.beta,
                    end=self.theta_end,
                    schedule=self.schedule,
                    min_correction_rate=self.min_correction_rate,
                )
        self.history.append(
            {
                "round": round_index,
                "threshold": threshold,
                "n_corrected": n_corrected,
                "n_changed": int(np.count_nonzero(self.labels != self.initial_labels)),
                "n_disputed": n_disputed,
                "refit": bool(refit),
                "holdout_agreement": holdout_agreement,
                "warm_up": warming_up,
                "undo": False,
            }
        )
        return changed
