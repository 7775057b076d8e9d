"""Checks of PLC's input and parameters, each naming the problem and the fix.

Everything that ``PLCClassifier.fit`` rejects before training is decided here,
so that both run paths (refits, and one training run of a net) report bad
input in the same words.
"""

import sys
import warnings
from collections.abc import Iterator
from numbers import Integral

import numpy as np
from sklearn import get_config
from sklearn.base import is_regressor
from sklearn.ensemble import StackingClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.utils.metadata_routing import get_routing_for_object
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _num_features,
    _num_samples,
    check_consistent_length,
    column_or_1d,
    has_fit_parameter,
    indexable,
    validate_data,
)

from ._held_out import supports_out_of_bag
from ._thresholds import FEW_TRUSTED
from .noise._validation import check_one_label_type

NET_CONFIDENCES = ("training_pass", "eval_pass")
# each sample predicted by models that did not see it
HELD_OUT_CONFIDENCES = ("cv", "oob")


def is_skorch_net(estimator):
    """Whether `estimator` is a skorch net; never imports torch or skorch."""
    skorch = sys.modules.get("skorch")  # a net can only exist once skorch is loaded
    return skorch is not None and isinstance(estimator, skorch.NeuralNet)


def last_step(estimator):
    """The model `estimator` trains last: a Pipeline's last step, or `estimator`.

    The learner that ``partial_fit`` epochs or a net's one run train.
    """
    if isinstance(estimator, Pipeline):
        return estimator.steps[-1][1]
    return estimator


def skorch_net_of(estimator):
    """The skorch net that `estimator` trains: itself, or a Pipeline's last step.

    None where it trains none.
    """
    last = last_step(estimator)
    return last if is_skorch_net(last) else None


def eval_pass_problem(learner):
    """Why ``partial_fit`` epochs cannot train `learner`, or None when they can.

    `learner` is the model ``partial_fit`` would train (see
    :func:`last_step`); the answer names the problem and the fix.
    """
    name = type(learner).__name__
    if not hasattr(learner, "partial_fit"):
        return (
            f"confidence='eval_pass' trains one model and corrects after "
            f"every epoch, so it needs a skorch net or an estimator with "
            f"partial_fit (e.g. MLPClassifier, SGDClassifier), alone or as "
            f"a Pipeline's last step; {name} has none. Use confidence='cv'."
        )
    params = learner.get_params(deep=False)
    if "max_iter" not in params:
        return (
            f"confidence='eval_pass' trains over epochs, each epoch a "
            f"partial_fit call on every sample; {name} has no max_iter, so its "
            f"partial_fit accumulates what it has seen (naive Bayes counts, for "
            f"example) and would count every epoch, and every label before a "
            f"correction, again. Use an iteratively trained learner "
            f"(MLPClassifier, SGDClassifier) or confidence='cv'."
        )
    if params.get("early_stopping") is True:
        return (
            f"confidence='eval_pass' trains {name} by partial_fit, which cannot "
            f"stop early on a validation split of its own (early_stopping=True); "
            f"the run stops on the training loss over the current labels instead "
            f"(tol, n_iter_no_change). Set early_stopping=False, or use "
            f"confidence='cv'."
        )
    return None


def is_incremental_net(estimator):
    """Whether `estimator` is scikit-learn's net, trainable epoch by epoch.

    An ``MLPClassifier`` (alone or as a Pipeline's last step) that
    ``partial_fit`` epochs can train (:func:`eval_pass_problem`: not with
    ``solver="lbfgs"`` nor ``early_stopping=True``): a net learns the common
    pattern before it memorises its wrong labels, which is what one run with a
    correction pass after every epoch relies on. A linear learner never
    memorises them: in one run its own predictions replace right labels along
    with wrong ones, and only the check on halves, no memorisation test, sees
    it on that path.
    """
    from sklearn.neural_network import MLPClassifier

    learner = last_step(estimator)
    return isinstance(learner, MLPClassifier) and eval_pass_problem(learner) is None


def _is_missing(value):
    """None, NaN, NaT, or pandas' NA (whose comparisons are themselves NA)."""
    if value is None or type(value).__name__ == "NAType":
        return True
    return bool(value != value)


def _missing_label_mask(y):
    if y.dtype.kind == "f":
        return np.isnan(y)
    if y.dtype.kind == "O":
        return np.frompyfunc(_is_missing, 1, 1)(y).astype(bool)
    return np.zeros(y.shape[0], dtype=bool)


