"""i.i.d. (class-conditional) label noise: transition matrices and sampling."""

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from ._validation import _check_noise_level, _encode


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
    # Python scalars (an object array's elements already are: no .item())
    names = classes.tolist()
    if isinstance(mapping, str):
        if mapping != "next":
            raise ValueError(f"mapping must be a dict or 'next'; got {mapping!r}.")
        mapping = {names[i]: names[(i + 1) % n_classes] for i in range(n_classes)}
    index = {name: i for i, name in enumerate(names)}
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


def _check_transition_matrix(
    transition_matrix,
    n_classes=None,
    fix="pass classes= to fix their order and include classes y lacks",
):
    matrix = np.asarray(transition_matrix, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(
            f"transition_matrix must be square (n_classes x n_classes); got shape "
            f"{matrix.shape}."
        )
    if n_classes is not None and matrix.shape[0] != n_classes:
        raise ValueError(
            f"transition_matrix is {matrix.shape[0]} x {matrix.shape[0]} but there "
            f"are {n_classes} classes; give one row and column per class ({fix})."
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
