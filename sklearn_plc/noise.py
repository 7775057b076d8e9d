"""Label-noise injectors: PMD (feature-dependent) and i.i.d. noise.

Plain functions do the maths on arrays; thin estimator classes wrap them with
imbalanced-learn's ``fit_resample(X, y) -> (X, y_noisy)`` convention, so that a
noise step in an :class:`imblearn.pipeline.Pipeline` corrupts the training folds
only, while ``cross_validate`` and ``GridSearchCV`` score on clean held-out
labels::

    from imblearn.pipeline import make_pipeline
    model = make_pipeline(UniformNoise(0.3, random_state=0), PLCClassifier())
    cross_val_score(model, X, y_clean)   # trains on noisy, scores on clean

PMD noise (Zhang et al., 2021, "Noise generation") needs the clean posterior
``η(x)``. With ``u`` and ``s`` the classes of largest and second-largest ``η``
and the margin ``g = η_u − η_s``, the three noise functions are

- Type-I:   ``τ = −½ g² + ½``
- Type-II:  ``τ = 1 − g³``
- Type-III: ``τ = 1 − (g³ + g² + g) / 3``

A sample whose label is ``u`` is flipped to ``s`` with probability
``min(1, c · τ(x))``, the constant ``c`` solved so that the expected fraction of
flipped labels equals the noise level. Labels are only ever moved from ``u`` to
``s``; a sample whose given label is not ``u`` (the posterior model disagrees
with it) is never flipped, and counts as clean in the noise level.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, check_cv, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

__all__ = [
    "AsymmetricNoise",
    "HybridNoise",
    "PMDNoise",
    "TransitionMatrixNoise",
    "UniformNoise",
    "asymmetric_transition_matrix",
    "estimate_posterior",
    "flip_labels_with_matrix",
    "pmd_flip_labels",
    "pmd_flip_probability",
    "pmd_tau",
    "uniform_transition_matrix",
]

PMD_TYPES = ("I", "II", "III")
_CHUNK_ROWS = 4096  # rows per block: small enough to stay in cache


# --- plain functions -------------------------------------------------------------


def _check_noise_level(noise_level):
    if not isinstance(noise_level, Real) or not 0 <= noise_level <= 1:
        raise ValueError(
            f"noise_level must be a number in [0, 1]; got {noise_level!r}."
        )
    return float(noise_level)


def _encode(y, classes=None):
    """Validate labels; return ``(classes, encoded)``."""
    y = column_or_1d(y)
    check_classification_targets(y)
    if classes is None:
        classes, encoded = np.unique(y, return_inverse=True)
        return classes, encoded.astype(np.intp, copy=False)
    classes = np.asarray(classes)
    if np.unique(classes).shape[0] != classes.shape[0]:
        raise ValueError(f"classes must be distinct; got {classes.tolist()!r}.")
    order = np.argsort(classes)
    position = np.searchsorted(classes[order], y)
    position = np.clip(position, 0, classes.shape[0] - 1)
    encoded = order[position]
    unknown = classes[encoded] != y
    if unknown.any():
        raise ValueError(
            f"y contains labels that are not in classes, e.g. "
            f"{np.unique(y[unknown])[:5].tolist()!r}; add them to classes."
        )
    return classes, encoded.astype(np.intp, copy=False)


def pmd_tau(margin, noise_type):
    """The PMD noise function ``τ(g)`` of the paper, before scaling.

    Parameters
    ----------
    margin : array-like of float
        ``g = η_u − η_s``, the gap between the two largest clean posteriors, in
        [0, 1].
    noise_type : {"I", "II", "III"}
        Type-I ``−½ g² + ½``, Type-II ``1 − g³``, Type-III
        ``1 − (g³ + g² + g) / 3``.

    Returns
    -------
    tau : ndarray of float
        Decreasing in ``g``: 1/2 (Type-I) or 1 (Types II, III) at the boundary,
        0 at ``g = 1``.

    Raises
    ------
    ValueError
        If `noise_type` is not "I", "II" or "III".

    Examples
    --------
    >>> from sklearn_plc.noise import pmd_tau
    >>> pmd_tau([0.0, 0.5, 1.0], "I")
    array([0.5  , 0.375, 0.   ])
    """
    g = np.asarray(margin, dtype=np.float64)
    if noise_type == "I":
        return 0.5 - 0.5 * g**2
    if noise_type == "II":
        return 1.0 - g**3
    if noise_type == "III":
        return 1.0 - (g**3 + g**2 + g) / 3.0
    raise ValueError(f"noise_type must be one of {PMD_TYPES}; got {noise_type!r}.")


def _check_posterior(proba, n_samples, n_classes):
    proba = np.asarray(proba)
    if proba.shape != (n_samples, n_classes):
        raise ValueError(
            f"proba must have shape (n_samples, n_classes) = ({n_samples}, "
            f"{n_classes}), one column per class in sorted order; got {proba.shape}."
        )
    row_sums = proba.sum(axis=1)  # NaN or inf entries make their row's sum so
    if not np.isfinite(row_sums).all() or proba.min() < 0:
        raise ValueError(
            "proba must hold finite, non-negative probabilities; it has negative, "
            "NaN or infinite entries."
        )
    off = np.abs(row_sums - 1) > 1e-4
    if off.any():
        raise ValueError(
            f"Every row of proba must sum to 1; {np.count_nonzero(off)} rows do not "
            f"(e.g. row {int(np.flatnonzero(off)[0])} sums to "
            f"{row_sums[off][0]:.6g}). Pass predict_proba output, or normalise it."
        )
    return proba


def _top_two(proba):
    """Classes of the largest and second-largest entry of each row, and their gap."""
    n_samples = proba.shape[0]
    top = np.empty(n_samples, dtype=np.intp)
    second = np.empty(n_samples, dtype=np.intp)
    gap = np.empty(n_samples, dtype=np.float64)
    for start in range(0, n_samples, _CHUNK_ROWS):
        chunk = np.array(proba[start : start + _CHUNK_ROWS])  # a copy to mask
        rows = np.arange(chunk.shape[0])
        first = chunk.argmax(axis=1)
        first_value = chunk[rows, first].astype(np.float64)
        chunk[rows, first] = -np.inf
        runner_up = chunk.argmax(axis=1)
        top[start : start + chunk.shape[0]] = first
        second[start : start + chunk.shape[0]] = runner_up
        gap[start : start + chunk.shape[0]] = first_value - chunk[rows, runner_up]
    return top, second, gap


def _solve_scale(tau, noise_level, n_samples):
    """The ``c`` with ``Σ min(1, c τ) = noise_level · n_samples``, exactly.

    With ``τ`` sorted in decreasing order and the first ``j`` samples saturated
    (``c τ_i >= 1``), the sum is ``j + c · Σ_{i >= j} τ_i``, so
    ``c_j = (target − j) / Σ_{i >= j} τ_i``; the answer is the first ``j`` whose
    largest unsaturated ``τ_j`` stays below saturation (``c_j τ_j <= 1``).
    """
    target = noise_level * n_samples
    if target == 0:
        return 0.0
    positive = np.sort(tau[tau > 0])[::-1]
    if positive.shape[0] < target:
        raise ValueError(
            f"noise_level={noise_level} is not reachable with PMD noise on this "
            f"posterior: at most {positive.shape[0] / n_samples:.4f} of the labels "
            f"can flip (samples labelled with their most likely class u and with "
            f"τ > 0). Use a lower noise_level, or a less confident posterior (e.g. "
            f"out-of-fold predictions)."
        )
    saturated = np.arange(positive.shape[0])
    rest = np.cumsum(positive[::-1])[::-1]  # Σ_{i >= j} τ_i
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = (target - saturated) / rest
    consistent = (target - saturated > 0) & (scale * positive <= 1.0)
    if not consistent.any():  # every positive τ saturates exactly
        return 1.0 / positive[-1]
    return float(scale[np.argmax(consistent)])


def pmd_flip_probability(labels, proba, *, noise_type, noise_level):
    """Per-sample flip probability of PMD noise, scaled to a noise level.

    Parameters
    ----------
    labels : array-like of int of shape (n_samples,)
        Clean labels as column indices into `proba`.
    proba : array-like of shape (n_samples, n_classes)
        The clean posterior ``η(x)``; rows sum to 1.
    noise_type : {"I", "II", "III"}
        Which PMD noise function (see :func:`pmd_tau`).
    noise_level : float in [0, 1]
        Expected fraction of all samples to flip.

    Returns
    -------
    flip_probability : ndarray of float64 of shape (n_samples,)
        ``min(1, c τ(x))`` for samples labelled ``u``, 0 for the others.
    target : ndarray of int of shape (n_samples,)
        The class ``s`` each sample would be flipped to.
    scale : float
        The solved constant ``c``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.noise import pmd_flip_probability
    >>> proba = np.array([[0.55, 0.45], [0.95, 0.05], [0.3, 0.7]])
    >>> p, target, scale = pmd_flip_probability(
    ...     [0, 0, 1], proba, noise_type="I", noise_level=0.2)
    >>> np.round(p, 3), target
    (array([0.294, 0.056, 0.25 ]), array([1, 1, 0]))

    Raises
    ------
    ValueError
        If the noise level cannot be reached (the message gives the largest
        reachable level), or `proba` is not a valid posterior.
    """
    noise_level = _check_noise_level(noise_level)
    labels = np.asarray(labels)
    proba = _check_posterior(proba, labels.shape[0], np.asarray(proba).shape[1])
    return _pmd_flip_probability(labels, proba, noise_type, noise_level)


def _pmd_flip_probability(labels, proba, noise_type, noise_level):
    top, second, gap = _top_two(proba)
    tau = np.where(labels == top, pmd_tau(gap, noise_type), 0.0)
    scale = _solve_scale(tau, noise_level, labels.shape[0])
    return np.minimum(1.0, scale * tau), second, scale


def pmd_flip_labels(
    y, proba, *, noise_type="I", noise_level=0.35, classes=None, random_state=None
):
    """Corrupt labels with PMD noise, given the clean posterior.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Clean labels (any label type). Not modified.
    proba : array-like of shape (n_samples, n_classes)
        Clean posterior ``η(x)``, one column per class of `classes`.
    noise_type : {"I", "II", "III"}, default="I"
        The PMD noise function (see :func:`pmd_tau`).
    noise_level : float in [0, 1], default=0.35
        Expected fraction of labels to flip.
    classes : array-like, default=None
        The class of each column of `proba`; default ``np.unique(y)``.
    random_state : int, RandomState instance or None, default=None
        Seeds the flips.

    Returns
    -------
    y_noisy : ndarray of shape (n_samples,)
        A new array: each label ``u`` kept, or flipped to ``s``.

    Raises
    ------
    ValueError
        If the noise level cannot be reached (the message gives the largest
        reachable level), `proba` has the wrong shape, negative entries or
        rows not summing to 1, or `y` holds a label not in `classes`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.noise import pmd_flip_labels
    >>> proba = np.array([[0.55, 0.45], [0.99, 0.01], [0.4, 0.6], [0.02, 0.98]])
    >>> y_noisy = pmd_flip_labels(
    ...     [0, 0, 1, 1], proba, noise_level=0.25, random_state=0)
    >>> y_noisy.shape
    (4,)
    """
    classes, encoded = _encode(y, classes)
    noisy, _, _ = _pmd_flip_encoded(
        encoded,
        _check_posterior(proba, encoded.shape[0], classes.shape[0]),
        noise_type,
        _check_noise_level(noise_level),
        check_random_state(random_state),
    )
    return classes[noisy]


def _pmd_flip_encoded(encoded, proba, noise_type, noise_level, rng):
    """Return ``(noisy labels, flip probability, scale)`` on encoded labels."""
    flip_probability, target, scale = _pmd_flip_probability(
        encoded, proba, noise_type, noise_level
    )
    flip = rng.uniform(size=encoded.shape[0]) < flip_probability
    return np.where(flip, target, encoded), flip_probability, scale


def uniform_transition_matrix(n_classes, noise_level):
    """Transition matrix of uniform noise: ``T_ii = 1 − τ``, ``T_ij = τ / (C − 1)``.

    Parameters
    ----------
    n_classes : int >= 2
    noise_level : float in [0, 1]

    Returns
    -------
    transition_matrix : ndarray of shape (n_classes, n_classes)

    Raises
    ------
    ValueError
        If `noise_level` is outside [0, 1] or `n_classes` is below 2.

    Examples
    --------
    >>> from sklearn_plc.noise import uniform_transition_matrix
    >>> uniform_transition_matrix(3, 0.3)
    array([[0.7 , 0.15, 0.15],
           [0.15, 0.7 , 0.15],
           [0.15, 0.15, 0.7 ]])
    """
    noise_level = _check_noise_level(noise_level)
    if not isinstance(n_classes, Integral) or n_classes < 2:
        raise ValueError(f"n_classes must be an int >= 2; got {n_classes!r}.")
    matrix = np.full((n_classes, n_classes), noise_level / (n_classes - 1))
    np.fill_diagonal(matrix, 1.0 - noise_level)
    return matrix


def asymmetric_transition_matrix(classes, noise_level, mapping="next"):
    """Transition matrix of pair noise: class ``i`` → ``mapping[i]`` w.p. ``τ``.

    Parameters
    ----------
    classes : array-like of shape (n_classes,)
        The classes, in the order of the matrix's rows and columns.
    noise_level : float in [0, 1]
        ``τ``, the flip probability of every mapped class.
    mapping : dict or "next", default="next"
        ``{source: target}`` in the label space of `classes`; classes not in it
        are never flipped. ``"next"`` maps each class to the next one in
        `classes`, the last to the first.

    Returns
    -------
    transition_matrix : ndarray of shape (n_classes, n_classes)

    Raises
    ------
    ValueError
        If `noise_level` is outside [0, 1], or `mapping` names an unknown class
        or maps a class to itself.

    Examples
    --------
    >>> from sklearn_plc.noise import asymmetric_transition_matrix
    >>> asymmetric_transition_matrix(["cat", "dog", "fox"], 0.4, {"cat": "dog"})
    array([[0.6, 0.4, 0. ],
           [0. , 1. , 0. ],
           [0. , 0. , 1. ]])
    """
    noise_level = _check_noise_level(noise_level)
    classes = np.asarray(classes)
    n_classes = classes.shape[0]
    if isinstance(mapping, str):
        if mapping != "next":
            raise ValueError(f"mapping must be a dict or 'next'; got {mapping!r}.")
        mapping = {
            classes[i].item(): classes[(i + 1) % n_classes].item()
            for i in range(n_classes)
        }
    index = {c.item(): i for i, c in enumerate(classes)}
    matrix = np.eye(n_classes)
    for source, target in mapping.items():
        for name in (source, target):
            if name not in index:
                raise ValueError(
                    f"mapping names class {name!r}, which is not among the classes "
                    f"{classes.tolist()!r}; map only classes that occur in y."
                )
        if source == target:
            raise ValueError(
                f"mapping sends class {source!r} to itself; remove it, or map it to "
                f"another class."
            )
        matrix[index[source], index[source]] = 1.0 - noise_level
        matrix[index[source], index[target]] = noise_level
    return matrix


def _check_transition_matrix(transition_matrix, n_classes=None):
    matrix = np.asarray(transition_matrix, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(
            f"transition_matrix must be square (n_classes x n_classes); got shape "
            f"{matrix.shape}."
        )
    if n_classes is not None and matrix.shape[0] != n_classes:
        raise ValueError(
            f"transition_matrix is {matrix.shape[0]} x {matrix.shape[0]} but there "
            f"are {n_classes} classes; give one row and column per class (pass "
            f"classes= to fix their order)."
        )
    if not np.isfinite(matrix).all() or (matrix < 0).any():
        raise ValueError("transition_matrix entries must be finite and >= 0.")
    row_sums = matrix.sum(axis=1)
    if not np.allclose(row_sums, 1.0, atol=1e-8):
        bad = int(np.flatnonzero(~np.isclose(row_sums, 1.0, atol=1e-8))[0])
        raise ValueError(
            f"transition_matrix must be row-stochastic (each row sums to 1: row i "
            f"is the distribution of the noisy label of class i); row {bad} sums to "
            f"{row_sums[bad]:.6g}."
        )
    return matrix


def flip_labels_with_matrix(y, transition_matrix, *, classes=None, random_state=None):
    """Resample each label from its class's row of a transition matrix.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Clean labels. Not modified.
    transition_matrix : array-like of shape (n_classes, n_classes)
        ``T[i, j] = P(noisy = j | clean = i)``; rows sum to 1.
    classes : array-like, default=None
        The class of each row/column; default ``np.unique(y)``.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws.

    Returns
    -------
    y_noisy : ndarray of shape (n_samples,)

    Raises
    ------
    ValueError
        If `transition_matrix` is not square, not one row per class, has
        negative entries, or a row does not sum to 1.

    Examples
    --------
    >>> from sklearn_plc.noise import flip_labels_with_matrix
    >>> flip_labels_with_matrix([0, 1, 1], [[0, 1], [0, 1]])
    array([1, 1, 1])
    """
    classes, encoded = _encode(y, classes)
    matrix = _check_transition_matrix(transition_matrix, classes.shape[0])
    return classes[_flip_encoded_with_matrix(encoded, matrix, random_state)]


def _flip_encoded_with_matrix(encoded, matrix, random_state):
    """Draw each noisy label from row ``encoded[i]`` of `matrix`, vectorised.

    Row ``i``'s cumulative distribution, shifted by ``i``, occupies ``(i, i + 1]``
    in one increasing array, so a single ``searchsorted`` of ``i + u`` (``u``
    uniform in [0, 1)) samples every label from its own row.
    """
    n_classes = matrix.shape[0]
    cumulative = matrix.cumsum(axis=1)
    cumulative /= cumulative[:, -1:]
    shifted = (cumulative + np.arange(n_classes)[:, None]).ravel()
    draws = check_random_state(random_state).uniform(size=encoded.shape[0])
    position = np.searchsorted(shifted, encoded + draws, side="right")
    return np.minimum(position - encoded * n_classes, n_classes - 1)


def estimate_posterior(X, y, *, estimator=None, cv=5, random_state=None):
    """Approximate the clean posterior ``η(x)`` by out-of-fold probabilities.

    As in the paper, a model trained on the clean labels stands in for ``η``;
    out-of-fold predictions keep it from being over-confident on its own
    training samples (an in-sample ``η`` is so sharp that high PMD noise levels
    become unreachable).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Clean labels.
    estimator : classifier with predict_proba, default=None
        ``None`` means ``make_pipeline(StandardScaler(),
        LogisticRegression(max_iter=1000))``.
    cv : int or cross-validation generator, default=5
        An int means shuffled :class:`~sklearn.model_selection.StratifiedKFold`.
    random_state : int, RandomState instance or None, default=None
        Seeds the fold shuffling.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
        Columns follow ``np.unique(y)``.

    Raises
    ------
    ValueError
        From cross-validation, e.g. when a class has fewer samples than `cv`.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_plc.noise import estimate_posterior
    >>> X, y = load_iris(return_X_y=True)
    >>> estimate_posterior(X, y, random_state=0).shape
    (150, 3)
    """
    if estimator is None:
        estimator = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    if isinstance(cv, Integral):
        seed = check_random_state(random_state).randint(2**31 - 1)
        cv = StratifiedKFold(n_splits=cv, shuffle=True, random_state=seed)
    cv = check_cv(cv, y, classifier=True)
    return cross_val_predict(clone(estimator), X, y, cv=cv, method="predict_proba")


# --- estimators -----------------------------------------------------------------


class _LabelNoise(BaseEstimator):
    """Shared ``fit_resample``/``corrupt`` logic and fitted attributes."""

    def fit_resample(self, X, y):
        """Return `X` unchanged and a corrupted copy of `y`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples; returned as given.
        y : array-like of shape (n_samples,)
            Clean labels. Not modified.

        Returns
        -------
        X : array-like
            The input `X`.
        y_noisy : ndarray of shape (n_samples,)
            The corrupted labels.
        """
        return X, self.corrupt(y)

    def _record(self, classes, clean, noisy):
        """Set the fitted attributes; return the noisy labels in label space."""
        k = classes.shape[0]
        counts = np.bincount(clean * k + noisy, minlength=k * k).reshape(k, k)
        self.classes_ = classes
        self.noisy_mask_ = clean != noisy
        self.noise_rate_ = float(self.noisy_mask_.mean())
        self.transition_matrix_ = counts / counts.sum(axis=1, keepdims=True)
        return classes[noisy]


class _IIDNoise(_LabelNoise):
    def _matrix(self, classes):
        raise NotImplementedError

    @_fit_context(prefer_skip_nested_validation=True)
    def corrupt(self, y):
        """Return a corrupted copy of `y` and record what changed.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            Clean labels. Not modified.

        Returns
        -------
        y_noisy : ndarray of shape (n_samples,)
        """
        classes, encoded = _encode(y)
        noisy = _flip_encoded_with_matrix(
            encoded, self._matrix(classes), self.random_state
        )
        return self._record(classes, encoded, noisy)


class UniformNoise(_IIDNoise):
    """Flip each label, with probability ``noise_level``, to another class at random.

    The transition matrix has ``1 − noise_level`` on the diagonal and
    ``noise_level / (C − 1)`` elsewhere, so a flipped label never keeps its
    class.

    Parameters
    ----------
    noise_level : float in [0, 1], default=0.3
        Probability that a label is flipped.
    random_state : int, RandomState instance or None, default=None
        Seeds the flips.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    noise_rate_ : float
        Realised fraction of changed labels.
    transition_matrix_ : ndarray of shape (n_classes, n_classes)
        Empirical ``P(noisy = j | clean = i)``; rows sum to 1.
    noisy_mask_ : ndarray of bool of shape (n_samples,)
        Which labels changed.

    Raises
    ------
    ValueError
        From ``corrupt``/``fit_resample``: an out-of-range parameter
        (``InvalidParameterError``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.noise import UniformNoise
    >>> y = np.repeat([0, 1, 2], 1000)
    >>> noise = UniformNoise(0.3, random_state=0)
    >>> y_noisy = noise.corrupt(y)
    >>> round(noise.noise_rate_, 2)
    0.3
    """

    _parameter_constraints = {
        "noise_level": [Interval(Real, 0, 1, closed="both")],
        "random_state": ["random_state"],
    }

    def __init__(self, noise_level=0.3, *, random_state=None):
        self.noise_level = noise_level
        self.random_state = random_state

    def _matrix(self, classes):
        return uniform_transition_matrix(classes.shape[0], self.noise_level)


class AsymmetricNoise(_IIDNoise):
    """Flip each label of class ``i`` to a fixed class ``mapping[i]`` (pair noise).

    Parameters
    ----------
    noise_level : float in [0, 1], default=0.3
        Probability that a label of a mapped class is flipped.
    mapping : dict or None, default=None
        ``{source: target}`` in the caller's label space; classes not in it
        keep their labels. ``None`` maps each class to the next one in sorted
        order (the last to the first).
    random_state : int, RandomState instance or None, default=None
        Seeds the flips.

    Attributes
    ----------
    classes_, noise_rate_, transition_matrix_, noisy_mask_
        As in :class:`UniformNoise`.

    Raises
    ------
    ValueError
        From ``corrupt``/``fit_resample``: an out-of-range parameter
        (``InvalidParameterError``); a mapping that names an unknown class or
        maps a class to itself.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.noise import AsymmetricNoise
    >>> y = np.repeat(["cat", "dog", "fox"], 100)
    >>> noise = AsymmetricNoise(0.4, mapping={"cat": "dog"}, random_state=0)
    >>> np.unique(noise.corrupt(y)[:100]).tolist()
    ['cat', 'dog']
    """

    _parameter_constraints = {
        "noise_level": [Interval(Real, 0, 1, closed="both")],
        "mapping": [dict, None],
        "random_state": ["random_state"],
    }

    def __init__(self, noise_level=0.3, *, mapping=None, random_state=None):
        self.noise_level = noise_level
        self.mapping = mapping
        self.random_state = random_state

    def _matrix(self, classes):
        mapping = "next" if self.mapping is None else self.mapping
        return asymmetric_transition_matrix(classes, self.noise_level, mapping)


class TransitionMatrixNoise(_IIDNoise):
    """Resample each label from its class's row of a given transition matrix.

    Parameters
    ----------
    transition_matrix : array-like of shape (n_classes, n_classes)
        ``T[i, j] = P(noisy = j | clean = i)``, rows and columns in sorted class
        order; each row sums to 1.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws.

    Attributes
    ----------
    classes_, noise_rate_, transition_matrix_, noisy_mask_
        As in :class:`UniformNoise`; ``transition_matrix_`` is the empirical one.

    Raises
    ------
    ValueError
        From ``corrupt``/``fit_resample``: an out-of-range parameter
        (``InvalidParameterError``); a transition matrix that is not square, not
        one row per class, negative, or not row-stochastic.

    Examples
    --------
    >>> from sklearn_plc.noise import TransitionMatrixNoise
    >>> TransitionMatrixNoise([[0, 1], [0, 1]]).corrupt([0, 0, 1]).tolist()
    [1, 1, 1]
    """

    _parameter_constraints = {
        "transition_matrix": ["array-like"],
        "random_state": ["random_state"],
    }

    def __init__(self, transition_matrix, *, random_state=None):
        self.transition_matrix = transition_matrix
        self.random_state = random_state

    def _matrix(self, classes):
        return _check_transition_matrix(self.transition_matrix, classes.shape[0])


class PMDNoise(_LabelNoise):
    """Feature-dependent PMD label noise (Zhang et al., 2021, Types I–III).

    Each sample labelled with its most likely clean class ``u`` is flipped to
    the runner-up class ``s`` with probability ``min(1, c τ(g))``, where ``g``
    is the gap between the two largest clean posteriors, ``τ`` the chosen noise
    function (see :func:`pmd_tau`) and ``c`` solved so that the expected
    fraction of flipped labels is ``noise_level``. Noise is thus heavy near the
    class boundary and rare where the classes are clear. Samples whose label
    is not ``u`` are never flipped.

    Parameters
    ----------
    noise_type : {"I", "II", "III"}, default="I"
        The noise function.
    noise_level : float in [0, 1], default=0.35
        Expected fraction of labels to flip.
    estimator : classifier with predict_proba, default=None
        Estimates the clean posterior in ``fit_resample`` (out of fold, see
        :func:`estimate_posterior`). ``None`` means a scaled logistic
        regression.
    cv : int or cross-validation generator, default=5
        Folds for the posterior estimate.
    random_state : int, RandomState instance or None, default=None
        Seeds the folds and the flips.

    Attributes
    ----------
    classes_, noise_rate_, transition_matrix_, noisy_mask_
        As in :class:`UniformNoise`.
    flip_probability_ : ndarray of shape (n_samples,)
        Each sample's probability of being flipped.
    scale_ : float
        The solved constant ``c``.

    Raises
    ------
    ValueError
        From ``corrupt``/``fit_resample``: an out-of-range parameter
        (``InvalidParameterError``); an unreachable noise level (the message
        gives the largest reachable one); a posterior of the wrong shape, with
        negative entries or rows not summing to 1.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_plc.noise import PMDNoise
    >>> X, y = load_digits(return_X_y=True)
    >>> noise = PMDNoise("II", noise_level=0.35, random_state=0)
    >>> X, y_noisy = noise.fit_resample(X, y)
    >>> abs(noise.noise_rate_ - 0.35) < 0.05
    True
    """

    _parameter_constraints = {
        "noise_type": [StrOptions(set(PMD_TYPES))],
        "noise_level": [Interval(Real, 0, 1, closed="both")],
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "cv": ["cv_object"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        noise_type="I",
        noise_level=0.35,
        *,
        estimator=None,
        cv=5,
        random_state=None,
    ):
        self.noise_type = noise_type
        self.noise_level = noise_level
        self.estimator = estimator
        self.cv = cv
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_resample(self, X, y):
        """Estimate the clean posterior from `X` and `y`, then corrupt `y`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples; returned as given.
        y : array-like of shape (n_samples,)
            Clean labels. Not modified.

        Returns
        -------
        X : array-like
            The input `X`.
        y_noisy : ndarray of shape (n_samples,)
        """
        rng = check_random_state(self.random_state)
        proba = estimate_posterior(
            X, y, estimator=self.estimator, cv=self.cv, random_state=rng
        )
        return X, self._corrupt(y, proba, rng)

    @_fit_context(prefer_skip_nested_validation=True)
    def corrupt(self, y, proba):
        """Corrupt `y` given its clean posterior `proba`.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            Clean labels. Not modified.
        proba : array-like of shape (n_samples, n_classes)
            Clean posterior, one column per class in sorted order.

        Returns
        -------
        y_noisy : ndarray of shape (n_samples,)
        """
        return self._corrupt(y, proba, check_random_state(self.random_state))

    def _corrupt(self, y, proba, rng):
        classes, encoded = _encode(y)
        proba = _check_posterior(proba, encoded.shape[0], classes.shape[0])
        noisy, self.flip_probability_, self.scale_ = _pmd_flip_encoded(
            encoded, proba, self.noise_type, self.noise_level, rng
        )
        return self._record(classes, encoded, noisy)


class HybridNoise(_LabelNoise):
    """PMD noise with i.i.d. noise on top: the paper's hybrid noise (Table 2).

    Parameters
    ----------
    pmd : PMDNoise
        Applied first, to the clean labels.
    iid : UniformNoise, AsymmetricNoise or TransitionMatrixNoise
        Applied to the PMD-noisy labels.

    Attributes
    ----------
    pmd_, iid_ : fitted copies of `pmd` and `iid`
    classes_, noise_rate_, transition_matrix_, noisy_mask_
        As in :class:`UniformNoise`, from clean to final labels.

    Raises
    ------
    ValueError
        From ``corrupt``/``fit_resample``: an out-of-range parameter
        (``InvalidParameterError``); any error of its two parts.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_plc.noise import HybridNoise, PMDNoise, UniformNoise
    >>> X, y = load_digits(return_X_y=True)
    >>> noise = HybridNoise(PMDNoise(noise_level=0.35, random_state=0),
    ...                     UniformNoise(0.3, random_state=0))
    >>> X, y_noisy = noise.fit_resample(X, y)
    >>> 0.45 < noise.noise_rate_ < 0.65
    True
    """

    _parameter_constraints = {
        "pmd": [PMDNoise],
        "iid": [_IIDNoise],
    }

    def __init__(self, pmd, iid):
        self.pmd = pmd
        self.iid = iid

    @_fit_context(prefer_skip_nested_validation=False)
    def fit_resample(self, X, y):
        """Corrupt `y` with PMD noise, then with i.i.d. noise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples; returned as given.
        y : array-like of shape (n_samples,)
            Clean labels. Not modified.

        Returns
        -------
        X : array-like
            The input `X`.
        y_noisy : ndarray of shape (n_samples,)
        """
        self.pmd_ = clone(self.pmd)
        self.iid_ = clone(self.iid)
        _, y_pmd = self.pmd_.fit_resample(X, y)
        return X, self._record_hybrid(y, self.iid_.corrupt(y_pmd))

    @_fit_context(prefer_skip_nested_validation=False)
    def corrupt(self, y, proba):
        """Corrupt `y` given its clean posterior `proba` (see :meth:`PMDNoise.corrupt`).

        Parameters
        ----------
        y : array-like of shape (n_samples,)
        proba : array-like of shape (n_samples, n_classes)

        Returns
        -------
        y_noisy : ndarray of shape (n_samples,)
        """
        self.pmd_ = clone(self.pmd)
        self.iid_ = clone(self.iid)
        return self._record_hybrid(y, self.iid_.corrupt(self.pmd_.corrupt(y, proba)))

    def _record_hybrid(self, y, y_noisy):
        classes, clean = _encode(y)
        _, noisy = _encode(y_noisy, classes)
        return self._record(classes, clean, noisy)