def encode_labels(y):
    """Validate the targets; return ``(classes, encoded labels)``."""
    if y is None:
        raise ValueError(
            "PLCClassifier requires y to be passed, but the target y is None."
        )
    if isinstance(y, list | tuple):  # mixed types, before they become strings
        check_one_label_type(y)
    y = column_or_1d(y, warn=True)
    missing = _missing_label_mask(y)
    if missing.any():
        where = np.flatnonzero(missing)
        raise ValueError(
            f"y has {where.size} missing labels (NaN or None), e.g. at positions "
            f"{where[:5].tolist()}. PLC needs a label for every training sample: "
            f"drop those rows of X and y before fitting."
        )
    if y.dtype.kind == "f" and np.isinf(y).any():
        where = np.flatnonzero(np.isinf(y))
        raise ValueError(
            f"y has {where.size} infinite labels, e.g. at positions "
            f"{where[:5].tolist()}; labels must be class names or integers."
        )
    check_one_label_type(y)
    check_classification_targets(y)
    classes, encoded = np.unique(y, return_inverse=True)
    if classes.shape[0] < 2:
        raise ValueError(
            f"y contains {classes.shape[0]} class(es) {classes.tolist()!r}, and PLC "
            "needs at least two classes to move labels between; a classifier "
            "cannot be trained on one class. Pass data with two or more classes."
        )
    return classes, encoded.astype(np.intp, copy=False)


def row_index(X):
    """X's row labels where X is a pandas DataFrame or Series (its index), else None.

    A fit reports its samples by these labels, so that ``X.loc[...]`` finds them
    whatever the index; other inputs have positions only.
    """
    if hasattr(X, "index") and hasattr(X, "iloc"):
        return np.asarray(X.index)
    return None


def is_dataframe(X):
    """Whether X is a dataframe (pandas, polars, ...), which estimators take as is."""
    return hasattr(X, "__dataframe__") or (
        hasattr(X, "columns") and hasattr(X, "shape") and len(X.shape) == 2
    )


def check_not_empty(**data):
    """Name empty training data before anything else reads it."""
    for name, values in data.items():
        try:
            n_samples = _num_samples(values)
        except TypeError:
            continue  # not array-like: validated where it is used
        if n_samples == 0:
            raise ValueError(
                f"{name} is empty (0 samples); PLC needs training samples from at "
                f"least two classes. Check the data passed to fit."
            )


def check_trusted(trusted, n_samples, judges=False):
    """`trusted` as a boolean mask of shape (n_samples,), or None.

    `judges`: the trusted samples judge the check on halves
    (``validation_fraction="trusted"``), so there must be some, and some
    labels left to correct; fewer than :data:`FEW_TRUSTED` give a warning.
    """
    if trusted is None:
        if judges:
            raise ValueError(
                'validation_fraction="trusted" judges the corrections on the '
                "trusted samples, but fit was given none; pass "
                "fit(X, y, trusted=mask), or use a float validation_fraction."
            )
        return None
    mask = column_or_1d(trusted)
    if mask.shape[0] != n_samples:
        indices = (
            " It holds integers: for the positions of the verified samples, pass "
            "np.isin(np.arange(n_samples), positions)."
            if mask.dtype.kind in "iu"
            else ""
        )
        raise ValueError(
            f"trusted has {mask.shape[0]} entries but y has {n_samples}; pass one "
            f"boolean per sample (True where the given label is verified).{indices}"
        )
    if mask.dtype != bool:
        if mask.dtype.kind not in "iuf" or not np.isin(mask, (0, 1)).all():
            raise ValueError(
                f"trusted must be a boolean mask (or 0/1 values), True where the "
                f"given label is verified; got values of dtype {mask.dtype}. For "
                f"indices, pass np.isin(np.arange(n_samples), indices)."
            )
        mask = mask.astype(bool)
    if judges and not mask.any():
        raise ValueError(
            'trusted marks no sample, so with validation_fraction="trusted" none '
            "judges; use a float validation_fraction to judge on validation "
            "samples of the given labels instead."
        )
    if judges and mask.all():
        raise ValueError(
            'trusted marks every sample, so with validation_fraction="trusted" '
            "no model is left to correct and judge; use a float "
            "validation_fraction (every label is then kept as given)."
        )
    n_trusted = np.count_nonzero(mask)
    if judges and n_trusted < FEW_TRUSTED:
        warnings.warn(
            f"Only {n_trusted} trusted samples judge the check on "
            f"halves: one standard error of their agreement is several points, "
            f"so few results are called worse or better on them, and where "
            f"they differ in one or two predictions the result is undone. With "
            f"fewer than {FEW_TRUSTED}, consider the default validation_fraction, "
            f"under which every sample judges (user guide, 'Verified labels').",
            UserWarning,
            stacklevel=4,  # the caller of fit
        )
    return mask


