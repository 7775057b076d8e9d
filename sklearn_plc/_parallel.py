"""Running PLC's parallel pieces on a cluster through joblib, with no cluster code.

Every parallel piece of a fit (the folds of out-of-fold confidence) is a joblib
``Parallel`` call, so ``with joblib.parallel_config(backend="dask"):`` (Dask
distributed) or Ray's joblib backend spreads it over a cluster. The only thing
PLC adds is to send the training data once per fit: joblib's Dask backend
scatters a large argument once per ``Parallel`` call, which for PLC is once per
round; :func:`data_sent_once` scatters it once for the whole fit instead.
"""

from contextlib import contextmanager

from joblib import parallel_config
from joblib.parallel import get_active_backend

# joblib's Dask backend only scatters objects larger than this (bytes).
_SCATTER_MIN_BYTES = 1e3


def _is_dask_backend(backend):
    return type(backend).__name__ == "DaskDistributedBackend"


@contextmanager
def data_sent_once(*arrays):
    """Within the block, joblib's Dask backend reuses one copy of `arrays` per worker.

    Outside a Dask ``parallel_config`` (or for small arrays) this does nothing.
    The arrays are identified by ``id``, so they must be the very objects passed
    to the parallel calls inside the block.

    Parameters
    ----------
    *arrays : array-like
        The read-only inputs of every parallel call in the block: X, and the
        folds' index arrays, which are the same in every round.
    """
    backend, _ = get_active_backend()
    large = [a for a in arrays if getattr(a, "nbytes", 0) > _SCATTER_MIN_BYTES]
    if not _is_dask_backend(backend) or not large:
        yield
        return
    with parallel_config(backend="dask", scatter=large):
        yield
