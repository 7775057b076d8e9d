"""PLC inside one training run of a skorch net: a correction pass after every epoch.

The net is cloned with a :class:`~sklearn_plc.skorch.PLCCallback` added, trained
once for its ``max_epochs`` on a copy of the labels, and the callback's
:class:`~sklearn_plc._label_state.LabelCorrector` holds the result. In a
Pipeline the steps before the net are fitted once, on the labels as given, and
the net trains on what they make of X. torch and skorch are imported only when
a net is fitted.
"""

import numpy as np
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_consistent_length

from .._validation import skorch_net_of
from .interface import RunResult
from .partial_fit import split_fit_params


class NetPath:
    """The one-run path of ``PLCClassifier`` for skorch nets.

    See :mod:`sklearn_plc._paths.interface` for the interface of the paths.

    Parameters
    ----------
    settings : RunSettings
        The resolved parameters; ``confidence`` (``"training_pass"`` or
        ``"eval_pass"``) is the callback's ``proba_source``.
    estimator : skorch.NeuralNetClassifier or NeuralNetBinaryClassifier, or Pipeline
        The net, or a Pipeline that ends in one; cloned, never fitted itself.
    """

    def __init__(self, settings, estimator):
        self.settings = settings
        self.estimator = estimator

    def check_input(self, X, encoded, classes, sample_weight, fit_params):
        """Validate the net, X and the fit parameters; return ``(X, fit_params)``."""
        check_supported_net(skorch_net_of(self.estimator), len(classes))
        if not isinstance(self.estimator, Pipeline):  # else the steps take X
            check_supported_input(X)
        if sample_weight is not None:
            raise ValueError(
                "sample_weight is not supported for skorch nets, whose fit passes "
                "extra arguments to the module's forward; weight the loss in the "
                "module or criterion instead."
            )
        arrays = list(X.values()) if isinstance(X, dict) else [X]
        try:
            check_consistent_length(*arrays, encoded)
        except (TypeError, ValueError) as error:
            raise ValueError(
                f"X and y must have one label per sample. {error}"
            ) from error
        return X, fit_params

    def run(self, X, encoded, classes, fit_params, trusted):
        """Train the net once with PLC's callback; return a :class:`RunResult`."""
        import torch

        from ..skorch import PLCCallback

        settings = self.settings
        callback = PLCCallback(
            **settings.correction,
            min_correction_rate=settings.min_correction_rate,
            warm_up=settings.warm_up,
            proba_source=settings.confidence,
            trusted=trusted,
            verbose=settings.verbose,
        )
        model = clone(self.estimator)
        in_pipeline = isinstance(model, Pipeline)
        transformer_params, net_params = split_fit_params(model, fit_params)
        if in_pipeline:  # the steps before the net, fitted once
            X = model[:-1].fit_transform(X, classes[encoded], **transformer_params)
        net, name = with_callback(skorch_net_of(model), callback)
        labels = encoded.astype(label_dtype(net))  # PLC edits a copy
        with float64_hint(X, steps=in_pipeline):
            if settings.random_state is None:
                net.fit(X, labels, **net_params)
            else:
                seed = check_random_state(settings.random_state).randint(2**31 - 1)
                with torch.random.fork_rng():  # seeds torch, leaves its state
                    torch.manual_seed(seed)
                    net.fit(X, labels, **net_params)
        if in_pipeline:
            model.steps[-1] = (model.steps[-1][0], net)
        else:
            model = net

        callback = dict(net.callbacks_)[name]
        corrector = callback.corrector_
        if corrector.converged:
            termination = "converged"
        elif callback.interrupted_:
            termination = "interrupted"
        else:
            termination = "max_epochs"
        return RunResult(
            corrector=corrector,
            termination=termination,
            estimator=model,
            positions=callback.training_positions_,
            label_evidence=callback.label_evidence_,
            attributes={
                "recorded_bytes_": callback.recorded_bytes_,
                "warm_up_": callback.warm_up_,
            },
        )