def validate_rows(plc, X, encoded):
    """X validated on `plc` (``n_features_in_``), with one label per row."""
    X = validate_X(plc, X, reset=True)
    try:
        check_consistent_length(X, encoded)
    except ValueError as error:
        raise ValueError(
            f"X and y must have one label per row of X. {error}"
        ) from error
    return X


def check_sample_weight(sample_weight, n_samples):
    """`sample_weight` as a float array of one weight per sample, or None."""
    if sample_weight is None:
        return None
    sample_weight = column_or_1d(sample_weight).astype(np.float64)
    if sample_weight.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight has {sample_weight.shape[0]} entries but y has "
            f"{n_samples}; pass one weight per sample."
        )
    bad = ~np.isfinite(sample_weight) | (sample_weight < 0)
    if bad.any():
        raise ValueError(
            f"sample_weight holds {np.count_nonzero(bad)} negative, NaN or infinite "
            f"weights (the first at sample {int(np.flatnonzero(bad)[0])}: "
            f"{sample_weight[bad][0]!r}); PLC weighs labels and agreements by them, "
            f"which needs finite weights >= 0. Pass 0 to leave a sample out."
        )
    return sample_weight


def check_finite_proba(proba, round_index):
    """Raise when a round's probabilities hold NaN or infinite values."""
    finite = np.isfinite(proba).all(axis=1)
    if not finite.all():
        raise ValueError(
            f"The estimator's predict_proba returned NaN or infinite values for "
            f"{np.count_nonzero(~finite)} samples in round {round_index}; PLC cannot "
            f"compare label confidences on them. Fix the estimator's probabilities, "
            f"e.g. scale the features, add regularisation, or impute missing values "
            f"in a Pipeline before it."
        )


def will_predict_proba(estimator):
    """Whether `estimator`, once fitted, has ``predict_proba``.

    ``hasattr`` on an unfitted estimator can say no where the fitted one has
    it: a ``StackingClassifier`` whose ``final_estimator`` is None (its
    default, a ``LogisticRegression`` made at ``fit``) has no
    ``predict_proba`` until fitted, nor has a Pipeline that ends in one.
    """
    if hasattr(estimator, "predict_proba"):
        return True
    last = last_step(estimator)
    if last is not estimator:
        return will_predict_proba(last)
    return (
        isinstance(estimator, StackingClassifier) and estimator.final_estimator is None
    )


def check_estimator_for_confidence(estimator, confidence):
    """Raise when `estimator` cannot give the probabilities `confidence` asks for."""
    net = skorch_net_of(estimator)
    if is_regressor(estimator) and net is None:  # nets: their own
        raise ValueError(
            f"The estimator {estimator!r} is a regressor; PLC corrects class "
            "labels from class probabilities, so it needs a classifier with "
            "predict_proba (e.g. LogisticRegression, RandomForestClassifier)."
        )
    if not will_predict_proba(estimator):
        if "probability" in estimator.get_params(deep=False):  # SVC, NuSVC
            name = type(estimator).__name__
            raise ValueError(
                f"{name} gives no class probabilities as set; PLC compares them "
                f"to decide which labels to correct. Use "
                f"CalibratedClassifierCV({name}(), ensemble=False) (scikit-learn "
                f">= 1.9), or {name}(probability=True) on older versions."
            )
        raise ValueError(
            f"The estimator {estimator!r} has no predict_proba; PLC compares "
            "class probabilities to decide which labels to correct. Use a "
            "classifier with predict_proba, or "
            "wrap it in sklearn.calibration.CalibratedClassifierCV."
        )
    if confidence == "eval_pass" and net is None:
        problem = eval_pass_problem(last_step(estimator))
        if problem is not None:
            raise ValueError(problem)
    elif confidence in NET_CONFIDENCES and net is None:
        raise ValueError(
            f"confidence={confidence!r} records a neural network's outputs during "
            f"its training, so it needs a skorch NeuralNet (alone or last in a "
            f"Pipeline); {type(estimator).__name__} is not one. Use confidence='cv' or "
            f"'in_sample', or 'eval_pass' for an estimator with partial_fit."
        )
    if confidence == "oob" and not supports_out_of_bag(estimator):
        raise ValueError(
            f"confidence='oob' needs a bagging ensemble that predicts each sample "
            f"with the members that did not train on it: an oob_score parameter "
            f"and bootstrap=True (e.g. RandomForestClassifier, or "
            f"BaggingClassifier). {type(estimator).__name__} is not one, or has "
            f"bootstrap=False. Use confidence='cv'."
        )


