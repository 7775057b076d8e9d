"""Labels drawn at random, told apart from a model's own confusions.

A model too weak to judge a label (or one that does not memorise) disagrees
with many labels that are right: its own errors. Those land on the classes it
confuses with the right one, and so do feature-dependent flips. A label drawn
at random, as uniform noise draws it, lands on any other class, most often one
the model finds implausible for the sample. So each disputed label (one that
is not the model's top class) is read as a draw from a mixture of two sources:

- the model's confusion: the label's share of the probability the model puts
  outside its top class;
- a random draw among the other ``n_classes - 1`` classes.

The mixture's weight is fitted by expectation-maximisation, and a dispute more
likely drawn at random than confused (posterior above ½) is a wrong label the
model can spot without knowing the right class. Under feature-dependent noise
the weight stays near zero and nothing is spotted. In two classes the two
sources are the same, and nothing is read.

The probabilities are floored at their resolution: a model that counts votes
(k-NN, a forest) cannot say less than one vote, so a class it gives no vote
is below its resolution, not impossible.
"""

import numpy as np

from ._thresholds import PROBABILITY_FLOOR


def probability_resolution(proba, floor=PROBABILITY_FLOOR):
    """The smallest positive probability in `proba`, and at least `floor`.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        Held-out class probabilities.
    floor : float
        The least resolution returned.

    Returns
    -------
    resolution : float
    """
    positive = proba[proba > 0]
    return max(float(positive.min()), floor) if positive.size else floor


def confused_likelihood(proba, given, smoothing):
    """Each label's share of the probability outside the model's top class.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        Held-out class probabilities.
    given : ndarray of shape (n_samples,)
        Each sample's probability of its given label.
    smoothing : float
        Added to every probability (its resolution).
    """
    n_classes = proba.shape[1]
    outside_top = 1.0 - proba.max(axis=1)
    return (given + smoothing) / (outside_top + (n_classes - 1) * smoothing)


def random_label_posterior(proba, labels, smoothing, max_iter=1000, tol=1e-7):
    """The share of disputes drawn at random, and each dispute's posterior.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        Held-out class probabilities, ``n_classes >= 3``.
    labels : ndarray of int of shape (n_samples,)
        The given labels, encoded.
    smoothing : float
        Added to every probability before it is read (its resolution).
    max_iter : int
        Most expectation-maximisation steps.
    tol : float
        Stop once the share moves less than this.

    Returns
    -------
    share : float
        The fitted share of the disputed labels drawn at random (0 without
        disputes; NaN where every dispute is as likely confused as drawn at
        random: the probabilities carry no evidence).
    disputed : ndarray of bool of shape (n_samples,)
        The labels that are not the model's top class (a tie counts for the
        label).
    posterior : ndarray of float of shape (n_disputed,)
        For each disputed label, the probability that it was drawn at random.
    """
    n_samples, n_classes = proba.shape
    given = proba[np.arange(n_samples), labels]
    disputed = (proba > given[:, None]).any(axis=1)
    rows = np.flatnonzero(disputed)
    if rows.size == 0:
        return 0.0, disputed, np.zeros(0)
    confused = confused_likelihood(proba[rows], given[rows], smoothing)
    uniform = 1.0 / (n_classes - 1)
    # a label the model's confusion makes no less likely than a random draw
    # is no evidence of one (a model with hard 0/1 probabilities gives none)
    confused = np.where(np.isclose(confused, uniform), uniform, confused)
    if (confused == uniform).all():
        return float("nan"), disputed, np.zeros(rows.size)
    share = 0.5
    for _ in range(max_iter):
        posterior = share * uniform / (share * uniform + (1.0 - share) * confused)
        previous, share = share, float(posterior.mean())
        if abs(share - previous) < tol:
            break
    return share, disputed, posterior


def share_standard_error(share, confused, n_classes):
    """One standard error of the fitted share, from its observed information.

    The disputes' log-likelihood under the mixture, as a function of the share
    alone (the two sources are fixed by the probabilities), has the observed
    information ``sum(((u - c) / (share * u + (1 - share) * c)) ** 2)``, with
    ``u`` the random draw's likelihood and ``c`` each dispute's confused one. A
    dispute whose two likelihoods are equal carries none: few informative
    disputes leave the share uncertain, however far from ½ it lands.

    Parameters
    ----------
    share : float
        The fitted share (:func:`random_label_posterior`).
    confused : ndarray of shape (n_disputed,)
        Each dispute's likelihood under the model's confusion
        (:func:`confused_likelihood`).
    n_classes : int

    Returns
    -------
    standard_error : float
        Infinite where no dispute carries information.
    """
    uniform = 1.0 / (n_classes - 1)
    mixture = share * uniform + (1.0 - share) * confused
    information = float(np.sum(((uniform - confused) / mixture) ** 2))
    return 1.0 / np.sqrt(information) if information > 0 else float("inf")


def _read_disputes(proba, labels):
    """The mixture read off the disputes, shared by the two readers below.

    Returns None in fewer than three classes; else ``(share, rows, posterior,
    confused)``: the fitted share (NaN where the probabilities carry no
    evidence, and then nothing else is read), the disputed samples, each
    one's posterior of a random draw, and its likelihood under the model's
    confusion (:func:`confused_likelihood`).
    """
    if proba.shape[1] < 3:
        return None
    smoothing = probability_resolution(proba)
    share, disputed, posterior = random_label_posterior(proba, labels, smoothing)
    if np.isnan(share):
        return share, None, None, None
    rows = np.flatnonzero(disputed)
    confused = confused_likelihood(proba[rows], proba[rows, labels[rows]], smoothing)
    return share, rows, posterior, confused


def random_label_share(proba, labels):
    """The share of the disputes drawn at random, with its standard error.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        Held-out class probabilities.
    labels : ndarray of int of shape (n_samples,)
        The given labels, encoded.

    Returns
    -------
    share : float or None
        As :func:`random_labels` reads it; None in fewer than three classes.
    standard_error : float or None
        :func:`share_standard_error`; None where the share is None or NaN,
        and 0 where nothing is disputed.
    """
    read = _read_disputes(np.asarray(proba, dtype=float), labels)
    if read is None:
        return None, None
    share, rows, _, confused = read
    if rows is None:
        return share, None
    if rows.size == 0:
        return share, 0.0
    return share, share_standard_error(share, confused, np.shape(proba)[1])


def random_labels(proba, labels):
    """The disputed labels more likely drawn at random than confused.

    A dispute is spotted where its posterior of a random draw is above ½ and
    its label is less likely under the model's confusion than drawn at
    random, so that its own probabilities, not a share above ½ alone, point
    to a random label.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        Held-out class probabilities.
    labels : ndarray of int of shape (n_samples,)
        The given labels, encoded.

    Returns
    -------
    random : ndarray of bool of shape (n_samples,)
        All False in fewer than three classes.
    share : float or None
        The fitted share of the disputed labels drawn at random
        (:func:`random_label_posterior`); None in fewer than three classes.
    """
    n_samples, n_classes = proba.shape
    random = np.zeros(n_samples, dtype=bool)
    read = _read_disputes(proba, labels)
    if read is None:
        return random, None
    share, rows, posterior, confused = read
    if rows is None:
        return random, share
    # the sample's own probabilities must point to a random draw, whatever the
    # share: its label less likely under the model's confusion than at random
    evident = confused < 1.0 / (n_classes - 1)
    random[rows[(posterior > 0.5) & evident]] = True
    return random, share
