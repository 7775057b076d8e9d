"""What ``PLCClassifier.fit`` gives a run path, and what a path gives back.

``fit`` resolves its parameters once into :class:`RunSettings`, picks a path
from the estimator and the confidence, and calls it. A path is a class built
from ``(settings, estimator)`` with two methods: ``check_input(X, encoded,
classes, sample_weight, fit_params)``, which validates what that path needs and
returns ``(X, fit_params)`` as it will use them, and ``run(X, encoded, classes,
fit_params, trusted)``, which corrects the labels and returns a
:class:`RunResult`. No path sees the estimator object or another path. The paths:

- :class:`~sklearn_plc._paths.refit.RefitPath`: a scikit-learn estimator refit
  every round (in sample, out of fold or out of bag), judged on held-out data,
  its end decided by :func:`~sklearn_plc._ending.end_of_run`;
- :class:`~sklearn_plc._paths.partial_fit.PartialFitPath`: one training run of
  a learner with ``partial_fit``, a pass after every epoch;
- :class:`~sklearn_plc._paths.net.NetPath`: one training run of a skorch net
  with :class:`~sklearn_plc.skorch.PLCCallback`.
"""

from dataclasses import dataclass, field

import numpy as np

from .._label_state import LabelCorrector
from .._validation import HELD_OUT_CONFIDENCES


@dataclass(frozen=True)
class RunSettings:
    """``PLCClassifier``'s parameters as the run paths read them.

    ``confidence`` is resolved (``"auto"`` replaced by what it stands for;
    ``given_confidence`` is the parameter as set, for error messages);
    ``min_correction_rate`` and ``warm_up`` may still be ``"auto"``, which each
    path resolves for itself. ``correction`` holds the settings of
    one correction pass and of the schedule
    (:func:`~sklearn_plc._params.pass_settings`). The rest are the parameters
    of the same names, but ``forced_act``: the act a half's run in the check
    on halves takes whatever its own verdicts say (``"relabel"``: it keeps
    its corrections, past the memorisation and weak-model tests;
    ``"contest"``: it contests them; ``"leave_out"``: it stops after the
    first round with the labels as given and leaves its sure disputes out,
    as a non-memorising run whose leave-out was chosen; None, as ``fit``
    sets it: its verdicts decide), and ``verified_judge``: the check on
    halves is judged by the ``trusted`` samples alone
    (``validation_fraction="trusted"``, which leaves ``validation_fraction``
    here at its default share).
    """

    correction: dict
    min_correction_rate: object
    warm_up: object
    max_iter: int
    confidence: str
    given_confidence: str
    cv: object
    min_memorisation: float
    validation_fraction: object
    doubtful: str
    random_state: object
    verbose: int
    forced_act: str | None = None
    verified_judge: bool = False

    @property
    def held_out(self):
        """Whether the probabilities are held out (out of fold or out of bag)."""
        return self.confidence in HELD_OUT_CONFIDENCES

    @property
    def judge_acts(self):
        """Whether the held-out judge may undo or contest (validation samples judge)."""
        return self.validation_fraction is not None


