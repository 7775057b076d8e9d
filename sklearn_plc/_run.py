"""What a run path returns to ``PLCClassifier.fit``.

A run path is an object built from the estimator's parameters with two
methods: ``check_input(X, encoded, classes, sample_weight, fit_params)``, which
validates what that path needs and returns ``(X, fit_params)`` as it will use
them, and ``run(X, encoded, n_classes, fit_params, trusted)``, which corrects
the labels and returns a :class:`RunResult`. ``fit`` picks the path from the
confidence and turns the result into fitted attributes. The paths:

- :class:`~sklearn_plc._refit_run.RefitRun`: a scikit-learn estimator refit
  every round (in sample, out of fold or out of bag), judged on held-out data;
- :class:`~sklearn_plc._net_run.NetRun`: one training run of a skorch net, with
  a correction pass after every epoch.
"""

from dataclasses import dataclass, field

import numpy as np

from ._corrector import LabelCorrector


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
    attributes: dict = field(default_factory=dict)
