"""The clean posterior ``η(x)`` that PMD noise needs, estimated out of fold."""

from numbers import Integral

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, check_cv, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_array, check_random_state


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
        From cross-validation, e.g. when a class has fewer samples than `cv`;
        with the default estimator, features that are not numbers (text, say).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_plc.noise import estimate_posterior
    >>> X, y = load_iris(return_X_y=True)
    >>> estimate_posterior(X, y, random_state=0).shape
    (150, 3)
    """
    if estimator is None:
        _check_numeric_features(X)
        estimator = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    if isinstance(cv, Integral):
        classes, counts = np.unique(np.asarray(y), return_counts=True)
        if counts.min() < cv:
            smallest = int(counts.argmin())
            name = classes[smallest].tolist()
            raise ValueError(
                f"class {name!r} has {counts[smallest]} samples, fewer "
                f"than the cv={cv} folds that estimate the clean posterior "
                f"out of fold; pass a smaller cv (at least 2), or corrupt(y, proba) "
                f"with a posterior of your own."
            )
        seed = check_random_state(random_state).randint(2**31 - 1)
        cv = StratifiedKFold(n_splits=cv, shuffle=True, random_state=seed)
    cv = check_cv(cv, y, classifier=True)
    return cross_val_predict(clone(estimator), X, y, cv=cv, method="predict_proba")


def _check_numeric_features(X):
    """Raise, naming the fix, where the default model cannot read `X` (text, say)."""
    try:
        check_array(X, accept_sparse=True, dtype="numeric", ensure_all_finite=False)
    except (ValueError, TypeError) as error:
        raise ValueError(
            f"The default model that estimates the clean posterior (a scaled "
            f"logistic regression) needs a 2-D array of numeric features, and X is "
            f"not one ({str(error).splitlines()[0]}). Pass estimator= a classifier "
            f"that reads your X, "
            f"e.g. make_pipeline(TfidfVectorizer(), LogisticRegression()) for "
            f"text."
        ) from error
