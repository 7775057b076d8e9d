"""sklearn-plc: Progressive Label Correction for classifiers trained on noisy labels.

The main entry point is :class:`PLCClassifier`, a scikit-learn meta-estimator that
wraps any classifier with ``predict_proba``. The correction rule and its schedule
are plain functions in :mod:`sklearn_plc.correction`, the held-out evidence that
decides whether to correct, undo or leave samples out in :mod:`sklearn_plc.evidence`;
label-noise injectors live in
:mod:`sklearn_plc.noise`, recovery metrics in :mod:`sklearn_plc.metrics` and plots
in :mod:`sklearn_plc.plotting` (needs matplotlib).
"""

from . import metrics, noise
from ._version import __version__
from .classifier import PLCClassifier
from .correction import confidence_ratio, correct_labels, next_threshold

__all__ = [
    "PLCClassifier",
    "__version__",
    "confidence_ratio",
    "correct_labels",
    "metrics",
    "next_threshold",
    "noise",
]