def check_cv_against_classes(cv, n_classes, encoded, set_aside=""):
    """Raise when the folds cannot be made; below that, follow scikit-learn.

    A class with fewer samples than folds is what StratifiedKFold warns about
    and proceeds with (a training fold without that class gives it probability
    0 there); only folds that cannot be made at all raise. `set_aside` says
    how the samples were reduced (the judge's validation samples), for the message.
    """
    n_splits = cv if isinstance(cv, Integral) else None
    if isinstance(cv, StratifiedKFold):
        n_splits = cv.get_n_splits()
    counts = np.bincount(encoded, minlength=n_classes)
    largest = int(counts.max())
    if n_splits is None or largest >= n_splits:
        return
    if largest < 2:
        raise ValueError(
            f"Every class has a single sample, so cv={n_splits} folds cannot "
            "be made and no model can predict a sample's class without "
            "seeing it. Use confidence='in_sample', or more samples per class."
        )
    raise ValueError(
        f"cv={n_splits} folds, but no class has {n_splits} samples{set_aside} (the "
        f"largest has {largest}), so the folds cannot be stratified. Use cv <= "
        f"{largest}, or confidence='in_sample'."
    )


def check_cv_is_reusable(cv):
    """Raise for a one-shot iterator of folds, which a clone would find empty."""
    if isinstance(cv, Iterator):
        raise ValueError(
            f"cv is an iterator ({type(cv).__name__}, e.g. the generator "
            "that splitter.split(X, y) returns): it can be read only once, so "
            "a second fit (a clone in GridSearchCV or cross_val_score) would "
            "find it empty, and it cannot be pickled. Pass list(cv), or the "
            "splitter itself (e.g. cv=GroupKFold(5) and groups=... in fit)."
        )


def check_groups(groups, confidence, given_confidence):
    """Raise when `groups` were passed but no folds will use them."""
    if groups is not None and confidence != "cv":
        raise ValueError(
            f"groups were passed to fit, but they only shape the folds of "
            f"confidence='cv', and confidence={given_confidence!r} makes none. "
            f"Use confidence='cv' with a group-aware cv (e.g. GroupKFold(5)), or "
            f"drop groups."
        )


def sample_weight_key(estimator):
    """The ``fit`` keyword that gives `estimator` per-sample weights, or None.

    ``"sample_weight"`` where its ``fit`` takes one; for a Pipeline, the last
    step's as ``"name__sample_weight"``, or, with metadata routing enabled,
    ``"sample_weight"`` where a step requests it.
    """
    if not isinstance(estimator, Pipeline):
        takes_weights = has_fit_parameter(estimator, "sample_weight")
        return "sample_weight" if takes_weights else None
    if get_config()["enable_metadata_routing"]:
        routing = get_routing_for_object(estimator)
        consumed = routing.consumes("fit", ["sample_weight"])
        return "sample_weight" if consumed else None
    name, last = estimator.steps[-1]
    inner = None if last in (None, "passthrough") else sample_weight_key(last)
    return None if inner is None else f"{name}__{inner}"


def sets_warm_start(estimator):
    """Whether `estimator` (or a step of it) continues training on refit."""
    return any(
        value is True and (key == "warm_start" or key.endswith("__warm_start"))
        for key, value in estimator.get_params(deep=True).items()
    )


def seed_unset_random_states(estimator, rng):
    """Give every ``random_state`` left at None in `estimator` a fixed seed."""
    unset = {
        key: rng.randint(np.iinfo(np.int32).max)
        for key, value in sorted(estimator.get_params(deep=True).items())
        if (key == "random_state" or key.endswith("__random_state")) and value is None
    }
    return estimator.set_params(**unset) if unset else estimator


def validate_X(estimator, X, *, reset):
    """Check X as scikit-learn does, on `estimator`; return what its model receives.

    Input that is not a table of features (a list of documents, a Series
    of text, a list of dicts: the input of a vectorizer pipeline), for a
    model not fitted on a table, is passed on untouched for the estimator
    to validate, rows indexed with ``_safe_indexing``. A table is checked:
    a DataFrame (pandas, polars) is then passed on as it is, so column
    names and dtypes reach a ColumnTransformer; sparse input as CSR
    (row-indexable for the folds); anything else as the validated array.
    """
    if reset or not hasattr(estimator, "n_features_in_"):
        try:
            _num_features(X)
        except TypeError:
            validate_data(estimator, X, reset=reset, skip_check_array=True)
            return indexable(X)[0]
    checked = validate_data(
        estimator,
        X,
        reset=reset,
        accept_sparse="csr",
        ensure_all_finite=False,
        dtype=None,
    )
    return X if is_dataframe(X) else checked
