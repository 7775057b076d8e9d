"""The maths of PMD noise: the noise functions, their two scalings, the flips.

With ``u`` and ``s`` the classes of largest and second-largest clean posterior
``η(x)`` and the margin ``g = η_u − η_s``, a sample labelled ``u`` is flipped to
``s`` with a probability that decreases in ``g``. The paper's three noise
functions ``τ(g)`` give the shape; a constant sets the level, in one of two ways:

- ``scaling="keep"`` (the authors' scripts, which made the noisy labels behind
  the paper's Tables 1–2): the probability of *keeping* ``u``,
  ``k = 1 − τ`` (Type-I: ``max(1 − τ, ½)``), is divided by a factor ``F ≥ 1``:
  ``P(flip) = 1 − k / F``. Every sample can flip (at least ``1 − 1/F``), those
  near the boundary more often. Below the level reached at ``F = 1`` (where
  ``P(flip) = τ``), ``τ`` is scaled down instead: ``P(flip) = c τ`` with
  ``c ≤ 1``. One number, the *scale*, covers both branches: ``c`` below 1,
  ``F`` from 1 up, and the flip probabilities are continuous and increasing in
  it.
- ``scaling="flip"`` (the paper's sentence "we multiply τ by a constant
  factor"): ``P(flip) = min(1, c τ)``. At high levels this saturates a band at
  the boundary, where the noisy majority is then the wrong class.
"""

from numbers import Real

import numpy as np
from sklearn.utils import check_random_state

from ._validation import (
    _check_noise_level,
    _check_posterior,
    _check_posterior_values,
    _encode,
)

PMD_TYPES = ("I", "II", "III")
SCALINGS = ("keep", "flip")
_BLOCK_BYTES = 1 << 19  # bytes per block of rows: small enough to stay in cache


