"""Plots of what PLC did (needs matplotlib: ``pip install sklearn-plc[plot]``)."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["plot_correction_history", "plot_corrections_2d", "purity_per_round"]


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(7, 3.5))[1]


def purity_per_round(plc, y_noisy, y_clean):
    """Label purity after each record of ``plc.history_``, from ``corrections_``.

    Parameters
    ----------
    plc : PLCClassifier
        A fitted PLC model.
    y_noisy : array-like of shape (n_samples,)
        The labels it was fitted on.
    y_clean : array-like of shape (n_samples,)
        The true labels.

    Returns
    -------
    purity : ndarray of shape (``len(plc.history_)``,)
        Fraction of labels equal to ``y_clean`` after each round, and after
        the undo where the run set its corrections back (the last record,
        ``"undo": True``, which is not a round): the last entry is the
        purity of ``plc.labels_``.

    Raises
    ------
    ValueError
        If the label arrays do not match the fitted model's samples.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from sklearn_plc import PLCClassifier
    >>> from sklearn_plc.plotting import purity_per_round
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> y_noisy = np.where(np.arange(200) < 20, 1 - y, y)
    >>> plc = PLCClassifier(random_state=0).fit(X, y_noisy)
    >>> bool(purity_per_round(plc, y_noisy, y)[-1] == np.mean(plc.labels_ == y))
    True
    """
    check_is_fitted(plc, "history_")
    labels = np.array(y_noisy, copy=True)
    y_clean = np.asarray(y_clean)
    if labels.shape != plc.labels_.shape or y_clean.shape != labels.shape:
        raise ValueError(
            f"y_noisy and y_clean must have one label per training sample of the "
            f"fitted model ({plc.labels_.shape[0]}); got {labels.shape[0]} and "
            f"{y_clean.shape[0]}."
        )
    log = plc.corrections_
    purity = np.empty(len(plc.history_))
    for round_index in range(purity.shape[0]):
        in_round = log["round"] == round_index
        labels[_positions(log)[in_round]] = log["to"][in_round]
        purity[round_index] = np.mean(labels == y_clean)
    return purity


def plot_correction_history(plc, *, y_noisy=None, y_clean=None, ax=None):
    """Threshold and corrections per round (epoch); purity too, given clean labels.

    Parameters
    ----------
    plc : PLCClassifier
        A fitted PLC model.
    y_noisy, y_clean : array-like of shape (n_samples,), default=None
        The labels it was fitted on and the true ones. With both, each round's
        bar is split into corrections to the clean label and to a wrong one,
        and the label purity per round is drawn.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure if None.

    Returns
    -------
    ax : matplotlib Axes
        The axes with the bars; the threshold (and purity) share a twin axis.

    Raises
    ------
    ValueError
        If only one of `y_noisy` and `y_clean` is given.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import make_classification
    >>> from sklearn_plc import PLCClassifier
    >>> from sklearn_plc.plotting import plot_correction_history
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> ax = plot_correction_history(PLCClassifier(random_state=0).fit(X, y))
    """
    check_is_fitted(plc, "history_")
    if (y_noisy is None) != (y_clean is None):
        raise ValueError("Pass both y_noisy and y_clean to show purity, or neither.")
    ax = _axes(ax)
    rounds = np.arange(len(plc.history_))  # an undo is a record after the rounds
    counts = np.array([record["n_corrected"] for record in plc.history_])
    if y_clean is None:
        ax.bar(rounds, counts, color="C0", label="labels corrected")
    else:
        log = plc.corrections_
        to_clean = log["to"] == np.asarray(y_clean)[_positions(log)]
        right = np.bincount(log["round"][to_clean], minlength=rounds.shape[0])
        ax.bar(rounds, right, color="C2", label="corrected to the clean label")
        ax.bar(
            rounds,
            counts - right,
            bottom=right,
            color="C3",
            label="corrected to a wrong label",
        )
    ax.set_xlabel("round (epoch for a net)")
    ax.set_ylabel("labels corrected")
    twin = ax.twinx()
    twin.plot(rounds, [r["threshold"] for r in plc.history_], "k.-", label="threshold")
    if y_clean is not None:
        twin.plot(
            rounds,
            purity_per_round(plc, y_noisy, y_clean),
            "C1.-",
            label="label purity",
        )
    twin.set_ylim(0, 1.05)
    twin.set_ylabel("threshold / purity")
    handles = ax.get_legend_handles_labels()
    twin_handles = twin.get_legend_handles_labels()
    ax.legend(
        handles[0] + twin_handles[0],
        handles[1] + twin_handles[1],
        loc="upper right",
        fontsize="small",
    )
    return ax


def plot_corrections_2d(
    X, y_clean, y_noisy, y_corrected, *, estimator=None, threshold=0.3, ax=None
):
    """A 2-D view in the spirit of the paper's Figure 1.

    Points are coloured by their clean class. Corrupted labels that PLC fixed
    are ringed black, labels still wrong are ringed red, and a magenta cross
    marks right labels PLC made wrong. With `estimator`, the region where it is
    confident enough to correct at `threshold` (top-two probability ratio below
    it) is shaded.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Two features.
    y_clean, y_noisy, y_corrected : array-like of shape (n_samples,)
        True, given and corrected labels.
    estimator : fitted classifier with predict_proba, default=None
        E.g. the fitted ``PLCClassifier``; shades its confident region.
    threshold : float, default=0.3
        The ratio threshold that defines the confident region.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure if None.

    Returns
    -------
    ax : matplotlib Axes

    Raises
    ------
    ValueError
        If X does not have exactly two columns.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sklearn.datasets import make_blobs
    >>> from sklearn_plc import PLCClassifier
    >>> from sklearn_plc.plotting import plot_corrections_2d
    >>> X, y = make_blobs(200, centers=[[-2, 0], [2, 0]], random_state=0)
    >>> y_noisy = np.where(np.abs(X[:, 0]) < 1, 1 - y, y)
    >>> plc = PLCClassifier(random_state=0).fit(X, y_noisy)
    >>> ax = plot_corrections_2d(X, y, y_noisy, plc.labels_, estimator=plc)
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have exactly 2 columns to plot; got shape {X.shape}.")
    y_clean, y_noisy, y_corrected = map(np.asarray, (y_clean, y_noisy, y_corrected))
    ax = _axes(ax)
    if estimator is not None:
        pad = 0.5
        xx, yy = np.meshgrid(
            np.linspace(X[:, 0].min() - pad, X[:, 0].max() + pad, 200),
            np.linspace(X[:, 1].min() - pad, X[:, 1].max() + pad, 200),
        )
        proba = np.sort(estimator.predict_proba(np.c_[xx.ravel(), yy.ravel()]), axis=1)
        confident = proba[:, -2] < threshold * proba[:, -1]
        ax.contourf(
            xx, yy, confident.reshape(xx.shape), levels=[0.5, 1.5], colors=["0.88"]
        )
    _, colour = np.unique(y_clean, return_inverse=True)
    ax.scatter(X[:, 0], X[:, 1], c=colour, cmap="tab10", s=9, vmin=0, vmax=9)
    fixed = (y_noisy != y_clean) & (y_corrected == y_clean)
    still_wrong = (y_noisy != y_clean) & (y_corrected != y_clean)
    damaged = (y_noisy == y_clean) & (y_corrected != y_clean)
    for mask, colour_name, label in (
        (fixed, "black", f"corrupted, fixed ({fixed.sum()})"),
        (still_wrong, "red", f"corrupted, still wrong ({still_wrong.sum()})"),
    ):
        ax.scatter(
            X[mask, 0],
            X[mask, 1],
            facecolors="none",
            edgecolors=colour_name,
            s=36,
            linewidths=1,
            label=label,
        )
    ax.scatter(
        X[damaged, 0],
        X[damaged, 1],
        marker="x",
        c="magenta",
        s=30,
        label=f"made wrong ({damaged.sum()})",
    )
    ax.legend(loc="best", fontsize="small")
    return ax


def _positions(corrections):
    """The rows of the corrections, as positions (``PLCCallback``'s are already)."""
    return corrections.get("position", corrections["sample"])
