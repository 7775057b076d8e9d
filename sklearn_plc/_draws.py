"""Random splits that stay put where a few labels change or are verified.

A refit after a review (a few labels replaced by the reviewer's and marked
``trusted``) should be the same run except where the reviewed labels matter.
A shuffled scikit-learn splitter draws a permutation of the samples it is
given, so one sample more or less among them, or one label changed, draws
every fold anew, and the run's verdicts (on the validation samples, on the
halves) are taken on other samples: a refit that confirms 25 right labels
ended differently from the fit before it in half the runs of a forest.

Here each sample gets a key (:func:`sample_keys`), a pure function of the
run's seed and of the sample's identity (its row in the data given to
``fit``, which a half's run keeps), and the samples of each class are split
by the rank of their keys within the class (:func:`within_class_quantiles`):
the same stratified draw as a shuffled splitter's, in which a changed label
or a sample more moves at most one sample of a class across each boundary.
"""

import numpy as np

# splitmix64's constants (Steele, Lea and Flood, 2014)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


def sample_keys(seed, ids):
    """One key in [0, 1) per sample, a function of `seed` and the sample's id only.

    splitmix64 of the seed's and the id's sum: keys of different ids are
    independent uniform draws, and a sample keeps its key in any subset of
    the data (a half's run, a refit with fewer samples to split).

    Parameters
    ----------
    seed : int >= 0
    ids : ndarray of int of shape (n_samples,)

    Returns
    -------
    keys : ndarray of float of shape (n_samples,)
    """
    offset = np.uint64((int(seed) * int(_MIX_2)) % 2**64)
    state = np.asarray(ids, dtype=np.uint64) * _GOLDEN + offset
    state = (state ^ (state >> np.uint64(30))) * _MIX_1
    state = (state ^ (state >> np.uint64(27))) * _MIX_2
    state ^= state >> np.uint64(31)
    return (state >> np.uint64(11)).astype(np.float64) / float(2**53)


def within_class_quantiles(keys, encoded):
    """Each sample's place among its class's samples, ordered by key: in (0, 1).

    ``(rank + 1/2) / n_class``: a class's samples spread evenly over (0, 1),
    in the random order of their keys (ties by position). Splitting at a
    quantile stratifies by class; a class of one sample sits at 1/2.
    """
    order = np.lexsort((keys, encoded))
    sorted_classes = encoded[order]
    starts = np.flatnonzero(np.r_[True, sorted_classes[1:] != sorted_classes[:-1]])
    sizes = np.diff(np.r_[starts, order.shape[0]])
    rank = np.arange(order.shape[0]) - np.repeat(starts, sizes)
    quantiles = np.empty(order.shape[0])
    quantiles[order] = (rank + 0.5) / np.repeat(sizes, sizes)
    return quantiles


def stratified_blocks(keys, encoded, n_blocks):
    """Each sample's block, 0 to ``n_blocks - 1``: its class's key order cut evenly.

    The blocks of a shuffled ``StratifiedKFold``: each class's samples spread
    over the blocks as evenly as they divide.
    """
    quantiles = within_class_quantiles(keys, encoded)
    return np.minimum((quantiles * n_blocks).astype(np.intp), n_blocks - 1)


def draw_seed(rng):
    """A seed for :func:`sample_keys`, one draw from the run's `rng`."""
    return int(rng.randint(2**31 - 1))