def pmd_tau(margin, noise_type):
    r"""The PMD noise function ``τ(g)`` of the paper, before scaling.

    With :math:`g = \eta_u - \eta_s` the margin between the two largest clean
    posteriors:

    .. math::

        \tau_{\mathrm{I}}(g) = -\tfrac12 g^2 + \tfrac12, \qquad
        \tau_{\mathrm{II}}(g) = 1 - g^3, \qquad
        \tau_{\mathrm{III}}(g) = 1 - \tfrac13\,(g^3 + g^2 + g).

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


def pmd_keep_probability(margin, noise_type):
    """Probability of keeping the label ``u`` before scaling, as in the scripts.

    Parameters
    ----------
    margin : array-like of float
        ``g = η_u − η_s``, in [0, 1].
    noise_type : {"I", "II", "III"}
        Which noise function ``τ`` (see :func:`pmd_tau`).

    Returns
    -------
    keep : ndarray of float
        ``1 − τ(g)``; for Type-I ``max(1 − τ(g), ½)``, which changes nothing
        since Type-I ``τ ≤ ½``. ``scaling="keep"`` flips with probability
        ``1 − keep / F``.

    Examples
    --------
    >>> from sklearn_plc.noise import pmd_keep_probability
    >>> pmd_keep_probability([0.0, 1.0], "II")
    array([0., 1.])
    """
    keep = 1.0 - pmd_tau(margin, noise_type)
    return np.maximum(keep, 0.5) if noise_type == "I" else keep


def _top_two(proba):
    """Classes of the largest and second-largest entry of each row, and their gap.

    Also checks the posterior's values (`_check_posterior_values`) in the same
    pass: each block of rows is copied once into a small reused buffer, which
    stays in cache for the row sums, the minimum and both arg-maxes.
    """
    n_samples, n_classes = proba.shape
    top = np.empty(n_samples, dtype=np.intp)
    second = np.empty(n_samples, dtype=np.intp)
    gap = np.empty(n_samples, dtype=np.float64)
    row_sums = np.empty(n_samples, dtype=proba.dtype)
    lowest = np.inf
    block_rows = max(1, _BLOCK_BYTES // (n_classes * proba.dtype.itemsize))
    block = np.empty((block_rows, n_classes), dtype=proba.dtype)
    all_rows = np.arange(block_rows)
    for start in range(0, n_samples, block_rows):
        stop = min(start + block_rows, n_samples)
        chunk, rows = block[: stop - start], all_rows[: stop - start]
        np.copyto(chunk, proba[start:stop])  # a copy to mask
        chunk.sum(axis=1, out=row_sums[start:stop])
        lowest = min(lowest, chunk.min(initial=np.inf))
        first = chunk.argmax(axis=1)
        first_value = chunk[rows, first].astype(np.float64)
        chunk[rows, first] = -np.inf
        runner_up = chunk.argmax(axis=1)
        top[start:stop] = first
        second[start:stop] = runner_up
        gap[start:stop] = first_value - chunk[rows, runner_up]
    _check_posterior_values(row_sums, lowest)
    return top, second, gap


def _unreachable(noise_level, largest, why):
    return ValueError(
        f"noise_level={noise_level} is not reachable with PMD noise on this "
        f"posterior; the largest reachable level is {largest:.4f} ({why}). Use a "
        f"lower noise_level, or a less confident posterior (e.g. out-of-fold "
        f"predictions)."
    )


def _solve_flip_scale(tau, noise_level, n_samples):
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
        raise _unreachable(
            noise_level,
            positive.shape[0] / n_samples,
            "the share of samples labelled with their most likely class u and "
            "with τ > 0",
        )
    saturated = np.arange(positive.shape[0])
    rest = np.cumsum(positive[::-1])[::-1]  # Σ_{i >= j} τ_i
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = (target - saturated) / rest
    consistent = (target - saturated > 0) & (scale * positive <= 1.0)
    if not consistent.any():  # every positive τ saturates exactly
        return 1.0 / positive[-1]
    return float(scale[np.argmax(consistent)])


def _solve_keep_scale(keep, noise_level, n_samples):
    """The scale at which ``scaling="keep"`` flips ``noise_level · n`` labels.

    `keep` holds ``k`` of the samples labelled ``u`` only. The expected number of
    flips is ``c Σ (1 − k)`` for a scale ``c ≤ 1`` and ``n_u − Σ k / F`` for
    ``F ≥ 1``; each is solved in closed form. The largest level, ``n_u / n``,
    needs ``F = ∞`` (every sample labelled ``u`` flips).
    """
    target = noise_level * n_samples
    if target == 0:
        return 0.0
    at_one = float(np.sum(1.0 - keep))  # flips at c = F = 1
    if target <= at_one:
        return target / at_one
    n_u = keep.shape[0]
    if target > n_u * (1 + 1e-12):
        raise _unreachable(
            noise_level,
            n_u / n_samples,
            "the share of samples labelled with their most likely class u, all "
            "of which then flip",
        )
    if n_u - target <= 1e-9 * n_samples:
        return np.inf
    return float(np.sum(keep)) / (n_u - target)


def _flip_probability_at_scale(tau, keep, scale, scaling):
    """``P(flip)`` of samples labelled ``u`` at a given scale (see module doc)."""
    if scaling == "flip":
        return np.minimum(1.0, scale * tau)
    if scale <= 1.0:
        return scale * (1.0 - keep)
    return 1.0 - keep / scale  # 1 for scale = inf


def _check_amount(noise_level, factor, scaling):
    """Validate the two ways to set the amount of noise; exactly one is given."""
    if scaling not in SCALINGS:
        raise ValueError(f"scaling must be one of {SCALINGS}; got {scaling!r}.")
    if (noise_level is None) == (factor is None):
        raise ValueError(
            "Give exactly one of noise_level (the expected fraction of flipped "
            "labels, for which the scale is solved) and factor (a fixed scale, e.g. "
            f"the scripts' F=1.2); got noise_level={noise_level!r} and "
            f"factor={factor!r}. Pass noise_level=None to use a factor."
        )
    if factor is not None and (not isinstance(factor, Real) or not 0 < factor < np.inf):
        raise ValueError(f"factor must be a finite number > 0; got {factor!r}.")
    if noise_level is not None:
        noise_level = _check_noise_level(noise_level)
    return noise_level, factor


def pmd_flip_probability(
    labels, proba, *, noise_type, noise_level=None, scaling="keep", factor=None
):
    """Per-sample flip probability of PMD noise, at a noise level or a fixed scale.

    Parameters
    ----------
    labels : array-like of int of shape (n_samples,)
        Clean labels as column indices into `proba`.
    proba : array-like of shape (n_samples, n_classes)
        The clean posterior ``η(x)``; rows sum to 1.
    noise_type : {"I", "II", "III"}
        Which PMD noise function (see :func:`pmd_tau`).
    noise_level : float in [0, 1] or None, default=None
        Expected fraction of all samples to flip; the scale is solved for it.
        Give this or `factor`.
    scaling : {"keep", "flip"}, default="keep"
        ``"keep"``: the authors' scripts, ``P(flip) = 1 − k / F`` with the keep
        probability ``k`` of :func:`pmd_keep_probability` (``c τ``, ``c ≤ 1``,
        below the level of ``F = 1``). ``"flip"``: the paper's sentence,
        ``min(1, c τ)``.
    factor : float > 0 or None, default=None
        A fixed scale instead of a level: ``F`` (from 1 up) or ``c`` (below 1)
        for ``"keep"``, ``c`` for ``"flip"``. The scripts use ``F = 1.2``.

    Returns
    -------
    flip_probability : ndarray of float64 of shape (n_samples,)
        Each sample's probability of being flipped; 0 for samples not labelled
        with their most likely class ``u``.
    target : ndarray of int of shape (n_samples,)
        The class ``s`` each sample would be flipped to.
    scale : float
        The scale used: `factor`, or the one solved for `noise_level`.

    Raises
    ------
    ValueError
        If the noise level cannot be reached (the message gives the largest
        reachable level), both or neither of `noise_level` and `factor` are
        given, or `proba` is not a valid posterior.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_plc.noise import pmd_flip_probability
    >>> proba = np.array([[0.55, 0.45], [0.95, 0.05], [0.3, 0.7]])
    >>> p, target, scale = pmd_flip_probability(
    ...     [0, 0, 1], proba, noise_type="I", factor=1.2)
    >>> np.round(p, 3), target
    (array([0.579, 0.246, 0.517]), array([1, 1, 0]))
    """
    noise_level, factor = _check_amount(noise_level, factor, scaling)
    labels = np.asarray(labels)
    proba = _check_posterior(proba, labels.shape[0], np.asarray(proba).shape[1])
    return _pmd_flip_probability(
        labels, proba, noise_type, noise_level, scaling, factor
    )


def _pmd_flip_probability(labels, proba, noise_type, noise_level, scaling, factor):
    top, second, gap = _top_two(proba)
    is_top = labels == top
    tau = pmd_tau(gap[is_top], noise_type)
    keep = pmd_keep_probability(gap[is_top], noise_type)
    if factor is not None:
        scale = float(factor)
    elif scaling == "flip":
        scale = _solve_flip_scale(tau, noise_level, labels.shape[0])
    else:
        scale = _solve_keep_scale(keep, noise_level, labels.shape[0])
    flip_probability = np.zeros(labels.shape[0])
    flip_probability[is_top] = _flip_probability_at_scale(tau, keep, scale, scaling)
    return flip_probability, second, scale


def pmd_flip_labels(
    y,
    proba,
    *,
    noise_type="I",
    noise_level=0.35,
    scaling="keep",
    factor=None,
    classes=None,
    random_state=None,
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
    noise_level : float in [0, 1] or None, default=0.35
        Expected fraction of labels to flip. None to use `factor` instead.
    scaling : {"keep", "flip"}, default="keep"
        How the level is set (see :func:`pmd_flip_probability`).
    factor : float > 0 or None, default=None
        A fixed scale instead of `noise_level` (e.g. the scripts' 1.2).
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
        reachable level), both or neither of `noise_level` and `factor` are
        given, `proba` has the wrong shape, negative entries or rows not
        summing to 1, or `y` holds a label not in `classes`.

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
    noise_level, factor = _check_amount(noise_level, factor, scaling)
    classes, encoded = _encode(y, classes)
    noisy, _, _ = _pmd_flip_encoded(
        encoded,
        _check_posterior(proba, encoded.shape[0], classes.shape[0]),
        noise_type,
        noise_level,
        scaling,
        factor,
        check_random_state(random_state),
    )
    return classes[noisy]


def _pmd_flip_encoded(encoded, proba, noise_type, noise_level, scaling, factor, rng):
    """Return ``(noisy labels, flip probability, scale)`` on encoded labels."""
    flip_probability, target, scale = _pmd_flip_probability(
        encoded, proba, noise_type, noise_level, scaling, factor
    )
    flip = rng.uniform(size=encoded.shape[0]) < flip_probability
    return np.where(flip, target, encoded), flip_probability, scale
