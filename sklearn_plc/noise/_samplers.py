"""Noise injectors as estimators: ``fit_resample(X, y) -> (X, y_noisy)``.

Thin classes around the maths of :mod:`._pmd` and :mod:`._iid`, following
imbalanced-learn's convention so that a noise step in an
:class:`imblearn.pipeline.Pipeline` corrupts the training folds only.
"""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from ._iid import (
    _check_transition_matrix,
    _flip_encoded_with_matrix,
    asymmetric_transition_matrix,
    uniform_transition_matrix,
)
from ._pmd import PMD_TYPES, SCALINGS, _check_amount, _pmd_flip_encoded
from ._posterior import estimate_posterior
from ._validation import _check_lengths, _check_posterior, _encode, _like_y


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
        y_noisy : ndarray or pandas Series of shape (n_samples,)
            The corrupted labels; a Series where `y` is one (same index and
            name).
        """
        _check_lengths(X, y)
        return X, _like_y(y, self.corrupt(y))

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
        return _check_transition_matrix(
            self.transition_matrix,
            classes.shape[0],
            fix=(
                f"the classes are those found in y, {classes.tolist()!r}, in sorted "
                f"order: y must hold every class of the matrix, or use "
                f"flip_labels_with_matrix(y, matrix, classes=...)"
            ),
        )


class PMDNoise(_LabelNoise):
    """Feature-dependent PMD label noise (Zhang et al., 2021, Types I–III).

    Each sample labelled with its most likely clean class ``u`` may be flipped
    to the runner-up class ``s``, with a probability that falls as the gap
    ``g`` between the two largest clean posteriors grows: noise is heavy near
    the class boundary and rarer where the classes are clear. Samples whose
    label is not ``u`` are never flipped. The shape comes from the noise
    function ``τ(g)`` (see :func:`pmd_tau`); the amount from a scale, solved
    for `noise_level` or fixed by `factor`, applied in one of two ways:

    - ``scaling="keep"`` (default; the authors' scripts, which made the noisy
      labels behind the paper's Tables 1–2): the probability of keeping ``u``,
      ``k = 1 − τ``, is divided by ``F ≥ 1``, so ``P(flip) = 1 − k / F``:
      every sample labelled ``u`` can flip, at least with ``1 − 1/F``. Levels
      below the one reached at ``F = 1`` scale ``τ`` down instead
      (``P(flip) = c τ``, ``c < 1``).
    - ``scaling="flip"`` (the paper's sentence): ``P(flip) = min(1, c τ)``.
      High levels saturate a band at the boundary, where the noisy labels'
      majority is then the wrong class: a stress test rather than the paper's
      protocol.

    Parameters
    ----------
    noise_type : {"I", "II", "III"}, default="I"
        The noise function.
    noise_level : float in [0, 1] or None, default=0.35
        Expected fraction of labels to flip; the scale is solved for it. None
        to use `factor` instead.
    scaling : {"keep", "flip"}, default="keep"
        How the scale sets the flip probabilities (see above).
    factor : float > 0 or None, default=None
        A fixed scale instead of a level (`noise_level` must then be None):
        ``F`` from 1 up or ``c`` below 1 for ``"keep"`` (the scripts use
        ``F = 1.2``), ``c`` for ``"flip"``.
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
        The scale used (`factor`, or the one solved for `noise_level`). With
        ``scaling="keep"``: a value from 1 up is ``F`` in ``1 − k / F``
        (``inf`` when every sample labelled ``u`` flips); below 1 it is ``c`` in
        ``c τ``; both give ``P(flip) = τ`` at 1. With ``scaling="flip"``: ``c``
        in ``min(1, c τ)``.

    Raises
    ------
    ValueError
        From ``corrupt``/``fit_resample``: an out-of-range parameter
        (``InvalidParameterError``); both or neither of `noise_level` and
        `factor`; an unreachable noise level (the message gives the largest
        reachable one); a posterior of the wrong shape, with negative entries
        or rows not summing to 1.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_plc.noise import PMDNoise
    >>> X, y = load_digits(return_X_y=True)
    >>> noise = PMDNoise("II", noise_level=0.35, random_state=0)
    >>> X, y_noisy = noise.fit_resample(X, y)
    >>> abs(noise.noise_rate_ - 0.35) < 0.05
    True
    >>> scripts = PMDNoise("II", noise_level=None, factor=1.2, random_state=0)
    >>> X, y_noisy = scripts.fit_resample(X, y)
    >>> scripts.scale_
    1.2
    """

    _parameter_constraints = {
        "noise_type": [StrOptions(set(PMD_TYPES))],
        "noise_level": [Interval(Real, 0, 1, closed="both"), None],
        "scaling": [StrOptions(set(SCALINGS))],
        "factor": [Interval(Real, 0, None, closed="neither"), None],
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "cv": ["cv_object"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        noise_type="I",
        noise_level=0.35,
        *,
        scaling="keep",
        factor=None,
        estimator=None,
        cv=5,
        random_state=None,
    ):
        self.noise_type = noise_type
        self.noise_level = noise_level
        self.scaling = scaling
        self.factor = factor
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
        y_noisy : ndarray or pandas Series of shape (n_samples,)
            A Series where `y` is one (same index and name).
        """
        _check_amount(self.noise_level, self.factor, self.scaling)
        _check_lengths(X, y)
        _encode(y)  # the user's labels are checked before the posterior's folds
        rng = check_random_state(self.random_state)
        proba = estimate_posterior(
            X, y, estimator=self.estimator, cv=self.cv, random_state=rng
        )
        return X, _like_y(y, self._corrupt(y, proba, rng))

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
        noise_level, factor = _check_amount(self.noise_level, self.factor, self.scaling)
        noisy, self.flip_probability_, self.scale_ = _pmd_flip_encoded(
            encoded, proba, self.noise_type, noise_level, self.scaling, factor, rng
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
        y_noisy : ndarray or pandas Series of shape (n_samples,)
            A Series where `y` is one (same index and name).
        """
        self.pmd_ = clone(self.pmd)
        self.iid_ = clone(self.iid)
        _, y_pmd = self.pmd_.fit_resample(X, y)
        return X, _like_y(y, self._record_hybrid(y, self.iid_.corrupt(y_pmd)))

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