@dataclass
class RunResult:
    """The outcome of one run path.

    Attributes
    ----------
    corrector : LabelCorrector
        The run's labels, corrections and history.
    termination : str
        Why the run ended (see ``PLCClassifier.termination_condition_``).
    estimator : estimator object or None
        The model to keep as ``estimator_``; None: no model is kept.
    positions : ndarray of int or None
        Rows of X whose labels the corrector covers; None: all rows.
    selection : dict or None
        The held-out evidence for the returned labels (``selection_``).
    memorisation : dict or None
        The memorisation test's evidence (``memorisation_``).
    validation_indices : ndarray of int or None
        The samples that judged (``validation_indices_``).
    set_aside : ndarray of bool or None
        Samples (of the corrector's rows) left out of the final fit
        (``set_aside_``); None: none.
    relabel_weight : ndarray of float or None
        Per sample (of the corrector's rows), the weight of its label in the
        final fit, the given label having the rest (``relabel_weight_``);
        None: every label at weight 1.
    label_evidence : dict or None
        ``LabelCorrector.label_evidence()`` at the end of the run (of the
        corrector's rows); None: none recorded.
    attributes : dict
        Further fitted attributes of this path, by name (e.g. ``warm_up_``).
    """

    corrector: LabelCorrector
    termination: str
    estimator: object = None
    positions: np.ndarray | None = None
    selection: dict | None = None
    memorisation: dict | None = None
    validation_indices: np.ndarray | None = None
    set_aside: np.ndarray | None = None
    relabel_weight: np.ndarray | None = None
    label_evidence: dict | None = None
    attributes: dict = field(default_factory=dict)

    def fitted_attributes(self, classes, encoded, row_index=None):
        """The estimator's fitted attributes that describe this run, by name.

        Labels are mapped back to the caller's label space (`classes`); rows of
        X the corrector did not cover (a net's validation split) keep `encoded`.
        A correction's ``"sample"`` is its row's label in `row_index` (X's
        index) where given, else its position, which ``"position"`` always is.
        """
        corrector = self.corrector
        n_samples = encoded.shape[0]
        positions = self.positions
        positions = np.arange(n_samples) if positions is None else positions
        labels = encoded.copy()
        labels[positions] = corrector.labels
        corrected_iter = np.full(n_samples, -1, dtype=np.intp)
        corrected_iter[positions] = corrector.corrected_iter
        changes = corrector.corrections
        set_aside = np.zeros(n_samples, dtype=bool)
        if self.set_aside is not None:
            set_aside[positions] = self.set_aside
        relabel_weight = np.ones(n_samples)
        if self.relabel_weight is not None:
            relabel_weight[positions] = self.relabel_weight
        return {
            "label_evidence_": self._label_evidence(classes, encoded, positions),
            "classes_": classes,
            "labels_": classes[labels],
            "corrected_iter_": corrected_iter,
            "corrections_": {
                "round": changes["round"],
                "sample": (positions if row_index is None else row_index[positions])[
                    changes["sample"]
                ],
                "position": positions[changes["sample"]],
                "from": classes[changes["from"]],
                "to": classes[changes["to"]],
            },
            "history_": corrector.history,
            "selection_": self.selection,
            "n_iter_": corrector.n_rounds,
            "theta_": corrector.threshold,
            "termination_condition_": self.termination,
            "memorisation_": self.memorisation,
            "validation_indices_": self.validation_indices,
            "set_aside_": set_aside,
            "relabel_weight_": relabel_weight,
            "halves_check_": None,
            **self.attributes,
        }

    def _label_evidence(self, classes, encoded, positions):
        """``label_evidence_`` over every row of X, in the caller's label space.

        Rows without evidence (a net's validation split) suggest their given
        label, with NaN ratios and no disputed round.
        """
        n_samples = encoded.shape[0]
        suggested = encoded.copy()
        given_ratio = np.full(n_samples, np.nan, dtype=np.float32)
        top_proba = np.full(n_samples, np.nan, dtype=np.float32)
        label_proba = np.full(n_samples, np.nan, dtype=np.float32)
        first_disputed = np.full(n_samples, -1, dtype=np.intp)
        evidence = self.label_evidence
        if evidence is not None:
            covered = evidence["suggested"] >= 0
            suggested[positions[covered]] = evidence["suggested"][covered]
            given_ratio[positions] = evidence["given_ratio"]
            top_proba[positions] = evidence["top_proba"]
            label_proba[positions] = evidence["label_proba"]
            first_disputed[positions] = evidence["first_disputed"]
        return {
            "suggested": classes[suggested],
            "given_ratio": given_ratio,
            "top_proba": top_proba,
            "label_proba": label_proba,
            "first_disputed": first_disputed,
        }
