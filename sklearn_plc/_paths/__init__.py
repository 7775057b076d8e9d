"""The run paths of ``PLCClassifier.fit`` (see :mod:`sklearn_plc._paths.interface`).

:func:`choose_path` derives the path from the estimator and the confidence.
"""

from .._held_out import judges_out_of_bag
from .._validation import NET_CONFIDENCES, is_incremental_net, skorch_net_of
from .net import NetPath
from .partial_fit import PartialFitPath
from .refit import RefitPath

__all__ = ["NetPath", "PartialFitPath", "RefitPath", "choose_path"]


def choose_path(estimator, confidence, folds_given):
    """``(confidence, path class)``: what ``"auto"`` stands for, and its path.

    ``"auto"``: a skorch net's training passes (alone or last in a Pipeline),
    an ``MLPClassifier`` in one run
    (``"eval_pass"``), a bagging ensemble of enough members out of bag unless
    the caller chose folds (`folds_given`), else folds. The path: one training
    run of a skorch net (:class:`NetPath`) or of a ``partial_fit`` learner
    (:class:`PartialFitPath`) for the epoch confidences, else refits
    (:class:`RefitPath`).
    """
    if confidence == "auto":
        if skorch_net_of(estimator) is not None:
            confidence = "training_pass"
        elif is_incremental_net(estimator):
            confidence = "eval_pass"
        elif judges_out_of_bag(estimator) and not folds_given:
            confidence = "oob"
        else:
            confidence = "cv"
    if confidence not in NET_CONFIDENCES:
        return confidence, RefitPath
    is_net = skorch_net_of(estimator) is not None
    return confidence, NetPath if is_net else PartialFitPath