def check_supported_net(net, n_classes):
    """Reject nets whose training labels PLC cannot correct."""
    from skorch import NeuralNetBinaryClassifier, NeuralNetClassifier

    from ..skorch import PLCCallback

    if isinstance(net, NeuralNetBinaryClassifier):
        if n_classes != 2:
            raise ValueError(
                f"NeuralNetBinaryClassifier learns two classes, but y has "
                f"{n_classes}. Use skorch.NeuralNetClassifier with one output per "
                f"class."
            )
    elif not isinstance(net, NeuralNetClassifier):
        raise TypeError(
            f"PLC corrects class labels, so it supports skorch's "
            f"NeuralNetClassifier and NeuralNetBinaryClassifier (and their "
            f"subclasses); got {type(net).__name__}."
        )
    for _, callback in _named_callbacks(net):
        if isinstance(callback, PLCCallback):
            raise ValueError(
                "The net already has a PLCCallback, and PLCClassifier adds its own: "
                "two would correct the same labels with outputs of different "
                "shapes. Remove the PLCCallback from the net's callbacks, or fit "
                "the net with its callback directly, without PLCClassifier."
            )


def _named_callbacks(net):
    """``(name, callback)`` of the net's own callbacks, named as skorch names them."""
    callbacks = net.callbacks if isinstance(net.callbacks, list) else []
    for entry in callbacks:
        if isinstance(entry, tuple):
            yield entry
        elif isinstance(entry, type):
            yield entry.__name__, entry
        else:
            yield type(entry).__name__, entry


def with_callback(net, callback):
    """A copy of `net` that also runs PLC's `callback`, and the callback's name.

    The name is ``"plc"`` unless the net already has a callback by that name.
    With ``callbacks="disable"`` the copy runs PLC's callback alone, as the net
    ran none of its own. The copy is built from the net's parameters, so it is
    unfitted, as a clone is.
    """
    existing = net.callbacks if isinstance(net.callbacks, list) else []
    taken = {name for name, _ in _named_callbacks(net)}
    name, suffix = "plc", 1
    while name in taken:
        name, suffix = f"plc_{suffix}", suffix + 1
    params = net.get_params(deep=False)
    params["callbacks"] = [*existing, (name, callback)]
    if net.callbacks == "disable":
        defaults = [default for default, _ in net.get_default_callbacks()]
        params.update({f"callbacks__{default}": None for default in defaults})
    return type(net)(**params), name


def label_dtype(net):
    """The dtype of the labels `net` trains on: float for a binary net."""
    from skorch import NeuralNetBinaryClassifier

    return np.float32 if isinstance(net, NeuralNetBinaryClassifier) else np.int64


class float64_hint:
    """Add the fix to torch's dtype error when X is float64 (a NumPy default).

    `steps`: X is what a Pipeline's steps before the net made of the input.
    """

    def __init__(self, X, steps=False):
        self.float64 = getattr(X, "dtype", None) == np.float64
        self.steps = steps

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if self.float64 and isinstance(error, RuntimeError) and "Double" in str(error):
            fix = (
                "end the Pipeline's steps before the net with one that casts to "
                "float32, e.g. FunctionTransformer(np.float32)"
                if self.steps
                else "pass X.astype('float32')"
            )
            raise RuntimeError(
                f"{error}. X reaches the net as float64, and the net's parameters "
                f"are float32: {fix}."
            ) from error
        return False


def check_supported_input(X):
    """Reject inputs whose labels PLC cannot reach."""
    from skorch.utils import is_dataset

    if is_dataset(X):
        raise TypeError(
            "PLCClassifier needs the labels separately from the inputs: X is a "
            "torch Dataset that holds its own targets. Pass "
            "X=skorch.helper.SliceDataset(dataset, idx=0) and y as an array."
        )
